"""An extractive summarizer with a token budget: offline, deterministic, no model.

It splits the texts into sentences and scores each by its content words:
a word counts more the more sentences mention it (a recurring topic) and less
the more of the texts contain it (boilerplate present everywhere, like a tool
name), as in tf·idf. Sentences get a bonus for opening a text and for
carrying numbers or names, and a penalty for tool-call syntax, URLs and
result-list lines. The best sentences that fit in the budget are kept in their
original order; a sentence longer than the whole budget is truncated.

The definitions are the regular expressions ``_SENTENCE``, ``_WORD``,
``_DIGIT``, ``_NAME`` and ``_MACHINERY`` applied sentence by sentence (see
``tests/test_text_reference.py``). For speed, a text is analysed in a few passes
over all of its sentences at once (:func:`_analyze`), with equivalent
expressions that let the regex engine skip ahead to the characters a match
must start with; analyses are kept for texts that recur, and the analysis of a
summary is put together from its sentences' (a summary is often summarized
again). None of this changes a result.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import chain, filterfalse, repeat
from operator import mul, neg, truediv

from ..core.sizes import count_tokens, encode_tokens, get_encoding
from ..core import guards
from ..core.sizes import encoding_name

__all__ = ["summarize", "ExtractiveSummarizer", "split_sentences", "truncate_to_tokens"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
_MACHINERY = re.compile(r"\b\w+\(\w*=|\w+\(\\?[\"'{]|https?://|\w+\.\w+/\S|\s\|\s")
_DIGIT = re.compile(r"\d")
_NAME = re.compile(r"\b[A-Z][a-z]+")
STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have he her his how i if in
    into is it its just me my no not of on or our she so some than that the their them then there these they
    this to too up us was we were what when where which who will with would you your i'm it's let's ok okay""".split()
)

# _SENTENCE, matching at the same places: every match starts with a whitespace character, so the
# engine jumps from one to the next instead of trying the lookbehind at every position.
_SENTENCE_FAST = re.compile(r"\s(?:(?<=[.!?]\s)\s*(?=[A-Z0-9\"'(\[])|(?<=\n)\n*)")


def split_sentences(text: str) -> list[str]:
    """Split a text into sentences (and lines).

    >>> split_sentences("First one. Second one! Third?")
    ['First one.', 'Second one!', 'Third?']
    """
    return list(filter(None, map(str.strip, _SENTENCE_FAST.split(text))))


def truncate_to_tokens(text: str, budget: int, encoding: str = "cl100k_base") -> str:
    """The longest prefix of ``text`` with at most ``budget`` tokens (an ellipsis marks a cut).

    >>> truncate_to_tokens("one two three four five", 3)
    'one two…'
    """
    if not isinstance(text, str):  # inline on the hot path (fit_text calls it in a loop); the guard says what was wrong
        guards.instance(text, "text", str, where="truncate_to_tokens")
    budget = guards.whole_number(budget, "budget (tokens)", None, maximum=None, where="truncate_to_tokens")  # any budget: a larger one keeps the whole text
    if count_tokens(text, encoding) <= budget:
        return text
    if budget <= 1:
        return "…" if budget == 1 else ""
    enc = get_encoding(encoding)
    ids = encode_tokens(text, encoding, limit=budget)  # a long text is encoded only as far as the cut
    keep = budget - 1
    while keep > 0:
        cut = enc.decode(ids[:keep]).rstrip() + "…"
        if count_tokens(cut, encoding) <= budget:
            return cut
        keep -= 1
    return "…"


# ----------------------------------------------------------------------------- analysis of a text

# Encodings whose pre-tokenizer never puts two of _WORD's matches in an ASCII text into one piece (a piece
# holds one run of letters, up to 3 digits, or no letter or digit at all) and never joins non-whitespace
# across whitespace (\s, Unicode's White_Space): there an ASCII sentence has at least as many tokens as
# _WORD matches, and any sentence at least as many as whitespace-separated chunks (see _chunks).
_RUN_SPLITTING = frozenset({"cl100k_base"})

#: The separator put between the sentences of a text to analyse them in one pass (a text holding it is
#: analysed sentence by sentence). It is neither a word character (\w) nor whitespace (\s).
_SEP = "\x01"
#: bytes.translate table: A–Z lower-cased, a–z, 0–9, ' and - (the characters of _WORD) kept, the
#: separator kept, every other byte a space; so ``.split()`` of a sentence yields _WORD's runs of it
_WORDS_TABLE = bytes(
    c + 32 if 65 <= c <= 90 else c if (97 <= c <= 122 or 48 <= c <= 57 or c in b"'-\x01") else 32
    for c in range(256)
)
#: the bytes an ASCII text keeps to show, sentence by sentence, whether it holds a digit
_NOT_DIGIT_OR_SEP = bytes(c for c in range(256) if not (48 <= c <= 57 or c == 1))
#: bytes.translate table of the shapes of ASCII text: upper-case letters "U", lower-case "l", other word
#: characters (\w: digits, "_") "w", the separator kept, everything else a space; _NAME then matches the
#: sentence without its first character where the shapes read " Ul", or "Ul" from its second character
_SHAPES = bytes(
    85 if 65 <= c <= 90 else 108 if 97 <= c <= 122 else 119 if (48 <= c <= 57 or c == 95) else 1 if c == 1 else 32
    for c in range(256)
)
_STOP = frozenset(w.encode("ascii") for w in STOPWORDS)
_STRIP = b"'-"
# a run of _WORD's characters that starts with ' or - (its match starts at its first letter or digit), but
# for the text's first run
_LEADING_MARK = re.compile(rb"[ \x01]['-]")
# Per-sentence flags of a non-ASCII text, found in one pass over its sentences joined by _SEP: each
# expression matches either the separator or what the flag looks for, and never across a separator.
_DIGIT_OR_SEP = re.compile(r"[\x01\d]")
# _NAME on the sentence without its first character: an upper-case letter that is the sentence's second
# character, or one that follows neither a word character nor the separator, then a lower-case letter
_NAME_OR_SEP = re.compile(r"[\x01A-Z](?:(?<=\x01)|(?<=\x01.[A-Z])[a-z]|(?<![\w\x01][A-Z])[a-z])", re.DOTALL)
# _MACHINERY, each alternative anchored on a character it must hold ("\w+(" holds "\w(", and so on), so
# that the engine jumps from one such character to the next
_MACHINERY_FAST = re.compile(
    r"\((?<=\w\()(?:\w*=|\\?[\"'{])|/(?:(?<=https:/)|(?<=http:/))/|\.(?<=\w\.)\w+/\S|\|(?<=\s\|)\s"
)
_SEPARATORS = frozenset("\x1c\x1d\x1e\x1f")  # whitespace to str.split(), not to the tokenizer's \s
# a sentence ends where one ending in . ! or ? meets one starting with one of these (see _SENTENCE)
_OPENERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\"'([")


class _Norms(dict):
    """√n, the norm of a sentence of n content words (1.0 for none: its score is 0 then), looked up in C."""

    def __missing__(self, n: int) -> float:
        return n**0.5  # not stored: the table stays small


_NORMS = _Norms({n: n**0.5 if n else 1.0 for n in range(256)})
# the score factors of a sentence with and without a digit, a name, tool-call syntax
_DIGIT_FACTOR = {True: 1.3, False: 1.0}.__getitem__
_NAME_FACTOR = {True: 1.1, False: 1.0}.__getitem__
_MACHINERY_FACTOR = {True: 0.5, False: 1.0}.__getitem__


class _Analysis:
    """The sentences of one text and, per sentence, what scoring it needs (immutable once built).

    Per sentence: ``words``, its content words (_WORD's matches, lower-cased, stop words dropped) as
    ASCII bytes; ``norms``, √len(words); ``digit``, ``name`` and ``machinery``, its score factors (1.3,
    1.1, 0.5, or 1.0 when it lacks the feature); ``floors``, a lower bound on its tokens under the
    encodings of _RUN_SPLITTING. ``floor`` is their sum, a lower bound on the text's tokens, and
    ``tf`` counts in how many of the sentences each word occurs.
    """

    __slots__ = ("sentences", "words", "norms", "digit", "name", "machinery", "floors", "floor", "tf")

    def __init__(
        self,
        sentences: list[str],
        words: list[list[bytes]],
        norms: list[float],
        digit: list[float],
        name: list[float],
        machinery: list[float],
        floors: list[int],
    ) -> None:
        self.sentences: list[str] = sentences
        self.words: list[list[bytes]] = words
        self.norms: list[float] = norms
        self.digit: list[float] = digit
        self.name: list[float] = name
        self.machinery: list[float] = machinery
        self.floors: list[int] = floors
        self.floor = sum(floors)
        self.tf: Counter[bytes] = Counter(chain.from_iterable(map(set, words)))

    @classmethod
    def of(
        cls,
        sentences: list[str],
        words: list[list[bytes]],
        digit: Iterable[object],
        name: Iterable[object],
        machinery: Iterable[object],
        floors: Iterable[int],
    ) -> "_Analysis":
        """The analysis from each sentence's words, feature flags (truthy or not) and token floor."""
        return cls(
            sentences,
            words,
            list(map(_NORMS.__getitem__, map(len, words))),
            list(map(_DIGIT_FACTOR, map(bool, digit))),
            list(map(_NAME_FACTOR, map(bool, name))),
            list(map(_MACHINERY_FACTOR, map(bool, machinery))),
            list(floors),
        )


_EMPTY = _Analysis.of([], [], [], [], [], [])


@lru_cache(maxsize=512)
def _analyze(text: str) -> _Analysis:
    """The analysis of a text: its sentences and what scoring them needs.

    Memoized: texts recur (a block is summarized again when blocks merge).
    """
    sentences = split_sentences(text)
    if not sentences:
        return _EMPTY
    if _SEP in text:
        return _analyze_each(sentences)
    joined = _SEP.join(sentences)
    # Every non-ASCII character becomes one "?", which no word holds: the words are _WORD's matches,
    # and lower-casing only A–Z is what lower-casing each match does (unlike str.lower, which maps
    # the Kelvin sign to "k").
    data = joined.encode("ascii", "replace")
    folded = data.translate(_WORDS_TABLE)
    runs = list(map(bytes.split, folded.split(b"\x01")))
    if (b"'" in folded or b"-" in folded) and (folded.startswith((b"'", b"-")) or _LEADING_MARK.search(folded)):
        runs = [list(filter(None, map(bytes.lstrip, run, repeat(_STRIP)))) for run in runs]
    words = list(map(list, map(filterfalse, repeat(_STOP.__contains__), runs)))
    digit: Iterable[object]
    name: Iterable[object]
    floors: Iterable[int]
    machinery: Iterable[object]
    if text.isascii():
        digit = data.translate(None, _NOT_DIGIT_OR_SEP).split(b"\x01")
        name = [b" Ul" in shape or shape[1:3] == b"Ul" for shape in data.translate(_SHAPES).split(b"\x01")]
        floors = map(len, runs)
    else:  # \d and \w hold other scripts' digits and letters; only an ASCII sentence's runs bound its tokens
        digit = _flags(_DIGIT_OR_SEP, joined)
        name = _flags(_NAME_OR_SEP, _SEP + joined)[1:]  # the leading separator marks the first sentence's start
        floors = [len(run) if s.isascii() else _chunks(s) for run, s in zip(runs, sentences)]
    # every match of _MACHINERY holds "(", "/" or "|": a cheap exact pre-test, then the expression
    if "(" in text or "/" in text or "|" in text:
        search = _MACHINERY_FAST.search
        machinery = [("(" in s or "/" in s or "|" in s) and search(s) is not None for s in sentences]
    else:
        machinery = repeat(False, len(sentences))
    return _Analysis.of(sentences, words, digit, name, machinery, floors)



def _flags(pattern: re.Pattern, joined: str) -> list[str]:
    """Per sentence of ``joined`` (sentences joined by _SEP), the text of the pattern's matches in it ("" for none)."""
    return "".join(pattern.findall(joined)).split(_SEP)


def _chunks(sentence: str) -> int:
    """A lower bound on the tokens of a sentence: its whitespace-separated chunks (0 if str.split's whitespace differs)."""
    if _SEPARATORS.isdisjoint(sentence):
        return len(sentence.split())
    return 0


def _analyze_each(sentences: list[str]) -> _Analysis:
    """The analysis of a text, sentence by sentence, with the defining expressions (for texts holding _SEP)."""
    words, digit, name, machinery, floors = [], [], [], [], []
    for s in sentences:
        matches = [m.lower() for m in _WORD.findall(s)]
        words.append([w.encode("ascii") for w in matches if w not in STOPWORDS])
        digit.append(_DIGIT.search(s) is not None)
        name.append(_NAME.search(s[1:]) is not None)
        machinery.append(_MACHINERY.search(s) is not None)
        floors.append(len(matches) if s.isascii() else _chunks(s))
    return _Analysis.of(sentences, words, digit, name, machinery, floors)


_LOG2 = math.log(1.0 + 1 / 1)  # the idf factor of a word when there is one text


class _Multiples(dict):
    """f · log 2, the weight of a word in f sentences of a single text (the same float as computed in place)."""

    def __missing__(self, f: int) -> float:
        return f * _LOG2  # not stored: the table stays small


_SINGLE_TEXT_WEIGHT = _Multiples({f: f * _LOG2 for f in range(256)})


class ExtractiveSummarizer:
    """The summarizer behind HiAgent's subgoal summaries and AgentFold's folds: ``summarize(texts, budget) -> str``.

    Extractive and offline: it keeps the most informative sentences, in their
    order, within ``budget`` tokens. A sentence scores the summed weights of its
    words (frequent across sentences, rare across texts) over √(its words),
    raised for a text's first sentence, a digit or a name and lowered for a tool
    call, a URL or a result-list line. Texts that fit whole are joined as they are.

    Parameters
    ----------
    encoding : str
        The tiktoken encoding that measures the budget.

    Raises
    ------
    InvalidArgumentError
        if ``budget`` is not a whole number ≥ 1.
    """

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.encoding = encoding_name(encoding, "ExtractiveSummarizer: encoding")

    def __repr__(self) -> str:
        return f"ExtractiveSummarizer({self.encoding!r})"

    def __call__(self, texts: Sequence[str] | str, budget: int) -> str:
        texts = [texts] if isinstance(texts, str) else guards.items(texts, "texts", where="summarize", what="texts (str)")
        for k, text in enumerate(texts):
            guards.instance(text, f"texts[{k}]", str, where="summarize")
        budget = guards.whole_number(budget, "budget", 1, maximum=None, where="summarize",  # a larger budget keeps it whole
                                     fix="; a summary budget is a whole number of tokens")
        encoding = self.encoding
        count = lambda s: count_tokens(s, encoding)  # noqa: E731
        parts = [t.strip() for t in texts if t and t.strip()]
        if not parts:
            return ""
        analyses = [_analyze(t) for t in texts if t]
        # the sentences hold all of the joined text's words, so their token floors bound it below
        bounded = encoding in _RUN_SPLITTING
        if not (bounded and sum(a.floor for a in analyses) > budget):
            joined = " ".join(parts)
            if count(joined) <= budget:
                return joined
        analyses = [a for a in analyses if a.sentences]  # one per text of ``parts``
        n_texts = len(parts)
        # weight = freq · log(1 + n_texts / df), the same floats in the same order: a word that recurs in
        # many sentences (freq) is a topic, unless it recurs in every text (df), like boilerplate
        if n_texts == 1:  # df = 1: a word's weight is freq · log 2, looked up by freq
            tf, single = analyses[0].tf.__getitem__, _SINGLE_TEXT_WEIGHT.__getitem__
            words = map(map, repeat(single), map(map, repeat(tf), analyses[0].words))
        else:
            freq = dict(analyses[0].tf)
            df = dict.fromkeys(freq, 1)
            for a in analyses[1:]:  # one pass over each text's distinct words
                for w, f in a.tf.items():
                    if w in freq:
                        freq[w] += f
                        df[w] += 1
                    else:
                        freq[w] = f
                        df[w] = 1
            idf = {d: math.log(1.0 + n_texts / d) for d in set(df.values())}
            weight = {w: f * idf[df[w]] for w, f in freq.items()}
            words = map(map, repeat(weight.__getitem__), chain.from_iterable(a.words for a in analyses))
        # score = Σ weights / √words, times 1.5 for a text's first sentence, 1.3 with a digit, 1.1 with a
        # name and 0.5 for a tool call, a URL or a result-list line (little a later step needs verbatim);
        # each factor is applied in turn (a factor of 1.0 changes no float), in C loops over the sentences
        norms = chain.from_iterable(a.norms for a in analyses)
        first = chain.from_iterable(chain((1.5,), repeat(1.0, len(a.sentences) - 1)) for a in analyses)
        digit = chain.from_iterable(a.digit for a in analyses)
        name = chain.from_iterable(a.name for a in analyses)
        machinery = chain.from_iterable(a.machinery for a in analyses)
        base = map(truediv, map(sum, words), norms)
        scores = list(map(mul, map(mul, map(mul, map(mul, base, first), digit), name), machinery))
        scored = sorted(zip(map(neg, scores), range(len(scores))))
        if len(analyses) == 1:
            sentences, floors = analyses[0].sentences, analyses[0].floors
        else:
            sentences = list(chain.from_iterable(a.sentences for a in analyses))
            floors = list(chain.from_iterable(a.floors for a in analyses))
        floor_of: list[int] | None = floors if bounded else None
        chosen: list[int] = []
        used = 0
        for _, k in scored:
            room = budget - used - (1 if chosen else 0)
            if room < 1:  # every sentence has at least one token
                break
            if floor_of is not None and floor_of[k] > room:
                continue
            cost = count(sentences[k]) + (1 if chosen else 0)
            if used + cost <= budget:
                chosen.append(k)
                used += cost
        if not chosen:
            best = scored[0][1]
            return truncate_to_tokens(sentences[best], budget, encoding)
        chosen.sort()
        summary = " ".join(sentences[k] for k in chosen)
        if count(summary) > budget:  # joining can merge tokens differently; stay within budget
            return truncate_to_tokens(summary, budget, encoding)
        return summary


_default = ExtractiveSummarizer()


def summarize(texts: Sequence[str] | str, budget: int) -> str:
    """The default summarizer of HiAgent and AgentFold: extractive, offline, at most ``budget`` cl100k_base tokens.

    Parameters
    ----------
    texts : str or sequence of str
        The texts to summarize together.
    budget : int
        The most tokens the summary may have.

    Returns
    -------
    str
        The chosen sentences joined by spaces, in their order ("" when every text is blank).

    Examples
    --------
    >>> summarize(["The key is under the blue mat. The weather was fine.", "We found the blue mat in room 3."], 20)
    'The key is under the blue mat. We found the blue mat in room 3.'
    """
    return _default(texts, budget)
