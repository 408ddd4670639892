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
  mechanism on one scenario.

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

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .core.element import Element
from .core.arguments import describe, items
from .core.errors import InvalidArgumentError
from .core.mechanism import Mechanism
from .core.protocol import ElementType, declared_types
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
]


def occupancy(trace: Trace) -> list[float]:
    """Occupancy Σμ(ω_{t+1}) / V_max of the state after each step t (one value per step).

    A value of 1.0 means the state fills the capacity V_max exactly; the
    store's occupancy before the first step, Σμ(ω_0) / V_max, is
    ``trace.size_at(0) / trace.v_max``.
    """
    trace = require_trace(trace, "metrics")
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
    trace = require_trace(trace, "metrics")
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
    trace = require_trace(trace, "metrics")
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
    ``summary=True`` (:class:`~stmviz.core.protocol.ElementType`): by
    ``types`` (a mechanism or its ``element_types``) when given, else by any
    mechanism class (HiAgent's ``summary``, AgentFold's blocks s_{x,y}).

    >>> is_summary(Element("the user likes tea", {"type": "block"})), is_summary(Element("hi", {"type": "user"}))
    (True, False)
    """
    if not isinstance(element, Element):
        raise InvalidArgumentError(f"is_summary needs an Element, got {describe(element)}; pass an element of a state ω")
    if types is not None and not isinstance(types, (Mapping, Mechanism)):
        raise InvalidArgumentError(
            f"is_summary: types must be a Mechanism, its element_types (a dict name → ElementType) or None, got {describe(types)}"
        )
    if element.meta.get("form") == "summary":
        return True
    declared = _declared_type(element.type, types)
    return declared is not None and declared.summary


def _declared_type(name: str, types: Mapping[str, ElementType] | Mechanism | None) -> ElementType | None:
    if isinstance(types, Mechanism):
        types = types.element_types
    if types is not None:
        try:
            own = types.get(name)
        except Exception as exc:
            raise InvalidArgumentError(f"is_summary: types could not be read ({type(exc).__name__}); pass a dict name → ElementType") from exc
        if isinstance(own, ElementType):
            return own
        if own is not None:
            raise InvalidArgumentError(f"is_summary: types[{name!r}] must be an ElementType, got {describe(own)}")
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
    trace = require_trace(trace, "metrics")
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
    trace = require_trace(trace, "metrics")
    results = []
    texts: dict[int, str] = {}
    n = len(trace)
    for probe in _probes(probes):
        t = probe.t
        if not 0 <= t <= n:
            raise InvalidArgumentError(
                f"probe {probe.question!r} is asked at t = {t}, but the trace has states ω_0 … ω_{n}; "
                f"run the whole scenario, or drop probes after step {n}"
            )
        if t not in texts:
            texts[t] = trace.project(t).text().casefold()
        results.append(ProbeResult(probe, probe.answer.casefold() in texts[t]))
    return results


def _probes(probes: object) -> list[Any]:
    """The probes, each checked to have a whole-number ``t`` and a str ``question`` and ``answer`` (as a Probe has)."""
    checked = items(probes, "retention", "probes", what="Probe objects (scenario.probes)")
    for i, probe in enumerate(checked):
        t, question, answer = (getattr(probe, name, None) for name in ("t", "question", "answer"))
        if isinstance(t, bool) or not isinstance(t, int) or not isinstance(question, str) or not isinstance(answer, str):
            raise InvalidArgumentError(
                f"retention: probes[{i}] must be a Probe (with t: int, question and answer: str), got {describe(probe)}; "
                "pass scenario.probes or Probe(t, question, answer, evidence_step)"
            )
    return checked


def summary(trace: Trace, probes: Sequence[Any] = ()) -> dict[str, Any]:
    """One record of a run: its size, occupancy, cost, evictions, summaries and retention.

    Keys: ``mechanism``, ``steps``, ``v_max``, ``mean_occupancy``,
    ``max_occupancy``, ``total_prompt_tokens``, ``max_prompt_tokens``,
    ``evictions``, ``summarizer_calls``, ``probes``, ``retained`` and
    ``retention`` (retained / probes, ``None`` without probes).
    """
    trace = require_trace(trace, "metrics")
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


def _instantiate(item: Any, scenario: Any) -> Mechanism:
    if isinstance(item, Mechanism):
        return item
    if isinstance(item, type) and issubclass(item, Mechanism):
        v_max = getattr(scenario, "v_max", None)
        if v_max is None:
            raise InvalidArgumentError(
                f"cannot build {item.__name__} for a scenario without v_max; pass an instance, "
                f"e.g. {item.__name__}(StateSpace(tokens(), v_max=4096))"
            )
        from .core.space import StateSpace

        return item(StateSpace("tokens", v_max))
    raise InvalidArgumentError(f"compare() takes Mechanism instances or subclasses, got {type(item).__name__} {item!r}")


def _safe_items(mapping: Mapping[Any, Any]) -> Any:
    try:
        return list(mapping.items())
    except Exception as exc:
        raise InvalidArgumentError(f"compare: the mapping of mechanisms could not be read ({type(exc).__name__})") from exc


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
    if not isinstance(scenario, Scenario):
        raise InvalidArgumentError(
            f"compare: scenario must be a Scenario or the name of a bundled one, got {describe(scenario)}; "
            "e.g. load_scenario('tool_chat')"
        )
    if isinstance(mechanisms, Mapping):
        entries = items(_safe_items(mechanisms), "compare", "mechanisms", what="name → mechanism pairs")
    else:
        entries = [(None, m) for m in items(mechanisms, "compare", "mechanisms", what="Mechanism instances or subclasses")]
    probes = tuple(getattr(scenario, "probes", ()) or ())
    records = []
    for label, item in entries:
        mechanism = _instantiate(item, scenario)
        trace = run(mechanism, scenario)
        record = summary(trace, [p for p in probes if p.t <= len(trace)])
        record["mechanism"] = label if label is not None else str(mechanism)
        record["scenario"] = getattr(scenario, "name", "")
        records.append(record)
    return records
