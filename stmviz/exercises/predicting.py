"""Reading a "predict, then run" answer: a set of names (step numbers, element texts) a student expects.

A prediction exercise asks which of a few listed things something will be
(which states fit, which steps ω_5 holds, which messages leave). The student
answers with a set — ``{"A", "E"}``, ``{2, 3, 4}`` — left as ``None`` while
the TODO is untouched. :func:`read_choice` turns the answer into a set of the
listed names, or records why it cannot (the criterion every other criterion of
the exercise needs), so that a mistyped name is reported as such and not as a
wrong prediction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..core.formatting import shorten
from ..core.i18n import N_
from ..core.i18n import gettext as _
from .checking import Checks

__all__ = ["read_choice"]

NOT_A_SET = N_("got {answer}: answer a set of names from the list, e.g. {example}")
UNKNOWN = N_("{unknown} is not one of the listed names {names}")


def read_choice(c: Checks, criterion: str, answer: Any, names: Sequence[Any]) -> set[Any] | None:
    """The answer as a set of ``names``, or None after failing ``criterion`` with what was wrong.

    ``None`` (the untouched TODO) raises NotImplementedError: the checker reports "not done yet".
    """
    if answer is None or answer is ...:
        raise NotImplementedError(_("the prediction is still None"))
    example = "{" + ", ".join(repr(n) for n in list(names)[:2]) + "}"
    if isinstance(answer, (str, bytes, int)) or not isinstance(answer, Iterable):
        c.fail(criterion, _(NOT_A_SET).format(answer=shorten(repr(answer), 80), example=example))
        return None
    chosen = list(answer)
    unknown = [a for a in chosen if not any(a == n and type(a) is type(n) for n in names)]
    if unknown:
        c.fail(criterion, _(UNKNOWN).format(unknown=shorten(repr(unknown[0]), 60),
                                            names=shorten(", ".join(repr(n) for n in names), 200)))
        return None
    return set(chosen)
