"""HiAgent's offline stand-in for its summarizer model: a finished subgoal's summarized observation and verdict.

The released agent asks a model (its ``TrajectorySummarizer``) to summarize a
finished subgoal's action–observation pairs. :class:`~stmviz.HiAgent` calls
``summarize_subgoal(subgoal, pairs, budget) -> (text, achieved)`` with the
subgoal's :class:`SubgoalPair` s; this module holds the offline, deterministic
default, :class:`ObservationSummarizer`, which keeps the observations'
informative sentences (:func:`informative_sentences`), shortened to a budget,
and states a verdict by cue words (:func:`verdict_of`). A model-backed
summarizer is :class:`stmviz.text.openai.OpenAISubgoalSummarizer`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .summarize import summarize as default_summarize
from ..core import guards

__all__ = ["SubgoalPair", "SubgoalSummarizer", "ObservationSummarizer", "verdict_of", "informative_sentences"]

_DONE_CUE = re.compile(
    r"\b(done|complete[sd]?|finished|succeed(?:ed|s)?|success(?:ful|fully)?|accomplished|achieved)\b", re.IGNORECASE
)
_FAIL_CUE = re.compile(r"\b(nothing happens|fail(?:ed|s|ure)?|cannot|can't|unable|error)\b", re.IGNORECASE)

class SubgoalPair(NamedTuple):
    """One action–observation pair of a finished subgoal, as the subgoal summarizer receives it.

    ``thought`` is the model's reasoning at that step and ``done`` whether the
    step declared the subgoal finished (the ``subgoal_done`` directive).
    """

    step: int
    action: str
    observation: str
    thought: str = ""
    done: bool = False


#: ``summarize_subgoal(subgoal, pairs, budget) -> (text, achieved)``; ``achieved`` is True, False or None (not confirmed).
SubgoalSummarizer = Callable[[str, Sequence[SubgoalPair], int], "tuple[str, bool | None]"]


def verdict_of(pairs: Sequence[SubgoalPair]) -> bool | None:
    """The offline verdict on a finished subgoal: a documented heuristic, not a judgement.

    ``True`` (achieved) when a step of the subgoal declared ``subgoal_done`` or
    the last observation or the last thought holds a done/success cue (done,
    complete, finished, succeeded, success, accomplished, achieved); ``False``
    (not achieved) when the last observation holds a failure cue (nothing
    happens, fail, cannot, unable, error); else ``None`` (not confirmed).

    >>> verdict_of([SubgoalPair(0, "take mug", "You pick up the mug.", done=True)])
    True
    >>> verdict_of([SubgoalPair(0, "open safe", "Nothing happens.")]) is False
    True
    >>> verdict_of([SubgoalPair(0, "look", "A room.")]) is None
    True
    """
    if not pairs:
        return None
    last = pairs[-1]
    if any(p.done for p in pairs) or _DONE_CUE.search(last.observation) or _DONE_CUE.search(last.thought):
        return True
    if _FAIL_CUE.search(last.observation):
        return False
    return None


class ObservationSummarizer:
    """The offline default summarizer of a finished subgoal: what was observed, and a verdict.

    It keeps the observations (not the actions) of the subgoal's pairs — the
    sentences that add to their action (:func:`informative_sentences`; when
    none does, the last observation) — shortened together to the budget by
    ``summarize(texts, budget)`` (default: :func:`stmviz.text.summarize`,
    extractive), and states the verdict of :func:`verdict_of`. Deterministic and offline; HiAgent's own summarizer is
    an LLM (see :class:`stmviz.text.openai.OpenAISubgoalSummarizer`).

    >>> ObservationSummarizer()("find a key", [SubgoalPair(0, "lift mat", "A key!", done=True)], 32)
    ('A key!', True)
    """

    def __init__(self, summarize: Any = None) -> None:
        guards.function(summarize, "summarize", "(texts, budget) -> str")
        self.summarize = summarize or default_summarize

    def __repr__(self) -> str:
        return "ObservationSummarizer()"

    def __call__(self, subgoal: str, pairs: Sequence[SubgoalPair], budget: int) -> tuple[str, bool | None]:
        kept: list[str] = []
        for p in pairs:
            if p.observation:
                kept.extend(s for s in informative_sentences(p.action, p.observation) if s not in kept)
        if not kept:  # every observation only confirmed its action: keep the last one
            kept = [p.observation for p in pairs if p.observation][-1:]
        text = self.summarize(kept, budget) if kept else "nothing was observed"
        return text, verdict_of(pairs)


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[a-z0-9]+")
_FILLER = frozenset(
    "a an the you your it its is are was be at on in into onto of to and with from for by as this that there "
    "now here".split()
)


def informative_sentences(action: str, observation: str) -> list[str]:
    """The sentences of an observation that add to its action (the offline summarizer keeps only these).

    A sentence that only confirms the action — at most one word beyond the
    action's words and filler words, e.g. "You arrive at cabinet 1." after
    ``go to cabinet 1`` — is left out.

    >>> informative_sentences("go to cabinet 1", "You arrive at cabinet 1. On it, you see a bowl 2.")
    ['On it, you see a bowl 2.']
    """
    said = set(_WORD.findall(action.lower())) | _FILLER
    return [
        sentence
        for sentence in _SENTENCE.split(observation.strip())
        if len(set(_WORD.findall(sentence.lower())) - said) > 1
    ]

