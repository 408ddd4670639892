"""Notebook 03's exercises — the FIFO context window: predict which messages leave, then its U on a list.

Two exercises: a prediction (which messages the window evicts when a long reply
arrives), then ``push``, the queue discipline written on a plain list. Each
criterion of ``push`` is judged on the cases where only its fault shows: "no
eviction while it fits" on windows that fit (one of them exactly at V_max),
"only as needed" and "fits V_max" on windows that overflow, "pinned stay" on the
one with a pinned message; and "leaves its input unchanged" on every case, since
notebook 02 teaches that U does not change the state it is given.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..core.context import AgentStep
from ..core.element import Element
from ..core.formatting import shorten
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.sizes import words
from .checking import Checks, ExerciseReport, call_answer, error_text
from .predicting import read_choice

__all__ = ["EVICTION_STEPS", "EVICTION_SYSTEM", "EVICTION_V_MAX", "check_eviction_prediction", "check_fifo_push"]

# -- the prediction: which messages leave when the long reply arrives ---------------------------------------------

#: The pinned system prompt of notebook 03's small window.
EVICTION_SYSTEM = "Be brief."
#: The small window's capacity, in words.
EVICTION_V_MAX = 20
#: Three steps of a support chat: the last reply does not fit beside the rest.
EVICTION_STEPS = [
    AgentStep(observation="My parcel 1234 has not arrived yet.", meta={"role": "user"}),
    AgentStep(thought="Let me check the tracking.", observation="It was sent on Monday.", meta={"role": "user"}),
    AgentStep(thought="Your parcel is in Riga and will arrive on Friday."),
]

EVICTION_CRITERIA: dict[str, tuple[Any, ...]] = {
    N_("messages of the window"): (N_("the answer is a set of the texts of messages in the window"),
                                   N_("answer a set of message texts, copied from the list above")),
    N_("the pinned stays"): (N_("the pinned system prompt: predicted rightly"),
                             N_("a pinned message never leaves, whatever its age"), ("messages of the window",)),
    N_("oldest first"): (N_("which messages leave before which: predicted rightly"),
                         N_("FIFO cuts off the beginning: the oldest unpinned messages leave first"),
                         ("messages of the window",)),
    N_("as many as needed"): (N_("how many messages leave: predicted rightly"),
                              N_("evict one message at a time and stop as soon as Σμ ≤ V_max"),
                              ("messages of the window",)),
}
PINNED_LEAVES = N_("you predicted that the pinned {text} leaves")
NOT_OLDEST_PREDICTED = N_("you predicted that {gone} leaves while the older {stays} stays")
WRONG_HOW_MANY = "you predicted {predicted} message(s) leave; the window evicts {actual}"


def _eviction_run() -> tuple[list[str], set[str]]:
    """The texts in the window before the last step, and the texts the last step evicts (a FIFOWindow run)."""
    from ..core.space import StateSpace
    from ..core.trace import run
    from ..mechanisms import (
        FIFOWindow,  # late: the mechanisms are not needed by the other checkers
    )

    trace = run(FIFOWindow(StateSpace(words, EVICTION_V_MAX), system=EVICTION_SYSTEM), EVICTION_STEPS)
    last = len(trace) - 1
    return [e.text for e in trace.state_at(last)], {e.text for e in trace[last].removed}


def check_eviction_prediction(leaves: Any) -> ExerciseReport:
    """Notebook 03's prediction: the texts of the messages the small window evicts at its last step.

    >>> check_eviction_prediction({"My parcel 1234 has not arrived yet.", "Let me check the tracking."}).ok
    True
    >>> [c.name for c in check_eviction_prediction({"My parcel 1234 has not arrived yet."}).failures]
    ['as many as needed']
    """
    c = Checks(N_("03 · which messages leave"), EVICTION_CRITERIA)
    before, truth = _eviction_run()
    try:
        chosen = read_choice(c, "messages of the window", leaves, before)
    except NotImplementedError as exc:
        return c.not_done(exc)
    if chosen is not None:
        if EVICTION_SYSTEM in chosen:
            c.fail("the pinned stays", _(PINNED_LEAVES).format(text=repr(EVICTION_SYSTEM)))
        unpinned = [text for text in before if text != EVICTION_SYSTEM]
        for gone in (text for text in unpinned if text in chosen):
            older = [text for text in unpinned[:unpinned.index(gone)] if text not in chosen]
            if older:
                c.fail("oldest first", _(NOT_OLDEST_PREDICTED).format(gone=repr(shorten(gone, 40)),
                                                                      stays=repr(shorten(older[0], 40))))
        c.check("as many as needed", len(chosen) == len(truth),
                ngettext("you predicted {predicted} message(s) leave; the window evicts {actual}",  # WRONG_HOW_MANY
                         "you predicted {predicted} message(s) leave; the window evicts {actual}",
                         len(chosen)).format(predicted=len(chosen), actual=len(truth)))
    return c.report()


# -- push: FIFO's U on a list --------------------------------------------------------------------------------------

PUSH_CRITERIA: dict[str, tuple[Any, ...]] = {
    N_("returns the window"): (N_("push returns the window after U, a list of messages"),
                               N_("return the new list at the end of push (U gives back ω_{t+1})")),
    N_("leaves its input unchanged"): (N_("the caller's list is the same after the call"),
                                       N_("build a new list (window + [new]) instead of appending to the caller's: "
                                          "U leaves its inputs unchanged")),
    N_("appends at the end"): (N_("the new message is last and the others keep their order"),
                               N_("put the new message after the others: window + [new]"), ("returns the window",)),
    N_("no eviction while it fits"): (N_("nothing leaves while Σμ ≤ V_max, even at Σμ = V_max"),
                                      N_("evict only while Σμ > V_max: a window with Σμ = V_max fits"),
                                      ("returns the window",)),
    N_("oldest first"): (N_("on overflow the oldest messages leave"),
                         N_("remove from the front of the list, not the end"), ("returns the window",)),
    N_("only as needed"): (N_("no more messages leave than needed to fit"), N_("check Σμ again after each removal"),
                           ("returns the window",)),
    N_("pinned stay"): (N_("a pinned message (meta pinned=True) never leaves"),
                        N_("skip messages whose meta['pinned'] is True when you look for the oldest"),
                        ("returns the window",)),
    N_("fits V_max"): (N_("the result has Σμ ≤ V_max"), N_("keep evicting until Σμ ≤ V_max"), ("returns the window",)),
}
CASE = N_("window {window} + {new}, V_max = {v_max}: got {got}")
MUTATED = N_("the caller's window {before} became {after}")
NOT_A_LIST = N_("push returned {got} for window {window}")


def check_fifo_push(push: Callable[[list[Element], Element, Callable[[Element], float], float], Any]) -> ExerciseReport:
    """Notebook 03: ``push(window, new, mu, v_max)`` is the FIFO window's U on a list of messages, oldest first.

    >>> def push(window, new, mu, v_max):
    ...     window = window + [new]
    ...     while sum(mu(m) for m in window) > v_max:
    ...         window.remove(next(m for m in window if not m.meta.get("pinned")))
    ...     return window
    >>> check_fifo_push(push).ok
    True
    >>> def push(window, new, mu, v_max):
    ...     window.append(new)
    ...     while sum(mu(m) for m in window) > v_max:
    ...         window.remove(next(m for m in window if not m.meta.get("pinned")))
    ...     return window
    >>> [c.name for c in check_fifo_push(push).failures]
    ['leaves its input unchanged']
    """
    c = Checks(N_("03 · FIFO's update"), PUSH_CRITERIA)
    m = [Element(text, {"t": i}) for i, text in enumerate(
        ["one two three", "four five six", "seven eight nine", "ten eleven twelve"])]  # 3 words each
    system = Element("be kind", {"t": -1, "pinned": True})  # 2 words
    new = Element("thirteen fourteen fifteen", {"t": 9})    # 3 words
    cases = [  # (window, v_max, the criteria judged on this case): only their faults show here
        ([m[0], m[1]], 12, ("appends at the end", "no eviction while it fits")),
        ([m[0], m[1], m[2]], 12, ("appends at the end", "no eviction while it fits")),         # Σμ = V_max
        ([m[0], m[1], m[2]], 11, ("appends at the end", "oldest first", "only as needed", "fits V_max")),
        ([m[0], m[1], m[2], m[3]], 7, ("appends at the end", "oldest first", "only as needed", "fits V_max")),
        ([system, m[0], m[1], m[2]], 11, ("appends at the end", "pinned stay", "fits V_max")),
    ]
    try:
        for window, v_max, judged in cases:
            given = list(window)
            snapshot = copy.deepcopy(given)
            ok, got = call_answer(push, given, new, words, v_max)
            c.check("leaves its input unchanged", given == snapshot, _(MUTATED).format(
                before=[e.text for e in snapshot], after=[getattr(e, "text", e) for e in given]))
            if not ok:
                for name in judged:
                    c.fail(name, error_text(got))
                continue
            if got is None or isinstance(got, (str, bytes)) or not all(isinstance(e, Element) for e in got):
                c.fail("returns the window", _(NOT_A_LIST).format(got=shorten(repr(got), 60),
                                                                   window=[e.text for e in window]))
                continue
            got = list(got)
            where = _(CASE).format(window=[e.text for e in window], new=repr(new.text), v_max=v_max,
                                   got=[e.text for e in got])
            total = sum(words(e) for e in got)
            gone = [e for e in window if e not in got]
            kept = [e for e in window if e in got and not e.meta.get("pinned")]
            checks = {
                "appends at the end": got[-1:] == [new] and [e for e in window if e in got] == got[:-1],
                "no eviction while it fits": not gone,
                "fits V_max": total <= v_max,
                "pinned stay": not any(e.meta.get("pinned") for e in gone),
                "oldest first": not any((g.t or 0) > (k.t or 0) for g in gone for k in kept),
                "only as needed": not gone or total + words(max(gone, key=lambda e: e.t or 0)) > v_max,
            }
            for name in judged:
                c.check(name, checks[name], where)
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
