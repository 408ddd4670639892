"""The machinery behind SCM that a reader of the paper can skip: caches, the memory stream's rows, and the fast ranking.

:class:`~stmviz.mechanisms.scm.SCM` reads as the paper and the released code
describe it; this module holds what makes it fast and safe, none of which
changes a result:

- per-text caches of embeddings, summaries and elements, the memory stream's
  rows and embedding matrix, kept between steps (:class:`_Cache`);
- the checked calls of the offline stand-ins for model calls (``embed``,
  ``summarize``, ``judge``), with their errors as :class:`UpdateFailedError`;
- the ranking of a long memory stream by one matrix–vector product, scoring
  the newest candidates first (``_rank``); for 64 candidates or fewer, and in
  ``tests/mechanisms/test_scm_speedpaths.py``, it is the plain definition
  :meth:`SCM._rank_by_definition`.
"""

from __future__ import annotations

import math
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any

from ..core.context import AgentStep, Context, History
from ..core.element import Element
from ..core.errors import InvalidIndexError, UpdateFailedError
from ..core.formatting import shorten
from ..core.mechanism import Mechanism, Transition
from ..core.space import State
from ..text.embed import cosine, hashing_embedder, joined_frequencies
from ._shared import Memo
from .scm_controller import VERDICTS

class _Cache:
    """Per-text caches of embeddings and summaries, plus the memory stream's embedding matrix.

    Its identity never changes for the mechanism's life (in one thread: each
    thread has its own, see :attr:`SCM._cache`), and every entry is a function
    of its key, so results never depend on it.
    """

    __slots__ = (
        "embeddings",
        "summaries",
        "elements",
        "stream",
        "rows",
        "current",
        "norms",
        "powers",
        "embedder",
        "hashing",
        "frequencies",
        "operations",
        "judgements",
        "relevance",
        "prefixes",
        "prefix",
        "rankings",
        "plan",
        "filed",
    )

    def __init__(self, limit: int = 1 << 16) -> None:
        self.embeddings = Memo(limit)  # raw text → embedding
        self.summaries = Memo(limit)  # (raw text, budget) → summary
        self.elements = Memo(limit)  # (index, kind, form, full text, budget) → element or None; (t, "message", text) → element
        self.stream: Any = None  # the step list the rows were computed from
        self.rows: list[Any] = []  # per interaction: (step, (full, raw, embedding) or None when empty)
        self.current: Any = None  # (previous step, step, row) of the step whose interaction was added last
        self.norms: Any = None  # (unit rows of the embeddings, indices of empty interactions, rows filled)
        self.powers: Any = None  # (decay, recency_weight, decay ** age, recency_weight · decay ** age; age = 0, 1, …)
        self.embedder: Any = None  # the embed callable ``hashing`` was resolved for
        self.hashing: Any = None  # the HashingEmbedder that embed is, or None
        self.frequencies = Memo(8)  # the latest texts' term frequencies
        self.operations: Any = None  # (unused; kept for compatibility)
        self.judgements = Memo(limit)  # (full, summary, message) → (verdict, reason)
        self.relevance = Memo(limit)  # (query text, memory's raw text) → cosine of their embeddings
        self.prefixes = Memo(limit)  # (name of interactions 0 … i−1, raw text i or None) → name of 0 … i
        self.prefix: list[Any] = []  # per row: the name of the memory stream's raw texts up to it
        self.rankings = Memo(limit)  # (name of the candidates, query text, t, weights) → (depth, top-depth indices)
        self.plan: Any = None  # (key, the latest plan of memory activation)
        self.filed: Any = None  # (key, state, the latest add_interaction transition)

    def __repr__(self) -> str:
        return f"_Cache({len(self.embeddings)} embeddings, {len(self.summaries)} summaries)"


class SCMMachinery(Mechanism):
    """Caches, checked calls of the stand-ins, and the fast ranking of :class:`~stmviz.mechanisms.scm.SCM` (results never depend on them)."""

    # set by SCM.__init__
    summary_budget: int
    summary_threshold: int
    flash_size: int
    flash_threshold: int
    summarize: Callable[[Sequence[str], int], str]
    embed: Callable[[str], Sequence[float]]
    judge: Callable[[str, str, str], tuple[str, str]]
    _caches: threading.local

    # defined by SCM: the paper's part
    def _row(self, previous: AgentStep | None, step: AgentStep, context: Context) -> tuple[str, str, tuple[float, ...]] | None:
        raise NotImplementedError

    def _query_text(self, context: Context) -> str:
        raise NotImplementedError

    def _summary_text(self, row: tuple[str, str, tuple[float, ...]], context: Context, index: int) -> str:
        raise NotImplementedError

    def _filed(self, state: State, context: Context) -> Transition:
        raise NotImplementedError

    def _planned(
        self, state: State, context: Context, k: int, form: str, stream: list[Any], in_state: set, last: int, query_text: str
    ) -> tuple[list[list[Any]], list[list[Any]], list[Element]]:
        raise NotImplementedError

    def _weights(self) -> tuple[float, float, float]:
        raise NotImplementedError

    def _rank_by_definition(
        self, stream: list[Any], last: int, query: tuple[float, ...] | None, t: int, k: int, skip: set
    ) -> list[int]:
        raise NotImplementedError

    @property
    def _cache(self) -> _Cache:
        """This thread's caches.

        Besides memos of pure functions, the caches hold the state of the run in
        progress (the memory stream's rows and matrix, the latest step's
        interaction), which a run started by another thread would overwrite
        between two reads. Each thread that runs this mechanism has its own, so
        that threads sharing one SCM get the traces of sequential runs.
        """
        try:
            return self._caches.cache
        except AttributeError:
            cache = self._caches.cache = _Cache()
            return cache

    def _fail(self, context: Context, what: str, exc: BaseException) -> UpdateFailedError:
        return UpdateFailedError(
            f"step {context.t}: {self} could not {what}: {type(exc).__name__}: {shorten(str(exc), 160)}. "
            f"ω_{context.t} was left as it was",
            step=context.t,
        )

    def _embedding(self, raw: str, context: Context, parts: Sequence[str] = ()) -> tuple[float, ...]:
        """embed(raw), cached per text; ``parts``, if given, are texts whose ``"\\n".join`` is raw."""
        cache = self._cache
        hit = cache.embeddings.get(raw)
        if hit is not None:
            return hit
        hashing = self._hashing()
        try:
            if hashing is not None:
                # The built-in embedder: embed(raw) from the term frequencies of raw's parts. The
                # current observation is a part of the current interaction and then, alone, the
                # query of memory activation: its words are read once for both.
                if len(parts) > 1:
                    tf = joined_frequencies([self._frequencies(hashing, part) for part in parts])
                else:
                    tf = self._frequencies(hashing, raw)
                vector = hashing.from_frequencies(tf)  # floats, of unit length or all 0: nothing to check
            else:
                vector = tuple(map(float, self.embed(raw)))
        except Exception as exc:
            raise self._fail(context, f"embed {shorten(raw)!r} with {self.embed!r}", exc) from exc
        if hashing is None and (not vector or not math.isfinite(math.fsum(map(abs, vector)))):
            raise self._fail(context, "use the embedding", ValueError(f"embed returned {shorten(repr(vector))}"))
        cache.embeddings.put(raw, vector)
        return vector

    def _hashing(self) -> Any:
        """The :class:`~stmviz.text.HashingEmbedder` that ``self.embed`` is (or calls), else None."""
        cache = self._cache
        embed = self.embed
        if cache.embedder is not embed:  # resolved once per embed callable
            cache.hashing = hashing_embedder(embed)
            cache.embedder = embed
            cache.frequencies.clear()
        return cache.hashing

    def _frequencies(self, hashing: Any, text: str) -> dict[str, int]:
        """The term frequencies of a text, kept for the few latest texts (the current observation's)."""
        table = self._cache.frequencies
        tf = table.get(text)
        if tf is None:
            tf = hashing.frequencies(text)
            table.put(text, tf)
        return tf

    def _summary(self, raw: str, context: Context, index: int) -> str:
        cache = self._cache
        key = (raw, self.summary_budget)
        hit = cache.summaries.get(key)
        if hit is not None:
            return hit
        try:
            summary = self.summarize([raw], self.summary_budget)
        except Exception as exc:
            raise self._fail(context, f"summarize interaction {index} with {self.summarize!r}", exc) from exc
        if not isinstance(summary, str):
            raise self._fail(
                context, f"summarize interaction {index}", TypeError(f"summarize returned {type(summary).__name__}, not str")
            )
        cache.summaries.put(key, summary)
        return summary

    def _stream(self, context: Context) -> list[Any]:
        """The memory stream's rows (full text, raw text, embedding) for steps 0 … t−1, computed once per step."""
        history = context.history
        n = len(history)
        cache = self._cache
        source = history.steps() if isinstance(history, History) else None
        rows = cache.rows
        m = len(rows)
        # the rows hold while the history is the same growing list, with the same step where they end
        if source is None or source is not cache.stream or m > n or (m and source[m - 1] is not rows[m - 1][0]):
            cache.stream = source
            cache.rows = rows = []
            cache.prefix = []
            cache.norms = None
        while len(rows) < n:
            i = len(rows)
            step = history[i]
            previous = history[i - 1] if i else None
            current = cache.current  # the row of the interaction the previous step added, usually
            if current is not None and current[1] is step and current[0] is previous:
                rows.append((step, current[2]))
            else:
                rows.append((step, self._row(previous, step, context)))
        return rows

    def _element(self, index: int, row: tuple[str, str, tuple[float, ...]], kind: str, form: str, context: Context) -> Element | None:
        full, raw, vector = row
        cache = self._cache
        key = (index, kind, form, full, self.summary_budget, self.summary_threshold)
        if key in cache.elements:
            return cache.elements.get(key)
        content = full if form == "full" else self._summary_text(row, context, index)
        element = (
            Element(content, {"t": index, "step": index, "type": kind, "index": index, "embedding": vector, "form": form})
            if content
            else None
        )
        cache.elements.put(key, element)
        return element

    def _add_interaction(self, state: State, context: Context) -> Transition:
        """add_interaction; the controller's planning and the update share the result (kept for one step)."""
        cache = self._cache
        source = context.history.steps() if isinstance(context.history, History) else None
        key = (context.t, id(state), id(context.step), id(source), len(context.history), self.flash_size, self.flash_threshold)
        if source is not None and cache.filed is not None and cache.filed[0] == key and cache.filed[1] is state:
            return cache.filed[2]
        transition = self._filed(state, context)
        if source is not None:
            cache.filed = (key, state, transition)
        return transition

    def _plan(self, state: State, context: Context, k: int, form: str) -> tuple[list[list[Any]], list[list[Any]], list[Element]]:
        """(scores, judgements, elements) of memory activation for the latest input, given ω after filing.

        ``scores``: ``[index, score]`` of the top-k candidates, best first.
        ``judgements``: ``[index, verdict, reason]`` in the order they were
        made — the judge's verdict on each memory (form ``"auto"``, when the
        full texts exceed the room), then each full text that became a
        summary and each memory dropped to fit.
        """
        space = self.space
        t = context.t
        stream = self._stream(context)
        in_state = {e.meta.get("index") for e in state.elements}
        last = min(len(stream), t - self.flash_size + 1)  # candidates: 0 … t − flash_size
        if k == 0 or last <= 0:
            return [], [], []
        query_text = self._query_text(context)
        cache = self._cache
        key = None
        if cache.stream is not None:  # the controller plans, then the update applies the same plan: computed once
            key = (
                t, k, form, id(cache.stream), len(stream), id(stream[-1][0]) if stream else None, query_text,
                frozenset(in_state), space.free(state), self._weights(), id(self.judge), self.summary_budget, self.summary_threshold,
            )
            if cache.plan is not None and cache.plan[0] == key:
                return cache.plan[1]
        plan = self._planned(state, context, k, form, stream, in_state, last, query_text)
        if key is not None:
            cache.plan = (key, plan)
        return plan

    def _relevance(self, query_text: str, query: tuple[float, ...], row: tuple[str, str, tuple[float, ...]]) -> float:
        """cosine(embed(query_text), embed(raw)) of a memory's row, cached per pair of texts (both embeddings are)."""
        memo = self._cache.relevance
        key = (query_text, row[1])
        value = memo.get(key)
        if value is None:
            value = memo.put(key, cosine(query, row[2]))
        return value

    def _judge(self, full: str, summary: str, message: str, context: Context) -> tuple[str, str]:
        """judge(full, summary, message), cached per arguments and checked."""
        cache = self._cache.judgements
        key = (full, summary, message)
        hit = cache.get(key)
        if hit is not None:
            return hit
        try:
            verdict, why = self.judge(full, summary, message)
        except Exception as exc:
            raise self._fail(context, f"judge a memory with {self.judge!r}", exc) from exc
        if verdict == "raw":
            verdict = "full"
        if verdict not in VERDICTS:
            raise self._fail(
                context, "use the judgement", ValueError(f"judge returned {verdict!r}; it must be one of {', '.join(VERDICTS)}")
            )
        result = (str(verdict), str(why))
        cache.put(key, result)
        return result

    def _matrix(self, np: Any, rows: list[Any], last: int, dim: int | None) -> tuple[Any, list[int]]:
        """The memory stream's embeddings as unit rows (filled at least up to row last − 1), and the empty interactions.

        Kept between steps: each step adds the rows of the interactions new to the stream.
        """
        cache = self._cache
        matrix = cache.norms
        if matrix is not None and matrix[2] >= last and (dim is None or dim == matrix[0].shape[1]):
            return matrix[0], matrix[1]  # the rows filled at an earlier step reach the last candidate
        if matrix is not None and dim is not None and matrix[0].shape[1] != dim:
            matrix = None
        if matrix is None or matrix[0].shape[0] < last:
            width = dim or len(next((r[1][2] for r in rows if r[1] is not None), (0.0,)))
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
            for i in range(filled, min(len(rows), data.shape[0])):
                row = rows[i][1]
                if row is None:
                    empty.append(i)  # in increasing order: the ranking bisects it
                else:
                    data[i] = _unit(row[2], data.shape[1], np)
            matrix = (data, empty, min(len(rows), data.shape[0]))
        cache.norms = matrix
        return data, empty

    def _recency(self, np: Any, rw: float, decay: float, t: int) -> tuple[Any, Any]:
        """decay ** age for every age 0 … t at least, and rw · decay ** age, oldest age first.

        The second array, read forwards from index len − 1 − t, gives candidate 0, 1, …'s weighted
        recency at step t.
        """
        cache = self._cache
        powers = cache.powers
        if powers is None or powers[0] != decay or powers[2].shape[0] <= t:
            recency = np.power(decay, np.arange(max(2 * t + 2, 1024), dtype=float))
            powers = cache.powers = (decay, rw, recency, (rw * recency)[::-1].copy())
        elif powers[1] != rw:
            powers = cache.powers = (decay, rw, powers[2], (rw * powers[2])[::-1].copy())
        return powers[2], powers[3]

    def _ranking(
        self, stream: list[Any], last: int, query: tuple[float, ...] | None, query_text: str, t: int, k: int, skip: set
    ) -> list[int]:
        """:meth:`_rank`'s top-k, read from a ranking of all candidates kept by content.

        The scores of candidates 0 … last−1 depend on their texts, the query's
        text, t and the weights alone — not on ω, which only says which
        candidates to skip (those already in ω). So the candidates are ranked
        without skipping, to the depth k + (the candidates in ω), and kept by
        (the candidates' texts, the query, t, the weights); the top-k is that
        ranking without the skipped ones. The order is total (score
        descending, the newest first on ties), so this is the top-k of the
        candidates left.
        """
        held = {i for i in skip if isinstance(i, int) and 0 <= i < last}
        depth = k + len(held)
        memo = self._cache.rankings
        key = (self._prefix(stream, last), query_text, t, self._weights())
        found = memo.get(key)
        if found is None or found[0] < depth:
            found = memo.put(key, (depth, self._rank(stream, last, query, t, depth, set())))
        return [i for i in found[1] if i not in held][:k]

    def _prefix(self, stream: list[Any], last: int) -> Any:
        """A name for the raw texts of interactions 0 … last−1: two runs' names are the same object only if the texts are.

        The name of 0 … i is looked up by (the name of 0 … i−1, the raw text of
        i) in ``prefixes`` (hash-consing), so runs that share that table — a
        sweep's runs at several V_max — name the same memory stream alike.
        """
        cache = self._cache
        names, table = cache.prefix, cache.prefixes
        while len(names) < last:
            row = stream[len(names)][1]
            key = (names[-1] if names else None, row[1] if row is not None else None)
            name = table.get(key)
            if name is None:
                name = table.put(key, _Prefix(len(names) + 1))
            names.append(name)
        return names[last - 1] if last > 0 else None

    def _rank(self, stream: list[Any], last: int, query: tuple[float, ...] | None, t: int, k: int, skip: set) -> list[int]:
        """The top-k of :meth:`SCM._rank_by_definition`, by a matrix–vector product over a long memory stream (tests hold them equal)."""
        rw, lw, decay = self._weights()
        if last > 64:  # a matrix–vector product over the memory stream (numpy is imported only here)
            import numpy as np

            qvec = np.fromiter(query, float, len(query)) if query else None
            qnorm = float(np.sqrt(qvec @ qvec)) if qvec is not None else 0.0
            data, empty = self._matrix(np, stream, last, len(query) if query else None)
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
        return self._rank_by_definition(stream, last, query, t, k, skip)

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: the sum of the messages' token counts (cached per text)."""
        count = self.count_tokens
        total = 0
        for e in state.elements:
            if not isinstance(e.content, str):
                return super().projection_size(state)
            total += count(e.content)
        return total


class _Prefix:
    """The name of a memory stream's first ``length`` raw texts (see :meth:`SCM._prefix`); compared by identity."""

    __slots__ = ("length",)

    def __init__(self, length: int) -> None:
        self.length = length

    def __repr__(self) -> str:
        return f"<interactions 0 … {self.length - 1}>"


class _Texts(Sequence[str]):
    """The raw texts of the interactions 0 … n − 1 of the memory stream, read lazily ("" for an empty one)."""

    def __init__(self, rows: list[Any], n: int) -> None:
        self._rows, self._n = rows, n

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[str]:
        for step, row in islice(self._rows, self._n):
            yield row[1] if row is not None else ""

    def __reversed__(self) -> Iterator[str]:
        rows = self._rows
        for i in range(self._n - 1, -1, -1):
            row = rows[i][1]
            yield row[1] if row is not None else ""

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise InvalidIndexError(f"memories[{i}] does not exist: there are {self._n} earlier interactions, 0 … {self._n - 1}")
        row = self._rows[i][1]
        return row[1] if row is not None else ""


#: The most matrix cells one BLAS matrix–vector product gets: below OpenBLAS's threading
#: threshold, so that the products are computed by one thread. Threaded gemv was ~10× slower
#: here (2 shared cores) and its last bits depended on the thread count; single-threaded
#: products split at multiples of 64 rows give bit-for-bit the unsplit single-threaded result.
_CHUNK_CELLS = 1 << 18


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

