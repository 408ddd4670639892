"""Metrics of an STM mechanism's run, computed from a :class:`~stmviz.Trace`.

The paper defines no metrics of effectiveness or quality and leaves their
choice open; stmviz fills the gap with measures that need no model calls:

- :func:`occupancy` — Σμ(ω_{t+1}) / V_max after each step: how full the store is;
- :func:`prompt_tokens` — |π(ω_t)| per step and cumulated: what a run is billed;
- :func:`evictions` — how many elements left ω, and why;
- :func:`summarizer_calls` — steps that produced a new summary (the rule is below);
- :func:`retention` — for each :class:`~stmviz.scenarios.Probe`, whether its answer
  is in the text of π(ω_t), the model input the question is answered from;
- :func:`summary` — one record per run, and :func:`compare` — one record per
  mechanism on one scenario;
- evidence at question time (below): :func:`evidence_recall`,
  :func:`evidence_word_overlap`, :func:`whole_turns`, :func:`answer_recall`,
  the text helpers :func:`normalize_answer`, :func:`content_tokens`,
  :func:`ngrams`, :func:`token_recall`,
  :func:`token_f1`, the cost :func:`cost_at`, and the records
  :func:`step_metrics` (one per step t), :func:`probe_metrics` (one per probe)
  and :func:`run_metrics` (one per run).

Evidence at question time
-------------------------
A probe p asks its question at t: the answer is produced from the model input
x_t = π(ω_t) (``trace.project(t)``), built from the state after steps
0 … t−1. Its evidence is the text of its evidence steps S_p =
``p.evidence_steps`` (each step's output and input: thought, action,
observation). Write T(s) for the text of step s, X_t for the text of π(ω_t),
and, for a text y,

- N(y), the **normalized tokens** of y (SQuAD's answer normalization):
  lower-case, drop every character that is neither a word character nor
  whitespace (punctuation and symbols; ``_`` too), drop the articles
  *a*, *an*, *the*, split on whitespace. "The BH-58213-K order!" → [``bh58213k``,
  ``order``];
- C(y) = {w ∈ N(y) : w ∉ :data:`STOP_WORDS`}, the **content tokens** of y as
  a set (:func:`content_tokens`).

- G(y), the **evidence n-grams** of y (n = :data:`EVIDENCE_N` = 4): the runs
  of n consecutive tokens of N(y), as a set; a y of fewer than n tokens (but
  at least one) gives the one run N(y) itself. Write g ⊑ N(X_t) when the
  tokens of g occur consecutively in N(X_t).

Then, for a probe p, with G(S_p) = ⋃_{s ∈ S_p} G(s) the n-grams of each
non-empty part (thought, action, observation) of each evidence step, less
those that occur in the question (g ⊑ N(q_p)), which reach x_t with the
question itself:

- **evidence recall** (:func:`evidence_recall`, the default measure) =
  |{g ∈ G(S_p) : g ⊑ N(X_t)}| / |G(S_p)|: the share of the evidence's
  4-grams that reach the model input, raw or inside a summary that copies
  them (``None`` when the evidence has no token). A run of four words
  rarely recurs by chance, so the measure is near 0 when no evidence turn
  reached x_t and 1 when all did; it still credits a summary that keeps the
  evidence's phrases;
- **evidence word overlap** (:func:`evidence_word_overlap`, stmviz's first
  evidence measure, kept under this name) =
  |C(T(S_p)) ∩ C(X_t)| / |C(T(S_p))|, T(S_p) the evidence steps' texts
  joined: the share of the evidence's distinct content words found
  *anywhere* in the model input. It over-counts: in a long conversation the
  names and common words of the evidence are everywhere, and the question
  repeats the evidence's words. On the first five LoCoMo conversations with
  FIFO windows of 2,048 and 8,192 tokens it averages 0.65 on the probes whose
  evidence turns are all absent from x_t, where evidence recall averages
  0.03 (docs/benchmarks.md compares the candidate measures);
- **whole-turn presence** (:func:`whole_turns`) = the share of the evidence
  steps s ∈ S_p whose every non-empty part (thought, action, observation) occurs
  verbatim in X_t, whitespace runs counted as one space: 1.0 when the turns
  survived raw, 0.0 when only summaries (or nothing) of them did. When each
  turn is a step of its own (LoCoMo's default), this is LoCoMo's own evidence
  recall: the share of a question's evidence turns (dia_ids) in the context;
- **key-string retention** (:func:`retention`) = [``p.answer`` occurs in X_t,
  ignoring case], the measure of the bundled scenarios;
- **answer recall** (:func:`answer_recall`) =
  |N(r) ∩ N(X_t)| / |N(r)| with r = ``p.reference_answer`` and ∩ on multisets
  (each token counted at most as often as X_t has it): the share of the
  reference answer's tokens that the model could copy from its input. It is
  the recall half of :func:`token_f1` with X_t as the prediction;
- **cost** (:func:`cost_at`) = Σ_{s=0}^{t} |π(ω_s)|, the input tokens of every
  model call up to and including the one that answers; the cost of a run is
  Σ_{t<n} |π(ω_t)| (:func:`prompt_tokens`).

None of them judges an answer: a paraphrase that keeps the meaning but not
the words counts as lost. Compare mechanisms on the same probes, and against
the same measure taken on the whole history.

Examples
--------
>>> from stmviz import Element, Mechanism, StateSpace, run, sizes
>>> class Window(Mechanism):
...     '''Keep the newest observations that fit.'''
...     operations = {"append": "add the observation, dropping the oldest on overflow"}
...     def update(self, state, operation, context):
...         state = state | {Element(context.observation, {"t": context.t, "type": "user"})}
...         while state not in self.space:
...             state = state - {state.ordered()[0]}
...         return state
...     def project(self, state):
...         return " ".join(e.text for e in state)
>>> trace = run(Window(StateSpace(sizes.words, v_max=4)), ["a b", "c d", "e f"])
>>> occupancy(trace)
[0.5, 1.0, 1.0]
>>> prompt_tokens(trace).per_step
(0, 2, 4)
>>> evictions(trace).count
1
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .core.element import Element
from .core.guards import brief
from .core import guards
from .core.errors import InvalidArgumentError
from .core.mechanism import Mechanism
from .mechanisms.catalog import declared_types
from .protocol import ElementType, types_of
from .core.trace import Trace, require_trace, run

__all__ = [
    "occupancy",
    "prompt_tokens",
    "PromptTokens",
    "evictions",
    "Evictions",
    "summarizer_calls",
    "SummarizerCalls",
    "is_summary",
    "retention",
    "ProbeResult",
    "summary",
    "compare",
    "STOP_WORDS",
    "normalize_answer",
    "answer_tokens",
    "content_tokens",
    "content_recall",
    "token_recall",
    "token_f1",
    "evidence_text",
    "EVIDENCE_N",
    "ngrams",
    "evidence_recall",
    "evidence_word_overlap",
    "whole_turns",
    "answer_recall",
    "cost_at",
    "step_metrics",
    "probe_metrics",
    "run_metrics",
]


def occupancy(trace: Trace) -> list[float]:
    """Occupancy Σμ(ω_{t+1}) / V_max of the state after each step t (one value per step).

    A value of 1.0 means the state fills the capacity V_max exactly; the
    store's occupancy before the first step, Σμ(ω_0) / V_max, is
    ``trace.size_at(0) / trace.v_max``.
    """
    trace = require_trace(trace, "occupancy")
    return [step.size_after / trace.v_max for step in trace]


@dataclass(frozen=True)
class PromptTokens:
    """|π(ω_t)| per step and cumulated: what the model is billed for its inputs.

    Attributes
    ----------
    per_step : tuple of int
        |π(ω_t)| in tokens, the model input at step t.
    cumulative : tuple of int
        Σ_{s ≤ t} |π(ω_s)|.
    total : int
        The sum over the run (``cumulative[-1]``, 0 for an empty trace).
    final : int or None
        |π(ω_n)| of the final state, the input of a step after the last one.
    """

    per_step: tuple[int, ...]
    cumulative: tuple[int, ...]
    total: int
    final: int | None = None


def prompt_tokens(trace: Trace) -> PromptTokens:
    """|π(ω_t)| for every step t, cumulated: the input tokens a run would be billed.

    The sizes are those :func:`stmviz.run` recorded (``Step.input_size``):
    the mechanism's ``projection_size`` of ω_t before step t.
    """
    trace = require_trace(trace, "prompt_tokens")
    per_step = tuple(int(step.input_size) for step in trace)
    cumulative, running = [], 0
    for value in per_step:
        running += value
        cumulative.append(running)
    return PromptTokens(per_step, tuple(cumulative), running, trace.final_input_size)


@dataclass(frozen=True)
class Evictions:
    """Elements that left ω during a run.

    Every element of ω_t that is not in ω_{t+1} counts once — dropped to fit
    V_max, replaced by a summary, or replaced by a copy with new metadata.

    Attributes
    ----------
    count : int
        The number of removals.
    by_reason : dict
        Reason (as recorded by the trace) → number of removals.
    per_step : tuple of int
        Removals at each step.
    """

    count: int
    by_reason: dict[str, int] = field(default_factory=dict)
    per_step: tuple[int, ...] = ()


def evictions(trace: Trace) -> Evictions:
    """Removals from ω: the count, the count per recorded reason, and the count per step."""
    trace = require_trace(trace, "evictions")
    reasons: Counter[str] = Counter()
    per_step = []
    for step in trace:
        per_step.append(len(step.removed))
        reasons.update(step.reasons)
    return Evictions(sum(per_step), dict(reasons.most_common()), tuple(per_step))


def is_summary(element: Element, types: Mapping[str, ElementType] | Mechanism | None = None) -> bool:
    """Whether an element e summarizes other elements, by its metadata and its declared type.

    The rule: ``meta["form"] == "summary"`` (an element kept in summarized
    form, as SCM's), or its type ``meta["type"]`` is declared with
    ``summary=True`` (:class:`~stmviz.protocol.ElementType`): by
    ``types`` (a mechanism or its ``element_types``) when given, else by any
    mechanism class (HiAgent's ``summary``, AgentFold's blocks s_{x,y}).

    >>> is_summary(Element("the user likes tea", {"type": "block"})), is_summary(Element("hi", {"type": "user"}))
    (True, False)
    """
    guards.instance(element, "element", Element, where="is_summary", fix="; pass an element of a state ω")
    guards.instance(types, "types", (Mapping, Mechanism), where="is_summary", none_ok=True,
                    what="a Mechanism, its element_types (a dict name → ElementType)")
    if element.meta.get("form") == "summary":
        return True
    declared = _declared_type(element.type, types)
    return declared is not None and declared.summary


def _declared_type(name: str, types: Mapping[str, ElementType] | Mechanism | None) -> ElementType | None:
    if isinstance(types, Mechanism):
        types = types_of(types)
    if types is not None:
        try:
            own = types.get(name)
        except Exception as exc:  # a hand-made mapping whose get fails: the guards read only types
            raise InvalidArgumentError(f"is_summary: types could not be read ({type(exc).__name__}); pass a dict name → ElementType") from exc
        if own is not None:
            return guards.instance(own, f"types[{brief(name)}]", ElementType, where="is_summary")
    return declared_types().get(name)


@dataclass(frozen=True)
class SummarizerCalls:
    """Steps at which the mechanism produced a new summary.

    Attributes
    ----------
    count : int
        The number of such steps (one summarizer call per step at most).
    steps : tuple of int
        Their indices t.
    """

    count: int
    steps: tuple[int, ...] = ()


def summarizer_calls(trace: Trace) -> SummarizerCalls:
    """Count the steps whose added elements include a *new* summary.

    A step counts once when it adds at least one element for which
    :func:`is_summary` holds and whose text was not the text of any element
    seen earlier in the run (a summary merely re-added, e.g. with a changed
    flag, or re-activated from the memory stream, needs no new call).
    """
    trace = require_trace(trace, "summarizer_calls")
    seen: set[str] = {e.text for e in trace.initial}
    types = trace.mechanism
    steps = []
    for step in trace:
        new_summary = False
        for element in step.added:
            if is_summary(element, types) and element.text not in seen:
                new_summary = True
        seen.update(e.text for e in step.added)
        if new_summary:
            steps.append(step.t)
    return SummarizerCalls(len(steps), tuple(steps))


@dataclass(frozen=True)
class ProbeResult:
    """The outcome of one probe on a trace: was its answer in π(ω_t)?"""

    probe: Any
    retained: bool

    @property
    def t(self) -> int:
        """The probe's state index t: its answer is looked for in π(ω_t), the input the reply is produced from."""
        return self.probe.t

    def __repr__(self) -> str:
        mark = "retained" if self.retained else "lost"
        return f"ProbeResult(t={self.probe.t}, {self.probe.answer!r}: {mark})"


def retention(trace: Trace, probes: Iterable[Any]) -> list[ProbeResult]:
    """For each probe, whether its evidence is retained: ``answer`` in the text of π(ω_t), ignoring case.

    π(ω_t) is rebuilt with ``trace.project(t)``: the model input from which
    step t's output is produced (after steps 0 … t−1). A question asked in
    the user message of step k (the input of step k) is answered by the
    output of step k + 1, so its probe has t = k + 1.

    Raises
    ------
    ValueError
        if a probe's t lies beyond the trace's last state ω_n.
    """
    trace = require_trace(trace, "retention")
    results = []
    texts: dict[int, str] = {}
    for probe in _probes(trace, probes, "retention"):
        t = probe.t
        if t not in texts:
            texts[t] = trace.project(t).text().casefold()
        results.append(ProbeResult(probe, probe.answer.casefold() in texts[t]))
    return results


def _probes(trace: Trace, probes: object, where: str, needs: tuple[str, ...] = ()) -> list[Any]:
    """The probes, each with a whole-number t naming a state of the trace and a str ``question`` and ``answer`` (as a Probe has)."""
    checked = guards.items(probes, "probes", where=where, what="Probe objects (scenario.probes)")
    for i, probe in enumerate(checked):
        guards.probe(probe, f"probes[{i}]", trace, where=where, needs=needs)
    return checked


def summary(trace: Trace, probes: Sequence[Any] = ()) -> dict[str, Any]:
    """One record of a run: its size, occupancy, cost, evictions, summaries and retention.

    Keys: ``mechanism``, ``steps``, ``v_max``, ``mean_occupancy``,
    ``max_occupancy``, ``total_prompt_tokens``, ``max_prompt_tokens``,
    ``evictions``, ``summarizer_calls``, ``probes``, ``retained`` and
    ``retention`` (retained / probes, ``None`` without probes).
    """
    trace = require_trace(trace, "summary")
    occ = occupancy(trace)
    tokens = prompt_tokens(trace)
    results = retention(trace, probes) if probes is not None else []
    kept = sum(r.retained for r in results)
    return {
        "mechanism": trace.name,
        "steps": len(trace),
        "v_max": trace.v_max,
        "mean_occupancy": sum(occ) / len(occ) if occ else 0.0,
        "max_occupancy": max(occ) if occ else 0.0,
        "total_prompt_tokens": tokens.total,
        "max_prompt_tokens": max(tokens.per_step) if tokens.per_step else 0,
        "evictions": evictions(trace).count,
        "summarizer_calls": summarizer_calls(trace).count,
        "probes": len(results),
        "retained": kept,
        "retention": kept / len(results) if results else None,
    }


def _instantiate(item: Any, scenario: Any, name: str) -> Mechanism:
    if isinstance(item, type) and issubclass(item, Mechanism):
        v_max = getattr(scenario, "v_max", None)
        if v_max is None:  # the scenario's rule: a class is built for the scenario's own V_max
            raise InvalidArgumentError(
                f"compare: cannot build {item.__name__} for a scenario without v_max; pass an instance, "
                f"e.g. {item.__name__}(StateSpace(tokens(), v_max=4096))"
            )
        from .core.space import StateSpace

        return item(StateSpace("tokens", v_max))
    return guards.instance(item, name, Mechanism, where="compare", what="a Mechanism instance or subclass")


def compare(mechanisms: Iterable[Any] | Mapping[str, Any], scenario: Any) -> list[dict[str, Any]]:
    """Run several mechanisms on one scenario; one :func:`summary` record per mechanism.

    Parameters
    ----------
    mechanisms : iterable or mapping
        Mechanism instances, or Mechanism subclasses (built as
        ``cls(StateSpace("tokens", scenario.v_max))``), or a mapping from the
        name to show to either.
    scenario : Scenario or str
        A :class:`~stmviz.scenarios.Scenario` (its probes are scored), or the
        name of a bundled scenario.

    Returns
    -------
    list of dict
        The records of :func:`summary`, each with ``mechanism`` set to the
        mechanism's name and ``scenario`` to the scenario's name, in the
        order given.
    """
    from .scenarios import Scenario, load_scenario

    if isinstance(scenario, str):
        scenario = load_scenario(scenario)
    guards.instance(scenario, "scenario", Scenario, where="compare", what="a Scenario or the name of a bundled one",
                    fix="; e.g. load_scenario('tool_chat')")
    entries = guards.labelled(mechanisms, "mechanisms", where="compare", what="Mechanism instances or subclasses")
    probes = tuple(getattr(scenario, "probes", ()) or ())
    records = []
    for k, (label, item) in enumerate(entries):
        mechanism = _instantiate(item, scenario, f"mechanisms[{k if label is None else repr(label)}]")
        trace = run(mechanism, scenario)
        record = summary(trace, [p for p in probes if p.t <= len(trace)])
        record["mechanism"] = label if label is not None else str(mechanism)
        record["scenario"] = getattr(scenario, "name", "")
        records.append(record)
    return records


# ----------------------------------------------------------------------------- evidence at question time

#: Words that carry no content, as :func:`normalize_answer` leaves them (lower case, no apostrophe):
#: dropped by :func:`content_tokens`. A short list on purpose: pronouns, auxiliaries, prepositions and
#: conjunctions, the articles (already dropped by the normalization) and a few fillers.
STOP_WORDS: frozenset[str] = frozenset(
    """a an the and or but if then so than that this these those there here of to in on at by for from with
    about as into over under up out is are was were be been being am do does did have has had will would can
    could should may might must it its i me my we us our you your he him his she her they them their what which
    who whom whose when where why how not no yes ok okay just also very too im its dont thats""".split()
)

_NOT_WORD = re.compile(r"[^\w\s]|_")
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_SPACES = re.compile(r"\s+")


def normalize_answer(text: str) -> str:
    """SQuAD's answer normalization: lower case, no punctuation or symbols, no articles, single spaces.

    Lower-case; remove every character that is neither a word character nor
    whitespace (``_`` too: SQuAD removes ``string.punctuation``, and this
    extends it to Unicode punctuation and symbols); remove the articles *a*,
    *an*, *the*; collapse whitespace.

    >>> normalize_answer("The  order BH-58213-K, (Kestrel Lane)!")
    'order bh58213k kestrel lane'
    """
    if not isinstance(text, str):  # inline: the evidence measures call it per text; the guard says what was wrong
        guards.text(text, "text", where="normalize_answer", blank_ok=True)
    text = _NOT_WORD.sub("", text.lower())
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def answer_tokens(text: str) -> list[str]:
    """N(y): the tokens of ``normalize_answer(text)``, in order, repeats kept.

    >>> answer_tokens("The aisle seat, please.")
    ['aisle', 'seat', 'please']
    """
    return normalize_answer(text).split()


def content_tokens(text: str) -> frozenset[str]:
    """C(y): the distinct normalized tokens of a text that are not in :data:`STOP_WORDS`.

    >>> sorted(content_tokens("The user is allergic to sesame and to the peanuts."))
    ['allergic', 'peanuts', 'sesame', 'user']
    """
    return frozenset(answer_tokens(text)).difference(STOP_WORDS)


def content_recall(evidence: str, text: str) -> float | None:
    """|C(evidence) ∩ C(text)| / |C(evidence)|: the share of the evidence's distinct content words found in ``text``.

    ``None`` when the evidence has no content word.

    >>> content_recall("The user is allergic to sesame.", "Notes: allergic (sesame)")
    0.6666666666666666
    """
    wanted = content_tokens(evidence)
    if not wanted:
        return None
    return len(wanted & content_tokens(text)) / len(wanted)


#: n of the evidence n-grams that :func:`evidence_recall` looks for (chosen by measurement: docs/benchmarks.md).
EVIDENCE_N = 4


def ngrams(text: str, n: int = EVIDENCE_N) -> frozenset[tuple[str, ...]]:
    """G(y): the runs of n consecutive normalized tokens N(y) of a text, as a set; a shorter text gives N(y) itself.

    >>> sorted(ngrams("The cat sat on the mat.", 3))
    [('cat', 'sat', 'on'), ('sat', 'on', 'mat')]
    >>> ngrams("Lovely!"), ngrams("...")
    (frozenset({('lovely',)}), frozenset())
    """
    n = guards.whole_number(n, "n", 1, maximum=None, where="ngrams")
    tokens = answer_tokens(text)
    if len(tokens) < n:
        return frozenset([tuple(tokens)]) if tokens else frozenset()
    return frozenset(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def token_recall(reference: str, text: str) -> float | None:
    """|N(reference) ∩ N(text)| / |N(reference)|, ∩ on multisets: the share of the reference's tokens in ``text``.

    ``None`` when the reference has no token after normalization (e.g. "the").

    >>> token_recall("aisle seat", "She asked for an aisle seat near the front.")
    1.0
    >>> token_recall("window seat please", "an aisle seat")
    0.3333333333333333
    """
    wanted = Counter(answer_tokens(reference))
    if not wanted:
        return None
    found = wanted & Counter(answer_tokens(text))
    return sum(found.values()) / sum(wanted.values())


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD's token F1 of a prediction against a reference answer (both normalized by :func:`normalize_answer`).

    With P = N(prediction), R = N(reference) and n = |P ∩ R| on multisets:
    precision n / |P|, recall n / |R|, F1 their harmonic mean (0 when n = 0).
    When either side has no token, F1 is 1.0 if both have none, else 0.0.
    Symmetric in its two arguments.

    >>> token_f1("Dev Raman", "dev raman")
    1.0
    >>> round(token_f1("the budget is reviewed by Dev", "Dev Raman"), 3)
    0.286
    """
    predicted, wanted = answer_tokens(prediction), answer_tokens(reference)
    if not predicted or not wanted:
        return float(predicted == wanted)
    same = sum((Counter(predicted) & Counter(wanted)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(wanted)
    return 2 * precision * recall / (precision + recall)


#: What the evidence measures read of a probe besides its t.
_EVIDENCE = ("evidence_steps",)


def _asked(trace: Trace, probe: Any, where: str, needs: tuple[str, ...] = _EVIDENCE) -> int:
    """The probe's t, checked to name a state ω_0 … ω_n of the trace (and the probe to carry ``needs``)."""
    return int(guards.probe(probe, "probe", trace, where=where, texts=(), needs=needs).t)


def evidence_text(trace: Trace, probe: Any) -> str:
    """T(S_p): the texts of the probe's evidence steps (thought, action, observation), joined by newlines."""
    trace = require_trace(trace, "evidence_text")
    _asked(trace, probe, "evidence_text")
    return "\n".join(trace[s].context.step.text for s in probe.evidence_steps)


class _Inputs:
    """The text of π(ω_t) and what the measures read from it, computed once per t (N(X_t) normalized once)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self._texts: dict[int, str] = {}
        self._normalized: dict[int, str] = {}
        self._content: dict[int, frozenset[str]] = {}
        self._counts: dict[int, Counter[str]] = {}
        self._spaced: dict[int, str] = {}

    def text(self, t: int) -> str:
        if t not in self._texts:
            self._texts[t] = self.trace.project(t).text()
        return self._texts[t]

    def normalized(self, t: int) -> str:
        """N(X_t) joined by single spaces, with a space at each end (so that a run of tokens is found as a substring)."""
        if t not in self._normalized:
            self._normalized[t] = f" {normalize_answer(self.text(t))} "
        return self._normalized[t]

    def content(self, t: int) -> frozenset[str]:
        if t not in self._content:
            self._content[t] = frozenset(self.normalized(t).split()).difference(STOP_WORDS)
        return self._content[t]

    def counts(self, t: int) -> Counter[str]:
        if t not in self._counts:
            self._counts[t] = Counter(self.normalized(t).split())
        return self._counts[t]

    def spaced(self, t: int) -> str:
        if t not in self._spaced:
            self._spaced[t] = " ".join(self.text(t).split())
        return self._spaced[t]

    def holds(self, t: int, gram: tuple[str, ...]) -> bool:
        """g ⊑ N(X_t): the tokens of ``gram`` occur consecutively in N(X_t)."""
        return f" {' '.join(gram)} " in self.normalized(t)


def _evidence_grams(trace: Trace, probe: Any, n: int) -> frozenset[tuple[str, ...]]:
    """G(S_p): the n-grams of each non-empty part of each evidence step."""
    grams: set[tuple[str, ...]] = set()
    for s in probe.evidence_steps:
        step = trace[s].context.step
        for part in (step.thought, step.action, step.observation):
            grams.update(ngrams(part, n))
    return frozenset(grams)


def _evidence_recall(trace: Trace, probe: Any, inputs: _Inputs, n: int = EVIDENCE_N) -> float | None:
    t = int(probe.t)
    question = f" {normalize_answer(getattr(probe, 'question', '') or '')} "
    grams = [g for g in _evidence_grams(trace, probe, n) if f" {' '.join(g)} " not in question]
    if not grams:
        return None
    return sum(inputs.holds(t, g) for g in grams) / len(grams)


def _evidence_word_overlap(trace: Trace, probe: Any, inputs: _Inputs) -> float | None:
    t = int(probe.t)
    wanted = content_tokens("\n".join(trace[s].context.step.text for s in probe.evidence_steps))
    if not wanted:
        return None
    return len(wanted & inputs.content(t)) / len(wanted)


def _whole_turns(trace: Trace, probe: Any, inputs: _Inputs) -> float | None:
    t = int(probe.t)
    present = counted = 0
    for s in probe.evidence_steps:
        step = trace[s].context.step
        parts = [" ".join(p.split()) for p in (step.thought, step.action, step.observation) if p.strip()]
        if not parts:
            continue
        counted += 1
        text = inputs.spaced(t)
        present += all(part in text for part in parts)
    return present / counted if counted else None


def _answer_recall(trace: Trace, probe: Any, inputs: _Inputs) -> float | None:
    t = int(probe.t)
    wanted = Counter(answer_tokens(probe.reference_answer))
    if not wanted:
        return None
    return sum((wanted & inputs.counts(t)).values()) / sum(wanted.values())


def evidence_recall(trace: Trace, probe: Any, n: int = EVIDENCE_N) -> float | None:
    """|{g ∈ G(S_p) : g ⊑ N(X_t)}| / |G(S_p)|: the share of the evidence's n-grams that reach π(ω_t).

    The evidence is every step in ``probe.evidence_steps`` (each part —
    thought, action, observation — apart); X_t the text of π(ω_t), t =
    ``probe.t``. An n-gram (n = 4 by default) counts once its tokens occur
    in a row anywhere in the model input, raw or inside a summary; n-grams
    the question itself holds are not counted. ``None`` when the evidence
    has no token left. See the module's definitions; the bag of
    words measure it replaced is :func:`evidence_word_overlap`.
    """
    trace = require_trace(trace, "evidence_recall")
    n = guards.whole_number(n, "n", 1, maximum=None, where="evidence_recall")
    _asked(trace, probe, "evidence_recall")
    return _evidence_recall(trace, probe, _Inputs(trace), n)


def evidence_word_overlap(trace: Trace, probe: Any) -> float | None:
    """|C(T(S_p)) ∩ C(X_t)| / |C(T(S_p))|: the share of the evidence's distinct content words found anywhere in π(ω_t).

    stmviz's first evidence measure (it was called ``evidence_recall``): a
    bag of words, high even where no evidence turn reached the model, since
    common words and the question's own words are in X_t anyway. Kept for
    comparison; :func:`evidence_recall` is the measure to quote. ``None``
    when the evidence has no content word.
    """
    trace = require_trace(trace, "evidence_word_overlap")
    _asked(trace, probe, "evidence_word_overlap")
    return _evidence_word_overlap(trace, probe, _Inputs(trace))


def whole_turns(trace: Trace, probe: Any) -> float | None:
    """The share of the probe's evidence steps present verbatim in π(ω_t) (every non-empty part, whitespace collapsed).

    ``None`` when no evidence step has text.
    """
    trace = require_trace(trace, "whole_turns")
    _asked(trace, probe, "whole_turns")
    return _whole_turns(trace, probe, _Inputs(trace))


def answer_recall(trace: Trace, probe: Any) -> float | None:
    """|N(r) ∩ N(X_t)| / |N(r)| for the reference answer r = ``probe.reference_answer``: :func:`token_recall` against π(ω_t)."""
    trace = require_trace(trace, "answer_recall")
    _asked(trace, probe, "answer_recall", needs=("evidence_steps", "reference_answer"))
    return _answer_recall(trace, probe, _Inputs(trace))


def cost_at(trace: Trace, t: int) -> int:
    """Σ_{s=0}^{t} |π(ω_s)|: the input tokens of the model calls up to and including the one made from π(ω_t).

    ``cost_at(trace, n)`` counts the final input |π(ω_n)| as well.
    """
    trace = require_trace(trace, "cost_at")
    n = len(trace)
    t = guards.whole_number(t, "t", 0, maximum=n, where="cost_at", fix=f"; pass t = 0 … {n} (the states ω_0 … ω_{n})")
    total = sum(int(trace[s].input_size) for s in range(min(t + 1, n)))
    if t == n:
        total += int(trace.final_input_size or 0)
    return total


def step_metrics(trace: Trace) -> list[dict[str, Any]]:
    """One record per step t: the cost of its model call and the state it left.

    Keys: ``t``; ``input_tokens`` |π(ω_t)|; ``cumulative_input_tokens``
    Σ_{s ≤ t} |π(ω_s)|; ``size`` Σμ(ω_{t+1}); ``occupancy`` Σμ(ω_{t+1}) / V_max;
    ``added`` and ``removed``, the number of elements that entered and left ω.
    """
    trace = require_trace(trace, "step_metrics")
    records, running = [], 0
    for step in trace:
        running += int(step.input_size)
        records.append(
            {
                "t": step.t,
                "input_tokens": int(step.input_size),
                "cumulative_input_tokens": running,
                "size": step.size_after,
                "occupancy": step.size_after / trace.v_max,
                "added": len(step.added),
                "removed": len(step.removed),
            }
        )
    return records


def probe_metrics(trace: Trace, probes: Iterable[Any]) -> list[dict[str, Any]]:
    """One record per probe: every measure of the evidence at its question time t.

    Keys: ``t``, ``question``, ``answer`` (the key string), ``evidence_steps``
    (a tuple), ``retained`` (key-string retention), ``evidence_recall``,
    ``evidence_word_overlap``, ``whole_turns``, ``answer_recall`` (see the module's definitions; ``None``
    where undefined), ``input_tokens`` |π(ω_t)| and ``cost`` Σ_{s ≤ t} |π(ω_s)|.

    Raises
    ------
    InvalidArgumentError
        if a probe's t lies beyond the trace's last state ω_n.
    """
    trace = require_trace(trace, "probe_metrics")
    inputs = _Inputs(trace)
    n = len(trace)
    cumulative = prompt_tokens(trace).cumulative
    records = []
    for probe in _probes(trace, probes, "probe_metrics", needs=("evidence_steps", "reference_answer")):
        t = int(probe.t)
        before = cumulative[t - 1] if t > 0 else 0
        size = int(trace[t].input_size) if t < n else int(trace.final_input_size or 0)
        records.append(
            {
                "t": t,
                "question": probe.question,
                "answer": probe.answer,
                "evidence_steps": tuple(probe.evidence_steps),
                "retained": probe.answer.casefold() in inputs.text(t).casefold(),
                "evidence_recall": _evidence_recall(trace, probe, inputs),
                "evidence_word_overlap": _evidence_word_overlap(trace, probe, inputs),
                "whole_turns": _whole_turns(trace, probe, inputs),
                "answer_recall": _answer_recall(trace, probe, inputs),
                "input_tokens": size,
                "cost": before + size,
            }
        )
    return records


#: The per-probe measures whose means :func:`run_metrics` reports.
EVIDENCE_MEASURES = ("evidence_recall", "evidence_word_overlap", "whole_turns", "answer_recall")


def _mean(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def run_metrics(trace: Trace, probes: Sequence[Any] = ()) -> dict[str, Any]:
    """One record of a run: :func:`summary`'s keys plus the means of the evidence measures and the cost.

    Added keys: ``evidence_recall``, ``evidence_word_overlap``, ``whole_turns`` and ``answer_recall``,
    the means over the probes where each is defined (``None`` without any);
    ``cost``, Σ_{t<n} |π(ω_t)|, the input tokens of the run's model calls (the
    same number as ``total_prompt_tokens``).
    """
    trace = require_trace(trace, "run_metrics")
    rows = probe_metrics(trace, probes)
    record = summary(trace)  # without probes: their retention is read from the rows (π(ω_t) projected once)
    kept = sum(r["retained"] for r in rows)
    record.update(probes=len(rows), retained=kept, retention=kept / len(rows) if rows else None)
    for key in EVIDENCE_MEASURES:
        record[key] = _mean(r[key] for r in rows)
    record["cost"] = record["total_prompt_tokens"]
    return record


def __getattr__(name: str) -> Any:
    """``why_forgotten``, ``why_forgotten_all`` and ``Forgetting`` live in :mod:`stmviz.forgetting` only
    (offering them here too made the two modules import each other); the old names say where they went."""
    if name in ("why_forgotten", "why_forgotten_all", "Forgetting"):
        raise AttributeError(f"stmviz.metrics.{name} has moved: use stmviz.forgetting.{name}")
    raise AttributeError(f"module 'stmviz.metrics' has no attribute {name!r}")
