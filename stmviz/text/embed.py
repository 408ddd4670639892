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

from .summarize import STOPWORDS

__all__ = ["embed", "HashingEmbedder", "cosine", "DIMENSIONS"]

DIMENSIONS = 64
_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    for suffix in ("ingly", "edly", "ing", "ies", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


class HashingEmbedder:
    """``embed(text) -> tuple[float, ...]`` of length ``dimensions``, unit length (or all zeros)."""

    def __init__(self, dimensions: int = DIMENSIONS, digits: int = 4) -> None:
        if isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 2:
            raise ValueError(f"dimensions must be a whole number ≥ 2, got {dimensions!r}")
        self.dimensions = dimensions
        self.digits = digits
        self._buckets: dict[str, tuple[int, float]] = {}

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimensions={self.dimensions})"

    def _bucket(self, word: str) -> tuple[int, float]:
        hit = self._buckets.get(word)
        if hit is None:
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            hit = (value % self.dimensions, 1.0 if (value >> 63) & 1 else -1.0)
            if len(self._buckets) < 200_000:
                self._buckets[word] = hit
        return hit

    def __call__(self, text: str) -> tuple[float, ...]:
        vector = [0.0] * self.dimensions
        words = [_stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
        for word, tf in Counter(words).items():
            index, sign = self._bucket(word)
            vector[index] += sign * (1.0 + math.log(tf))
        norm = math.sqrt(sum(v * v for v in vector))
        if norm == 0:
            return tuple(vector)
        return tuple(round(v / norm, self.digits) for v in vector)


_default = HashingEmbedder()


def embed(text: str) -> tuple[float, ...]:
    """The default embedder: 64-dimensional hashing bag of words.

    >>> round(cosine(embed("the cat sat on the mat"), embed("a cat on a mat")), 2) > 0.5
    True
    """
    return _default(text)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (0 when either is all zeros)."""
    if len(a) != len(b):
        raise ValueError(f"vectors of different lengths: {len(a)} and {len(b)}")
    dot = sum(x * y for x, y in zip(a, b))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0 or nb == 0:
        return 0.0
    return dot / (na * nb)
