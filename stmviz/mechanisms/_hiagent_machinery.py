"""The machinery behind HiAgent that a reader of the paper can skip: views of ω, caches, and the exact |π(ω)| from per-line counts.

None of it changes a result: :class:`_SubgoalView` derives the current
subgoal, the groups by type and the largest subgoal id from the previous ω;
:meth:`HiAgentMachinery.projection_size` sums cached per-line token counts
(:class:`~stmviz.mechanisms._shared.LineTokens`), which
``tests/test_pi_fits.py`` holds equal to counting the whole of π(ω).
"""

from __future__ import annotations

from ..core.element import Element
from ..core.errors import InvalidArgumentError
from ..core.formatting import shorten
from ..core.mechanism import Mechanism
from ..core.space import State
from ._shared import LineTokens, Memo, Tally, View, ViewIndex, over_limit
from .hiagent_summarizer import SubgoalPair, SubgoalSummarizer

_IDS = ("subgoal", "summary")  # the kinds whose subgoal ids decide the next id


class _SubgoalView(View):
    """A view of ω (:class:`View`) that also knows the current subgoal and the largest subgoal id."""

    __slots__ = ("current", "_top")

    def __init__(
        self, elements: frozenset, groups: dict[str, tuple[Element, ...]], parent: "_SubgoalView | None" = None
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
            self._top = max((e.meta["subgoal"] for kind in _IDS for e in groups.get(kind, ())), default=None)
        return self._top

    def _carry(self, view: "_SubgoalView", added: frozenset, removed: frozenset) -> "_SubgoalView":
        top = self._top
        if top is not None:  # carry the largest id when the change shows it
            gone = max((e.meta["subgoal"] for e in removed if e.type in _IDS), default=None) if removed else None
            new_top = max((e.meta["subgoal"] for e in added if e.type in _IDS), default=None) if added else None
            if new_top is not None and new_top >= top:
                view._top = new_top
            elif gone is None or gone < top:
                view._top = top
        return view


_VIEWS = ViewIndex(_SubgoalView)


class HiAgentMachinery(Mechanism):
    """Caches and the exact per-line |π(ω)| of :class:`~stmviz.mechanisms.hiagent.HiAgent` (results never depend on them)."""

    summary_budget: int
    summarize_subgoal: SubgoalSummarizer

    def _init_caches(self) -> None:
        self._subgoal_summaries = Memo(4096)
        self._embeddings = Memo()
        self._line_tokens = Memo()
        self._projection_tokens = Tally()
        self._broken_lines = Tally()
        self._pieces = LineTokens(self.encoding)

    # defined by HiAgent: the paper's part
    def _line(self, e: Element) -> tuple[str, str]:
        raise NotImplementedError

    def _hint(self, state: State) -> str:
        raise NotImplementedError

    def project(self, state: State) -> str:
        raise NotImplementedError

    def _summarize_subgoal(self, goal: str, trajectory: tuple[SubgoalPair, ...]) -> tuple[str, bool | None]:
        """``summarize_subgoal(goal, pairs, summary_budget)``, checked and cached per (goal, pairs)."""

        def compute(key: tuple[str, tuple[SubgoalPair, ...]]) -> tuple[str, bool | None]:
            result = self.summarize_subgoal(key[0], list(key[1]), self.summary_budget)
            if (
                not isinstance(result, tuple)
                or len(result) != 2
                or not isinstance(result[0], str)
                or result[1] not in (True, False, None)
            ):
                raise InvalidArgumentError(
                    f"summarize_subgoal returned {shorten(repr(result))}; it must return (text, achieved) with "
                    f"achieved True, False or None"
                )
            text = " ".join(result[0].split()) or "nothing was observed"
            return text, result[1]

        return self._subgoal_summaries.lookup((goal, trajectory), compute)

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens, exactly: the tokens of the projected text.

        π joins one line per element (and the retrieval hint) with line
        breaks, so the count is summed from each line's cached count with its
        break (:class:`~stmviz.mechanisms._shared.LineTokens`), carried from one
        ω to the next by the elements that changed; when a sum would not be
        exact (a line starting with a break, an encoding other than
        cl100k_base) the whole text is counted.
        """
        if not state:
            return 0
        elements = state.elements
        if not self._pieces.splits or self._broken_lines(elements, self._is_broken):
            return self.count_tokens(self.project(state))
        total = self._projection_tokens(elements, self._with_break)
        hint = self._hint(state)
        if hint:
            return total + self.count_tokens(hint)  # the hint is the last line
        last = state.ordered()[-1]
        return total - self._with_break(last) + self._alone(last)

    def _line_text(self, e: Element) -> str:
        label, text = self._line(e)
        return label + text

    def _with_break(self, e: Element) -> int:
        """Tokens of e's line(s) in π followed by a line break (cached per element; 0 if they cannot be summed)."""
        return self._line_tokens.lookup(e, self._count_with_break) or 0

    def _count_with_break(self, e: Element) -> int | None:
        line = self._line_text(e)
        return self._pieces.with_break(line) if line or e.type in self.element_types else None

    def _is_broken(self, e: Element) -> int:
        """1 when e's line cannot be summed (it starts with a line break, or e is foreign), else 0."""
        return int(self._line_tokens.lookup(e, self._count_with_break) is None)

    def _alone(self, e: Element) -> int:
        """Tokens of e's line(s) in π without a break after them: the last line's count (cached per element)."""
        return self._line_tokens.lookup(("alone", e), lambda key: self._pieces.alone(self._line_text(key[1])))

    def _over(self, state: State) -> tuple[float, str]:
        """How far ω is over V_max, and why: Σμ(ω) − V_max, or, when μ counts tokens, |π(ω)| − V_max if larger.

        V_max is HiAgent's context limit: the model input π(ω), labels and the
        retrieval hint included, must fit it, not only Σμ (Definition 1).
        """
        return over_limit(self, state)


