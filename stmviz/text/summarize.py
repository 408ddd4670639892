"""An extractive summarizer with a token budget: offline, deterministic, no model.

It splits the texts into sentences and scores each by its content words:
a word counts more the more sentences mention it (a recurring topic) and less
the more of the texts contain it (boilerplate present everywhere, like a tool
name), as in tf·idf. Sentences get a bonus for opening a text and for
carrying numbers or names, and a penalty for tool-call syntax, URLs and
result-list lines. The best sentences that fit in the budget are kept in their
original order; a sentence longer than the whole budget is truncated.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from ..core.errors import InvalidSizeError
from ..core.sizes import count_tokens, get_encoding

__all__ = ["summarize", "ExtractiveSummarizer", "split_sentences", "truncate_to_tokens"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
_MACHINERY = re.compile(r"\b\w+\(\w*=|\w+\(\\?[\"'{]|https?://|\w+\.\w+/\S|\s\|\s")
STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her his how i if in
    into is it its just me my no not of on or our she so some than that the their them then there these they
    this to too up us was we were what when where which who will with would you your i'm it's let's ok okay""".split()
)


def split_sentences(text: str) -> list[str]:
    """Split a text into sentences (and lines).

    >>> split_sentences("First one. Second one! Third?")
    ['First one.', 'Second one!', 'Third?']
    """
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def truncate_to_tokens(text: str, budget: int, encoding: str = "cl100k_base") -> str:
    """The longest prefix of ``text`` with at most ``budget`` tokens (an ellipsis marks a cut).

    >>> truncate_to_tokens("one two three four five", 3)
    'one two…'
    """
    if count_tokens(text, encoding) <= budget:
        return text
    if budget <= 1:
        return "…" if budget == 1 else ""
    enc = get_encoding(encoding)
    ids = enc.encode_ordinary(text)
    keep = budget - 1
    while keep > 0:
        cut = enc.decode(ids[:keep]).rstrip() + "…"
        if count_tokens(cut, encoding) <= budget:
            return cut
        keep -= 1
    return "…"


class ExtractiveSummarizer:
    """``summarize(texts, budget) -> str``: pick the most informative sentences within ``budget`` tokens.

    Parameters
    ----------
    encoding : str
        The tiktoken encoding that measures the budget.
    """

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.encoding = encoding

    def __repr__(self) -> str:
        return f"ExtractiveSummarizer({self.encoding!r})"

    def __call__(self, texts: Sequence[str] | str, budget: int) -> str:
        if isinstance(texts, str):
            texts = [texts]
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise InvalidSizeError(f"a summary budget is a whole number of tokens ≥ 1, got {budget!r}")
        count = lambda s: count_tokens(s, self.encoding)  # noqa: E731
        joined = " ".join(t.strip() for t in texts if t and t.strip())
        if not joined:
            return ""
        if count(joined) <= budget:
            return joined
        sentences: list[tuple[int, int, str]] = []  # (text index, position, sentence)
        for i, text in enumerate(texts):
            for j, sentence in enumerate(split_sentences(text or "")):
                sentences.append((i, j, sentence))
        freq: Counter[str] = Counter()  # in how many sentences a word occurs
        df: Counter[str] = Counter()  # in how many of the texts a word occurs
        words_of = []
        for _, _, sentence in sentences:
            words = [w.lower() for w in _WORD.findall(sentence) if w.lower() not in STOPWORDS]
            words_of.append(words)
            freq.update(set(words))
        for i, text in enumerate(texts):
            df.update({w.lower() for w in _WORD.findall(text or "")})
        n_texts = max(1, sum(1 for t in texts if t and t.strip()))
        # a word that recurs is a topic (tf), unless it recurs in every text: boilerplate (idf)
        weight = {w: freq[w] * math.log(1.0 + n_texts / max(1, df[w])) for w in freq}
        scored = []
        for k, ((i, j, sentence), words) in enumerate(zip(sentences, words_of)):
            if not words:
                score = 0.0
            else:
                score = sum(weight[w] for w in words) / (len(words) ** 0.5)
            if j == 0:
                score *= 1.5
            if re.search(r"\d", sentence):
                score *= 1.3
            if re.search(r"\b[A-Z][a-z]+", sentence[1:]):
                score *= 1.1
            if _MACHINERY.search(sentence):
                score *= 0.5  # a tool call, a URL or a result-list line: little a later step needs verbatim
            scored.append((-score, k))
        scored.sort()
        chosen: list[int] = []
        used = 0
        for _, k in scored:
            cost = count(sentences[k][2]) + (1 if chosen else 0)
            if used + cost <= budget:
                chosen.append(k)
                used += cost
        if not chosen:
            best = scored[0][1]
            return truncate_to_tokens(sentences[best][2], budget, self.encoding)
        chosen.sort()
        summary = " ".join(sentences[k][2] for k in chosen)
        if count(summary) > budget:  # joining can merge tokens differently; stay within budget
            summary = truncate_to_tokens(summary, budget, self.encoding)
        return summary


_default = ExtractiveSummarizer()


def summarize(texts: Sequence[str] | str, budget: int) -> str:
    """The default summarizer: extractive, offline, at most ``budget`` cl100k_base tokens.

    >>> summarize(["The key is under the blue mat. The weather was fine.", "We found the blue mat in room 3."], 20)
    'The key is under the blue mat. We found the blue mat in room 3.'
    """
    return _default(texts, budget)
