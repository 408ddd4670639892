"""The fast offline summarizer and embedder give exactly what their plain definitions give.

``stmviz.text`` takes shortcuts for speed (cached text analyses, the analysis of a summary
derived from its sentences', a lower bound on a sentence's tokens that skips counting it,
all of a text's sentences analysed in one pass through ``bytes.translate``, equivalent
regular expressions that let the engine skip ahead).
The reference implementations below are the plain definitions, written the obvious
way; hypothesis feeds both the same texts, including mixed case, digits, tool-call
syntax, non-ASCII letters and the Kelvin sign (which lower-cases to ASCII "k").
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz.sizes import count_tokens
from stmviz.text import HashingEmbedder, split_sentences, summarize, truncate_to_tokens
from stmviz.text.summarize import STOPWORDS, _MACHINERY

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")


def reference_summarize(texts: list[str], budget: int) -> str:
    """The extractive summarizer as its docstring defines it, with every sentence counted."""
    count = count_tokens
    joined = " ".join(t.strip() for t in texts if t and t.strip())
    if not joined:
        return ""
    if count(joined) <= budget:
        return joined
    sentences = [(j, s) for text in texts for j, s in enumerate(split_sentences(text or ""))]
    freq: Counter[str] = Counter()
    df: Counter[str] = Counter()
    words_of = []
    for _, sentence in sentences:
        words = [w.lower() for w in _WORD.findall(sentence) if w.lower() not in STOPWORDS]
        words_of.append(words)
        freq.update(set(words))
    for text in texts:
        df.update({w.lower() for w in _WORD.findall(text or "")})
    n_texts = max(1, sum(1 for t in texts if t and t.strip()))
    weight = {w: freq[w] * math.log(1.0 + n_texts / max(1, df[w])) for w in freq}
    scored = []
    for k, ((j, sentence), words) in enumerate(zip(sentences, words_of)):
        score = sum(weight[w] for w in words) / (len(words) ** 0.5) if words else 0.0
        if j == 0:
            score *= 1.5
        if re.search(r"\d", sentence):
            score *= 1.3
        if re.search(r"\b[A-Z][a-z]+", sentence[1:]):
            score *= 1.1
        if _MACHINERY.search(sentence):
            score *= 0.5
        scored.append((-score, k))
    scored.sort()
    chosen: list[int] = []
    used = 0
    for _, k in scored:
        cost = count(sentences[k][1]) + (1 if chosen else 0)
        if used + cost <= budget:
            chosen.append(k)
            used += cost
    if not chosen:
        return truncate_to_tokens(sentences[scored[0][1]][1], budget)
    chosen.sort()
    summary = " ".join(sentences[k][1] for k in chosen)
    if count(summary) > budget:
        summary = truncate_to_tokens(summary, budget)
    return summary


def reference_embed(text: str, dimensions: int = 64, digits: int = 4) -> tuple[float, ...]:
    """The hashing bag-of-words embedding as defined: stems, 1 + log tf, signed buckets, unit length."""

    def stem(word: str) -> str:
        for suffix in ("ingly", "edly", "ing", "ies", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
        return word

    vector = [0.0] * dimensions
    words = [stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]
    for word, tf in Counter(words).items():
        value = int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")
        vector[value % dimensions] += (1.0 if (value >> 63) & 1 else -1.0) * (1.0 + math.log(tf))
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0:
        return tuple(vector)
    return tuple(round(v / norm, digits) for v in vector)


_PIECES = [
    "the", "The", "agent", "Agent", "searches", "searched", "searching", "memory", "Lisbon", "Kraków", "café",
    "\u212a", "KELVIN", "42", "1,450", "2026", "3.14", "don't", "it's", "well-known", "search(query=\"x\")",
    "open(path='a')", "https://example.org/a", "docs.python.org/3", "|", "a | b", "(see above)", "ünïcödé",
    "日本語", "emoji 🙂", "cities", "flies", "quickly", "x_y", "tool", "Tool", "result", "RESULT",
]
_ENDS = [". ", "! ", "? ", ".\n", "\n", " ", ", ", ": ", "; "]
_words = st.lists(st.sampled_from(_PIECES), min_size=1, max_size=12)
_sentence = st.builds(lambda ws, end: " ".join(ws) + end, _words, st.sampled_from(_ENDS))
_text = st.builds("".join, st.lists(_sentence, min_size=0, max_size=8))


@settings(max_examples=300, deadline=None)
@given(st.lists(_text, min_size=1, max_size=5), st.integers(min_value=1, max_value=80))
def test_summarizer_equals_its_reference(texts, budget):
    assert summarize(texts, budget) == reference_summarize(texts, budget)


@settings(max_examples=300, deadline=None)
@given(st.one_of(_text, st.text(max_size=200)))
def test_embedder_equals_its_reference(text):
    fresh = HashingEmbedder()  # no word seen before
    assert fresh(text) == reference_embed(text)
    assert fresh(text) == reference_embed(text)  # and again, through its memo of stems


def test_summary_of_recurring_sentences_is_the_same_every_time():
    texts = ["Alpha has 3 rooms. Beta has none. Gamma, in Lisbon, has 12 rooms.", "Beta has none. Delta is closed."]
    first = [summarize(texts, b) for b in range(1, 30)]
    assert [summarize(texts, b) for b in range(1, 30)] == first
    assert first == [reference_summarize(texts, b) for b in range(1, 30)]


# --------------------------------------------------------------------------- the summarizer's shortcuts, one by one

_S = sys.modules["stmviz.text.summarize"]  # the module (``stmviz.text.summarize`` names the function)
# any text: control characters (the sentence separator \x01 and \x1c, which str.split() but not the tokenizer
# counts as whitespace), line breaks, non-ASCII letters and digits, the Kelvin sign, tool-call syntax
_ANY = st.one_of(
    _text,
    st.text(max_size=120),
    st.text(
        alphabet=st.sampled_from(list("aZk.!? \n\t\"'([)=/|:-_0") + ["\x01", "\x1c", "\u212a", "é", "٣", "\u2028"]),
        max_size=60,
    ),
)


def reference_split(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+", text) if s and s.strip()]


def reference_sentence(sentence: str) -> tuple:
    """What scoring needs of one sentence, by the defining expressions."""
    words = [w.lower() for w in _WORD.findall(sentence) if w.lower() not in STOPWORDS]
    return (
        [w.encode("ascii") for w in words],
        re.search(r"\d", sentence) is not None,
        re.search(r"\b[A-Z][a-z]+", sentence[1:]) is not None,
        _MACHINERY.search(sentence) is not None,
    )


@settings(max_examples=500, deadline=None)
@given(_ANY)
def test_split_sentences_equals_its_definition(text):
    assert split_sentences(text) == reference_split(text)


@settings(max_examples=500, deadline=None)
@given(_ANY)
def test_text_analysis_equals_the_definitions_sentence_by_sentence(text):
    analysis = _S._analyze.__wrapped__(text)  # uncached
    assert analysis.sentences == reference_split(text)
    for k, sentence in enumerate(analysis.sentences):
        words, digit, name, machinery = reference_sentence(sentence)
        assert analysis.words[k] == words
        assert analysis.norms[k] == (len(words) ** 0.5 if words else 1.0)
        assert (analysis.digit[k], analysis.name[k], analysis.machinery[k]) == (
            1.3 if digit else 1.0, 1.1 if name else 1.0, 0.5 if machinery else 1.0
        )
        assert analysis.floors[k] <= count_tokens(sentence)  # a lower bound, so skipping a sentence is exact
    assert analysis.floor <= count_tokens(" ".join(analysis.sentences))
    assert analysis.tf == Counter(w for words in analysis.words for w in set(words))


@settings(max_examples=300, deadline=None)
@given(st.lists(_ANY, min_size=1, max_size=4), st.integers(min_value=1, max_value=60))
def test_summarizer_equals_its_reference_on_any_text(texts, budget):
    assert summarize(texts, budget) == reference_summarize(texts, budget)


@settings(max_examples=300, deadline=None)
@given(st.lists(_text, min_size=1, max_size=4), st.integers(min_value=1, max_value=60))
def test_a_summary_summarized_again_equals_the_reference(texts, budget):
    summary = summarize(texts, budget)
    cached, fresh = _S._analyze(summary), _S._analyze.__wrapped__(summary)
    for field in _S._Analysis.__slots__:
        assert getattr(cached, field) == getattr(fresh, field), field
    assert summarize([summary, *texts[:1]], budget) == reference_summarize([summary, *texts[:1]], budget)


def test_machinery_expression_equals_its_definition_on_tool_calls():
    for text in ["search(query=\"x\")", "open('a')", "f(\\\"a\")", "see https://a.b", "http://x", "docs.python.org/3",
                 "a | b", "a |b", "x.y/ z", "f (x=1)", "(=)", "ftp://x", "a.b/", "k(\u212a=1)"]:
        assert (_S._MACHINERY_FAST.search(text) is not None) == (_MACHINERY.search(text) is not None), text
