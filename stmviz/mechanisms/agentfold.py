"""AgentFold: proactive context folding into multi-scale summaries (Section 4; AgentFold, arXiv 2510.24699).

At step t the AgentFold agent sees the context (Q, T, S_{t−2}, I_{t−1}): the
user query Q, the tools T, the sequence S_{t−2} of summary blocks s_{x,y} of
earlier steps, and the latest interaction I_{t−1} in full. With its response
at step t (reasoning, an explanation, one tool call) the agent writes a
*folding directive*: a range [x, y] of steps and the summary text σ of it.

- **granular condensation** (x = y = t−1) — I_{t−1} becomes one block
  s_{t−1,t−1} holding σ;
- **deep consolidation** (x < y = t−1) — I_{t−1} and the blocks that start
  in x … t−2 become one block s_{x,t−1} holding σ.

Then the new interaction I_t becomes "latest". In the paper's terms:

- E = I × D — summary blocks (content: the summary text; metadata: ``range``
  = (x, y), ``type`` "block", ``summary_by`` "agent", "fallback" or
  "verbatim", ``passes`` — how many times the most re-summarized step in it
  was summarized) and one ``type`` "latest" element (the full record of the
  previous step: explanation, action, observation); plus "query" and "tools".
- ω — blocks ordered by the step they start at, plus one latest interaction;
  μ, V_max — tokens (or any μ) and the context limit.
- O — ``condense`` and ``consolidate``; C — the query, the tools, the incoming
  step (with its directive) and the current state.
- U — fold as directed, add the new latest; π — the tuple (Q, T, S, I) as
  text, each block labelled by its step range.

The released code (``WebAgent/AgentFold/infer.py`` in Alibaba-NLP/DeepResearch)
applies a directive by one rule, which U follows: the elements that *start*
inside [x, y] are replaced by the block s_{x,y}. So a range need not end at
t−1 (the steps after it stay, I_{t−1} among them, in full), a range that
starts inside a block leaves that block and adds an overlapping one, only the
first and last entries of a longer range list count, and a directive in the
first response (nothing to fold yet) is ignored. ``layout="original"`` makes
π the original's prompt (``### Question``, ``### Previous Steps``,
``**[Compressed Step x to y]**``, ``**Motivation:**`` …).

What stmviz adds — a fallback summarizer for a directive without text, rule
controllers for steps without a directive, a hard capacity, the fold tree and
a fast |π(ω)| — is in :mod:`stmviz.mechanisms.agentfold_extras`; every
departure is named in docs/fidelity.md.
"""

from __future__ import annotations

import math

from collections.abc import Sequence
from typing import Any

from ..core import AgentStep, Context, Element, Mechanism, Message, ModelInput
from ..core.errors import CapacityError, InvalidArgumentError
from ..core import Operation, OperationSet, State, StateSpace, Transition
from ..core.formatting import format_number, shorten
from ..protocol import ElementType, Hierarchy, element_types_of
from ..text import summarize as default_summarize
from ..core import guards
from ._shared import LineTokens, Memo, Tally, check_budget, range_label
from ..text.pluggable import Summarizer, cached_summarizer
from .agentfold_extras import _NONE, _RULES, _VIEWS, FoldingExtras, block_label
from ..text.fit import ELLIPSIS, fit_text

__all__ = ["AgentFold", "block_label", "interaction_text"]

FALLBACK_MARK = "stmviz fallback summary"  # π marks blocks whose text the agent did not write
LAYOUTS = ("stmviz", "original")


def interaction_text(step: AgentStep, layout: str = "stmviz") -> str:
    """The information i of a latest interaction: explanation (thought), action, observation.

    >>> step = AgentStep(thought="Check the docs.", action="search('fold')", observation="3 hits")
    >>> print(interaction_text(step))
    Explanation: Check the docs.
    Action: search('fold')
    Observation: 3 hits
    >>> print(interaction_text(step, layout="original"))  # the released code's step text
    **Motivation:** Check the docs.
    **Tool call:** search('fold')
    **Tool response:** 3 hits
    """
    if layout == "original":
        motivation = [f"**Motivation:** {step.thought}"] if step.thought else []
        return "\n".join([*motivation, f"**Tool call:** {step.action}", f"**Tool response:** {step.observation}"])
    parts = []
    if step.thought:
        parts.append(f"Explanation: {step.thought}")
    if step.action:
        parts.append(f"Action: {step.action}")
    if step.observation:
        parts.append(f"Observation: {step.observation}")
    return "\n".join(parts) or "(empty step)"


class AgentFold(FoldingExtras, Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of AgentFold: context (Q, T, S, I) folded by directives.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ and the context limit V_max (at least room for two minimal
        elements, a block and the latest interaction).
    block_budget : int
        Tokens allowed for a fallback summary of one step (see :meth:`budget_for`);
        the agent's own summaries are kept whole.
    summarize : callable, optional
        ``summarize(texts, budget) -> str``; default :func:`stmviz.text.summarize`.
        Results are cached per (texts, budget). Not recorded in :meth:`params`.
    controller_rule : {"lsm", "share", "count", "condense"}
        The rule-based controller used on steps without a ``fold`` directive:
        the log-structured merge (default) or a baseline (see Notes).
    share : float
        For ``"share"``: consolidate when the blocks would take more than this
        share of V_max.
    max_blocks : int
        For ``"count"``: consolidate when there would be more than this many blocks.
    layout : {"stmviz", "original"}
        π's layout: stmviz's labelled lines (default), or the released code's
        prompt, whose user message is the original's ``### Question`` …
        ``### Previous Steps`` text (the tools go in a system message).

    Notes
    -----
    **Interactions and the order of a step.** A step holds the model's
    output, then the input that arrived after it, so the interaction I_t is
    one step: explanation (thought), action, observation. At step t + 1 the
    model sees I_t complete and its folding directive folds it. In a dialogue,
    step k holds the reply a_{k−1} and the user's next message u_k.

    **Directives.** ``step.directives["fold"] = {"range": [x, y], "summary":
    σ}`` at step t (the original's keys ``compress_range`` and
    ``compress_text`` are read too; of a longer range list only the first
    and last entries count) replaces every element that starts in [x, y] —
    blocks, and I_{t−1} when y = t−1 — by the block s_{x,y} holding σ
    (``summary_by="agent"``). I_{t−1} outside the range stays in full, as a
    block s_{t−1,t−1} (``summary_by="verbatim"``). Without ``summary``
    stmviz's fallback summarizer writes the block (``summary_by="fallback"``,
    marked in π). The older forms ``{"op": "condense"}`` and ``{"op":
    "consolidate", "from": x}`` are read as [t−1, t−1] and [x, t−1]. A range
    at step 0 is ignored (nothing to fold). A range with x < 0, x > y or
    y > t−1 (steps not taken yet), an empty summary, an unknown op or a
    missing ``from`` raises :class:`~stmviz.errors.FormatError`.

    **Rule-based controller** (no directive). ``"lsm"`` (default), a
    log-structured merge: I_{t−1} is a run of one step; while the newest
    block covers as many steps as the run, it joins the run (1, 2, 4, …), and
    the run is consolidated into one block — else I_{t−1} is condensed. The
    block lengths are the binary digits of the number of folded steps
    (…, 8, 4, 1): old blocks are coarse and untouched, recent ones fine, and
    each step is summarized at most ⌈log₂ t⌉ + 1 times. Baselines:
    ``"share"`` (when Σμ(S) + μ(I_{t−1}) > share · V_max) and ``"count"``
    (more than ``max_blocks`` blocks) consolidate the newer half of the
    blocks with I_{t−1} — a rolling summary — and ``"condense"`` condenses
    every step.

    **Capacity.** If ω does not fit once I_t is added — Σμ > V_max, or, when μ counts tokens, |π(ω)| > V_max with
    π's labels — U consolidates the way the log-structured merge would: two
    neighbouring blocks of equal length (the newest such pair), else the two
    neighbours covering the fewest steps, until it fits; the operation is
    marked ``overflow=True`` and its reason names the merges. Then, if still
    needed, U cuts the oldest block's text, then the latest interaction, the
    tools and the query. Blocks are never dropped.

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> steps = [
    ...     {"thought": "Search first.", "action": "search('AgentFold')", "observation": "Result: a paper."},
    ...     {"thought": "Open it.", "action": "open(1)", "observation": "It folds context.",
    ...      "fold": {"range": [0, 0], "summary": "search('AgentFold') found a paper."}},
    ...     {"thought": "Answer.", "observation": "Done.", "fold": {"range": [0, 1]}},
    ... ]
    >>> trace = run(AgentFold(StateSpace(sizes.tokens(), v_max=500)), steps, query="What is AgentFold?", tools=["search", "open"])
    >>> [(e.type, e.meta.get("range"), e.meta.get("summary_by")) for e in trace.final]
    [('query', None, None), ('tools', None, None), ('block', (0, 1), 'fallback'), ('latest', None, None)]
    >>> print(trace.project(2).text())
    Question: What is AgentFold?
    Tools: search; open
    Summaries:
    [step 0] search('AgentFold') found a paper.
    Latest interaction (step 1):
    Explanation: Open it.
    Action: open(1)
    Observation: It folds context.
    """

    name = "AgentFold"
    operations = OperationSet(
        {
            "condense": "granular condensation: the latest interaction I_{t−1} becomes one block s_{t−1,t−1}",
            "consolidate": "deep consolidation: the blocks from step x on and I_{t−1} become one block s_{x,t−1}",
        }
    )
    element_types = element_types_of(
        [
            ElementType("query", "the user's question Q", "#393b79", label="query"),
            ElementType("tools", "the available tools T", "#637939", label="tools"),
            ElementType("block", "a summary block s_{x,y} of steps x…y", "#ad494a", summary=True,
                            label="s[{range[0]},{range[1]}]"),
            ElementType("latest", "the latest interaction I_{t−1} in full", "#ffbb78", label="I[{step}]"),
        ]
    )
    directives = {
        "fold": "the folding directive the agent wrote: {'range': [x, t-1], 'summary': σ} "
        "(older forms {'op': 'condense'} and {'op': 'consolidate', 'from': x} are still read)"
    }

    def __init__(
        self,
        space: StateSpace,
        *,
        block_budget: int = 48,
        summarize: Summarizer | None = None,
        controller_rule: str = "lsm",
        share: float = 0.5,
        max_blocks: int = 12,
        layout: str = "stmviz",
    ) -> None:
        super().__init__(space)
        self.block_budget = check_budget("block_budget", block_budget)
        self.controller_rule = guards.choice(controller_rule, "controller_rule", _RULES, "the rule used on steps without a fold directive: 'lsm' (log-structured merge, the default) or a baseline")
        self.share = guards.real_number(share, "share", 0, 1, low_open=True)
        self.max_blocks = guards.whole_number(max_blocks, "max_blocks", 2)
        self.layout = guards.choice(layout, "layout", LAYOUTS, "π's layout: 'stmviz' (labelled lines) or 'original' (infer.py's prompt)")
        guards.function(summarize, "summarize", "(texts, budget) -> str")
        self._summaries = cached_summarizer(summarize or default_summarize)
        self._line_tokens = Memo()
        self._incomings = Memo()  # (t, text of I_t) → the element I_t
        self._projection_tokens = Tally()
        self._broken_lines = Tally()
        self._pieces = LineTokens(self.encoding)
        minimal = 2 * space.measure(Element(ELLIPSIS, {"type": "block", "t": 0, "range": (0, 0)}))
        if minimal > space.v_max:
            raise CapacityError(
                f"AgentFold needs room for a block and the latest interaction: V_max = {format_number(space.v_max)} < "
                f"{format_number(minimal)} (two elements of μ('…')); raise v_max"
            )

    def params(self) -> dict[str, Any]:
        """The JSON-ready constructor parameters (the summarizer is not recorded)."""
        params: dict[str, Any] = {
            "block_budget": self.block_budget,
            "controller_rule": self.controller_rule,
            "share": self.share,
            "max_blocks": self.max_blocks,
        }
        if self.layout != "stmviz":
            params["layout"] = self.layout
        return params

    # ------------------------------------------------------------------ reading ω

    @staticmethod
    def blocks(state: State) -> list[Element]:
        """The summary sequence S: the blocks of ω ordered by the step they start at."""
        return list(_VIEWS(state).groups.get("block", _NONE))  # canonical order: t = x, the range's start

    @staticmethod
    def latest(state: State) -> Element | None:
        """The latest interaction I of ω, or ``None`` (before the first step)."""
        found = _VIEWS(state).groups.get("latest")
        return found[0] if found else None

    # ------------------------------------------------------------------ ω_0 and the controller

    def initial_state(self, context: Context) -> State:
        """ω_0 = {Q, T}: the query and the tools of the context (each omitted when empty)."""
        elements = []
        room = self.space.v_max - self.space.measure(Element(ELLIPSIS)) * 2
        if context.query:
            elements.append(Element(context.query, {"t": -2, "type": "query"}))
        if context.tools:
            elements.append(Element("; ".join(context.tools), {"t": -1, "type": "tools"}))
        fitted = []
        for e in elements:
            cut = fit_text(self.space, e, room, record_size=False)
            if cut is not None:
                fitted.append(cut)
                room -= self.space.measure(cut)
        # π(ω_0) must fit as well, its labels included: cut the tools, then the query
        return self._cut(State(fitted), fitted[::-1], {})

    def controller(self, state: State, context: Context) -> Operation:
        """The controller: the step's folding directive if any, else the documented rule; overflow named as such."""
        t, fold = context.t, context.step.directives.get("fold")
        latest = self.latest(state)
        if fold is not None:
            chosen = self._directive(state, fold, t, latest)
        else:
            chosen = self._rule(state, latest)
        return self._with_overflow(state, chosen, context)

    # ------------------------------------------------------------------ U

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of AgentFold: fold as directed, add I_t, keep Σμ ≤ V_max."""
        reasons: dict[Element, str] = {}
        new = self._folded(state, operation, context, reasons)
        new, _ = self._fit(new, reasons)
        return Transition(new, {e: why for e, why in reasons.items() if e in state.elements})

    def _folded(self, state: State, operation: Operation, context: Context, reasons: dict[Element, str]) -> State:
        """ω with the fold applied and I_t added (before the capacity is enforced)."""
        latest = self.latest(state)
        new = state
        if latest is not None:
            new = self._fold(state, operation, latest, reasons)
        elif operation.type == "consolidate":
            raise InvalidArgumentError("consolidate: ω has no latest interaction I_{t−1} to fold")
        return new | {self._incoming(context)}

    def _incoming(self, context: Context) -> Element:
        t, text = context.t, interaction_text(context.step, self.layout)
        incoming = self._incomings.lookup((t, text), lambda key: Element(text, {"t": t, "type": "latest", "step": t}))
        self.space.measure(incoming)  # μ known before the union, so Σμ is carried, not re-summed
        return incoming

    def _range(self, operation: Operation, latest: Element) -> tuple[int, int]:
        """The steps [x, y] a fold covers: ``from`` (for consolidate) and ``to`` (default: I_{t−1}'s step)."""
        last = latest.meta["step"]
        x = operation.get("from", last if operation.type == "condense" else None)
        y = operation.get("to", last)
        for name, v in (("from", x), ("to", y)):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= last:
                raise InvalidArgumentError(
                    f"{operation.type}({name}=…) needs a step index 0 ≤ {name} ≤ {last}, got {shorten(repr(v))}"
                )
        if x > y:
            raise InvalidArgumentError(f"{operation.type}: the range [{x}, {y}] is empty (from > to)")
        return x, y

    def _fold(self, state: State, operation: Operation, latest: Element, reasons: dict[Element, str]) -> State:
        """The released rule: every element that starts in [x, y] is replaced by one block s_{x,y}."""
        x, y = self._range(operation, latest)
        last = latest.meta["step"]
        chain = [b for b in _VIEWS(state).groups.get("block", _NONE) if x <= b.meta["range"][0] <= y]
        if y == last:
            chain.append(latest)
        block = self._merge(chain, x, y, last + 1, operation)
        how = "granular condensation" if x == y else "deep consolidation"
        why = operation.reason or "directive"
        by = {"agent": "the agent's summary", "fallback": "stmviz's fallback summarizer"}[block.meta["summary_by"]]
        sources = " and ".join(filter(None, [", ".join(block_label(b) for b in chain if b.type == "block"),
                                             f"I_{last}" if y == last else ""]))
        text = f"{sources or 'nothing'} {'merged' if len(chain) > 1 else 'condensed'} into {block_label(block)} by {how}, text by {by} ({why})"
        for e in chain:
            reasons[e] = text
        old, new = list(chain), [block]
        if y != last:  # the original keeps the steps after the range: I_{t−1} stays, in full, as a block
            kept = Element(latest.text, {"t": last, "type": "block", "range": (last, last), "step": last + 1,
                                         "summary_by": "verbatim", "passes": 0})
            reasons[latest] = f"I_{last} kept in full as {block_label(kept)}: the fold's range [{x}, {y}] ends before it"
            old.append(latest)
            new.append(kept)
        for e in new:
            self.space.measure(e)  # μ known before the union, so Σμ is carried, not re-summed
        return state.replace(old, new)

    def _merge(self, chain: Sequence[Element], x: int, y: int, step: int, operation: Operation) -> Element:
        """The block s_{x,y} that replaces ``chain``: the agent's σ, or stmviz's fallback summary of the chain's texts."""
        passes = 1 + max((b.meta.get("passes", 1) for b in chain if b.type == "block"), default=0)
        summary = operation.get("summary")
        if isinstance(summary, str) and summary:
            text, by = summary, "agent"
        else:
            text, by = self._summaries([e.text for e in chain] or [ELLIPSIS], self.budget_for(x, y)), "fallback"
        return Element(text, {"t": x, "type": "block", "range": (x, y), "step": step, "summary_by": by, "passes": passes})

    def budget_for(self, x: int, y: int) -> int:
        """The token budget of a fallback block s_{x,y}: ``block_budget`` for one step, growing with log₂ of the steps covered.

        A deep consolidation is coarser than the blocks it merges, but not so
        coarse that seven steps of findings fit in the budget of one: s_{x,y}
        gets ``block_budget · (1 + log₂(y − x + 1))`` tokens, at most a quarter
        of V_max.

        >>> from stmviz import StateSpace, sizes
        >>> m = AgentFold(StateSpace(sizes.tokens(), 4096), block_budget=48)
        >>> m.budget_for(3, 3), m.budget_for(0, 7)
        (48, 192)
        """
        steps = max(1, y - x + 1)
        budget = int(round(self.block_budget * (1 + math.log2(steps))))
        return max(self.block_budget, min(budget, int(self.space.v_max // 4) or 1))

    # ------------------------------------------------------------------ π

    def project(self, state: State) -> str | ModelInput:
        """The projection π : Ω → X of AgentFold: the tuple (Q, T, S, I), blocks labelled by step range."""
        if self.layout == "original":
            return self._original_prompt(state)
        return "\n".join(self._lines(state))

    def _lines(self, state: State) -> list[str]:
        lines: list[str] = []
        blocks_started = False
        latest = None
        for e in state:
            kind = e.type
            if kind == "query":
                lines.append(f"Question: {e.text}")
            elif kind == "tools":
                lines.append(f"Tools: {e.text}")
            elif kind == "block":
                if not blocks_started:
                    lines.append("Summaries:")
                    blocks_started = True
                lines.append(self.block_line(e))
            elif kind == "latest":
                latest = e
            else:  # pragma: no cover - foreign elements
                lines.append(e.text)
        if latest is not None:
            lines.append(f"Latest interaction (step {latest.meta['step']}):")
            lines.append(latest.text)
        return lines

    @staticmethod
    def block_line(e: Element) -> str:
        """A block's line in π: its step range (and the fallback mark), then its text."""
        return _block_prefix(e) + e.text

    def _original_prompt(self, state: State) -> ModelInput:
        """π in the released code's layout: a system message with T, and the user prompt ``### Question`` … ``### Previous Steps``.

        Entries are ordered by the step they start at; a single step is
        ``**[Step t]**`` when it is the newest, else ``**[Compressed Step t]**``;
        a range ``**[Compressed Step x to y]**``; each entry ends with a blank
        line; no entry at all reads ``EMPTY``.
        """
        groups = _VIEWS(state).groups
        entries = sorted(
            [(b.meta["range"][0], b.meta["range"][1], b.text) for b in groups.get("block", _NONE)]
            + [(e.meta["step"], e.meta["step"], e.text) for e in groups.get("latest", _NONE)],
            key=lambda entry: entry[0],
        )
        newest = max((x for x, _, _ in entries), default=None)
        steps = "".join(
            f"**[{'Step' if x == newest else 'Compressed Step'} {x}]**\n{text}\n\n" if x == y
            else f"**[Compressed Step {x} to {y}]**\n{text}\n\n"
            for x, y, text in entries
        )
        question = "".join(e.text for e in groups.get("query", _NONE))
        messages = [Message("system", f"Tools: {e.text}") for e in groups.get("tools", _NONE)]
        messages.append(Message("user", f"### Question\n{question}\n\n### Previous Steps\n{steps or 'EMPTY'}"))
        return ModelInput(messages)

    def hierarchy(self, state: State) -> Hierarchy:
        """ω as AgentFold holds it, (Q, T, S, I) side by side; the fold tree comes from :meth:`folds`."""
        return Hierarchy.flat(state, "folded summaries")


def _block_prefix(e: Element) -> str:
    """A block's label in π: its step range, and a mark when stmviz's fallback summarizer wrote its text."""
    x, y = e.meta["range"]
    mark = f"; {FALLBACK_MARK}" if e.meta.get("summary_by") == "fallback" else ""
    return f"[{range_label(x, y)}{mark}] "
