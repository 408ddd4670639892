"""Notebook 05's exercises — HiAgent: predict what retrieve(1, 3) brings back; the update U when a subgoal starts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.element import Element
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.space import State
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_retrieval_prediction", "check_subgoal_switch"]

# Every sentence a student reads, whole, with named placeholders (translatable).
TEXT = {
    "steps": N_("a set of step numbers (whole numbers)"),
    "steps hint": N_("answer a set of ints, e.g. {0, 1, 2}: the steps whose pairs come back"),
    "got": N_("got {got!r}"),
    "only asked": N_("every step you named belongs to subgoal 1 or 3, the subgoals retrieve(1, 3) asks for"),
    "only asked hint": N_("retrieve(1, 3) restores only the pairs of subgoals 1 and 3; other subgoals stay summaries"),
    "subgoal": N_("subgoal {k}'s pairs in ω_{t}: steps {want}"),
    "subgoal todo": N_("your steps of subgoal {k} match the run"),
    "subgoal got": N_("you predicted steps {got} of subgoal {k}; ω_{t} holds steps {want}"),
    "subgoal dropped": N_("you predicted steps {got} of subgoal {k}; ω_{t} holds steps {want}: overflow dropped "
                          "steps {lost} in the same update (the oldest memory first)"),
    "subgoal 1 hint": N_("retrieval restores pairs only as far as they fit V_max: the oldest go first, in the same update"),
    "subgoal 3 hint": N_("a retrieved subgoal gives back its pairs from the step history, every one that fits"),
    "state": N_("the answer returns the new state"),
    "state hint": N_("return the new state: (state - what leaves) | {what enters}; your code raised or returned no state"),
    "pairs": N_("the finished subgoal's pairs left ω"),
    "pairs hint": N_("remove every pair whose meta['subgoal'] is the finished subgoal's id: its summary replaces them"),
    "closed": N_("the finished subgoal's own element left ω"),
    "closed got": N_("the subgoal element of subgoal 1 ({text!r}) is still in ω"),
    "closed hint": N_("remove the finished subgoal's element too (type 'subgoal'): its summary replaces it"),
    "summary": N_("exactly one summary element for the finished subgoal, with the summarizer's text"),
    "summary got": N_("summaries of subgoal 1: {got}; expected one: {want!r}"),
    "summary hint": N_("add Element(summarize(goal, pair texts), {'type': 'summary', 'subgoal': id})"),
    "summary text hint": N_("the summary's text must be summarize(goal_text, the texts of the finished subgoal's pairs), "
                            "its pairs only, in time order"),
    "older": N_("the task and older summaries are unchanged"),
    "older got": N_("summarize was given an older subgoal or its summary, not only the finished subgoal's pairs"),
    "older missing": N_("the task or the summary of subgoal 0 is no longer in ω, or changed"),
    "older missing hint": N_("keep the task and the older summaries as they are: return state minus what leaves, "
                             "plus what enters"),
    "older hint": N_("summarize only the current subgoal; the older ones are already summaries"),
    "new": N_("the new subgoal is in ω, current"),
    "new missing": N_("no element of type 'subgoal' with id {k} and text {text!r} in ω"),
    "new missing hint": N_("add Element(new_goal, {'type': 'subgoal', 'subgoal': new_id, 'current': True})"),
    "new not current": N_("the new subgoal is in ω but not current: its meta is {meta}"),
    "new not current hint": N_("give the new subgoal's element meta 'current': True"),
}

#: notebook 05's retrieval: household, at step 16 the agent asks retrieve(1, 3); the pairs are in ω_17
RETRIEVAL_STEP = 16


def _retrieved_in_omega() -> tuple[dict[int, tuple[int, int]], dict[int, set[int]]]:
    """(each retrieved subgoal's range of steps, the steps of its pairs in ω_{t+1}) on household at RETRIEVAL_STEP."""
    from ..core.trace import run
    from ..mechanisms import HiAgent
    from ..scenarios import load_scenario

    scenario = load_scenario("household")
    trace = run(HiAgent(scenario.space()), scenario)
    ranges = {e.meta["subgoal"]: tuple(e.meta["range"]) for e in trace.state_at(RETRIEVAL_STEP)
              if e.type == "summary" and e.meta["subgoal"] in (1, 3)}
    back: dict[int, set[int]] = {1: set(), 3: set()}
    for e in trace.state_at(RETRIEVAL_STEP + 1):
        if e.type == "retrieved":
            back[e.meta["subgoal"]].add(e.meta["step"])
    return ranges, back


def check_retrieval_prediction(prediction: Any) -> ExerciseReport:
    """Notebook 05, predict then run: the steps whose pairs ``retrieve(1, 3)`` at step 16 puts in ω_17 (household).

    >>> check_retrieval_prediction({2, 6, 7, 8, 9, 10}).ok
    True
    """
    t = RETRIEVAL_STEP + 1
    needs = ("a set of steps",)
    criteria: dict[str, tuple[Any, ...]] = {
        N_("a set of steps"): (TEXT["steps"], TEXT["steps hint"]),
        N_("only subgoals 1 and 3"): (TEXT["only asked"], TEXT["only asked hint"], needs),
        N_("subgoal 1"): (_(TEXT["subgoal todo"]).format(k=1), TEXT["subgoal 1 hint"], needs),
        N_("subgoal 3"): (_(TEXT["subgoal todo"]).format(k=3), TEXT["subgoal 3 hint"], needs),
    }
    c = Checks(N_("05 · predict: what retrieve(1, 3) brings back"), criteria)
    if prediction is None or prediction is ...:
        return c.not_done(NotImplementedError("retrieved_steps is None"))
    items = list(prediction) if isinstance(prediction, (set, frozenset, list, tuple)) else None
    if not c.check("a set of steps", items is not None and all(
            isinstance(s, int) and not isinstance(s, bool) for s in items), _(TEXT["got"]).format(got=prediction)):
        return c.report()
    steps = set(items or ())
    ranges, back = _retrieved_in_omega()
    (lo1, hi1), (lo3, hi3) = ranges[1], ranges[3]
    outside = sorted(s for s in steps if not (lo1 <= s <= hi1 or lo3 <= s <= hi3))
    c.check("only subgoals 1 and 3", not outside,
            # one English sentence for any number of steps; Russian picks its plural form by the count
            ngettext("step(s) {steps} belong to neither subgoal 1 (steps {lo1}–{hi1}) nor subgoal 3 (steps {lo3}–{hi3})",
                     "step(s) {steps} belong to neither subgoal 1 (steps {lo1}–{hi1}) nor subgoal 3 (steps {lo3}–{hi3})",
                     len(outside)).format(steps=outside, lo1=lo1, hi1=hi1, lo3=lo3, hi3=hi3))
    for k in (1, 3):
        lo, hi = ranges[k]
        mine, want = sorted(s for s in steps if lo <= s <= hi), sorted(back[k])
        c.spec[f"subgoal {k}"] = (_(TEXT["subgoal"]).format(k=k, t=t, want=want), TEXT[f"subgoal {k} hint"])
        lost = sorted(set(range(lo, hi + 1)) - set(want))
        detail = _(TEXT["subgoal dropped"] if lost else TEXT["subgoal got"]).format(got=mine, k=k, t=t, want=want,
                                                                                     lost=lost)
        c.check(f"subgoal {k}", mine == want, detail)
    return c.report()


def _fake_summary(goal: str, pairs: Sequence[str]) -> str:
    return f"{goal}: " + " / ".join(p.split(" -> ")[-1] for p in pairs)


def check_subgoal_switch(start_subgoal: Callable[..., Any]) -> ExerciseReport:
    """Notebook 05: ``start_subgoal(state, new_id, new_goal, summarize)`` is HiAgent's U when a subgoal starts.

    ``state`` is a :class:`State` of elements with ``meta["type"]`` in
    ``task``, ``subgoal`` (with ``meta["subgoal"]`` its id and
    ``meta["current"]``), ``pair`` (with its subgoal id) and ``summary``.
    The finished subgoal and its pairs become one ``summary`` element (same
    subgoal id, text ``summarize(goal, pair_texts)``); a new ``subgoal``
    element enters, current; everything else stays. (A :class:`State` and its
    elements are immutable, so U cannot change its input: there is no purity
    criterion here.)
    """
    needs = ("a state",)
    criteria: dict[str, tuple[Any, ...]] = {
        N_("a state"): (TEXT["state"], TEXT["state hint"]),
        N_("pairs summarized"): (TEXT["pairs"], TEXT["pairs hint"], needs),
        N_("old subgoal closed"): (TEXT["closed"], TEXT["closed hint"], needs),
        N_("one summary"): (TEXT["summary"], TEXT["summary hint"], needs),
        N_("older memory kept"): (TEXT["older"], TEXT["older hint"], needs),
        N_("new subgoal current"): (TEXT["new"], TEXT["new missing hint"], needs),
    }
    c = Checks(N_("05 · HiAgent's subgoal switch"), criteria)
    task = Element("Task: put a clean knife in the drawer.", {"type": "task", "t": 0})
    old = Element("find a knife: saw a knife on the counter", {"type": "summary", "subgoal": 0, "t": 1})
    goal = Element("clean the knife", {"type": "subgoal", "subgoal": 1, "current": True, "t": 3})
    pairs = [Element(text, {"type": "pair", "subgoal": 1, "t": 4 + i}) for i, text in enumerate(
        ["go to sink -> you are at the sink", "clean knife -> the knife is clean"])]
    state = State([task, old, goal, *pairs])
    seen: list[tuple[str, list[str]]] = []
    new_goal = "put the knife in the drawer"

    def summarize(goal_text: str, pair_texts: Sequence[str]) -> str:
        seen.append((goal_text, list(pair_texts)))
        return _fake_summary(goal_text, pair_texts)

    try:
        ok, got = call_answer(start_subgoal, state, 2, new_goal, summarize)
        if got is None:
            raise NotImplementedError(_("start_subgoal returned None"))
    except NotImplementedError as exc:
        return c.not_done(exc)
    is_state = ok and (isinstance(got, (State, set, frozenset, list, tuple))
                       and all(isinstance(e, Element) for e in got))
    if not c.check("a state", is_state, error_text(got) if not ok else _(TEXT["got"]).format(got=got)):
        return c.report()
    after = list(got.elements if isinstance(got, State) else got)
    left = [e.text for e in after if e.meta.get("subgoal") == 1 and e.meta.get("type") == "pair"]
    c.check("pairs summarized", not left, ngettext("pair(s) of subgoal 1 still in ω: {left}",
                                                   "pair(s) of subgoal 1 still in ω: {left}", len(left)).format(left=left))
    c.check("old subgoal closed", goal not in after and not any(
        e.meta.get("type") == "subgoal" and e.meta.get("subgoal") == 1 for e in after),
        _(TEXT["closed got"]).format(text=goal.text))
    summaries = [e for e in after if e.meta.get("type") == "summary" and e.meta.get("subgoal") == 1]
    expected = _fake_summary(goal.text, [p.text for p in pairs])
    if not (len(summaries) == 1 and summaries[0].text == expected):
        c.fail("one summary", _(TEXT["summary got"]).format(got=[e.text for e in summaries], want=expected),
               hint=_(TEXT["summary text hint"]) if len(summaries) == 1 else None)
    if any(goal_text != goal.text or old.text in texts for goal_text, texts in seen):
        c.fail("older memory kept", _(TEXT["older got"]))
    elif not (task in after and old in after):
        c.fail("older memory kept", _(TEXT["older missing"]), hint=_(TEXT["older missing hint"]))
    new = [e for e in after if e.meta.get("type") == "subgoal" and e.meta.get("subgoal") == 2 and e.text == new_goal]
    if not new:
        c.fail("new subgoal current", _(TEXT["new missing"]).format(k=2, text=new_goal))
    elif not new[0].meta.get("current"):
        c.fail("new subgoal current", _(TEXT["new not current"]).format(meta=dict(new[0].meta)),
               hint=_(TEXT["new not current hint"]))
    return c.report()
