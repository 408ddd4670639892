"""SCM, the Self-Controlled Memory framework (Wang et al., 2023), as the paper's Section 4 describes it.

Element by element (Definitions 1 and 2):

- **E = I × D.** I is the tuple (observation, response, summary) of one
  interaction: an element's content is the interaction's full text
  ("Observation: … / Response: …", ``form = "full"``) or its summary
  (``form = "summary"``). D holds the interaction index (``index``, also
  ``t`` and ``step``), its embedding (``embedding``) and the type
  (``type`` = ``"activation"`` or ``"flash"`` memory).
- **μ:** tokens (any size function works). **V_max:** the limit on
  activation + flash memory.
- **ω:** the elements fed to the model at the current step. The memory
  stream (every past interaction) is *not* in ω: it is the step history in
  the context c (``context.history``), so U stays a pure function.
- **O:** ``add_interaction`` and ``activate_memory``. Memory activation is
  the controller's decision to emit ``activate_memory`` at all (only when
  there are interactions older than flash memory and k ≥ 1); its parameter
  ``k`` is the top-k retrieval, and ``form`` (``"auto"``, ``"full"``,
  ``"summary"``) the choice between full text and summary.
- **C:** the current observation and its embedding (computed from c).
- **U:** ``add_interaction`` adds the current interaction in full as flash
  memory (the newest ``flash_size`` interactions, the current one included)
  and clears activation memory; ``activate_memory`` ranks the older
  interactions by recency_weight · recency + relevance_weight · cosine(embed(
  current observation), embed(interaction)), activates the top k — in full if
  it fits, else as its summary, dropping the lowest-ranked until Σμ ≤ V_max.
- **π:** input fusion — the activated memories, then flash memory, ending
  with the current interaction (which holds the current observation).

Summaries and embeddings are cached per interaction text, in an object whose
identity never changes (results do not depend on the cache).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

from ..core.element import Element
from ..core.formatting import format_number, shorten
from ..core.errors import InvalidArgumentError, UnsupportedOperationError, UpdateFailedError
from ..core.mechanism import Mechanism, Transition
from ..core.protocol import element_types_of
from ..core.context import AgentStep, Context, History
from ..core.model_input import Message, ModelInput
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ..text.embed import cosine, hashing_embedder, joined_frequencies
from .fit import fit_text
from ._shared import Memo

__all__ = ["SCM", "interaction_text"]

_FORMS = ("auto", "full", "summary")


def interaction_text(step: AgentStep) -> tuple[str, str]:
    """The (full text, raw text) of one interaction i = (observation, response).

    The full text labels the parts in the order they happened (a tool step:
    the response — thought and action — then its observation; a dialogue
    step: the user's observation, then the response). The raw text, without
    labels, is what gets embedded and summarized.

    >>> interaction_text(AgentStep(thought="Noted.", observation="My code is 7391."))
    ('Observation: My code is 7391.\\nResponse: Noted.', 'My code is 7391.\\nNoted.')
    """
    parts = _parts(step)
    full = "\n".join(f"{label}: {text}" for label, text in parts)
    raw = "\n".join(text for _, text in parts)
    return full, raw


def _parts(step: AgentStep) -> list[tuple[str, str]]:
    """The labelled, non-empty parts (response, observation) of one interaction, in the order they happened."""
    response = step.model_output
    observation = step.observation
    if step.action:
        parts = [("Response", response), ("Observation", observation)]
    else:
        parts = [("Observation", observation), ("Response", response)]
    return [(label, text) for label, text in parts if text]


class _Cache:
    """Per-text caches of embeddings and summaries, plus the memory stream's embedding matrix.

    Its identity never changes for the mechanism's life, and every entry is
    a function of its key, so results never depend on it.
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
    )

    def __init__(self, limit: int = 1 << 16) -> None:
        self.embeddings = Memo(limit)  # raw text → embedding
        self.summaries = Memo(limit)  # (raw text, budget) → summary
        self.elements = Memo(limit)  # (index, kind, form, full text, budget) → element or None
        self.stream: Any = None  # the step list the rows were computed from
        self.rows: list[Any] = []  # per interaction: (step, (full, raw, embedding) or None when empty)
        self.current: Any = None  # (step, row) of the step whose interaction was added last
        self.norms: Any = None  # (unit rows of the embeddings, indices of empty interactions, rows filled)
        self.powers: Any = None  # (decay, recency_weight, decay ** age, recency_weight · decay ** age; age = 0, 1, …)
        self.embedder: Any = None  # the embed callable ``hashing`` was resolved for
        self.hashing: Any = None  # the HashingEmbedder that embed is, or None
        self.frequencies = Memo(8)  # the latest texts' term frequencies
        self.operations: Any = None  # (k, the controller's two operations for that k)

    def __repr__(self) -> str:
        return f"_Cache({len(self.embeddings)} embeddings, {len(self.summaries)} summaries)"


class SCM(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of SCM: flash memory of recent interactions + activation memory retrieved by rank.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ (tokens) and V_max, the limit on activation + flash memory.
    k : int
        Top-k retrieval: how many older interactions to activate (≥ 0).
    flash_size : int
        How many of the newest interactions, the current one included, are
        kept in full as flash memory (≥ 1).
    recency_weight, relevance_weight : float
        Weights (≥ 0, not both 0) of recency = ``recency_decay`` ** age (age in
        steps) and relevance = cosine similarity to the current observation.
    summary_budget : int
        Token budget of an interaction's summary.
    summarize : callable, optional
        ``summarize(texts, budget) -> str``; default :func:`stmviz.text.summarize`.
    embed : callable, optional
        ``embed(text) -> vector``; default :func:`stmviz.text.embed`.
    recency_decay : float
        The per-step decay of recency, in (0, 1].

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> steps = [AgentStep(thought="Noted.", observation="My locker code is 7391."),
    ...          AgentStep(thought="Sunny.", observation="How is the weather?"),
    ...          AgentStep(thought="Pasta.", observation="What is for dinner?"),
    ...          AgentStep(thought="Let me recall.", observation="What is my locker code?")]
    >>> scm = SCM(StateSpace(sizes.tokens(), v_max=200), k=1, flash_size=1)
    >>> trace = run(scm, steps)
    >>> [(e.type, e.meta["index"], e.meta["form"]) for e in trace.final]
    [('activation', 0, 'full'), ('flash', 3, 'full')]
    >>> print(scm.project(trace.final).text())
    Observation: My locker code is 7391.
    Response: Noted.
    <BLANKLINE>
    Observation: What is my locker code?
    Response: Let me recall.
    >>> trace[3].operation
    'add_interaction; activate_memory(k=1, form=auto)'
    """

    name = "SCM"
    operations = OperationSet(
        {
            "add_interaction": "add the current interaction in full to flash memory; clear activation memory",
            "activate_memory": (
                "memory activation: rank older interactions by recency + relevance to the current observation, "
                "activate the top k in full text or as a summary (params k, form)"
            ),
        }
    )
    element_types = element_types_of(
        {
            "flash": ("flash memory: the current interaction (in full, or its summary if it cannot fit)", "#d62728"),
            "activation": ("activation memory: an older interaction recalled in full or as a summary", "#9467bd"),
        }
    )

    def __init__(
        self,
        space: StateSpace,
        *,
        k: int = 3,
        flash_size: int = 2,
        recency_weight: float = 0.5,
        relevance_weight: float = 0.5,
        summary_budget: int = 64,
        summarize: Callable[[Sequence[str], int], str] | None = None,
        embed: Callable[[str], Sequence[float]] | None = None,
        recency_decay: float = 0.99,
    ) -> None:
        super().__init__(space)
        _whole("k", k, 0)
        _whole("flash_size", flash_size, 1)
        _whole("summary_budget", summary_budget, 1)
        for name, value in (("recency_weight", recency_weight), ("relevance_weight", relevance_weight)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise InvalidArgumentError(f"{name} must be a finite number ≥ 0, got {value!r}")
        if recency_weight == 0 and relevance_weight == 0:
            raise InvalidArgumentError("recency_weight and relevance_weight are both 0: nothing would rank the memory stream")
        if (
            isinstance(recency_decay, bool)
            or not isinstance(recency_decay, (int, float))
            or not 0 < recency_decay <= 1
        ):
            raise InvalidArgumentError(f"recency_decay must be a number in (0, 1], got {recency_decay!r}")
        for name, function in (("summarize", summarize), ("embed", embed)):
            if function is not None and not callable(function):
                raise InvalidArgumentError(f"{name} must be a callable or None, got {type(function).__name__}")
        from ..text import embed as default_embed
        from ..text import summarize as default_summarize
        self.k = k
        self.flash_size = flash_size
        self.recency_weight = float(recency_weight)
        self.relevance_weight = float(relevance_weight)
        self.summary_budget = summary_budget
        self.recency_decay = float(recency_decay)
        self.summarize: Callable[[Sequence[str], int], str] = summarize or default_summarize
        self.embed: Callable[[str], Sequence[float]] = embed or default_embed
        self._cache = _Cache()

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (a custom summarize/embed is not recorded: rebuilt, it is the default)."""
        return {
            "k": self.k,
            "flash_size": self.flash_size,
            "recency_weight": self.recency_weight,
            "relevance_weight": self.relevance_weight,
            "summary_budget": self.summary_budget,
            "recency_decay": self.recency_decay,
        }

    # -- helpers ------------------------------------------------------------------
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

    def _row(self, step: AgentStep, context: Context) -> tuple[str, str, tuple[float, ...]] | None:
        """(full text, raw text, embedding) of one interaction; None if it has no text."""
        parts = _parts(step)
        if not parts:
            return None
        full = "\n".join(f"{label}: {text}" for label, text in parts)
        texts = [text for _, text in parts]
        raw = "\n".join(texts)
        return full, raw, self._embedding(raw, context, texts)

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
            cache.norms = None
        while len(rows) < n:
            step = history[len(rows)]
            current = cache.current  # the row of the interaction the previous step added, usually
            rows.append((step, current[1] if current is not None and current[0] is step else self._row(step, context)))
        return rows

    def _element(self, index: int, row: tuple[str, str, tuple[float, ...]], kind: str, form: str, context: Context) -> Element | None:
        full, raw, vector = row
        cache = self._cache
        key = (index, kind, form, full, self.summary_budget)
        if key in cache.elements:
            return cache.elements.get(key)
        content = full if form == "full" else self._summary(raw, context, index)
        element = (
            Element(content, {"t": index, "step": index, "type": kind, "index": index, "embedding": vector, "form": form})
            if content
            else None
        )
        cache.elements.put(key, element)
        return element

    # -- the seven-tuple ----------------------------------------------------------
    def controller(self, state: State, context: Context) -> list[Operation]:
        """The memory controller: add the interaction, and activate memory when there is older memory to rank."""
        k = self.k
        cache = self._cache
        built = cache.operations
        if built is None or type(built[0]) is not type(k) or built[0] != k:  # operations are immutable: built once per k
            cache.operations = (k, Operation("add_interaction"), Operation("activate_memory", {"k": k, "form": "auto"}))
        _, add, activate = cache.operations
        if k > 0 and context.t - self.flash_size >= 0:
            return [add, activate]
        return [add]

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of SCM: adding the interaction (flash) or activating memory.

        Raises
        ------
        UpdateFailedError
            when the summarizer or the embedder raises; ω is left untouched.
        """
        if operation.type == "add_interaction":
            return self._add_interaction(state, context)
        if operation.type == "activate_memory":
            k = operation.get("k", self.k)
            form = operation.get("form", "auto")
            if isinstance(k, bool) or not isinstance(k, int) or k < 0:
                raise InvalidArgumentError(f"activate_memory: k must be a whole number ≥ 0, got {k!r}")
            if form not in _FORMS:
                raise InvalidArgumentError(f"activate_memory: form must be one of {', '.join(map(repr, _FORMS))}, got {form!r}")
            return self._activate(state, context, k, form)
        raise UnsupportedOperationError(f"SCM has no update for {operation.type!r}")  # pragma: no cover

    def _add_interaction(self, state: State, context: Context) -> Transition:
        space = self.space
        t = context.t
        stream = self._stream(context)
        current = self._row(context.step, context)
        self._cache.current = (context.step, current)  # the next step's memory stream ends with it
        window: list[tuple[int, Any]] = [(t, current)]
        for i in range(min(t, len(stream)) - 1, max(-1, t - self.flash_size), -1):
            window.append((i, stream[i][1]))
        room = space.v_max
        chosen: list[Element] = []
        for i, row in window:  # newest first: the current interaction has the first claim on V_max
            if row is None:
                continue
            element = self._element(i, row, "flash", "full", context)
            if element is None or space.measure(element) > room:
                summary = self._element(i, row, "flash", "summary", context)
                if summary is not None and space.measure(summary) <= room and (
                    element is None or space.measure(summary) < space.measure(element)
                ):
                    element = summary
                elif i == t and element is not None:
                    element = fit_text(space, element, room)
                else:
                    element = None
            if element is None or space.measure(element) > room:
                continue
            chosen.append(element)
            room -= space.measure(element)
        new = State(chosen)
        reasons: dict[Element, str] = {}
        re_ranked = ""
        for e in state.elements - new.elements:
            index = e.meta.get("index")
            if e.type == "flash":
                if isinstance(index, int) and index <= t - self.flash_size:
                    reasons[e] = f"left flash memory: interaction {index} is older than the newest flash_size = {self.flash_size}"
                else:
                    reasons[e] = f"flash memory re-fitted to V_max = {format_number(space.v_max)}"
            else:
                reasons[e] = re_ranked = re_ranked or f"activation memory is re-ranked for the observation of step {t}"
        return Transition(new, reasons)

    def _activate(self, state: State, context: Context, k: int, form: str) -> Transition:
        space = self.space
        t = context.t
        stream = self._stream(context)
        in_state = {e.meta.get("index") for e in state.elements}
        last = min(len(stream), t - self.flash_size + 1)  # candidates: 0 … t − flash_size
        if k == 0 or last <= 0:
            return Transition(state)
        query_text = context.observation or interaction_text(context.step)[1]
        query = self._embedding(query_text, context) if query_text else None
        ranked = self._rank(stream, last, query, t, k, in_state)
        if not ranked:
            return Transition(state)
        room = space.free(state)
        picks: list[list[Any]] = []  # [index, row, form, element], best-ranked first
        total: float = 0
        want = "summary" if form == "summary" else "full"
        for i in ranked:
            row = stream[i][1]
            element = self._element(i, row, "activation", want, context)
            if element is not None:
                picks.append([i, row, want, element])
                total += space.measure(element)
        while picks and total > room:
            switch = None
            if form == "auto":
                for p in reversed(picks):  # the lowest-ranked full text gives way to its summary first
                    if p[2] == "full":
                        summary = self._element(p[0], p[1], "activation", "summary", context)
                        p[2] = "summary-tried"
                        if summary is not None and space.measure(summary) < space.measure(p[3]):
                            switch = (p, summary)
                            break
            if switch is not None:
                p, summary = switch
                total += space.measure(summary) - space.measure(p[3])
                p[2], p[3] = "summary", summary
                continue
            dropped = picks.pop()
            total -= space.measure(dropped[3])
        return Transition(state | [p[3] for p in picks])

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

    def _rank(self, stream: list[Any], last: int, query: tuple[float, ...] | None, t: int, k: int, skip: set) -> list[int]:
        """The indices of the top-k candidates 0 … last−1 by recency_weight·recency + relevance_weight·cosine."""
        rw, lw, decay = self.recency_weight, self.relevance_weight, self.recency_decay
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
                    if kth > bound and (m <= 8 or np.count_nonzero(score >= kth) == m):
                        break  # (a tie at the m-th place is left to the partition over all candidates)
                older = max(0, (lo - 2 * (last - lo)) // 64 * 64)
                score = np.concatenate([scores(older, lo), score])
                lo = older
            if m <= 8:
                # The first m in the order (score descending, newest first on ties) all score ≥ the
                # m-th best score: sort just those (usually m of them) in that order.
                at = (score >= kth).nonzero()[0]
                best = sorted((-v, -i) for v, i in zip(score[at].tolist(), at.tolist()) if v > -inf)
                return [lo - i for _, i in best[:m]]
            top = [int(i) for i in (np.argpartition(-score, m - 1)[:m] if m < n else np.arange(n))]
            order = sorted((i for i in top if score[i] > -np.inf), key=lambda i: (-float(score[i]), -i))
            return [lo + i for i in order[:k]]
        scored = []
        for i in range(last):
            row = stream[i][1]
            if row is None or i in skip:
                continue
            if query and len(row[2]) != len(query):
                raise UpdateFailedError(
                    f"embed returned vectors of {len(query)} and {len(row[2])} dimensions; they must all match"
                )
            relevance = cosine(query, row[2]) if query else 0.0
            scored.append((-(rw * decay ** (t - i) + lw * relevance), -i))
        scored.sort()
        return [-i for _, i in scored[:k]]

    def project(self, state: State) -> ModelInput:
        """The projection π : Ω → X of SCM: input fusion — activated memories, then flash memory ending with the current interaction.

        Activated memories are system messages, flash memory user messages, in interaction order.
        """
        return ModelInput(
            Message("system" if e.type == "activation" else "user", e.content) for e in _fused(state)
        )

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: the sum of the messages' token counts (cached per text)."""
        count = self.count_tokens
        total = 0
        for e in state.elements:
            if not isinstance(e.content, str):
                return super().projection_size(state)
            total += count(e.content)
        return total


def _fused(state: State) -> list[Element]:
    activations = [e for e in state if e.type == "activation"]
    return activations + [e for e in state if e.type != "activation"]


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


def _whole(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgumentError(f"{name} must be a whole number ≥ {minimum}, got {value!r}")

