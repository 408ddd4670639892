"""Notebook 10's exercise — measuring memory: evidence recall computed by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.formatting import shorten
from ..core.trace import Trace, run
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_evidence_recall"]


def check_evidence_recall(
    evidence_recall: Callable[[Trace, Any], Any], scenario: str = "long_dialogue", v_max: int = 300
) -> ExerciseReport:
    """Notebook 10: the evidence word overlap computed by hand, |C(T(S_p)) ∩ C(X_t)| / |C(T(S_p))|.

    Compared with :func:`stmviz.metrics.evidence_word_overlap` (the bag-of-words measure; the
    default :func:`stmviz.metrics.evidence_recall` counts the evidence's 4-grams) on every probe of
    ``scenario`` for FIFO, SCM, HiAgent and AgentFold at ``v_max``. A value that
    differs is matched against the usual slips (raw words instead of content
    words, the state ω_t instead of the model input π(ω_t), the final input,
    a count instead of a share, 0 instead of None) so that the hint names the one made.
    """
    from .. import metrics  # late: keeps this module light for notebooks 01-03
    from ..mechanisms import SCM, AgentFold, FIFOWindow, HiAgent
    from ..scenarios import load_scenario

    c = Checks("10 · evidence recall by hand", {
        "a share": ("every value is a number between 0 and 1, or None",
                    "divide by the number of the evidence's content words: recall is a share, not a count"),
        "no evidence": ("None where the evidence has no content word",
                        "with no content word in the evidence the share is undefined: return None, not 0"),
        "every probe": ("the value equals metrics.evidence_word_overlap on every probe and mechanism",
                        "follow the definition: content words of the evidence steps' texts, against π(ω_t) at t = probe.t"),
    })
    data = load_scenario(scenario)
    traces = [run(cls(data.space(v_max=v_max)), data)
              for cls in (FIFOWindow, SCM, HiAgent, AgentFold)]

    def evidence(trace: Trace, probe: Any) -> str:
        return "\n".join(trace[s].context.step.text for s in probe.evidence_steps)

    def share(found: frozenset[str] | set[str], wanted: frozenset[str] | set[str]) -> float | None:
        return len(found & wanted) / len(wanted) if wanted else None

    slips: dict[str, Callable[[Trace, Any], Any]] = {
        "compare metrics.content_tokens of both texts, not raw words (split() keeps stop words and punctuation)":
            lambda tr, p: share(set(tr.project(p.t).text().split()), set(evidence(tr, p).split())),
        "the model answered from π(ω_t), trace.project(probe.t), not from the state's elements":
            lambda tr, p: share(metrics.content_tokens(" ".join(e.text for e in tr.state_at(p.t))),
                                metrics.content_tokens(evidence(tr, p))),
        "take the model input at the probe's step, trace.project(probe.t), not the last one":
            lambda tr, p: share(metrics.content_tokens(tr.project(len(tr)).text()), metrics.content_tokens(evidence(tr, p))),
        "count the evidence's words that reach π(ω_t), not the input's words":
            lambda tr, p: share(metrics.content_tokens(evidence(tr, p)), metrics.content_tokens(tr.project(p.t).text())),
    }
    try:
        pairs = [(trace, probe) for trace in traces for probe in data.probes]
        got = []
        for trace, probe in pairs:
            ok, value = call_answer(evidence_recall, trace, probe)
            if not ok:
                c.fail("every probe", f"{trace.name}, probe {shorten(probe.answer, 30)!r}: {error_text(value)}")
                return c.report()
            got.append(value)
    except NotImplementedError as exc:
        return c.not_done(exc)
    expected = [metrics.evidence_word_overlap(trace, probe) for trace, probe in pairs]
    for value, (trace, probe) in zip(got, pairs):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1):
            c.fail("a share", f"{trace.name}, probe {shorten(probe.answer, 30)!r}: got {value!r}")
            break
    for value, want, (trace, probe) in zip(got, expected, pairs):
        if want is None and value is not None:
            c.fail("no evidence", f"{trace.name}, probe {shorten(probe.answer, 30)!r}: got {value!r}, its evidence has no content word")
            break
    wrong = [(value, want, pair) for value, want, pair in zip(got, expected, pairs)
             if not (value == want or (isinstance(value, float) and isinstance(want, float) and abs(value - want) < 1e-9))]
    if wrong:
        value, want, (trace, probe) = wrong[0]
        fault = next((hint for hint, slip in slips.items()
                      if all(_same(v, slip(tr, p)) for v, (tr, p) in zip(got, pairs))), None)
        c.fail("every probe", f"{len(wrong)} of {len(pairs)} values differ; first: {trace.name}, probe "
               f"{shorten(probe.answer, 30)!r} at t = {probe.t}: got {value!r}, expected {want!r}", hint=fault)
    return c.report()


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return abs(float(a) - float(b)) < 1e-9
    except (TypeError, ValueError):
        return False
