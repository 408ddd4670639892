"""Notebook 04's exercise — SCM: the controller's judgement of one memory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_judge"]


def check_judge(judge: Callable[[str, str, str], Any]) -> ExerciseReport:
    """Notebook 04: ``judge(memory_text, summary_text, message)`` → ``"drop"``, ``"summary"`` or ``"full"``.

    The rule of SCM's offline judgement (``OverlapJudge``), by content words
    (``stmviz.text.scm_judges.content_words``). A ``(verdict, reason)``
    pair, as SCM's ``judge=`` takes, is accepted too.

    >>> from stmviz.text.scm_judges import OverlapJudge
    >>> check_judge(OverlapJudge()).ok
    True
    """
    c = Checks("04 · SCM's judgement", {
        "a verdict": ("the answer is one of 'drop', 'summary', 'full'", "return one of the three strings"),
        "drop": ("a memory that shares no content word with the message is dropped",
                 "look at the words the *full* memory shares with the message: none → 'drop'"),
        "summary": ("a summary that keeps every shared word is enough", "shared words all in the summary → 'summary'"),
        "full": ("a summary that loses a shared word is not enough", "a shared word missing from the summary → 'full'"),
        "only shared words": ("the summary may lose words the message does not ask about",
                              "compare only the words the memory shares with the message, not all its words"),
    })
    cases = [  # (criterion, memory, summary, message, expected)
        ("drop", "Sunny all week in Riga.", "sunny week", "What is my locker code?", "drop"),
        ("drop", "Sunny all week in Riga.", "locker code", "What is my locker code?", "drop"),
        ("summary", "My locker code is 7391, locker B.", "locker code 7391", "What is my locker code?", "summary"),
        ("full", "My locker code is 7391, locker B.", "a number", "What is my locker code?", "full"),
        ("full", "My locker code is 7391, locker B.", "the locker", "What is my locker code?", "full"),
        ("only shared words", "My daughter Mia loves the blue kite from Lisbon.", "daughter Mia",
         "What is my daughter's name? Mia?", "summary"),
    ]
    try:
        for name, memory, summary, message, expected in cases:
            ok, got = call_answer(judge, memory, summary, message)
            if not ok:
                c.fail("a verdict", error_text(got))
                continue
            if got is None:
                raise NotImplementedError("judge returned None")
            verdict = got[0] if isinstance(got, tuple) and got else got
            if not c.check("a verdict", verdict in ("drop", "summary", "full"), f"got {got!r}"):
                continue
            c.check(name, verdict == expected,
                    f"memory {memory!r}, summary {summary!r}, message {message!r}: expected {expected!r}, got {verdict!r}")
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
