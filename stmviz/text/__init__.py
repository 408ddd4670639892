"""Offline, deterministic text helpers for the mechanisms: summaries and embeddings.

- :func:`summarize` — an extractive summarizer with a token budget (the default
  ``summarize(texts, budget) -> str`` used by SCM, HiAgent and AgentFold);
- :func:`embed` — a hashing bag-of-words embedder (``embed(text) -> vector``);
- :func:`cosine` — cosine similarity of two vectors;
- :class:`OpenAISummarizer`, :class:`OpenAIEmbedder` — adapters for any
  OpenAI-compatible client object, for users who want real model calls;
- :class:`OpenAIMemoryController`, :class:`OpenAIMemoryJudge` — SCM's two
  decisions (is memory needed? which form of a memory answers the message?)
  asked of a model; :class:`OpenAISubgoalSummarizer` — HiAgent's summarized
  observation of a finished subgoal, with its verdict;
- :func:`read_answers`, :func:`judge_answers` — an optional LLM reader that
  answers each probe from the recorded model input π(ω_t), and a judge that
  grades the answer against the probe's reference (records).

- :func:`fit_text` — an element's text cut so that μ(e′) ≤ room, the way μ counts;
- :func:`cached_summarizer`, :func:`pluggable_summarizer` — a summarizer a user
  passes to a mechanism, checked and memoized.

Any callable with the same signature can replace the defaults.
"""

from .fit import ELLIPSIS, fit_text
from .embed import DIMENSIONS, HashingEmbedder, cosine, embed
from .judge import Judgement, ReadAnswer, judge_answers, read_answers
from .openai import OpenAIEmbedder, OpenAIMemoryController, OpenAIMemoryJudge, OpenAISubgoalSummarizer, OpenAISummarizer
from .summarize import ExtractiveSummarizer, split_sentences, summarize, truncate_to_tokens
from .pluggable import Summarizer, cached_summarizer, pluggable_summarizer
from .scm_judges import OverlapJudge, RecallHeuristic, always_needs_memory
from .subgoal_summary import ObservationSummarizer, SubgoalPair

__all__ = [
    "summarize",
    "ExtractiveSummarizer",
    "split_sentences",
    "truncate_to_tokens",
    "fit_text",
    "ELLIPSIS",
    "Summarizer",
    "cached_summarizer",
    "pluggable_summarizer",
    "embed",
    "HashingEmbedder",
    "cosine",
    "DIMENSIONS",
    "OpenAISummarizer",
    "OpenAIEmbedder",
    "OpenAIMemoryController",
    "OpenAIMemoryJudge",
    "OpenAISubgoalSummarizer",
    "read_answers",
    "judge_answers",
    "ReadAnswer",
    "Judgement",
    "RecallHeuristic",
    "OverlapJudge",
    "always_needs_memory",
    "ObservationSummarizer",
    "SubgoalPair",
]
