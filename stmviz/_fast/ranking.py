"""The top k of a long memory stream by matrix–vector products: SCM's ranking, fast.

A speed-up, not part of the paper. SCM ranks the interactions 0 … last−1 of
its memory stream by

    score(i) = rw · decay^(t−i) + lw · cosine(query, embedding_i)

and activates the top k, best first, the newest first on ties, leaving out
empty interactions and those already in ω (``SCM._rank_by_definition``, one
score per candidate). :class:`StreamMatrix` gives the same top k for a long
stream: it keeps the embeddings as unit rows of a matrix between steps (each
step adds only the new rows), scores the newest candidates first by one
matrix–vector product, and reaches back to older ones only while they could
still enter the top k. numpy is imported only when it is used.
``tests/test_fast.py`` and ``tests/mechanisms/test_scm_speedpaths.py`` hold it
equal to the definition.

The memory stream is SCM's list of rows, one per interaction: ``(step, row)``
with ``row`` = ``(full text, raw text, embedding)``, or ``None`` for an empty
interaction.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from ..core.errors import UpdateFailedError

__all__ = ["StreamMatrix"]

#: The most matrix cells one BLAS matrix–vector product gets: below OpenBLAS's threading
#: threshold, so that the products are computed by one thread. Threaded gemv was ~10× slower
#: here (2 shared cores) and its last bits depended on the thread count; single-threaded
#: products split at multiples of 64 rows give bit-for-bit the unsplit single-threaded result.
_CHUNK_CELLS = 1 << 18


class StreamMatrix:
    """A memory stream's embeddings as unit rows, and the recency weights, kept between the steps of one run.

    ``rows`` is (matrix, indices of the empty interactions, rows filled) or
    ``None``; ``powers`` is (decay, rw, decay ** age, rw · decay ** age read
    backwards) or ``None``. Both are functions of the stream and the weights,
    so a result never depends on them; :meth:`forget_rows` drops the rows when
    the stream is another one.
    """

    __slots__ = ("rows", "powers")

    def __init__(self) -> None:
        self.rows: Any = None
        self.powers: Any = None

    def forget_rows(self) -> None:
        """Drop the rows: the memory stream they were computed from is no longer the one ranked."""
        self.rows = None

    def top(
        self,
        stream: Sequence[Any],
        last: int,
        query: Sequence[float] | None,
        t: int,
        k: int,
        skip: set,
        weights: tuple[float, float, float],
    ) -> list[int]:
        """The top k of candidates 0 … last−1 by rw · decay^(t−i) + lw · cosine(query, embedding_i), newest first on ties.

        ``weights`` is (rw, lw, decay); candidates in ``skip`` and empty
        interactions are left out; no query scores relevance 0.
        """
        import numpy as np

        rw, lw, decay = weights
        qvec = np.fromiter(query, float, len(query)) if query else None
        qnorm = float(np.sqrt(qvec @ qvec)) if qvec is not None else 0.0
        data, empty = self._unit_rows(np, stream, last, len(query) if query else None)
        recency, weighted = self._recency(np, rw, decay, t)
        now = weighted.shape[0] - 1 - t  # weighted[now + i] = rw · decay ** (t − i)
        relevant = bool(query) and qnorm > 0
        if query is not None and qvec is not None and relevant:
            if len(query) != data.shape[1]:
                raise UpdateFailedError(f"embed returned vectors of {len(query)} and {data.shape[1]} dimensions")
            unit = qvec / qnorm
        inf = math.inf

        def scores(lo: int, hi: int) -> Any:
            """The scores of candidates lo … hi−1 (−inf where there is no interaction or it is in ω)."""
            by_recency = weighted[now + lo : now + hi]  # rw · decay ** (t − i) for i = lo … hi−1
            if relevant:  # rw·recency + lw·cosine, computed in place in the fresh product
                score = _dots(np, data, lo, hi, unit)
                np.multiply(score, lw, out=score)
                np.add(score, by_recency, out=score)
            else:
                score = by_recency.copy()
            for i in empty[bisect_left(empty, lo) : bisect_left(empty, hi)]:
                score[i - lo] = -inf
            for i in skip:
                if isinstance(i, int) and lo <= i < hi:
                    score[i - lo] = -inf
            return score

        m = min(k, last)
        # Score the newest candidates first, older ones only while they could still make the
        # top m: a candidate of age ≥ a scores at most rw·decay**a + lw (cosine ≤ 1), so once
        # the m-th best score so far beats that bound (with a margin for rounding), no older
        # candidate can enter the top m or tie with it. Blocks start at multiples of 64 rows,
        # so every score is bit-for-bit the one the whole matrix–vector product gives.
        lo = max(0, (last - 256) // 64 * 64)
        score = scores(lo, last)
        while True:
            n = score.shape[0]
            kth = float(np.partition(score, n - m)[n - m]) if n >= m else -inf  # the m-th best score
            if lo == 0:
                break
            if n >= m:
                bound = (rw * recency[t - lo + 1] + (lw if relevant else 0.0)) * (1 + 1e-9) + 1e-12
                if kth > bound:
                    break
            older = max(0, (lo - 2 * (last - lo)) // 64 * 64)
            score = np.concatenate([scores(older, lo), score])
            lo = older
        # The first m in the order (score descending, newest first on ties) all score ≥ the m-th
        # best score: sort just those (m of them, more only on ties) in that order.
        at = (score >= kth).nonzero()[0]
        best = sorted((-v, -i) for v, i in zip(score[at].tolist(), at.tolist()) if v > -inf)
        return [lo - i for _, i in best[:m]]

    def _unit_rows(self, np: Any, stream: Sequence[Any], last: int, dim: int | None) -> tuple[Any, list[int]]:
        """The stream's embeddings as unit rows (filled at least up to row last − 1), and the empty interactions.

        Kept between steps: each step adds the rows of the interactions new to the stream.
        """
        matrix = self.rows
        if matrix is not None and dim is None and len(matrix[1]) == matrix[2]:
            # every row filled so far was an empty interaction, so the width was a guess: a first vector decides it
            first = next((r[1][2] for r in stream if r[1] is not None), None)
            if first is not None and len(first) != matrix[0].shape[1]:
                matrix = None
        if matrix is not None and matrix[2] >= last and (dim is None or dim == matrix[0].shape[1]):
            return matrix[0], matrix[1]  # the rows filled at an earlier step reach the last candidate
        if matrix is not None and dim is not None and matrix[0].shape[1] != dim:
            matrix = None
        if matrix is None or matrix[0].shape[0] < last:
            width = dim or len(next((r[1][2] for r in stream if r[1] is not None), (0.0,)))
            size = max(last, 2 * (matrix[0].shape[0] if matrix is not None else 0), 256)
            data = np.zeros((size, width))
            if matrix is None:
                matrix = (data, [], 0)
            else:  # grown: the rows filled so far are copied, not normalized again
                old, empty, filled = matrix
                data[:filled] = old[:filled]
                matrix = (data, empty, filled)
        data, empty, filled = matrix
        if filled < last:
            for i in range(filled, min(len(stream), data.shape[0])):
                row = stream[i][1]
                if row is None:
                    empty.append(i)  # in increasing order: the ranking bisects it
                else:
                    data[i] = _unit(row[2], data.shape[1], np)
            matrix = (data, empty, min(len(stream), data.shape[0]))
        self.rows = matrix
        return data, empty

    def _recency(self, np: Any, rw: float, decay: float, t: int) -> tuple[Any, Any]:
        """decay ** age for every age 0 … t at least, and rw · decay ** age, oldest age first.

        The second array, read forwards from index len − 1 − t, gives candidate 0, 1, …'s weighted
        recency at step t.
        """
        powers = self.powers
        if powers is None or powers[0] != decay or powers[2].shape[0] <= t:
            recency = np.power(decay, np.arange(max(2 * t + 2, 1024), dtype=float))
            powers = self.powers = (decay, rw, recency, (rw * recency)[::-1].copy())
        elif powers[1] != rw:
            powers = self.powers = (decay, rw, powers[2], (rw * powers[2])[::-1].copy())
        return powers[2], powers[3]

    def __repr__(self) -> str:
        filled = self.rows[2] if self.rows is not None else 0
        return f"StreamMatrix({filled} rows)"


def _dots(np: Any, data: Any, lo: int, hi: int, vector: Any) -> Any:
    """``data[lo:hi] @ vector``, in row blocks small enough for a single-threaded BLAS call."""
    rows = max(64, _CHUNK_CELLS // max(1, data.shape[1]) // 64 * 64)
    if hi - lo <= rows:
        return data[lo:hi] @ vector
    out = np.empty(hi - lo)
    for start in range(lo, hi, rows):
        stop = min(start + rows, hi)
        np.matmul(data[start:stop], vector, out=out[start - lo : stop - lo])
    return out


def _unit(vector: Sequence[float], width: int, np: Any) -> Any:
    if len(vector) != width:
        raise UpdateFailedError(f"embed returned vectors of {len(vector)} and {width} dimensions; they must all match")
    array = np.fromiter(vector, float, width)
    norm = float(np.sqrt(array @ array))
    return array / norm if norm > 0 else array
