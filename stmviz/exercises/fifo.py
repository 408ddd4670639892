"""Notebook 03's exercise — the FIFO context window: its update U on a list of messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.element import Element
from ..core.sizes import words
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_fifo_push"]


def check_fifo_push(push: Callable[[list[Element], Element, Callable[[Element], float], float], Any]) -> ExerciseReport:
    """Notebook 03: ``push(window, new, mu, v_max)`` is the FIFO window's U on a list of messages, oldest first.

    >>> def push(window, new, mu, v_max):
    ...     window = window + [new]
    ...     while sum(mu(m) for m in window) > v_max:
    ...         window.remove(next(m for m in window if not m.meta.get("pinned")))
    ...     return window
    >>> check_fifo_push(push).ok
    True
    """
    c = Checks("03 · FIFO's update", {
        "appends at the end": ("the new message is last and the others keep their order", "window + [new]"),
        "no eviction while it fits": ("nothing leaves while Σμ ≤ V_max", "evict only while Σμ > V_max"),
        "oldest first": ("on overflow the oldest messages leave", "remove from the front of the list, not the end"),
        "only as needed": ("no more messages leave than needed to fit", "check Σμ again after each removal"),
        "pinned stay": ("a pinned message (meta pinned=True) never leaves",
                        "skip messages whose meta['pinned'] is True when you look for the oldest"),
        "fits V_max": ("the result has Σμ ≤ V_max", "keep evicting until Σμ ≤ V_max"),
    })
    m = [Element(text, {"t": i}) for i, text in enumerate(
        ["one two three", "four five six", "seven eight nine", "ten eleven twelve"])]
    system = Element("be kind", {"t": -1, "pinned": True})
    new = Element("thirteen fourteen fifteen", {"t": 9})
    cases = [  # (window, v_max, expected)
        ([m[0], m[1]], 12, [m[0], m[1], new]),
        ([m[0], m[1], m[2]], 12, [m[1], m[2], new]),
        ([m[0], m[1], m[2], m[3]], 9, [m[3], new]),
        ([system, m[0], m[1], m[2]], 11, [system, m[2], new]),
    ]
    try:
        for window, v_max, expected in cases:
            ok, got = call_answer(push, list(window), new, words, v_max)
            if not ok:
                c.fail("appends at the end", error_text(got))
                continue
            if got is None:
                raise NotImplementedError("push returned None")
            got = list(got)
            where = f"window {[e.text for e in window]} + {new.text!r}, V_max = {v_max}: got {[e.text for e in got]}"
            total = sum(words(e) for e in got)
            c.check("fits V_max", total <= v_max, f"Σμ = {total} > V_max; {where}")
            c.check("appends at the end", got[-1:] == [new] and
                    [e for e in window if e in got] == [e for e in got if e is not new and e != new],
                    where)
            gone = [e for e in window if e not in got]
            fits = sum(words(e) for e in window) + words(new) <= v_max
            c.check("no eviction while it fits", not (fits and gone), where)
            c.check("pinned stay", not any(e.meta.get("pinned") for e in gone), where)
            kept = [e for e in window if e in got and not e.meta.get("pinned")]
            c.check("oldest first", not any((g.t or 0) > (k.t or 0) for g in gone for k in kept), where)
            if gone and not fits:
                youngest = max((g for g in gone if not g.meta.get("pinned")), key=lambda e: e.t or 0, default=None)
                if youngest is not None:
                    c.check("only as needed", total + words(youngest) > v_max, where)
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
