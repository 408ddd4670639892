"""Which evidence measure tells a kept fact from a lost one? The candidates of issue 27, measured on LoCoMo.

A good measure of "how much of a question's evidence reached the model input
x_t = π(ω_t)" is near 0 where no evidence turn reached x_t, near 1 where all
did, and orders the mechanisms as whole-turn presence does. This script
computes, for every candidate:

1. its mean over the probes whose evidence turns are *all absent* from x_t
   (``whole_turns == 0``) and over those whose turns are *all present*
   (``whole_turns == 1``), with FIFO windows of 2,048 and 8,192 tokens,
   questions appended (the loader's default), on the first five
   conversations;
2. with ``--mechanisms``, its mean per mechanism (FIFO, HiAgent, SCM,
   AgentFold) at V_max = 2,048 on the same conversations, and whether it
   ranks them as ``whole_turns`` does.

The candidates (C, N, G as in :mod:`stmviz.metrics`; E the evidence text,
q the question, X the text of x_t):

- ``word_overlap``: |C(E) ∩ C(X)| / |C(E)| (stmviz's first measure, now
  :func:`stmviz.metrics.evidence_word_overlap`);
- ``idf_words``: the same, each word weighted by idf(w) = log(n / df(w)),
  df counted over the scenario's own steps (rarity in its own text);
- ``distinctive``: |D ∩ C(X)| / |D| with D = C(E) \\ C(q), the evidence's
  words that the question does not hold;
- ``idf_distinctive``: D weighted by idf;
- ``ngrams_2`` … ``ngrams_4``: :func:`stmviz.metrics.evidence_recall` with
  n = 2, 3, 4 (the evidence's n-grams, less the question's, found in N(X));
- ``sentences``: the share of the evidence's sentences whose normalized
  tokens occur in a row in N(X).

LoCoMo (snap-research/locomo, CC BY-NC) is not bundled: download it yourself
and pass the path; this script prints numbers only, never its text::

    python benchmarks/evidence_measures.py /path/to/locomo10.json --mechanisms

With ``--longmemeval`` it reads a LongMemEval file instead (e.g. the test
fixture, with windows small enough for its short chats)::

    python benchmarks/evidence_measures.py tests/scenarios/fixtures/longmemeval_small.json --longmemeval --v-max 40 80 400
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, StateSpace, Trace, run  # noqa: E402
from stmviz import metrics  # noqa: E402
from stmviz.scenarios import load_locomo, load_longmemeval  # noqa: E402

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def idf_table(scenario: Any) -> dict[str, float]:
    """idf(w) = log(n / df(w)) over the scenario's steps (its own text)."""
    documents = [metrics.content_tokens(step.text) for step in scenario.steps]
    df = Counter(word for words in documents for word in words)
    return {word: math.log(len(documents) / count) for word, count in df.items()}


def _weighted(words: frozenset[str], found: frozenset[str], weight: dict[str, float]) -> float | None:
    total = sum(weight.get(w, 0.0) for w in words)
    return sum(weight.get(w, 0.0) for w in words if w in found) / total if total else None


def _share(words: frozenset[str], found: frozenset[str]) -> float | None:
    return len(words & found) / len(words) if words else None


class Candidates:
    """Every candidate measure of one probe on one trace (x_t's tokens computed once per t)."""

    def __init__(self, trace: Trace, idf: dict[str, float]) -> None:
        self.trace, self.idf = trace, idf
        self._words: dict[int, frozenset[str]] = {}
        self._joined: dict[int, str] = {}

    def _input(self, t: int) -> tuple[frozenset[str], str]:
        if t not in self._words:
            text = self.trace.project(t).text()
            self._words[t] = metrics.content_tokens(text)
            self._joined[t] = f" {metrics.normalize_answer(text)} "
        return self._words[t], self._joined[t]

    def measure(self, probe: Any) -> dict[str, float | None]:
        found, joined = self._input(probe.t)
        evidence = metrics.evidence_text(self.trace, probe)
        words = metrics.content_tokens(evidence)
        distinctive = words - metrics.content_tokens(probe.question)
        sentences = [" ".join(metrics.answer_tokens(piece)) for s in probe.evidence_steps
                     for piece in _SENTENCE.split(self.trace[s].context.step.text)]
        sentences = [f" {s} " for s in sentences if s]
        out: dict[str, float | None] = {
            "word_overlap": _share(words, found),
            "idf_words": _weighted(words, found, self.idf),
            "distinctive": _share(distinctive, found),
            "idf_distinctive": _weighted(distinctive, found, self.idf),
        }
        for n in (2, 3, 4):
            out[f"ngrams_{n}"] = metrics.evidence_recall(self.trace, probe, n=n)
        out["sentences"] = sum(s in joined for s in sentences) / len(sentences) if sentences else None
        out["whole_turns"] = metrics.whole_turns(self.trace, probe)
        return out


def _mean(rows: list[dict[str, float | None]], key: str) -> float:
    values = [r[key] for r in rows if r[key] is not None]
    return sum(values) / len(values) if values else float("nan")


def rows_for(factory: Callable[..., Any], scenarios: list[Any], v_max: int) -> list[dict[str, float | None]]:
    rows = []
    for scenario in scenarios:
        trace = run(factory(StateSpace("tokens", v_max)), scenario)
        candidates = Candidates(trace, idf_table(scenario))
        rows.extend(candidates.measure(p) for p in scenario.probes)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", help="locomo10.json (or locomo10.zip, or its folder)")
    parser.add_argument("--conversations", type=int, default=5, help="how many conversations, from the first (5)")
    parser.add_argument("--mechanisms", action="store_true", help="also rank the four mechanisms at the first V_max")
    parser.add_argument("--longmemeval", action="store_true", help="the file is LongMemEval's (one scenario per question)")
    parser.add_argument("--v-max", type=int, nargs="+", default=[2048, 8192], help="FIFO windows (2,048 and 8,192)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    scenarios = (load_longmemeval if args.longmemeval else load_locomo)(args.path)[: args.conversations]
    rows = [row for v_max in args.v_max for row in rows_for(FIFOWindow, scenarios, v_max)]
    keys = [k for k in rows[0] if k != "whole_turns"]
    none = [r for r in rows if r["whole_turns"] == 0]
    every = [r for r in rows if r["whole_turns"] == 1]
    print(f"FIFO at {' and '.join(f'{v:,}' for v in args.v_max)} tokens, {len(scenarios)} scenarios: "
          f"{len(rows)} probes, {len(none)} with no evidence turn in x_t, {len(every)} with all")
    print(f"| measure | mean, no evidence turn present (n = {len(none)}) | mean, all present (n = {len(every)}) |")
    print("|---|---|---|")
    for key in keys:
        print(f"| {key} | {_mean(none, key):.3f} | {_mean(every, key):.3f} |")
    if args.mechanisms:
        factories = {"FIFO": FIFOWindow, "HiAgent": HiAgent, "SCM": SCM, "AgentFold": AgentFold}
        means = {name: rows_for(f, scenarios, args.v_max[0]) for name, f in factories.items()}
        print(f"\nMean per mechanism at V_max = {args.v_max[0]:,} ({len(scenarios)} scenarios); "
              f"✓ = ranks them as whole_turns does")
        print("| measure | " + " | ".join(factories) + " | order |")
        print("|---|" + "---|" * (len(factories) + 1))
        whole = {m: round(_mean(means[m], "whole_turns"), 3) for m in factories}
        order = sorted(factories, key=lambda m: -whole[m])
        ties = len(set(whole.values())) < len(whole)  # then no order to compare with
        for key in ["whole_turns", *keys]:
            values = {m: _mean(means[m], key) for m in factories}
            same = "—" if ties else "✓" if sorted(factories, key=lambda m: -values[m]) == order else "✗"
            print(f"| {key} | " + " | ".join(f"{values[m]:.3f}" for m in factories) + f" | {same} |")
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
