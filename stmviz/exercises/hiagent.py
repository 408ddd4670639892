"""Notebook 05's exercise — HiAgent: the update U when a subgoal starts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.element import Element
from ..core.space import State
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_subgoal_switch"]


def _fake_summary(goal: str, pairs: Sequence[str]) -> str:
    return f"{goal}: " + " / ".join(p.split(" -> ")[-1] for p in pairs)


def check_subgoal_switch(start_subgoal: Callable[..., Any]) -> ExerciseReport:
    """Notebook 05: ``start_subgoal(state, new_id, new_goal, summarize)`` is HiAgent's U when a subgoal starts.

    ``state`` is a :class:`State` of elements with ``meta["type"]`` in
    ``task``, ``subgoal`` (with ``meta["subgoal"]`` its id and
    ``meta["current"]``), ``pair`` (with its subgoal id) and ``summary``.
    The finished subgoal and its pairs become one ``summary`` element (same
    subgoal id, text ``summarize(goal, pair_texts)``); a new ``subgoal``
    element enters, current; everything else stays.
    """
    c = Checks("05 · HiAgent's subgoal switch", {
        "pairs summarized": ("the finished subgoal's pairs (and its subgoal element) left ω",
                             "remove every element whose meta['subgoal'] is the current id"),
        "one summary": ("exactly one summary element for the finished subgoal, with the summarizer's text",
                        "add Element(summarize(goal, pair texts), {'type': 'summary', 'subgoal': id})"),
        "older memory kept": ("the task and older summaries are unchanged",
                              "summarize only the current subgoal; the older ones are already summaries"),
        "new subgoal current": ("the new subgoal is in ω and is the only current one",
                                "add Element(new_goal, {'type': 'subgoal', 'subgoal': new_id, 'current': True})"),
    })
    task = Element("Task: put a clean knife in the drawer.", {"type": "task", "t": 0})
    old = Element("find a knife: saw a knife on the counter", {"type": "summary", "subgoal": 0, "t": 1})
    goal = Element("clean the knife", {"type": "subgoal", "subgoal": 1, "current": True, "t": 3})
    pairs = [Element(text, {"type": "pair", "subgoal": 1, "t": 4 + i}) for i, text in enumerate(
        ["go to sink -> you are at the sink", "clean knife -> the knife is clean"])]
    state = State([task, old, goal, *pairs])
    seen: list[tuple[str, list[str]]] = []

    def summarize(goal_text: str, pair_texts: Sequence[str]) -> str:
        seen.append((goal_text, list(pair_texts)))
        return _fake_summary(goal_text, pair_texts)

    try:
        ok, got = call_answer(start_subgoal, state, 2, "put the knife in the drawer", summarize)
        if got is None:
            raise NotImplementedError("start_subgoal returned None")
    except NotImplementedError as exc:
        return c.not_done(exc)
    if not ok:
        c.fail("pairs summarized", error_text(got))
        return c.report()
    after = list(got.elements if isinstance(got, State) else got)
    c.check("pairs summarized", not any(e.meta.get("subgoal") == 1 and e.meta.get("type") in ("pair", "subgoal")
                                        for e in after), "a pair or the subgoal element of subgoal 1 is still in ω")
    summaries = [e for e in after if e.meta.get("type") == "summary" and e.meta.get("subgoal") == 1]
    expected = _fake_summary(goal.text, [p.text for p in pairs])
    c.check("one summary", len(summaries) == 1 and summaries[0].text == expected,
            f"summaries of subgoal 1: {[e.text for e in summaries]}; expected one: {expected!r}")
    c.check("older memory kept", task in after and old in after and all(s[0] == goal.text for s in seen),
            "the task or the summary of subgoal 0 changed (or summarize was asked about another subgoal)")
    current = [e for e in after if e.meta.get("current")]
    new = [e for e in after if e.meta.get("type") == "subgoal" and e.meta.get("subgoal") == 2
           and e.text == "put the knife in the drawer"]
    others = [e for e in current if e not in new]
    shown = f"current elements: {[(e.meta.get('type'), e.meta.get('subgoal'), e.text) for e in current]}"
    if not new:
        c.fail("new subgoal current", shown + "; the new subgoal is not in ω")
    elif others:
        c.fail("new subgoal current", shown, hint="the new subgoal is there, but an older element is still current "
               "(the finished subgoal?): remove it — its summary replaces it — or give it 'current': False")
    elif not new[0].meta.get("current"):
        c.fail("new subgoal current", shown + "; the new subgoal is in ω but not current",
               hint="give the new subgoal's element meta 'current': True")
    return c.report()
