"""AgentFold: proactive context folding into multi-scale summaries (Section 4; AgentFold, arXiv 2510.24699).

At step t the AgentFold agent sees the context (Q, T, S_{t−2}, I_{t−1}): the
user query Q, the tools T, the sequence S_{t−2} of summary blocks s_{x,y} that
cover steps 0 … t−2, and the latest interaction I_{t−1} in full. With its
response at step t (reasoning, explanation, one tool call) the agent writes a
*folding directive*: a range [x, t−1] and the summary text σ of that range.

- **granular condensation** (x = t−1) — I_{t−1} becomes one block s_{t−1,t−1}
  holding σ;
- **deep consolidation** (x < t−1) — the blocks covering x … t−2 and I_{t−1}
  become one block s_{x,t−1} holding σ.

Then the new interaction I_t becomes "latest". In the paper's terms:

- E = I × D — summary blocks (content: the summary text; metadata: ``range``
  = (x, y), ``type`` "block", ``summary_by`` "agent" or "fallback",
  ``passes`` — how many times the most re-summarized step in it was
  summarized) and one ``type`` "latest" element (the full record of the
  previous step: explanation, action, observation); plus the "query" and
  "tools" elements of ω_0.
- ω — a time-ordered sequence of blocks plus one latest interaction; μ, V_max —
  tokens (or any μ) and the context limit.
- O — ``condense`` and ``consolidate`` (``overflow=True`` when the capacity,
  not the directive or the rule, forced it); C — the query, the tools, the
  incoming step (with its directive) and the current state.
- U — fold the previous latest as directed, add the new latest; Σμ ≤ V_max
  so that U(ω, o, c) ∈ Ω_STM. Blocks never overlap and cover the folded
  steps in order.
- π — the tuple (Q, T, S, I) as text, each block labelled by its step range
  (and marked when stmviz's fallback summarizer, not the agent, wrote it).

Where stmviz departs from the original (see docs/fidelity.md):

- simplified: the agent is a recorded transcript (a scenario, or one
  imported with :func:`stmviz.scenarios.load_agentfold_log`); its directives
  are read, not generated, and its reasoning is not part of I_t.
- stmviz extension: a directive without summary text is filled by an
  extractive fallback summarizer, marked ``summary_by="fallback"`` in the
  block's metadata and "stmviz fallback summary" in π.
- stmviz extension: steps without a directive are folded by a rule
  controller; the default is a log-structured merge (a binary counter), so
  blocks grow coarser with age and each step is re-summarized at most about
  log₂ t times. The original agent always writes its directive.
- stmviz extension: the original has no hard capacity (its context grows
  slowly because the agent folds); stmviz keeps Σμ ≤ V_max and, when μ
  counts tokens, |π(ω)| ≤ V_max — V_max is the model's context limit, so the
  labels π adds ("Question:", "Summaries:", "[steps x–y]", "Latest
  interaction (step t):") must fit too — by forcing a deeper consolidation, named ``consolidate(…, overflow=True)`` with the
  directive it replaced in its reason, and as a last resort cuts texts.
"""

from __future__ import annotations

import math

from collections.abc import Sequence
from typing import Any

from ..core import AgentStep, CapacityError, Context, Element, InvalidOperationError, Mechanism, Operation, OperationSet
from ..core import State, StateSpace, Transition
from ..core.formatting import format_number, shorten
from ..core.protocol import ElementType, Hierarchy, element_types_of
from ..text import summarize as default_summarize
from ..text._checks import check_callable, check_choice, check_real, check_whole
from ._shared import LineTokens, Memo, Summarizer, Tally, cached_summarizer, check_budget, range_label
from .agentfold_extras import _NONE, _RULES, _VIEWS, FoldingExtras, block_label
from .fit import ELLIPSIS, fit_text

__all__ = ["AgentFold", "block_label", "interaction_text"]

FALLBACK_MARK = "stmviz fallback summary"  # π marks blocks whose text the agent did not write


def interaction_text(step: AgentStep) -> str:
    """The information i of a latest interaction: explanation (thought), action, observation.

    >>> print(interaction_text(AgentStep(thought="Check the docs.", action="search('fold')", observation="3 hits")))
    Explanation: Check the docs.
    Action: search('fold')
    Observation: 3 hits
    """
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

    Notes
    -----
    **Interactions and the order of a step.** A step holds the model's
    output, then the input that arrived after it, so the interaction I_t is
    one step: explanation (thought), action, observation. At step t + 1 the
    model sees I_t complete — its observation is the input it now acts on —
    and its folding directive folds it. In a dialogue, step k holds the reply
    a_{k−1} and the user's next message u_k: I_k is (a_{k−1}, u_k), the reply
    as the explanation and the user's message as the observation that
    followed it, as a tool's result follows a call (step 0 holds u_0 alone, a
    last reply a_n alone). A question and its reply thus sit in consecutive
    interactions: the model answering u_k sees it in full in I_k, and u_{k−1}
    in I_{k−1}'s block. Through a step that brings no input (an output only)
    the latest input is in the block that folded it: the model chose that
    fold having seen the input in full, as the paper's agent does.

    **Directives.** ``step.directives["fold"] = {"range": [x, t−1], "summary":
    σ}`` at step t folds [x, t−1]: granular condensation when x = t−1, deep
    consolidation when x < t−1; the new block holds σ, the agent's text
    (``summary_by="agent"``). Without ``summary`` stmviz's fallback
    summarizer writes the block from the folded texts (``summary_by=
    "fallback"``, marked in π). The older forms ``{"op": "condense"}`` and
    ``{"op": "consolidate", "from": x}`` (optionally with ``summary``) are
    read as the ranges [t−1, t−1] and [x, t−1]. Deep consolidation merges
    whole blocks: if x falls inside a block s_{a,b} the new block starts at
    a and keeps that block's text before σ (the operation's reason says so).
    A range not ending at t−1, x < 0, an empty summary, an unknown op, a
    missing ``from``, or a directive with a range at step 0 (nothing to
    fold) raises :class:`~stmviz.errors.ScenarioFormatError`. At step 0,
    "condense" folds nothing.

    **Rule-based controller** (no directive). ``"lsm"`` (default), a
    log-structured merge: I_{t−1} is a run of one step; while the newest
    block covers as many steps as the run, it joins the run (1, 2, 4, …), and
    the run is consolidated into one block — else I_{t−1} is condensed. The
    block lengths are the binary digits of the number of folded steps
    (…, 8, 4, 1): old blocks are coarse and untouched, recent ones fine, and
    each step is summarized at most ⌈log₂ t⌉ + 1 times over a run, not at
    every consolidation. Blocks of other lengths (from the agent's
    directives) are left as they are. Baselines, for comparison: ``"share"``
    (when Σμ(S) + μ(I_{t−1}) > share · V_max) and ``"count"`` (more than
    ``max_blocks`` blocks) consolidate the newer half of the blocks with
    I_{t−1} — which lands in the big block again and again, a rolling
    summary — and ``"condense"`` condenses every step.

    **Overflow.** If, once I_t is added, ω would not fit — Σμ > V_max, or,
    when μ counts tokens, |π(ω)| > V_max with π's labels (U reserves room
    for them: V_max is the model's context limit) — the controller replaces
    the fold by a deeper consolidation: the newest block
    is merged with 1, 2, 4, … older blocks until the state fits or every
    block is merged, and the operation is ``consolidate(from=x,
    overflow=True)``, its reason naming the fold it replaced. The merged
    block is written by the fallback summarizer (from the blocks' texts and
    the agent's σ, if any) and marked ``overflow``. Then, if still needed, U
    cuts the oldest block's summary to the room left, then the latest
    interaction, the tools and the query. Blocks are never dropped, so they
    always cover steps 0 … t−1.

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
    ) -> None:
        super().__init__(space)
        self.block_budget = check_budget("block_budget", block_budget)
        self.controller_rule = check_choice(
            "controller_rule",
            controller_rule,
            _RULES,
            "the rule used on steps without a fold directive: 'lsm' (log-structured merge, the default) or a baseline",
        )
        self.share = check_real("share", share, 0, 1, low_open=True)
        self.max_blocks = check_whole("max_blocks", max_blocks, 2)
        check_callable("summarize", summarize, "(texts, budget) -> str")
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
        return {
            "block_budget": self.block_budget,
            "controller_rule": self.controller_rule,
            "share": self.share,
            "max_blocks": self.max_blocks,
        }

    # ------------------------------------------------------------------ reading ω

    @staticmethod
    def blocks(state: State) -> list[Element]:
        """The summary sequence S: the blocks of ω ordered by their step range."""
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
        """The controller: the step's folding directive if any, else the documented rule; overflow named as such.

        When the fold chosen would leave ω over V_max once I_t is added (Σμ, or
        |π(ω)| with its labels when μ counts tokens; see :meth:`_over`), the
        controller extends it to the deep consolidation that fits (the newest
        block merged with 1, 2, 4, … older ones) and returns it as
        ``consolidate(from=x, overflow=True)``, its reason saying which fold
        was asked for: the trace names what happened.
        """
        t, fold = context.t, context.step.directives.get("fold")
        latest = self.latest(state)
        if fold is not None:
            chosen = self._directive(state, fold, t, latest)
        else:
            chosen = self._rule(state, latest)
        return self._with_overflow(state, chosen, context)

    # ------------------------------------------------------------------ U

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of AgentFold: fold I_{t−1} as directed, add I_t, keep Σμ ≤ V_max."""
        reasons: dict[Element, str] = {}
        latest = self.latest(state)
        new = state
        if latest is not None:
            new = self._fold(state, self._chain(state, operation), latest, operation, reasons)
        elif operation.type == "consolidate":
            raise InvalidOperationError("consolidate: ω has no latest interaction I_{t−1} to fold")
        new = new | {self._incoming(context)}
        new = self._fit(new, reasons)
        return Transition(new, {e: why for e, why in reasons.items() if e in state.elements})

    def _incoming(self, context: Context) -> Element:
        t, text = context.t, interaction_text(context.step)
        incoming = self._incomings.lookup((t, text), lambda key: Element(text, {"t": t, "type": "latest", "step": t}))
        self.space.measure(incoming)  # μ known before the union, so Σμ is carried, not re-summed
        return incoming

    def _chain(self, state: State, operation: Operation) -> list[Element]:
        """The blocks a fold merges with I_{t−1}: none for condense, every block holding a step ≥ x for consolidate."""
        if operation.type == "condense":
            return []
        latest = self.latest(state)
        y = latest.meta["step"] if latest is not None else -1
        x = operation.get("from")
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= y:
            raise InvalidOperationError(f"consolidate(from=x) needs a step index 0 ≤ x ≤ {y}, got {shorten(repr(x))}")
        return [b for b in _VIEWS(state).groups.get("block", _NONE) if b.meta["range"][1] >= x]

    def _merge(self, chain: Sequence[Element], latest: Element, step: int, operation: Operation) -> Element:
        x = chain[0].meta["range"][0] if chain else latest.meta["step"]
        y = latest.meta["step"]
        passes = 1 + max((b.meta.get("passes", 1) for b in chain), default=0)
        summary = operation.get("summary")
        if isinstance(summary, str) and summary and not operation.get("overflow"):
            # the agent's σ covers [from, y]; a block the range starts inside keeps its own text before σ
            start = operation.get("from", y)
            kept = [b.text for b in chain if b.meta["range"][0] < start]
            text = " ".join([*kept, summary])
            by = "agent"
        else:
            texts = [b.text for b in chain] + [summary if isinstance(summary, str) and summary else latest.text]
            text = self._summaries(texts, self.budget_for(x, y))
            by = "fallback"
        meta: dict[str, Any] = {"t": x, "type": "block", "range": (x, y), "step": step, "summary_by": by, "passes": passes}
        if operation.get("overflow"):
            meta["overflow"] = True
        return Element(text, meta)

    def budget_for(self, x: int, y: int) -> int:
        """The token budget of a block s_{x,y}: ``block_budget`` for one step, growing with log₂ of the steps covered.

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

    def _fold(
        self, state: State, chain: list[Element], latest: Element, operation: Operation, reasons: dict[Element, str]
    ) -> State:
        block = self._merge(chain, latest, latest.meta["step"] + 1, operation)
        how = "granular condensation" if operation.type == "condense" else "deep consolidation"
        if operation.get("overflow"):
            how += " forced by overflow"
        why = operation.reason or "directive"
        by = "the agent's summary" if block.meta["summary_by"] == "agent" else "stmviz's fallback summarizer"
        name = block_label(block)
        if chain:
            sources = ", ".join(block_label(b) for b in chain) + f" and I_{latest.meta['step']}"
            text = f"{sources} merged into {name} by {how}, text by {by} ({why})"
        else:
            text = f"I_{latest.meta['step']} condensed into {name} by {how}, text by {by} ({why})"
        for e in [*chain, latest]:
            reasons[e] = text
        self.space.measure(block)  # μ known before the union, so Σμ is carried, not re-summed
        return state.replace([*chain, latest], [block])

    # ------------------------------------------------------------------ π

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

    def hierarchy(self, state: State) -> Hierarchy:
        """ω as AgentFold holds it, (Q, T, S, I) side by side; the fold tree comes from :meth:`folds`."""
        return Hierarchy.flat(state, "folded summaries")

    @staticmethod
    def block_line(e: Element) -> str:
        """A block's line in π: its step range (and the fallback mark), then its text."""
        return _block_prefix(e) + e.text

    def project(self, state: State) -> str:
        """The projection π : Ω → X of AgentFold: the tuple (Q, T, S, I) as text, blocks labelled by step range."""
        return "\n".join(self._lines(state))

def _block_prefix(e: Element) -> str:
    """A block's label in π: its step range, and a mark when stmviz's fallback summarizer wrote its text."""
    x, y = e.meta["range"]
    mark = f"; {FALLBACK_MARK}" if e.meta.get("summary_by") == "fallback" else ""
    return f"[{range_label(x, y)}{mark}] "
