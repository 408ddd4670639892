"""Notebook 02's exercise — Definition 2: a mechanism that never forgets the task."""

from __future__ import annotations

from collections.abc import Callable

from ..core.context import AgentStep
from ..core.formatting import shorten
from ..core.mechanism import Mechanism
from ..core.sizes import words
from ..core.space import State, StateSpace
from .checking import Checks, ExerciseReport, checked_run

__all__ = ["check_keep_first", "KEEP_FIRST_STEPS"]


#: The stream of exercise 02: the task comes first and must never be forgotten.
KEEP_FIRST_STEPS = [
    AgentStep(observation="Task: book a table for Ada, who is allergic to peanuts.", meta={"role": "user"}),
    AgentStep(thought="I will search.", observation="It is raining in Riga today."),
    AgentStep(thought="Look for Italian places.", observation="The API returned 42 restaurants near the old town."),
    AgentStep(thought="Filter them.", observation="Trattoria Sole and Casa Nostra have nut-free menus."),
    AgentStep(thought="Check a time.", observation="Trattoria Sole has a table on Friday at 19:30."),
    AgentStep(thought="Book it.", observation="Booked: Trattoria Sole, Friday 19:30, two people."),
]


def check_keep_first(make: Callable[[StateSpace], Mechanism] | type, v_max: int = 40) -> ExerciseReport:
    """Notebook 02: a sliding window whose U never evicts the first message (the task), at μ = words.

    ``make`` builds the mechanism from a state space (a Mechanism subclass works).
    """
    c = Checks("02 · a window that keeps the task", {
        "contract": ("check_mechanism passes: U stays in Ω_STM, is pure and repeatable", "read the ✗ lines of "
                     "check_mechanism(...) on your mechanism"),
        "task kept": ("the first message is in every ω_t after it arrived",
                      "skip the element of step 0 (int(meta['t']) == 0) when you look for one to evict"),
        "new input kept": ("each step's input is in ω_{t+1}", "evict old elements, never the one that just arrived"),
        "oldest first": ("the elements that leave are older than every element that stays (but the task)",
                         "iterate over the state in canonical order (by time) and evict from the front"),
        "only as needed": ("no element leaves while the state fits",
                           "stop evicting as soon as `state in self.space` holds"),
    })
    space = StateSpace(words, v_max)
    built = checked_run(c, make, space, KEEP_FIRST_STEPS, check_steps=KEEP_FIRST_STEPS,
                         todo="TODO: update is not written yet")
    if isinstance(built, ExerciseReport):
        return built
    _, trace = built
    task = KEEP_FIRST_STEPS[0].observation
    for t in range(len(trace)):
        before, after = trace.state_at(t), trace.state_at(t + 1)
        texts = " ".join(e.text for e in after)
        c.check("task kept", task in texts, f"the task is not in ω_{t + 1}")
        new = KEEP_FIRST_STEPS[t].observation
        c.check("new input kept", new in texts, f"step {t}'s input {shorten(new, 40)!r} is not in ω_{t + 1}")
        removed = [e for e in before if e not in after]
        stays = [e for e in after if e in before and task not in e.text]
        for gone in removed:
            if task in gone.text:
                continue
            if any((e.t or 0) < (gone.t or 0) for e in stays):
                c.fail("oldest first", f"step {t}: {gone.label()} left while an older element stayed")
        if removed:
            youngest = max(removed, key=lambda e: e.t or 0)
            c.check("only as needed", State(list(after) + [youngest]) not in space,
                    f"step {t}: {youngest.label()} left, but ω_{t + 1} with it still fits V_max = {v_max}")
    return c.report()
