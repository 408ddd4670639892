"""Notebook 02's exercises — Definition 2: predict what a sliding window keeps, then a window that keeps the task.

Two exercises: a prediction (which steps' sentences ω_5 holds after notebook 02's
sliding window ran), then ``KeepFirst``, a mechanism whose U never evicts the
task. Each criterion of ``KeepFirst`` is judged where only its fault shows:
"new input kept" at the steps that fit without an eviction, "oldest first"
among every element that could have left — the ones that just arrived included,
so a U that evicts the newest fails it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.context import AgentStep
from ..core.element import Element
from ..core.formatting import shorten
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.mechanism import Mechanism
from ..core.sizes import tokens, words
from ..core.space import State, StateSpace
from .checking import Checks, ExerciseReport, checked_run
from .predicting import read_choice

__all__ = ["KEEP_FIRST_STEPS", "WINDOW_STEPS", "WINDOW_V_MAX", "check_keep_first", "check_window_prediction"]

# -- the prediction: what ω_5 of the sliding window holds ---------------------------------------------------

#: Notebook 02's five observations, run through its sliding window at μ = tokens.
WINDOW_STEPS = [
    "The user is allergic to peanuts.",
    "It is raining in Riga today.",
    "The user prefers Italian food.",
    "The API returned 42 restaurants near the old town.",
    "Booking must be for 19:30 on Friday.",
]
#: The sliding window's capacity in notebook 02, in tokens.
WINDOW_V_MAX = 30

PREDICTION_CRITERIA: dict[str, tuple[Any, ...]] = {
    N_("step numbers"): (N_("the answer is a set of step numbers 0–4"),
                         N_("answer a set of step numbers, such as {0, 4}")),
    N_("the newest is kept"): (N_("step 4, the input that arrived last: predicted rightly"),
                               N_("U adds step 4's input and then evicts the oldest: the newest sentence always stays"),
                               ("step numbers",)),
    N_("oldest leave first"): (N_("which sentences leave before which: predicted rightly"),
                               N_("the window evicts from the front: what stays is the most recent few, without a gap"),
                               ("step numbers",)),
    N_("as many as fit"): (N_("how many sentences ω_5 holds: predicted rightly"),
                           N_("add up μ from the newest sentence backwards while the sum stays ≤ V_max"),
                           ("step numbers",)),
}
WRONG_NEWEST = N_("step 4 is not in your ω_5")
WRONG_ORDER = N_("you keep step {kept} but not step {gone}, which is newer")
WRONG_COUNT = "you predicted {predicted} sentence(s); μ of the steps is {sizes}, and {actual} fit in V_max = {v_max}"


def window_final(v_max: int = WINDOW_V_MAX) -> set[int]:
    """The steps whose sentence the sliding window holds in ω_5: the newest few that fit (Definition 2's U, by hand)."""
    mu, kept, total = tokens(), set(), 0.0
    for t in reversed(range(len(WINDOW_STEPS))):
        size = mu(Element(WINDOW_STEPS[t]))
        if total + size > v_max:
            break
        kept.add(t)
        total += size
    return kept


def check_window_prediction(kept: Any) -> ExerciseReport:
    """Notebook 02's prediction: the steps (0–4) whose sentence is in ω_5 of the sliding window at V_max = 30 tokens.

    >>> check_window_prediction({2, 3, 4}).ok
    True
    >>> [c.name for c in check_window_prediction({0, 3, 4}).failures]
    ['oldest leave first']
    """
    c = Checks(N_("02 · what ω_5 holds"), PREDICTION_CRITERIA)
    try:
        chosen = read_choice(c, "step numbers", kept, list(range(len(WINDOW_STEPS))))
    except NotImplementedError as exc:
        return c.not_done(exc)
    if chosen is not None:
        truth, mu = window_final(), tokens()
        last = len(WINDOW_STEPS) - 1
        c.check("the newest is kept", last in chosen, _(WRONG_NEWEST))
        gaps = [(k, g) for k in sorted(chosen) for g in range(k + 1, last) if g not in chosen]  # the newest: above
        if gaps:
            c.fail("oldest leave first", _(WRONG_ORDER).format(kept=gaps[0][0], gone=gaps[0][1]))
        c.check("as many as fit", len(chosen) == len(truth), ngettext(  # WRONG_COUNT, in the plural form of predicted
            "you predicted {predicted} sentence(s); μ of the steps is {sizes}, and {actual} fit in V_max = {v_max}",
            "you predicted {predicted} sentence(s); μ of the steps is {sizes}, and {actual} fit in V_max = {v_max}",
            len(chosen)).format(predicted=len(chosen), sizes=[mu(Element(s)) for s in WINDOW_STEPS], actual=len(truth), v_max=WINDOW_V_MAX))
    return c.report()


# -- KeepFirst: a window that never forgets the task -------------------------------------------------------

#: The stream of exercise 02: the task comes first and must never be forgotten.
KEEP_FIRST_STEPS = [
    AgentStep(observation="Task: book a table for Ada, who is allergic to peanuts.", meta={"role": "user"}),
    AgentStep(thought="I will search.", observation="It is raining in Riga today."),
    AgentStep(thought="Look for Italian places.", observation="The API returned 42 restaurants near the old town."),
    AgentStep(thought="Filter them.", observation="Trattoria Sole and Casa Nostra have nut-free menus."),
    AgentStep(thought="Check a time.", observation="Trattoria Sole has a table on Friday at 19:30."),
    AgentStep(thought="Book it.", observation="Booked: Trattoria Sole, Friday 19:30, two people."),
]

KEEP_FIRST_CRITERIA: dict[str, tuple[Any, ...]] = {
    N_("contract"): (N_("check_mechanism passes: U stays in Ω_STM, leaves its inputs unchanged and is repeatable"),
                     N_("read the ✗ lines of check_mechanism(...) on your mechanism")),
    N_("new input kept"): (N_("each step's input enters ω_{t+1} when everything fits"),
                           N_("add the step's input (context.step.observation) as an element, as well as its output"),
                           ("contract",)),
    N_("task kept"): (N_("the first message is in every ω_t after it arrived"),
                      N_("skip the element of step 0 (int(meta['t']) == 0) when you look for one to evict"),
                      ("contract", "new input kept")),
    N_("oldest first"): (N_("the elements that leave are older than every element that stays (but the task)"),
                         N_("iterate over the state in canonical order (by time) and evict from the front, "
                            "never the newest"), ("contract", "new input kept")),
    N_("only as needed"): (N_("no element leaves while the state fits"),
                           N_("stop evicting as soon as `state in self.space` holds"), ("contract",)),
}
LOST_TASK = N_("the task is not in ω_{t}")
LOST_INPUT = N_("step {t}'s input {text} is not in ω_{next}, though everything fits in V_max = {v_max}")
NOT_OLDEST = N_("step {t}: {gone} left while the older {stays} stayed")
TOO_MANY = N_("step {t}: {gone} left, but ω_{next} with it still fits V_max = {v_max}")


def check_keep_first(make: Callable[[StateSpace], Mechanism] | type, v_max: int = 40) -> ExerciseReport:
    """Notebook 02: a sliding window whose U never evicts the first message (the task), at μ = words.

    ``make`` builds the mechanism from a state space (a Mechanism subclass works).
    """
    c = Checks(N_("02 · a window that keeps the task"), KEEP_FIRST_CRITERIA)
    space = StateSpace(words, v_max)
    built = checked_run(c, make, space, KEEP_FIRST_STEPS, check_steps=KEEP_FIRST_STEPS,
                        todo=_("TODO: update is not written yet"))
    if isinstance(built, ExerciseReport):
        return built
    _mechanism, trace = built
    task = KEEP_FIRST_STEPS[0].observation

    def is_task(e: Element) -> bool:
        return task in e.text

    everything: list[Element] = []  # every element the steps so far would add, for "does it all fit?"
    for t in range(len(trace)):
        before, after = trace.state_at(t), trace.state_at(t + 1)
        step = KEEP_FIRST_STEPS[t]
        everything += [Element(text) for text in (step.output, step.observation) if text]
        texts = " ".join(e.text for e in after)
        c.check("task kept", task in texts, _(LOST_TASK).format(t=t + 1))
        if State(everything) in space:  # nothing had to leave yet: the input must be there
            c.check("new input kept", step.observation in texts, _(LOST_INPUT).format(
                t=t, text=repr(shorten(step.observation, 40)), next=t + 1, v_max=v_max))
        stays = [e for e in after if not is_task(e)]
        removed = [e.label() for e in before if e not in after and not is_task(e)]
        older_than = {e.label(): e.t or 0 for e in before}
        # what arrived at step t and left at once is in neither state's diff: found by its text
        removed += [repr(shorten(text, 40)) for text in (step.output, step.observation)
                    if text and text not in texts and task not in text]
        older_than.update({repr(shorten(text, 40)): t for text in (step.output, step.observation) if text})
        for gone in removed:
            older = [e for e in stays if (e.t or 0) < older_than[gone]]
            if older:
                c.fail("oldest first", _(NOT_OLDEST).format(t=t, gone=gone, stays=older[0].label()))
        removed_elements = [e for e in before if e not in after and not is_task(e)]
        if removed_elements:
            youngest = max(removed_elements, key=lambda e: e.t or 0)
            c.check("only as needed", State(list(after) + [youngest]) not in space,
                    _(TOO_MANY).format(t=t, gone=youngest.label(), next=t + 1, v_max=v_max))
    return c.report()
