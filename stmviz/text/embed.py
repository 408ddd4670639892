"""A hashing bag-of-words embedder: offline, deterministic, no model.

Each content word (lower-cased, stop words dropped, crude suffix stripping) is
hashed with BLAKE2 into one of ``dimensions`` buckets with a sign; counts are
dampened with 1 + log(tf) and the vector is L2-normalized. Texts that share
words get a positive cosine similarity; the vector is stable across processes.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..core.errors import InvalidArgumentError
from ..core import guards
from .summarize import STOPWORDS

__all__ = ["embed", "HashingEmbedder", "cosine", "DIMENSIONS"]

DIMENSIONS = 64
_WORD = re.compile(r"[a-z0-9]+")
#: bytes.translate table of ASCII text: A–Z lower-cased, a–z and 0–9 kept, every other byte a
#: space, so that ``.split()`` yields the matches of _WORD in ``text.lower()``
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if (97 <= c <= 122 or 48 <= c <= 57) else 32 for c in range(256)
)
#: 1 + log(tf) for small tf, the dampened count (the same floats math.log gives)
_DAMPED = [0.0] + [1.0 + math.log(tf) for tf in range(1, 64)]
#: −(1 + log(tf)) = −1.0 · _DAMPED[tf], the weight of a word hashed to the negative sign
_NEGATED = [-d for d in _DAMPED]
#: 10 ** digits, for the digits whose rounding from_frequencies does by arithmetic: for |x| ≤ 1,
#: the float x · 10 ** digits (≤ 1e4) is within 1e-10 of the exact product
_FAST_DIGITS = 4
_SCALES = [float(10**d) for d in range(_FAST_DIGITS + 1)]


@lru_cache(maxsize=_FAST_DIGITS + 1)
def _rounded(digits: int) -> list[float]:
    """The floats r / 10**digits for r = −10**digits … 10**digits, at index r (negative r from the end).

    An embedding's coordinates are rounded to these values: built once, they are shared by every
    vector (less memory) and found by an index instead of a division.
    """
    n = 10**digits
    scale = float(n)
    return [r / scale for r in range(n + 1)] + [r / scale for r in range(-n, 0)]


#: the most decimals a coordinate can be rounded to: a float has 17 significant digits
_MAX_DIGITS = 17

#: how many words, stems and buckets an embedder memoizes at most
_MEMO = 200_000


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    for suffix in ("ingly", "edly", "ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


class HashingEmbedder:
    """The embedding of a memory for SCM's relevance ranking: ``embed(text) -> tuple[float, ...]``, offline.

    A hashing bag of words: each content word (stop words dropped, a light
    stemmer applied) adds sign · (1 + log tf) to the coordinate its hash picks;
    the vector is scaled to unit length (all zeros for a text without content
    words) and rounded to ``digits`` decimals, so results are the same on every
    machine.

    Parameters
    ----------
    dimensions : int
        The length of every vector, at least 2.
    digits : int
        The decimals each coordinate is rounded to, 0 … 17 (a float holds no more); ``None`` rounds to whole numbers.

    Examples
    --------
    >>> v = HashingEmbedder(8)("The cat sat on the mat.")
    >>> len(v), round(sum(x * x for x in v), 3)
    (8, 1.0)
    """

    def __init__(self, dimensions: int = DIMENSIONS, digits: int = 4) -> None:
        dimensions = guards.whole_number(dimensions, "dimensions", 2)
        digits = guards.whole_number(digits, "digits", 0, maximum=_MAX_DIGITS, none_ok=True)
        self.dimensions = dimensions
        self.digits = digits
        # stem -> (bucket, sign, sign · (1 + log tf) for tf < 64)
        self._buckets: dict[str, tuple[int, float, list[float]]] = {}
        # word -> its stem ("" for a stop word); ASCII texts' words are looked up as bytes
        self._stems: dict[str, str] = {}
        self._ascii_stems: dict[bytes, str] = {}

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimensions={self.dimensions})"

    def _bucket(self, word: str) -> tuple[int, float, list[float]]:
        hit = self._buckets.get(word)
        if hit is None:
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            positive = (value >> 63) & 1
            hit = (value % self.dimensions, 1.0 if positive else -1.0, _DAMPED if positive else _NEGATED)
            if len(self._buckets) < _MEMO:
                self._buckets[word] = hit
        return hit

    def _stem_of(self, key: str | bytes) -> str:
        """The stem of a word ("" for a stop word); its bucket is computed now, so that embedding finds it."""
        word = key.decode("ascii") if isinstance(key, bytes) else key
        stem = "" if word in STOPWORDS else _stem(word)
        if stem and stem not in self._buckets:
            self._bucket(stem)
        return stem

    def __call__(self, text: str) -> tuple[float, ...]:
        if not isinstance(text, str):  # inline on the hot path; the guard says what was wrong
            guards.instance(text, "text", str, where="embed", what="a str (the text to embed)")
        return self.from_frequencies(self.frequencies(text))

    def frequencies(self, text: str) -> dict[str, int]:
        """tf: the count of each content stem of ``text``, in the order the stems first occur.

        The order matters: it is the order in which :meth:`from_frequencies` adds the stems'
        weights to their buckets. Texts joined by a separator without word characters
        (``"\\n".join(parts)``) have the frequencies of :func:`joined_frequencies` of theirs.
        """
        ascii_text = text.isascii()  # then the same words as the regex, found by C string methods
        # words as bytes for an ASCII text, as str otherwise: the keys of their table of stems
        words: list[Any] = text.encode("ascii").translate(_ASCII_WORDS).split() if ascii_text else _WORD.findall(text.lower())
        table: dict[Any, str] = self._ascii_stems if ascii_text else self._stems
        tf: Counter[Any] = Counter(map(table.get, words))  # None for a word not stemmed yet
        if None in tf:  # words not seen before: stem each new word once, then count again
            for key in set(words).difference(table):
                if len(table) >= _MEMO:  # the memo is full: stem word by word
                    tf = Counter([table.get(w) or self._stem_of(w) for w in words])
                    break
                table[key] = self._stem_of(key)
            else:
                tf = Counter(map(table.get, words))
        tf.pop("", None)  # stop words
        return tf

    def from_frequencies(self, tf: dict[str, int]) -> tuple[float, ...]:
        """The embedding of a text whose stems have the frequencies ``tf`` (see :meth:`frequencies`)."""
        vector = [0.0] * self.dimensions
        buckets = self._buckets
        try:  # every stem's bucket is known and every tf < 64 (the usual case)
            for stem, count in tf.items():
                index, _, weights = buckets[stem]
                vector[index] += weights[count]  # sign · (1 + log tf)
        except (KeyError, IndexError):
            vector = [0.0] * self.dimensions
            for stem, count in tf.items():
                index, sign, weights = self._bucket(stem)
                vector[index] += weights[count] if count < 64 else sign * (1.0 + math.log(count))
        norm = math.sqrt(sum([v * v for v in vector]))
        if norm == 0:
            return tuple(vector)
        digits = self.digits
        zero = round(0.0, digits)  # = round(0.0 / norm, digits); a bucket's sum is never −0.0
        if type(digits) is not int or not 0 <= digits <= _FAST_DIGITS:
            return tuple([round(v / norm, digits) if v else zero for v in vector])
        # round(v / norm, digits) formats and parses a decimal string; arithmetic finds the same
        # float. It is the double nearest to r / 10**digits, r being the exact x · 10**digits
        # (x = v / norm, |x| ≤ 1) rounded half to even. y = x · 10**digits is within 1e-10 of that
        # product, so unless y lies within 1e-6 of a tie (then round() decides), r = round(y);
        # the float r / 10**digits is then taken from a table (an x < 0 that rounds to 0 is −0.0).
        scale = _SCALES[digits]
        values = _rounded(digits)
        out: list[float] = []
        append = out.append
        for v in vector:
            if v:
                y = v / norm * scale
                r = round(y)
                if -0.499999 < y - r < 0.499999:
                    append(values[r] if r else (-0.0 if v < 0 else 0.0))
                else:
                    append(round(v / norm, digits))
            else:
                append(zero)
        return tuple(out)


def joined_frequencies(parts: Sequence[dict[str, int]]) -> dict[str, int]:
    """The frequencies of texts joined by a separator without word characters, from each text's.

    A word never spans the separator (it is not in [a-z0-9], and lower-casing it changes nothing),
    so the joined text's stems are the parts' stems one after the other: the counts add up, and a
    stem first occurs where it first occurs in the earliest part that has it.
    """
    merged = dict(parts[0]) if parts else {}
    for tf in parts[1:]:
        shared = merged.keys() & tf.keys()
        before = {stem: merged[stem] for stem in shared}
        merged.update(tf)  # new stems go after the earlier ones, in their order; a shared stem keeps its place
        for stem in shared:
            merged[stem] += before[stem]
    return merged


def hashing_embedder(embedder: object) -> HashingEmbedder | None:
    """The :class:`HashingEmbedder` an ``embed`` callable is (or, for :func:`embed`, calls), else None.

    Lets a caller that embeds texts built from parts (SCM's interactions) reuse the parts'
    :meth:`~HashingEmbedder.frequencies`; any other embedder is called as it is.
    """
    if embedder is embed:
        return _default
    if isinstance(embedder, HashingEmbedder) and type(embedder).__call__ is HashingEmbedder.__call__:
        kind = type(embedder)
        if kind.frequencies is HashingEmbedder.frequencies and kind.from_frequencies is HashingEmbedder.from_frequencies:
            return embedder
    return None


_default = HashingEmbedder()


def embed(text: str) -> tuple[float, ...]:
    """The default embedder of SCM's memories: a 64-dimensional :class:`HashingEmbedder`.

    Parameters
    ----------
    text : str

    Returns
    -------
    tuple of float
        A unit vector, or all zeros for a text without content words.

    Examples
    --------
    >>> round(cosine(embed("the cat sat on the mat"), embed("a cat on a mat")), 2) > 0.5
    True
    """
    return _default(text)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The relevance of a memory to a query in SCM: the cosine similarity of their embeddings.

    Parameters
    ----------
    a, b : sequence of float
        Two vectors of one length.

    Returns
    -------
    float
        a · b / (‖a‖ ‖b‖), between −1 and 1; 0 when either vector is all zeros.

    Raises
    ------
    InvalidArgumentError
        if the lengths differ.

    Examples
    --------
    >>> round(cosine([1.0, 0.0], [1.0, 1.0]), 4), cosine([0.0, 0.0], [1.0, 0.0])
    (0.7071, 0.0)
    """
    if len(a) != len(b):  # the rule of a dot product: no guard compares two arguments
        raise InvalidArgumentError(
            f"cosine needs two vectors of one length, got {len(a)} and {len(b)}; embed both texts with the same embedder"
        )
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0 or nb == 0:
        return 0.0
    return dot / (na * nb)
