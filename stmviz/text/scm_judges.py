"""Offline stand-ins for the model SCM asks: "is memory needed?" and "which form of a memory answers the message?".

The SCM paper's memory controller asks the model two questions: (1) whether an
incoming message needs memory at all, and (2) for each activated memory, when
the memories exceed their room, whether it is needed, whether its summary
suffices, or whether its full text must stay. :class:`~stmviz.SCM` takes each
answer from a callable:

- ``needs_memory(message, memories) -> (bool, reason)``: ``message`` is the
  input about to be answered, ``memories`` the texts of the older
  interactions (the candidates of retrieval, oldest first);
- ``judge(memory_text, summary_text, message) -> ("drop" | "summary" | "full", reason)``.

This module holds deterministic heuristics that stand in for the model, so
that SCM runs offline: :class:`RecallHeuristic` (recall cues, shared content
words) and :class:`OverlapJudge` (shared content words), with
:func:`content_words` that both read, and :func:`always_needs_memory`, which
turns the first question off. :class:`~stmviz.text.openai.OpenAIMemoryController`
and :class:`~stmviz.text.openai.OpenAIMemoryJudge` ask a chat model instead.
SCM's own rule as released (it never asks the first question) is
:func:`stmviz.mechanisms.scm.retrieves_as_released`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

from ..core.formatting import shorten
from ..core import guards
from ..core.i18n import gettext as _

__all__ = [
    "RecallHeuristic",
    "OverlapJudge",
    "always_needs_memory",
    "content_words",
    "RECALL_CUES",
    "VERDICTS",
]

#: The judgement's verdicts: what ``judge`` may answer about a memory ("raw" is read as "full").
VERDICTS = ("drop", "summary", "full")

#: Phrases by which a message refers back to what was said before (matched as whole words, any case).
RECALL_CUES = (
    "remember",
    "recall",
    "again",
    "earlier",
    "i told you",
    "i said",
    "you said",
    "i mentioned",
    "did i",
    "what was",
    "my",
)

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*", re.UNICODE)
_STOP = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it
    its just let me more most much no not now of on or our out over she so some than that the their them then there these
    they this those to too up us very was we were what when where which who whom why will with would you your yours yes
    about also any all am ok okay please tell want like know think get got one quick thing things really well here
    i'm i'll i've it's that's what's don't can't let's you're we're""".split()
)


@lru_cache(maxsize=1 << 14)
def content_words(text: str) -> frozenset[str]:
    """The content words of a text: lowercased words of 3+ characters that are not stop words.

    >>> sorted(content_words("Tell me a joke about penguins!"))
    ['joke', 'penguins']
    """
    return frozenset(w for w in (m.lower() for m in _WORD.findall(text)) if len(w) >= 3 and w not in _STOP)


def always_needs_memory(message: str, memories: Sequence[str]) -> tuple[bool, str]:
    """A controller that activates memory for every message (SCM without its first decision)."""
    return True, _("always (needs_memory=always_needs_memory)")


class RecallHeuristic:
    """The offline default of "is memory needed?": the message refers back, or echoes an earlier interaction.

    Memory is needed when (a) the message holds a recall cue — one of
    ``cues`` as whole words, any case (by default: "remember", "recall",
    "again", "earlier", "I told you", "I said", "you said",
    "I mentioned", "did I", "what was", "my") — or (b) some earlier
    interaction shares at least ``min_shared`` of the message's content
    words (:func:`content_words`) and at least ``min_fraction`` of them, or
    ``max_shared`` of them for a long input such as a tool's result (the
    newest such interaction is named in the reason).
    Otherwise it is not: "Tell me a joke" has no cue, and its content words
    ("joke") are in no earlier interaction.

    >>> needs = RecallHeuristic()
    >>> needs("Tell me a joke.", ["My locker code is 7391.\\nNoted."])
    (False, "no recall cue, and no earlier interaction shares 2 of the message's content words ['joke']")
    >>> needs("What is my locker code?", ["My locker code is 7391.\\nNoted."])[0]
    True
    """

    def __init__(
        self, cues: Sequence[str] = RECALL_CUES, *, min_shared: int = 2, min_fraction: float = 0.5, max_shared: int = 4
    ) -> None:
        cues = tuple(guards.items(cues, "cues", what="non-empty phrases, e.g. ('remember', 'I told you')"))
        for i, cue in enumerate(cues):
            guards.text(cue, f"cues[{i}]", example="remember")
        min_shared = guards.whole_number(min_shared, "min_shared", 1)
        min_fraction = guards.real_number(min_fraction, "min_fraction", 0, 1)
        max_shared = guards.whole_number(
            max_shared, "max_shared", min_shared, fix=f"; pass max_shared ≥ min_shared = {min_shared}, or lower min_shared"
        )
        self.cues = tuple(cues)
        self.max_shared = max_shared
        self.min_shared = min_shared
        self.min_fraction = float(min_fraction)
        pattern = "|".join(r"\s+".join(map(re.escape, c.lower().split())) for c in self.cues)
        self._cue = re.compile(rf"(?<![^\W_])(?:{pattern})(?![^\W_])", re.IGNORECASE) if pattern else None

    def __repr__(self) -> str:
        return f"RecallHeuristic(min_shared={self.min_shared}, min_fraction={self.min_fraction}, max_shared={self.max_shared})"

    def __call__(self, message: str, memories: Sequence[str]) -> tuple[bool, str]:
        cue = self._cue.search(message) if self._cue is not None else None
        if cue is not None:
            return True, _("the message refers back ({cue})").format(cue=repr(cue.group(0)))
        words = content_words(message)
        need = max(self.min_shared, 1)
        enough = max(need, min(self.min_fraction * len(words), self.max_shared))
        if len(words) >= need:
            n = len(memories)
            for back, text in enumerate(reversed(memories)):  # the newest first: it stops at the first match
                shared = len(words & content_words(text))
                if shared >= enough:
                    return True, _("earlier interaction {index} shares {shared} of the message's {n} content words").format(
                        index=n - 1 - back, shared=shared, n=len(words))
        return False, _("no recall cue, and no earlier interaction shares {need} of the message's content words {words}").format(
            need=math.ceil(enough), words=shorten(str(sorted(words)), 120))


class OverlapJudge:
    """The offline default of the judgement: which form of a memory can answer the message, by shared content words.

    - ``"drop"`` when the full text shares no content word with the message
      (even the full text cannot answer it);
    - ``"summary"`` when the summary keeps every content word the full text
      shares with the message (the summary can answer it);
    - ``"full"`` otherwise.

    >>> judge = OverlapJudge()
    >>> judge("My locker code is 7391.", "locker code 7391", "What is my locker code?")
    ('summary', "the summary keeps every word the memory shares with the message: ['code', 'locker']")
    >>> judge("My locker code is 7391.", "a number", "What is my locker code?")[0]
    'full'
    >>> judge("Sunny all week.", "sunny", "What is my locker code?")[0]
    'drop'
    """

    def __repr__(self) -> str:
        return "OverlapJudge()"

    def __call__(self, memory_text: str, summary_text: str, message: str) -> tuple[str, str]:
        words = content_words(message)
        in_full = words & content_words(memory_text)
        if not in_full:
            return "drop", _("the memory shares no content word with the message {words}").format(words=sorted(words))
        lost = in_full - content_words(summary_text)
        if not lost:
            return "summary", _("the summary keeps every word the memory shares with the message: {words}").format(
                words=sorted(in_full))
        return "full", _("the summary loses {words}, which the memory shares with the message").format(words=sorted(lost))
