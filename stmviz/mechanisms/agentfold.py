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

from ..core.element import Element, order_key, thaw
from ..core.formatting import format_number, shorten
from ..core.errors import CapacityError, InvalidArgumentError, InvalidOperationError, ScenarioFormatError
from ..core.mechanism import Mechanism, Transition
from ..core.guards import as_int
from ..protocol import ElementType, Hierarchy, element_types_of, step_range
from ..core.context import AgentStep, Context
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ..text import summarize as default_summarize
from ..core import guards
from .fit import ELLIPSIS, fit_text
from ._shared import (
    LineTokens, Memo, Summarizer, Tally, View, ViewIndex, cached_summarizer, check_budget, over_limit, range_label,
)

__all__ = ["AgentFold"]

_RULES = ("lsm", "share", "count", "condense")
FALLBACK_MARK = "stmviz fallback summary"  # π marks blocks whose text the agent did not write
_VIEWS = ViewIndex(View)  # ω grouped by type (query, tools, block, latest), derived from the previous ω's grouping
_NONE: tuple[Element, ...] = ()


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


def block_label(element: Element) -> str:
    """The name s_{x,y} of a summary block.

    >>> block_label(Element("…", {"type": "block", "range": (3, 7), "t": 3}))
    's_{3,7}'
    """
    x, y = element.meta["range"]
    return f"s_{{{x},{y}}}"


class AgentFold(Mechanism):
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
        self.controller_rule = guards.choice(
            controller_rule,
            "controller_rule",
            _RULES,
            "the rule used on steps without a fold directive: 'lsm' (log-structured merge, the default) or a baseline",
        )
        self.share = guards.real_number(share, "share", 0, 1, low_open=True)
        self.max_blocks = guards.whole_number(max_blocks, "max_blocks", 2)
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
        """``chosen``, or the deep consolidation that overflow forces instead (from an earlier step)."""
        latest = self.latest(state)
        if latest is None:
            return chosen
        incoming = self._incoming(context)

        def over_after(operation: Operation) -> tuple[tuple[float, str], list[Element]]:
            """How far ω would be over V_max after the fold and I_t (see :meth:`_over`), and the blocks it merges."""
            chain = self._chain(state, operation)
            block = self._merge(chain, latest, latest.meta["step"] + 1, operation)
            self.space.measure(block)
            return self._over(state.replace([*chain, latest], [block]) | {incoming}), chain

        (over, why), chain = over_after(chosen)
        if over <= 0:
            return chosen
        blocks = self.blocks(state)
        starts = [b.meta["range"][0] for b in blocks if b not in chain]  # blocks older than the fold, newest last
        # the fold's block counts as the newest: merge it with 1, 2, 4, … older blocks until the state fits
        if not starts:
            return chosen
        k, x = 1, starts[-1]
        while True:
            x = starts[-k]
            trial = Operation("consolidate", {"from": x, "overflow": True})
            if over_after(trial)[0][0] <= 0 or k == len(starts):
                break
            k = min(2 * k, len(starts))
        asked = str(chosen)
        summary = chosen.get("summary")
        params: dict[str, Any] = {"from": x, "overflow": True}
        if isinstance(summary, str):
            params["summary"] = summary
        return Operation(
            "consolidate",
            params,
            reason=f"overflow: {asked} would leave {why} once I_{context.t} is added, "
            f"so the blocks from step {x} on are consolidated with I_{latest.meta['step']}"
            + (f" ({chosen.reason})" if chosen.reason else ""),
        )

    def _directive(self, state: State, fold: Any, t: int, latest: Element | None) -> Operation:
        if not isinstance(fold, dict) and not hasattr(fold, "get"):
            raise ScenarioFormatError(
                f"step {t}: a folding directive is a mapping {{'range': [x, {t - 1}], 'summary': '…'}}, got {shorten(repr(thaw(fold)))}"
            )
        summary = fold.get("summary")
        if summary is not None and (not isinstance(summary, str) or not summary.strip()):
            raise ScenarioFormatError(
                f"step {t}: the folding directive's summary must be non-empty text (the agent's summary of the range), "
                f"got {shorten(repr(summary))}; omit it to use stmviz's fallback summarizer"
            )
        extra: dict[str, Any] = {"summary": summary.strip()} if summary else {}
        where = f"folding directive of step {t}" + (" (summary written by the agent)" if summary else " (no summary text)")
        span = fold.get("range")
        op = fold.get("op")
        if span is not None:
            if latest is None:
                raise ScenarioFormatError(
                    f"step {t}: the folding directive has range {shorten(repr(span))} but there is no previous "
                    f"interaction to fold; drop the directive at the first step"
                )
            y = latest.meta["step"]
            pair = tuple(span) if isinstance(span, (list, tuple)) else ()
            ok = len(pair) == 2 and all(isinstance(v, int) and not isinstance(v, bool) for v in pair)
            if not ok or pair[1] != y or not 0 <= pair[0] <= y:
                raise ScenarioFormatError(
                    f"step {t}: the folding directive's range must be [x, {y}] with 0 ≤ x ≤ {y} (it folds up to the "
                    f"latest interaction I_{y}), got {shorten(repr(thaw(span)))}"
                )
            x = pair[0]
            if x == y:
                return Operation("condense", extra, reason=f"{where}: granular condensation of I_{y}")
            op = "consolidate"
        elif op == "condense":
            return Operation("condense", extra, reason=where)
        elif op == "consolidate":
            x = fold.get("from")
        else:
            raise ScenarioFormatError(
                f"step {t}: unknown folding directive {shorten(repr(thaw(fold)))}; use {{'range': [x, t-1], 'summary': '…'}} "
                f"(or the older {{'op': 'condense'}} / {{'op': 'consolidate', 'from': x}})"
            )
        if latest is None:
            raise ScenarioFormatError(f"step {t}: deep consolidation needs a latest interaction to fold, and ω has none")
        y = latest.meta["step"]
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= y:
            raise ScenarioFormatError(
                f"step {t}: consolidate 'from' must be a step index x with 0 ≤ x ≤ {y} (the latest interaction), "
                f"got {shorten(repr(x))}; block starts in ω: {', '.join(str(b.meta['range'][0]) for b in self.blocks(state)) or 'none'}"
            )
        holder = next((b for b in self.blocks(state) if b.meta["range"][0] <= x <= b.meta["range"][1]), None)
        if holder is not None and holder.meta["range"][0] != x:
            where += f" (from={x} lies inside {block_label(holder)}: the chain starts at {holder.meta['range'][0]})"
        if x == y:
            return Operation("condense", extra, reason=where)
        return Operation("consolidate", {"from": x, **extra}, reason=where)

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

    def _fit(self, state: State, reasons: dict[Element, str]) -> State:
        """Make ω fit (see :meth:`_over`): consolidate more, then cut texts; blocks are never dropped."""
        space = self.space
        over, why = self._over(state)
        if over <= 0:
            return state
        blocks = _VIEWS(state).groups.get("block", _NONE)
        # 1. consolidate more: merge the newest block with 1, 2, 4, … older blocks until it fits.
        if len(blocks) >= 2:
            newest, k = blocks[-1], 1
            while True:
                older = blocks[-1 - k : -1]
                x, y = older[0].meta["range"][0], newest.meta["range"][1]
                text = self._summaries([b.text for b in older] + [newest.text], self.budget_for(x, y))
                passes = 1 + max(b.meta.get("passes", 1) for b in [*older, newest])
                merged = Element(
                    text,
                    {"t": x, "type": "block", "range": (x, y), "step": newest.meta["step"], "summary_by": "fallback",
                     "passes": passes, "overflow": True},
                )
                space.measure(merged)  # μ known before the union, so Σμ is carried, not re-summed
                candidate = state.replace([*older, newest], [merged])
                if self._over(candidate)[0] <= 0 or k == len(blocks) - 1:
                    break
                k = min(2 * k, len(blocks) - 1)
            merge = (
                f"{', '.join(block_label(b) for b in [*older, newest])} merged into {block_label(merged)} by deep "
                f"consolidation: {why}"
            )
            for e in list(reasons):
                reasons[e] = f"{reasons[e]}; then {merge}"
            for b in [*older, newest]:
                reasons.setdefault(b, merge)
            state = candidate
            over, why = self._over(state)
        # 2.–4. cut the oldest block, then the latest interaction, the tools, the query.
        groups = _VIEWS(state).groups
        order = [*groups.get("block", _NONE)[:1], *groups.get("latest", _NONE)]
        order += [*groups.get("tools", _NONE), *groups.get("query", _NONE)]
        return self._cut(state, order, reasons)

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
                lines.append(_block_line(e))
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

    def project(self, state: State) -> str:
        """The projection π : Ω → X of AgentFold: the tuple (Q, T, S, I) as text, blocks labelled by step range."""
        return "\n".join(self._lines(state))

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

    @staticmethod
    def _line_text(e: Element) -> str:
        """The line of an element in π; "" for a foreign element (π places it in its own way)."""
        if e.type == "block":
            return _block_line(e)
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


def _block_prefix(e: Element) -> str:
    """A block's label in π: its step range, and a mark when stmviz's fallback summarizer wrote its text."""
    x, y = e.meta["range"]
    mark = f"; {FALLBACK_MARK}" if e.meta.get("summary_by") == "fallback" else ""
    return f"[{range_label(x, y)}{mark}] "


def _block_line(e: Element) -> str:
    return _block_prefix(e) + e.text


def _span(element: Element) -> tuple[int, int] | None:
    """The steps an element covers: a block's range, else (step, step), else ``None``."""
    r = step_range(element)
    if r is not None:
        return r
    s = as_int(element.meta.get("step"), float_ok=True)
    return (s, s) if s is not None else None
