"""Notebook 08's exercise — build your own: a mechanism that uses the priority D_1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..contract import check_mechanism
from ..core.context import AgentStep
from ..core.element import Element
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.mechanism import Mechanism
from ..core.sizes import words
from ..core.space import StateSpace
from ..core.trace import Trace, run
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["PRIORITY_STEPS", "check_priority_memory", "check_priority_prediction"]


#: The trajectory of exercise 08: facts with a priority (D_1) and a source (D_2) in step metadata.
PRIORITY_STEPS = [
    AgentStep(observation="User: I am allergic to peanuts.", meta={"priority": "high", "source": "user"}),
    AgentStep(observation="API: it is 14 degrees and raining.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="Model: I will look for restaurants.", meta={"priority": "medium", "source": "model"}),
    AgentStep(observation="API: 42 restaurants found nearby.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="User: book for Friday at 19:30.", meta={"priority": "high", "source": "user"}),
    AgentStep(observation="API: the traffic is heavy downtown.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="Model: Trattoria Sole has nut-free dishes.", meta={"priority": "medium", "source": "model"}),
]

_RANK = {"low": 0, "medium": 1, "high": 2}


def check_priority_memory(make: Callable[[StateSpace], Mechanism] | type, v_max: int = 26) -> ExerciseReport:
    """Notebook 08: a mechanism that uses the priority D_1 to decide what leaves ω when Σμ would exceed V_max.

    ``make`` builds the mechanism from a state space (a Mechanism subclass works).
    At μ = words and the given V_max, each step's observation is a candidate
    together with ω_t; whatever of them is not in ω_{t+1} has left. Checked:

    1. ``check_mechanism``'s closure and operations hold; and, apart, its purity: U leaves its
       inputs and the mechanism unchanged and gives the same result twice;
    2. each element holding an observation keeps the step's ``priority`` and ``source`` in its metadata;
    3. a lower priority leaves before a higher one;
    4. within one priority, the oldest leaves first (the observation that just arrived is the newest);
    5. no more leaves than needed: with the most valuable element that left, ω_{t+1} would not fit;
    6. π lists every element of ω, the high priorities first, then medium, then low;
    7. both high-priority user facts are still in ω at the end.

    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> check_priority_memory(ExampleMechanism).ok
    False
    """
    criteria: dict[str, tuple[Any, ...]] = {
        N_("contract"): (N_("check_mechanism's closure and operations hold"),
                         N_("read the ✗ lines of check_mechanism(...) on your mechanism")),
        N_("U pure"): (N_("U leaves ω, o, c and the mechanism unchanged, and gives the same result twice"),
                       N_("U is a function of (ω, o, c): build the new state from them alone; keep nothing on self "
                          "(a list of what you saw is a memory outside ω)")),
        N_("metadata"): (N_("each element holding an observation carries its step's priority and source"),
                         "Element(context.observation, {'t': context.t, **context.step.meta})"),
        # the order is judged by the steps' priorities: only once the elements carry them
        N_("priority"): (N_("lower priorities always left before higher ones"),
                         N_("sort the candidates by RANK[priority] first, lowest first"), ("metadata",)),
        N_("age"): (N_("within one priority the oldest left first"),
                    N_("break ties by meta['t'], smallest (oldest) first — not the newest"), ("metadata",)),
        N_("only as needed"): (N_("no element left while the state would fit without removing it"),
                               N_("check `state in self.space` before each removal, and stop when it holds")),
        N_("projection"): (N_("π lists every element, high priority first, then medium, then low"),
                           N_("in project, sort by -RANK[priority] (then by t) and render every element"),
                           ("metadata",)),
        N_("high-priority facts"): (N_("both user facts marked high are still in ω_n"),
                                    N_("high facts leave only when nothing of lower priority is left"), ("priority",)),
    }
    c = Checks(N_("08 · priority memory"), criteria)
    space = StateSpace(words, v_max)
    built = _checked_run(c, make, space)
    if isinstance(built, ExerciseReport):
        return built
    mechanism, trace = built

    def index(e: Element) -> int:  # which observation an element holds (−1: none)
        return next((i for i, s in enumerate(PRIORITY_STEPS) if s.observation in e.text), -1)

    elements = [e for e in trace.sizes if index(e) >= 0]
    c.check("metadata", bool(elements), _("no element holds an observation's text"))
    for e in elements:
        s = PRIORITY_STEPS[index(e)]
        c.check("metadata", e.meta.get("priority") == s.meta["priority"] and e.meta.get("source") == s.meta["source"],
                _("{element} has priority {priority!r} and source {source!r}; the step said {step_priority!r} and "
                  "{step_source!r}").format(element=e.label(), priority=e.meta.get("priority"),
                                            source=e.meta.get("source"), step_priority=s.meta["priority"],
                                            step_source=s.meta["source"]))
    size = {index(e): trace.sizes[e] for e in elements}
    for t in range(len(trace)):
        before = {index(e) for e in trace.state_at(t)} - {-1}
        after = {index(e) for e in trace.state_at(t + 1)} - {-1}
        left = (before | {t}) - after
        if not left:
            continue
        key = {i: (_RANK[PRIORITY_STEPS[i].meta["priority"]], i) for i in before | {t}}
        for gone in left:
            p = PRIORITY_STEPS[gone].meta["priority"]
            for kept in after:
                q = PRIORITY_STEPS[kept].meta["priority"]
                if _RANK[q] < _RANK[p]:
                    c.fail("priority", _("step {t}: observation {gone} ({p}) left while observation {kept} ({q}) "
                                         "stayed").format(t=t, gone=gone, p=p, kept=kept, q=q))
                elif q == p and kept < gone:
                    c.fail("age", _("step {t}: observation {gone} left while the older {p} observation {kept} "
                                    "stayed").format(t=t, gone=gone, p=p, kept=kept))
        best = max(left, key=key.__getitem__)
        total = sum(size.get(i, words(Element(PRIORITY_STEPS[i].observation))) for i in after | {best})
        c.check("only as needed", total > v_max,
                _("step {t}: observation {best} left, but with it ω_{next} would hold {total} ≤ V_max = {v_max} "
                  "words").format(t=t, best=best, next=t + 1, total=total, v_max=v_max))
    for t in range(len(trace) + 1):
        state = trace.state_at(t)
        ok, shown = call_answer(lambda s: mechanism.input(s).text(), state)
        if not ok:
            c.fail("projection", _("π(ω_{t}) failed: {error}").format(t=t, error=error_text(shown)))
            break
        held = sorted(i for i in (index(e) for e in state) if i >= 0)
        where = {i: shown.find(PRIORITY_STEPS[i].observation) for i in held}
        missing = [i for i in held if where[i] < 0]
        if missing:
            c.fail("projection", ngettext("π(ω_{t}) does not show observation(s) {missing}",
                                          "π(ω_{t}) does not show observation(s) {missing}",
                                          len(missing)).format(t=t, missing=missing))
            break
        order = [PRIORITY_STEPS[i].meta["priority"] for i in sorted(held, key=where.__getitem__)]
        if any(_RANK[a] < _RANK[b] for a, b in zip(order, order[1:])):
            c.fail("projection", _("π(ω_{t}) lists the priorities in the order {order}").format(t=t, order=order))
            break
    final = " ".join(e.text for e in trace.final)
    c.check("high-priority facts", all(fact in final for fact in ("allergic to peanuts", "Friday at 19:30")),
            _("a high-priority user fact is missing from ω_n"))
    return c.report()


def _checked_run(c: Checks, make: Any, space: StateSpace) -> tuple[Mechanism, Trace] | ExerciseReport:
    """Build the mechanism, check its contract ("contract", and "U pure" for the purity clause) and run it."""
    todo = _("TODO: update or project is not written yet")  # shown in the report's head: "not done yet (…)"
    try:
        ok, mechanism = call_answer(make, space)
        if not ok:
            c.fail("contract", _("could not build the mechanism: {error}").format(error=error_text(mechanism)))
            return c.report()
        contract = check_mechanism(mechanism, PRIORITY_STEPS)
        if any("TODO" in r.detail or "NotImplementedError" in r.detail for r in contract.failures):
            raise NotImplementedError(todo)
        impure = [r.detail for r in contract.failures if r.name == "purity"]
        other = [r.detail for r in contract.failures if r.name != "purity"]
        c.check("U pure", not impure, "check_mechanism: " + "; ".join(impure))  # the contract's own words follow
        c.check("contract", not other, _("check_mechanism fails: {failures}").format(failures="; ".join(other)))
        ok, trace = call_answer(run, make(space), PRIORITY_STEPS)
    except NotImplementedError as exc:
        return c.not_done(exc)
    if not ok:
        c.fail("contract", _("run() failed: {error}").format(error=error_text(trace)))
        return c.report()
    return mechanism, trace


# Every sentence a student reads from the prediction's checker, in one place (issue 35 translates them whole).
PREDICT_TEXT = {
    "title": N_("08 · predict the first eviction"),
    "pair met": N_("a pair of whole numbers: (the step, the index of the observation that leaves)"),
    "pair hint": N_("answer (step, index): both whole numbers, the index as in PRIORITY_STEPS (0 to 6)"),
    "pair detail": N_("got {got!r}"),
    "step met": N_("the step at which Σμ first exceeds V_max = {v_max} words"),
    "step hint": N_("add up μ = the words of each observation, step by step: the first step whose sum passes {v_max}"),
    "step detail": N_("predicted step {got}; Σμ first exceeds {v_max} at step {want} ({total} words)"),
    "leaves met": N_("the observation that leaves then"),
    "leaves hint": N_("the lowest priority leaves first, and within it the oldest"),
    "leaves fifo": N_("observation {got} is the oldest of all: that is FIFO's choice; here the lowest priority leaves first"),
    "leaves newest": N_("observation {got} is the newest low-priority one: within a priority the oldest leaves first"),
    "leaves new": N_("observation {got} is the one arriving: a candidate too, but not of the lowest priority held"),
    "leaves detail": N_("predicted observation {got}; observation {want} leaves ({text!r})"),
}


def check_priority_prediction(prediction: Any, v_max: int = 26) -> ExerciseReport:
    """Notebook 08: predict the first eviction of the priority rule on PRIORITY_STEPS at μ = words.

    ``prediction`` is ``(step, i)``: the step at which Σμ first exceeds ``v_max`` and the
    index in :data:`PRIORITY_STEPS` of the observation that leaves then (lowest priority
    first, the oldest within a priority). The expected pair is worked out here from
    that rule alone.

    >>> check_priority_prediction((4, 1)).ok
    True
    """
    criteria: dict[str, tuple[Any, ...]] = {
        N_("a pair"): (PREDICT_TEXT["pair met"], PREDICT_TEXT["pair hint"]),
        N_("the step"): (_(PREDICT_TEXT["step met"]).format(v_max=v_max),
                         _(PREDICT_TEXT["step hint"]).format(v_max=v_max), ("a pair",)),
        N_("who leaves"): (PREDICT_TEXT["leaves met"], PREDICT_TEXT["leaves hint"], ("a pair",)),
    }
    c = Checks(PREDICT_TEXT["title"], criteria)
    if prediction is None or prediction is ...:
        return c.not_done(NotImplementedError("prediction is None"))
    if (not isinstance(prediction, (tuple, list)) or len(prediction) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in prediction)):
        c.fail("a pair", _(PREDICT_TEXT["pair detail"]).format(got=prediction))
        return c.report()
    size = [words(Element(s.observation)) for s in PRIORITY_STEPS]
    held: list[int] = []
    for t in range(len(PRIORITY_STEPS)):
        held.append(t)
        if sum(size[i] for i in held) > v_max:
            break
    step, total = held[-1], sum(size[i] for i in held)
    leaves = min(held, key=lambda i: (_RANK[PRIORITY_STEPS[i].meta["priority"]], i))
    got_step, got = prediction
    c.check("the step", got_step == step,
            _(PREDICT_TEXT["step detail"]).format(got=got_step, want=step, total=total, v_max=v_max))
    lowest = [i for i in held if PRIORITY_STEPS[i].meta["priority"] == PRIORITY_STEPS[leaves].meta["priority"]]
    hint = (PREDICT_TEXT["leaves fifo"] if got == held[0] else PREDICT_TEXT["leaves new"] if got == step
            else PREDICT_TEXT["leaves newest"] if got == max(lowest) else None)
    c.check("who leaves", got == leaves,
            _(PREDICT_TEXT["leaves detail"]).format(got=got, want=leaves, text=PRIORITY_STEPS[leaves].observation),
            hint=_(hint).format(got=got) if hint else None)
    return c.report()
