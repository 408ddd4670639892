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
  observation of a finished subgoal, with its verdict.

Any callable with the same signature can replace the defaults.
"""

from .embed import DIMENSIONS, HashingEmbedder, cosine, embed
from .openai import OpenAIEmbedder, OpenAIMemoryController, OpenAIMemoryJudge, OpenAISubgoalSummarizer, OpenAISummarizer
from .summarize import ExtractiveSummarizer, split_sentences, summarize, truncate_to_tokens

__all__ = [
    "summarize",
    "ExtractiveSummarizer",
    "split_sentences",
    "truncate_to_tokens",
    "embed",
    "HashingEmbedder",
    "cosine",
    "DIMENSIONS",
    "OpenAISummarizer",
    "OpenAIEmbedder",
    "OpenAIMemoryController",
    "OpenAIMemoryJudge",
    "OpenAISubgoalSummarizer",
]
