"""ω grouped by element type, each view derived from the previous ω's: how HiAgent and AgentFold read their state.

A speed-up, not part of the paper. By definition a mechanism reads its blocks,
pairs or subgoals by a pass over ω — ``[e for e in ω.ordered() if e.type ==
kind]`` — and HiAgent its current subgoal and largest subgoal id the same way.
A :class:`View` holds those facts for one ω; :class:`ViewIndex` derives each
view from the previous one when few elements changed, instead of passing over ω
at every step. ``tests/test_fast.py`` holds every derived view equal to the
facts computed afresh from ω.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from ..core.element import Element, order_key
from ..core.space import State
from .memo import Memo

__all__ = ["View", "SubgoalView", "ViewIndex"]


class View:
    """Facts derived from one ω: its elements grouped by ``type``, each group in canonical order.

    A view is a pure function of ω's elements; :class:`ViewIndex` derives each one
    from the previous when few elements changed, so that a mechanism reads its
    blocks, pairs or subgoals without a pass over ω. A subclass (below, in this
    module) carries more facts through :meth:`_carry`.
    """

    __slots__ = ("elements", "groups")

    def __init__(
        self, elements: frozenset, groups: dict[str, tuple[Element, ...]], parent: "View | None" = None
    ) -> None:
        # parent: the view this one is derived from, if any (a subclass carries facts from it)
        self.elements = elements
        self.groups = groups

    @classmethod
    def build(cls: type[V], elements: frozenset) -> V:
        """The view of ``elements``, computed afresh: one pass over ω in canonical order."""
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

#: The element types whose subgoal ids decide HiAgent's next id.
_NUMBERED = ("subgoal", "summary")


class SubgoalView(View):
    """HiAgent's view of ω: its groups, and also the current subgoal and the largest subgoal id.

    By definition the current subgoal is the element of type ``"subgoal"`` with
    ``meta["current"]`` true, and the largest id is max{d["subgoal"] | e ∈ ω of
    type "subgoal" or "summary"}; a derived view carries both from its parent
    when the change shows they hold.
    """

    __slots__ = ("current", "_top")

    def __init__(
        self, elements: frozenset, groups: dict[str, tuple[Element, ...]], parent: "SubgoalView | None" = None
    ) -> None:
        super().__init__(elements, groups)
        subgoals = groups.get("subgoal", ())
        if parent is not None and subgoals is parent.groups.get("subgoal", ()):
            current = parent.current  # the same subgoals: the same current one
        else:
            current = next((e for e in subgoals if e.meta.get("current")), None)
        self.current: Element | None = current
        self._top: int | None = None  # the largest subgoal id of a subgoal or summary, once known

    def top(self) -> int | None:
        """max{d["subgoal"] | e ∈ ω of type "subgoal" or "summary"}, or ``None`` when ω holds none."""
        if self._top is None:
            groups = self.groups
            self._top = max((e.meta["subgoal"] for kind in _NUMBERED for e in groups.get(kind, ())), default=None)
        return self._top

    def _carry(self, view: "SubgoalView", added: frozenset, removed: frozenset) -> "SubgoalView":
        top = self._top
        if top is not None:  # carry the largest id when the change shows it
            gone = max((e.meta["subgoal"] for e in removed if e.type in _NUMBERED), default=None) if removed else None
            new_top = max((e.meta["subgoal"] for e in added if e.type in _NUMBERED), default=None) if added else None
            if new_top is not None and new_top >= top:
                view._top = new_top
            elif gone is None or gone < top:
                view._top = top
        return view


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
