"""What stmviz adds around AgentFold's U and π; a first reading of :mod:`~stmviz.mechanisms.agentfold` can skip it.

:class:`FoldingExtras` holds AgentFold's methods beyond the paper's:

- **reading a directive** (``_directive``): the agent's folding directive,
  checked and read as the released code reads it, as an operation;
- **rule controllers** (``_rule``) for steps without a directive: the
  log-structured merge (default) and the baselines "share", "count",
  "condense";
- **a hard capacity** (``_with_overflow``, ``_fit``, ``_cut``,
  :func:`_overflow_pair`): the original has none; stmviz keeps Σμ ≤ V_max and
  |π(ω)| ≤ V_max by consolidating further the multi-scale way, then cutting
  texts;
- **the fold tree** the figures draw (``folds``);
- **a fast path** for |π(ω)| (``projection_size``), tested equal to counting
  π's text (tests/test_pi_fits.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core import Context, Element, Operation, State
from ..core.errors import FormatError
from ..core.element import order_key, thaw
from ..core.formatting import format_number, shorten
from ..core.guards import as_int
from ..protocol import step_range
from ._shared import LineTokens, Memo, Tally, View, ViewIndex, over_limit
from ..text.fit import ELLIPSIS, fit_text

_RULES = ("lsm", "share", "count", "condense")
_VIEWS = ViewIndex(View)  # ω grouped by type (query, tools, block, latest), derived from the previous ω's grouping
_NONE: tuple[Element, ...] = ()


def block_label(element: Element) -> str:
    """The name s_{x,y} of a summary block.

    >>> block_label(Element("…", {"type": "block", "range": (3, 7), "t": 3}))
    's_{3,7}'
    """
    x, y = element.meta["range"]
    return f"s_{{{x},{y}}}"


class FoldingExtras:
    """AgentFold's methods beyond the paper's U and π: directives read, rule controllers, overflow, fold tree, fast |π(ω)|."""

    space: Any
    controller_rule: str
    share: float
    max_blocks: int

    if TYPE_CHECKING:  # pragma: no cover - provided by AgentFold
        def blocks(self, state: State) -> list[Element]: ...
        def latest(self, state: State) -> Element | None: ...
        def _incoming(self, context: Any) -> Element: ...
        def _folded(self, state: State, operation: Operation, context: Any, reasons: dict[Element, str]) -> State: ...
        def budget_for(self, x: int, y: int) -> int: ...
        def project(self, state: State) -> Any: ...
        layout: str
        def count_tokens(self, text: str) -> int: ...
        def block_line(self, e: Element) -> str: ...
        _summaries: Any
        _line_tokens: Memo
        _projection_tokens: Tally
        _broken_lines: Tally
        _pieces: LineTokens

    # -- rule controllers, the capacity, the agent's directive ---------------------

    def _rule(self, state: State, latest: Element | None) -> Operation:
        if latest is None:
            return Operation("condense", reason="no latest interaction yet: nothing to fold")
        blocks = self.blocks(state)
        if self.controller_rule == "lsm":
            # binary counter: I_{t−1} is a run of length 1; while the newest block has the run's length, absorb it
            run, x = 1, None
            for b in reversed(blocks):
                a, z = b.meta["range"]
                if z - a + 1 != run:
                    break
                x, run = a, 2 * run
            if x is None:
                return Operation("condense", reason="rule (log-structured merge): no block of length 1 to merge with")
            return Operation(
                "consolidate",
                {"from": x},
                reason=f"rule (log-structured merge): the newest blocks cover 1, 2, … steps; with I_{latest.meta['step']} "
                f"they become one block of {run} steps",
            )
        if self.controller_rule == "share":
            total = self.space.size(blocks) + self.space.measure(latest)
            limit = self.share * self.space.v_max
            if len(blocks) >= 2 and total > limit:
                x = blocks[len(blocks) // 2].meta["range"][0]
                return Operation(
                    "consolidate",
                    {"from": x},
                    reason=f"rule (baseline share): blocks and I_{latest.meta['step']} take {format_number(total)} > {self.share:g}·V_max = {format_number(limit)}",
                )
        elif self.controller_rule == "count":
            if len(blocks) + 1 > self.max_blocks:
                x = blocks[len(blocks) // 2].meta["range"][0]
                return Operation(
                    "consolidate", {"from": x}, reason=f"rule (baseline count): more than {self.max_blocks} blocks"
                )
        return Operation("condense", reason="rule: condense each step")

    def _with_overflow(self, state: State, chosen: Operation, context: Context) -> Operation:
        """``chosen``, marked ``overflow=True`` (its reason naming the merges) when U will have to consolidate to fit."""
        if self.latest(state) is None:
            return chosen
        after = self._folded(state, chosen, context, {})
        if self._over(after)[0] <= 0:
            return chosen
        _, merges = self._fit(after, {})
        if not merges:
            return chosen
        return Operation(
            chosen.type,
            {**chosen.params, "overflow": True},
            reason=(f"{chosen.reason}; " if chosen.reason else "") + f"overflow once I_{context.t} is added: " + "; ".join(merges),
        )

    def _directive(self, state: State, fold: Any, t: int, latest: Element | None) -> Operation:
        """The agent's folding directive as an operation, read as the released code reads it."""
        if not isinstance(fold, dict) and not hasattr(fold, "get"):
            raise FormatError(
                f"step {t}: a folding directive is a mapping {{'range': [x, {t - 1}], 'summary': '…'}}, got {shorten(repr(thaw(fold)))}"
            )
        summary = fold.get("summary", fold.get("compress_text"))
        if summary is not None and (not isinstance(summary, str) or not summary.strip()):
            raise FormatError(
                f"step {t}: the folding directive's summary must be non-empty text (the agent's summary of the range), "
                f"got {shorten(repr(summary))}; omit it to use stmviz's fallback summarizer"
            )
        extra: dict[str, Any] = {"summary": summary.strip()} if summary else {}
        where = f"folding directive of step {t}" + (" (summary written by the agent)" if summary else " (no summary text)")
        span = fold.get("range", fold.get("compress_range"))
        op = fold.get("op")
        if latest is None:
            if span is not None or op == "condense":
                return Operation("condense", reason=f"{where} ignored: nothing to fold at the first step (as in the original)")
            raise FormatError(f"step {t}: deep consolidation needs a latest interaction to fold, and ω has none")
        last = latest.meta["step"]
        if span is not None:
            pair = list(span) if isinstance(span, (list, tuple)) else []
            ok = bool(pair) and all(isinstance(v, int) and not isinstance(v, bool) for v in pair)
            if not ok or not 0 <= pair[0] <= pair[-1] <= last:
                raise FormatError(
                    f"step {t}: the folding directive's range must be step numbers [x, …, y] with 0 ≤ x ≤ y ≤ {last} "
                    f"(the latest interaction I_{last}); got {shorten(repr(thaw(span)))}"
                )
            x, y = pair[0], pair[-1]
        elif op == "condense":
            x, y = last, last
        elif op == "consolidate":
            x, y = fold.get("from"), last
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= last:
                raise FormatError(
                    f"step {t}: consolidate 'from' must be a step index x with 0 ≤ x ≤ {last} (the latest interaction), "
                    f"got {shorten(repr(x))}; block starts in ω: "
                    f"{', '.join(str(b.meta['range'][0]) for b in self.blocks(state)) or 'none'}"
                )
        else:
            raise FormatError(
                f"step {t}: unknown folding directive {shorten(repr(thaw(fold)))}; use {{'range': [x, t-1], 'summary': '…'}} "
                f"(or the older {{'op': 'condense'}} / {{'op': 'consolidate', 'from': x}})"
            )
        holder = next((b for b in self.blocks(state) if b.meta["range"][0] < x <= b.meta["range"][1]), None)
        if holder is not None:
            where += f" (starts inside {block_label(holder)}, which stays: the new block overlaps it, as in the original)"
        if y != last:
            where += f" (ends before I_{last}, which stays in full)"
        params: dict[str, Any] = {} if x == y == last else {"from": x}
        if y != last:
            params["to"] = y
        if x == y:
            return Operation("condense", {**params, **extra}, reason=where)
        return Operation("consolidate", {**params, **extra}, reason=where)

    def _fit(self, state: State, reasons: dict[Element, str]) -> tuple[State, list[str]]:
        """Make ω fit (see :meth:`_over`): consolidate as the log-structured merge would, then cut texts.

        Returns ω and a sentence for each forced merge. Blocks are never dropped.
        """
        over, why = self._over(state)
        merges: list[str] = []
        while over > 0:
            pair = _overflow_pair(_VIEWS(state).groups.get("block", _NONE))
            if pair is None:
                break
            a, b = pair
            (x, _), (_, y) = a.meta["range"], b.meta["range"]
            x, y = min(x, b.meta["range"][0]), max(y, a.meta["range"][1])
            merged = Element(
                self._summaries([a.text, b.text], self.budget_for(x, y)),
                {"t": x, "type": "block", "range": (x, y), "step": max(a.meta["step"], b.meta["step"]),
                 "summary_by": "fallback", "passes": 1 + max(a.meta.get("passes", 1), b.meta.get("passes", 1)),
                 "overflow": True},
            )
            merge = f"{block_label(a)} and {block_label(b)} merged into {block_label(merged)} by deep consolidation: {why}"
            merges.append(merge)
            for e, earlier in list(reasons.items()):  # what was folded into a or b this step: say where it went next
                if f"into {block_label(a)}" in earlier or f"into {block_label(b)}" in earlier:
                    reasons[e] = f"{earlier}; then {merge}"
            for e in (a, b):
                reasons.setdefault(e, merge)
            self.space.measure(merged)  # μ known before the union, so Σμ is carried, not re-summed
            state = state.replace([a, b], [merged])
            over, why = self._over(state)
        # then cut the blocks (oldest first), the latest interaction, the tools, the query.
        groups = _VIEWS(state).groups
        order = [*groups.get("block", _NONE), *groups.get("latest", _NONE)]
        order += [*groups.get("tools", _NONE), *groups.get("query", _NONE)]
        return self._cut(state, order, reasons), merges

    def _cut(self, state: State, order: Sequence[Element], reasons: dict[Element, str]) -> State:
        """Cut the texts of ``order``'s elements, in turn, until ω fits (see :meth:`_over`); a block or I keeps "…"."""
        space = self.space
        over, why = self._over(state)
        for e in order:
            if over <= 0:
                break
            what = f"{block_label(e)}'s summary" if e.type == "block" else f"the {e.type}"
            reasons[e] = f"{what} cut to fit: {why}"
            current: Element | None = e
            while current is not None and over > 0:
                room = space.measure(current) - over
                if current.type in ("block", "latest"):  # never dropped: at least "…" stays (room checked in __init__)
                    room = max(room, space.measure(Element(ELLIPSIS, current.meta.set(truncated=True))))
                cut = fit_text(space, current, room, record_size=False)
                if cut is None:
                    state, current = state - {current}, None
                elif cut == current:
                    current = None  # as short as it gets
                else:
                    state, current = state.replace([current], [cut]), cut
                over, why = self._over(state)
        return state


    def folds(self, added: Sequence[Element], removed: Sequence[Element]) -> dict[Element, tuple[Element, ...]]:
        """The fold tree of one step: a deep consolidation's new block is the parent of the blocks it merges.

        A block the step adds whose range (x, y) covers blocks (and the latest
        interaction) the same step removes merged them; a block made from the
        latest interaction alone (granular condensation) is a leaf. Children
        are in step order.
        """
        new_blocks = [(b, r) for b in added if b.type == "block" for r in (step_range(b),) if r is not None]
        if not new_blocks:
            return {}
        candidates = [(e, s) for e in removed if e.type in ("block", "latest") for s in (_span(e),) if s is not None]
        taken: set[Element] = set()
        children: dict[Element, tuple[Element, ...]] = {}
        for block, (x, y) in new_blocks:
            kids = [e for e, (a, b) in candidates if e not in taken and x <= a and b <= y]
            if any(k.type == "block" for k in kids):
                kids.sort(key=lambda e: (_span(e), order_key(e)))
                children[block] = tuple(kids)
                taken.update(kids)
        return children

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens, exactly: the tokens of the projected text.

        π joins the lines of (Q, T, S, I) with line breaks, so the count is
        summed from each element's cached count with its break
        (:class:`~stmviz.mechanisms._shared.LineTokens`), carried from one ω to
        the next by the elements that changed; when a sum would not be exact (a
        line starting with a break, a foreign element, an encoding other than
        cl100k_base) the whole text is counted.
        """
        if not state:
            return 0
        if self.layout != "stmviz":  # the released layout: count its messages
            return sum(self.count_tokens(m.text) for m in self.project(state))
        elements = state.elements
        if not self._pieces.splits or self._broken_lines(elements, self._is_broken):
            return self.count_tokens(self.project(state))
        total = self._projection_tokens(elements, self._tokens)
        groups = _VIEWS(state).groups
        if "block" in groups:
            total += self.count_tokens("Summaries:\n")
        if "latest" not in groups:  # ω_0: the last line is the tools' (or the query's), without a break after it
            last = state.ordered()[-1]
            total += self._pieces.alone(self._line_text(last)) - self._tokens(last)
        return total

    def _line_text(self, e: Element) -> str:
        """The line of an element in π; "" for a foreign element (π places it in its own way)."""
        if e.type == "block":
            return self.block_line(e)
        if e.type in ("query", "tools"):
            return ("Question: " if e.type == "query" else "Tools: ") + e.text
        return ""

    def _tokens(self, e: Element) -> int:
        """e's tokens in π: its line and the break after it; for the latest interaction, always π's last lines, no break."""
        return self._line_tokens.lookup(e, self._count_tokens) or 0

    def _count_tokens(self, e: Element) -> int | None:
        if e.type == "latest":
            header = f"Latest interaction (step {e.meta['step']}):\n"
            if not self._pieces.summable(e.text):  # its text starts with a break: count the two lines as one
                return self.count_tokens(header + e.text)
            return self.count_tokens(header) + self.count_tokens(e.text)  # μ has counted the text already
        line = self._line_text(e)
        return self._pieces.with_break(line) if line else None

    def _is_broken(self, e: Element) -> int:
        """1 when e's line cannot be summed (it starts with a line break, or e is foreign), else 0."""
        return int(self._line_tokens.lookup(e, self._count_tokens) is None)

    def _over(self, state: State) -> tuple[float, str]:
        """How far ω is over V_max, and why: Σμ(ω) − V_max, or, when μ counts tokens, |π(ω)| − V_max if larger.

        V_max is AgentFold's context limit: the model input π(ω) — the labels
        "Question:", "Summaries:", "[steps x–y]" and "Latest interaction"
        included — must fit it, not only Σμ (Definition 1).
        """
        return over_limit(self, state)



def _span(element: Element) -> tuple[int, int] | None:
    """The steps an element covers: a block's range, else (step, step), else ``None``."""
    r = step_range(element)
    if r is not None:
        return r
    s = as_int(element.meta.get("step"), float_ok=True)
    return (s, s) if s is not None else None



def _overflow_pair(blocks: Sequence[Element]) -> tuple[Element, Element] | None:
    """The two neighbouring blocks a forced consolidation merges, as the log-structured merge would; ``None`` if none may.

    A block's level is ⌊log₂ of the steps it covers⌋. Two neighbours of the
    same level merge first (a binary counter's carry: the result is one level
    up), the lowest level first and within it the oldest pair, so fine blocks
    merge before coarse ones and levels stay non-increasing with age. Failing
    that, the newest two neighbours whose lengths are within a factor 2 merge.
    Either way each step's block grows at least 1.5 times per forced merge, so
    no step is re-summarized by them more than log₁.₅ t ≈ 1.7 log₂ t times; a
    big block is never merged with a small one (the rolling summary AgentFold
    argues against).
    """
    def length(b: Element) -> int:
        x, y = b.meta["range"]
        return y - x + 1

    pairs = list(zip(blocks, blocks[1:]))
    same = [(a, b) for a, b in pairs if length(a).bit_length() == length(b).bit_length()]
    if same:
        lowest = min(length(a).bit_length() for a, _ in same)
        return next(pair for pair in same if length(pair[0]).bit_length() == lowest)
    near = [(a, b) for a, b in pairs if 2 * min(length(a), length(b)) >= max(length(a), length(b))]
    return near[-1] if near else None
