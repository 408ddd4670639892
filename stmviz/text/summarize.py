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
from functools import lru_cache

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


_DIGIT = re.compile(r"\d")
_NAME = re.compile(r"\b[A-Z][a-z]+")
_PIECES = re.compile(r"[A-Za-z]+|[0-9]{1,3}")
# every match of _MACHINERY holds one of these characters: a cheap exact pre-test
_MACHINERY_CHARS = ("(", "/", "|")
# encodings whose pre-tokenizer splits every run of letters and every 3 digits into pieces of their own
_RUN_SPLITTING = frozenset({"cl100k_base"})


class _Sentence:
    """One sentence of a text and what scoring it needs (immutable once built)."""

    __slots__ = ("text", "words", "wordset", "norm", "digit", "name", "machinery", "floor")

    def __init__(self, text: str) -> None:
        self.text = text
        ascii = text.isascii()
        if ascii:  # lowercasing first is the same then (not for all Unicode: "K" (Kelvin) becomes "k")
            words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
        else:
            words = [w for w in (m.lower() for m in _WORD.findall(text)) if w not in STOPWORDS]
        self.words = tuple(words)
        self.wordset = frozenset(words)
        self.norm = len(words) ** 0.5 if words else 0.0
        self.digit = _DIGIT.search(text) is not None
        self.name = _NAME.search(text[1:]) is not None
        self.machinery = any(c in text for c in _MACHINERY_CHARS) and _MACHINERY.search(text) is not None
        # a lower bound on its cl100k_base tokens: each letter run and each 3 digits is a piece of ≥ 1 token
        # (exact only for ASCII text, where \p{L} and \p{N} are [A-Za-z] and [0-9]; 0 otherwise)
        self.floor = len(_PIECES.findall(text)) if ascii else 0


_sentence = lru_cache(maxsize=1 << 15)(_Sentence)  # sentences recur: a summary is made of its sources' sentences


@lru_cache(maxsize=4096)
def _analyze(text: str) -> tuple[tuple[_Sentence, ...], frozenset[str], int]:
    """The sentences of a text, its content words and a lower bound on its tokens (cached: texts recur)."""
    sentences = tuple(map(_sentence, split_sentences(text)))
    words = frozenset().union(*(s.wordset for s in sentences))
    return sentences, words, sum(s.floor for s in sentences)


_EMPTY: tuple[tuple[_Sentence, ...], frozenset[str], int] = ((), frozenset(), 0)


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
        encoding = self.encoding
        count = lambda s: count_tokens(s, encoding)  # noqa: E731
        parts = [t.strip() for t in texts if t and t.strip()]
        if not parts:
            return ""
        analyses = [_analyze(t) if t else _EMPTY for t in texts]
        # the sentences hold all of the joined text's letters and digits, so their token floors bound it below
        bounded = encoding in _RUN_SPLITTING
        if not (bounded and sum(a[2] for a in analyses) > budget):
            joined = " ".join(parts)
            if count(joined) <= budget:
                return joined
        sentences: list[_Sentence] = []
        firsts: list[bool] = []  # whether the sentence opens its text
        freq: Counter[str] = Counter()  # in how many sentences a word occurs
        df: Counter[str] = Counter()  # in how many of the texts a word occurs
        for text_sentences, words, _ in analyses:
            for j, sentence in enumerate(text_sentences):
                sentences.append(sentence)
                firsts.append(j == 0)
                freq.update(sentence.wordset)
            df.update(words)  # a text's words are its sentences' words: splitting cuts only at whitespace
        n_texts = len(parts)
        # a word that recurs is a topic (tf), unless it recurs in every text: boilerplate (idf)
        weight = {w: freq[w] * math.log(1.0 + n_texts / max(1, df[w])) for w in freq}
        scored = []
        for k, sentence in enumerate(sentences):
            words = sentence.words
            if not words:
                score = 0.0
            else:
                score = sum(weight[w] for w in words) / sentence.norm
            if firsts[k]:
                score *= 1.5
            if sentence.digit:
                score *= 1.3
            if sentence.name:
                score *= 1.1
            if sentence.machinery:
                score *= 0.5  # a tool call, a URL or a result-list line: little a later step needs verbatim
            scored.append((-score, k))
        scored.sort()
        chosen: list[int] = []
        used = 0
        for _, k in scored:
            room = budget - used - (1 if chosen else 0)
            if room < 1:  # every sentence has at least one token
                break
            sentence = sentences[k]
            if bounded and sentence.floor > room:
                continue
            cost = count(sentence.text) + (1 if chosen else 0)
            if used + cost <= budget:
                chosen.append(k)
                used += cost
        if not chosen:
            best = scored[0][1]
            return truncate_to_tokens(sentences[best].text, budget, encoding)
        chosen.sort()
        summary = " ".join(sentences[k].text for k in chosen)
        if count(summary) > budget:  # joining can merge tokens differently; stay within budget
            summary = truncate_to_tokens(summary, budget, encoding)
        return summary


_default = ExtractiveSummarizer()


def summarize(texts: Sequence[str] | str, budget: int) -> str:
    """The default summarizer: extractive, offline, at most ``budget`` cl100k_base tokens.

    >>> summarize(["The key is under the blue mat. The weather was fine.", "We found the blue mat in room 3."], 20)
    'The key is under the blue mat. We found the blue mat in room 3.'
    """
    return _default(texts, budget)
