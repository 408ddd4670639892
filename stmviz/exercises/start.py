"""Notebook 00's worked example — what a checker says: ``room_left(sizes, v_max)``, the room left under V_max.

Notebook 00 is not graded: it runs this checker on a wrong first try, a second
try with another fault, and the fix, so that a student has read a checker's ✗,
hint, "·" (not judged) and ✓ lines before the first exercise of notebook 01.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.i18n import N_
from ..core.i18n import gettext as _
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_room_left"]

ROOM_CRITERIA: dict[str, tuple[Any, ...]] = {
    N_("a number"): (N_("room_left returns a number of tokens"), N_("return the room as a number, e.g. v_max - ...")),
    N_("the total size"): (N_("while the sizes fit, the room is V_max − Σμ"),
                           N_("add up the sizes (sum(sizes)): the number of elements is not their size"),
                           ("a number",)),
    N_("the empty state"): (N_("with no elements the whole V_max is free"),
                            N_("Σμ over no elements is 0: the room is V_max"), ("a number",)),
    N_("never below 0"): (N_("when the sizes exceed V_max there is no room: 0, not a negative number"),
                          N_("clip at zero: max(..., 0)"), ("a number", "the total size")),
}
WRONG_ROOM = N_("sizes {sizes}, V_max = {v_max}: expected {expected}, got {got}")
NOT_A_NUMBER = N_("sizes {sizes}, V_max = {v_max}: got {got}, not a number")


def check_room_left(room_left: Callable[[Sequence[float], float], Any]) -> ExerciseReport:
    """Notebook 00's worked example: ``room_left(sizes, v_max)`` is how many more tokens fit, never below 0.

    >>> print(check_room_left(lambda sizes, v_max: max(v_max - sum(sizes), 0)))
    00 · room left: every criterion is met ✓
      ✓ a number: room_left returns a number of tokens
      ✓ the total size: while the sizes fit, the room is V_max − Σμ
      ✓ the empty state: with no elements the whole V_max is free
      ✓ never below 0: when the sizes exceed V_max there is no room: 0, not a negative number
    """
    c = Checks(N_("00 · room left"), ROOM_CRITERIA)
    cases = [  # (criterion, sizes, v_max, expected)
        ("the total size", [3, 4, 4, 5], 20, 4),
        ("the total size", [12], 40, 28),
        ("the empty state", [], 30, 30),
        ("never below 0", [30, 20], 40, 0),
    ]
    try:
        for name, sizes, v_max, expected in cases:
            called, got = call_answer(room_left, list(sizes), v_max)
            if not called:
                c.fail(name, error_text(got))
            elif isinstance(got, bool) or not isinstance(got, (int, float)):
                c.fail("a number", _(NOT_A_NUMBER).format(sizes=sizes, v_max=v_max, got=repr(got)))
            elif got != expected:
                c.fail(name, _(WRONG_ROOM).format(sizes=sizes, v_max=v_max, expected=expected, got=got))
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
