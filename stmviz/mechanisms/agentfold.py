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
controllers for steps without a directive (the log-structured merge by
default), a hard capacity (forced merges the multi-scale way, then cut texts)
and the fold tree the figures draw — is in :class:`AgentFold` too, after the
paper's part it extends; every departure is named in docs/fidelity.md. Two
speed-ups stand in for plain definitions and are tested equal to them: ω is
read through views derived from the previous ω's (:mod:`stmviz._fast.views`),
and |π(ω)| is summed from per-line token counts (:mod:`stmviz._fast.lines`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..core import AgentStep, Context, Element, Mechanism, Message, ModelInput
from ..core.element import order_key, thaw
from ..core.errors import CapacityError, FormatError, InvalidArgumentError
from ..core import Operation, OperationSet, State, StateSpace, Transition
from ..core.formatting import format_number, shorten
from ..protocol import ElementType, Hierarchy, element_types_of, step_range
from ..text import summarize as default_summarize
from ..core import guards
from ..core.i18n import N_
from ..core.i18n import gettext as _
from .._fast.lines import LineTokens, Tally
from .._fast.memo import Memo
from .._fast.views import View, ViewIndex
from ..text.pluggable import Summarizer, cached_summarizer
from ..text.fit import ELLIPSIS, fit_text

__all__ = ["AgentFold", "block_label", "interaction_text"]

FALLBACK_MARK = "stmviz fallback summary"  # π marks blocks whose text the agent did not write
LAYOUTS = ("stmviz", "original")
_RULES = ("lsm", "share", "count", "condense")
#: ω grouped by type (query, tools, block, latest), each grouping derived from the previous ω's
#: (a speed-up: stmviz._fast.views, held equal to reading ω afresh by tests/test_fast.py)
_VIEWS = ViewIndex(View)
_NONE: tuple[Element, ...] = ()


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


def block_label(element: Element) -> str:
    """The name s_{x,y} of a summary block.

    >>> block_label(Element("…", {"type": "block", "range": (3, 7), "t": 3}))
    's_{3,7}'
    """
    x, y = element.meta["range"]
    return f"s_{{{x},{y}}}"


#: Why an element left at a fold: whole sentences with named placeholders (one place, for a translation).
FOLD_REASONS = {
    "condensed": N_("{element} condensed into {block} by {how}, text by {by} ({why})"),
    "merged": N_("{element} merged into {block} together with {others} by {how}, text by {by} ({why})"),
}
#: The words of a fold's reason (looked up when a reason is made): how it folded, who wrote the block's text.
_HOW = {"condense": N_("granular condensation"), "consolidate": N_("deep consolidation")}
_BY = {"agent": N_("the agent's summary"), "fallback": N_("stmviz's fallback summarizer")}
#: What a cut says it cut: a block's summary, or another element by its type (``latest``, ``tools``, ``query``).
_CUT_BLOCK = N_("{block}'s summary cut to fit: {why}")
_CUT_OTHER = N_("the {type} cut to fit: {why}")
_MERGE = N_("{a} and {b} merged into {block} by deep consolidation: {why}")

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
        self.block_budget = guards.whole_number(block_budget, "block_budget", 1)
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
        where = (_("folding directive of step {t} (summary written by the agent)") if summary
                 else _("folding directive of step {t} (no summary text)")).format(t=t)
        span = fold.get("range", fold.get("compress_range"))
        op = fold.get("op")
        if latest is None:
            if span is not None or op == "condense":
                return Operation("condense", reason=_("{directive} ignored: nothing to fold at the first step (as in the original)").format(directive=where))
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
            where = _("{directive} (starts inside {block}, which stays: the new block overlaps it, as in the original)").format(
                directive=where, block=block_label(holder))
        if y != last:
            where = _("{directive} (ends before I_{last}, which stays in full)").format(directive=where, last=last)
        params: dict[str, Any] = {} if x == y == last else {"from": x}
        if y != last:
            params["to"] = y
        if x == y:
            return Operation("condense", {**params, **extra}, reason=where)
        return Operation("consolidate", {**params, **extra}, reason=where)

    def _rule(self, state: State, latest: Element | None) -> Operation:
        if latest is None:
            return Operation("condense", reason=_("no latest interaction yet: nothing to fold"))
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
                return Operation("condense", reason=_("rule (log-structured merge): no block of length 1 to merge with"))
            return Operation(
                "consolidate",
                {"from": x},
                reason=_("rule (log-structured merge): the newest blocks cover 1, 2, … steps; with I_{step} "
                         "they become one block of {run} steps").format(step=latest.meta["step"], run=run),
            )
        if self.controller_rule == "share":
            total = self.space.size(blocks) + self.space.measure(latest)
            limit = self.share * self.space.v_max
            if len(blocks) >= 2 and total > limit:
                x = blocks[len(blocks) // 2].meta["range"][0]
                return Operation(
                    "consolidate",
                    {"from": x},
                    reason=_("rule (baseline share): blocks and I_{step} take {total} > {share}·V_max = {limit}").format(
                        step=latest.meta["step"], total=format_number(total), share=f"{self.share:g}", limit=format_number(limit)),
                )
        elif self.controller_rule == "count":
            if len(blocks) + 1 > self.max_blocks:
                x = blocks[len(blocks) // 2].meta["range"][0]
                return Operation(
                    "consolidate", {"from": x}, reason=_("rule (baseline count): more than {n} blocks").format(n=self.max_blocks)
                )
        return Operation("condense", reason=_("rule: condense each step"))

    def _with_overflow(self, state: State, chosen: Operation, context: Context) -> Operation:
        """``chosen``, marked ``overflow=True`` (its reason naming the merges) when U will have to consolidate to fit."""
        if self.latest(state) is None:
            return chosen
        after = self._folded(state, chosen, context, {})
        if self._over(after)[0] <= 0:
            return chosen
        merges = self._fit(after, {})[1]
        if not merges:
            return chosen
        reason = (f"{chosen.reason}; " if chosen.reason else "") + _("overflow once I_{t} is added: {merges}").format(
            t=context.t, merges="; ".join(merges))
        return Operation(chosen.type, {**chosen.params, "overflow": True}, reason=reason)

    # ------------------------------------------------------------------ U

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of AgentFold: fold as directed, add I_t, keep Σμ ≤ V_max."""
        reasons: dict[Element, str] = {}
        into: dict[Element, set[str]] = {}
        new = self._folded(state, operation, context, reasons, into)
        new = self._fit(new, reasons, into)[0]
        return Transition(new, {e: why for e, why in reasons.items() if e in state.elements})

    def _folded(self, state: State, operation: Operation, context: Context, reasons: dict[Element, str],
                into: dict[Element, set[str]] | None = None) -> State:
        """ω with the fold applied and I_t added (before the capacity is enforced)."""
        latest = self.latest(state)
        new = state
        if latest is not None:
            new = self._fold(state, operation, latest, reasons, {} if into is None else into)
        elif operation.type == "consolidate":
            raise InvalidArgumentError(
                "consolidate: ω has no latest interaction I_{t−1} to fold; consolidate from the second step on "
                "(a condense at the first step folds nothing)"
            )
        return new | {self._incoming(context)}

    def _incoming(self, context: Context) -> Element:
        t, text = context.t, interaction_text(context.step, self.layout)
        incoming = self._incomings.lookup((t, text), lambda key: Element(text, {"t": t, "type": "latest", "step": t}))
        self.space.measure(incoming)  # μ known before the union, so Σμ is carried, not re-summed
        return incoming

    def _range(self, operation: Operation, latest: Element) -> tuple[int, int]:
        """The steps [x, y] a fold covers: ``from`` (for consolidate) and ``to`` (default: I_{t−1}'s step)."""
        last = latest.meta["step"]
        fix = f"; pass the index of a step, at most {last} (the step of the latest interaction I_{last})"
        x = operation.get("from", last if operation.type == "condense" else None)
        y = operation.get("to", last)
        x = guards.whole_number(x, "from", 0, maximum=last, where=operation.type, fix=fix)
        y = guards.whole_number(y, "to", 0, maximum=last, where=operation.type, fix=fix)
        if x > y:
            raise InvalidArgumentError(f"{operation.type}: the range [{x}, {y}] is empty (from > to); give from ≤ to")
        return x, y

    def _fold(self, state: State, operation: Operation, latest: Element, reasons: dict[Element, str],
              into: dict[Element, set[str]]) -> State:
        """The released rule: every element that starts in [x, y] is replaced by one block s_{x,y}.

        ``into`` records the block each folded element went into, so that a merge later in the same update
        adds itself to their reasons.
        """
        x, y = self._range(operation, latest)
        last = latest.meta["step"]
        chain = [b for b in _VIEWS(state).groups.get("block", _NONE) if x <= b.meta["range"][0] <= y]
        if y == last:
            chain.append(latest)
        block = self._merge(chain, x, y, last + 1, operation)
        how = _(_HOW["condense" if x == y else "consolidate"])
        why = operation.reason or _("directive")
        by = _(_BY[block.meta["summary_by"]])
        names = {e: (block_label(e) if e.type == "block" else f"I_{last}") for e in chain}
        for e in chain:  # each removed element's own reason: it, the block it went into, and what went with it
            others = ", ".join(name for other, name in names.items() if other is not e)
            words = _(FOLD_REASONS["merged" if others else "condensed"])
            reasons[e] = words.format(element=names[e], block=block_label(block), others=others, how=how, by=by, why=why)
            into[e] = {block_label(block)}
        old, new = list(chain), [block]
        if y != last:  # the original keeps the steps after the range: I_{t−1} stays, in full, as a block
            kept = Element(latest.text, {"t": last, "type": "block", "range": (last, last), "step": last + 1,
                                         "summary_by": "verbatim", "passes": 0})
            reasons[latest] = _("I_{last} kept in full as {block}: the fold's range [{x}, {y}] ends before it").format(
                last=last, block=block_label(kept), x=x, y=y)
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

    # ------------------------------------------------------------------ the capacity (an stmviz extension)

    def _fit(self, state: State, reasons: dict[Element, str],
             into: dict[Element, set[str]] | None = None) -> tuple[State, list[str]]:
        """Make ω fit (see :meth:`_over`): consolidate as the log-structured merge would, then cut texts.

        Returns ω and a sentence for each forced merge. Blocks are never dropped. ``into``: the blocks each
        element that left in this update went into (a merge of one of them adds itself to the element's reason).
        """
        into = {} if into is None else into
        over, why = self._over(state)
        merges: list[str] = []
        while over > 0:
            pair = _overflow_pair(_VIEWS(state).groups.get("block", _NONE))
            if pair is None:
                break
            a, b = pair
            x, y = a.meta["range"][0], b.meta["range"][1]
            x, y = min(x, b.meta["range"][0]), max(y, a.meta["range"][1])
            merged = Element(
                self._summaries([a.text, b.text], self.budget_for(x, y)),
                {"t": x, "type": "block", "range": (x, y), "step": max(a.meta["step"], b.meta["step"]),
                 "summary_by": "fallback", "passes": 1 + max(a.meta.get("passes", 1), b.meta.get("passes", 1)),
                 "overflow": True},
            )
            merge = _(_MERGE).format(a=block_label(a), b=block_label(b), block=block_label(merged), why=why)
            merges.append(merge)
            for e, earlier in list(reasons.items()):  # what was folded into a or b this step: say where it went next
                if block_label(a) in into.get(e, ()) or block_label(b) in into.get(e, ()):
                    reasons[e] = _("{earlier}; then {merge}").format(earlier=earlier, merge=merge)
                    into[e].add(block_label(merged))
            for e in (a, b):
                if e not in reasons:
                    reasons[e] = merge
                    into[e] = {block_label(merged)}
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
            if e.type == "block":
                reasons[e] = _(_CUT_BLOCK).format(block=block_label(e), why=why)
            else:
                reasons[e] = _(_CUT_OTHER).format(type=e.type, why=why)
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

    def _over(self, state: State) -> tuple[float, str]:
        """How far ω is over V_max, and why: Σμ(ω) − V_max, or, when μ counts tokens, |π(ω)| − V_max if larger.

        V_max is AgentFold's context limit: the model input π(ω) — the labels
        "Question:", "Summaries:", "[steps x–y]" and "Latest interaction"
        included — must fit it, not only Σμ (Definition 1).
        """
        space = self.space
        v_max = space.v_max
        total = space.size(state)
        over, why = total - v_max, f"Σμ = {format_number(total)} > V_max = {format_number(v_max)}"
        if space.counts_tokens:
            size = self.projection_size(state)
            if size - v_max > over:
                over = size - v_max
                why = _("|π(ω)| = {size} > V_max = {v_max} (Σμ = {total} plus π's labels)").format(
                    size=format_number(size), v_max=format_number(v_max), total=format_number(total))
        return over, why

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

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens, exactly: the tokens of the projected text.

        π joins the lines of (Q, T, S, I) with line breaks, so the count is
        summed from each element's cached count with its break
        (:class:`stmviz._fast.lines.LineTokens`), carried from one ω to
        the next by the elements that changed; when a sum would not be exact (a
        line starting with a break, a foreign element, an encoding other than
        cl100k_base) the whole text is counted.
        """
        if not state:
            return 0
        if self.layout != "stmviz":  # the released layout: count its messages
            return sum(self.count_tokens(m.text) for m in self._original_prompt(state))
        elements = state.elements
        if not self._pieces.splits or self._broken_lines(elements, self._is_broken):
            return self.count_tokens("\n".join(self._lines(state)))  # π(ω), counted whole
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

    def hierarchy(self, state: State) -> Hierarchy:
        """ω as AgentFold holds it, (Q, T, S, I) side by side; the fold tree comes from :meth:`folds`."""
        return Hierarchy.flat(state, _("folded summaries"))  # a figure title, in the language set

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


def _block_prefix(e: Element) -> str:
    """A block's label in π: its step range, and a mark when stmviz's fallback summarizer wrote its text."""
    x, y = e.meta["range"]
    mark = f"; {FALLBACK_MARK}" if e.meta.get("summary_by") == "fallback" else ""
    return f"[{_range_label(x, y)}{mark}] "


def _range_label(x: int, y: int) -> str:
    """The steps x … y in words, as π labels a block: ``"step 3"`` or ``"steps 3–7"``."""
    return f"step {x}" if x == y else f"steps {x}–{y}"


def _span(element: Element) -> tuple[int, int] | None:
    """The steps an element covers: a block's range, else (step, step), else ``None``."""
    r = step_range(element)
    if r is not None:
        return r
    s = guards.as_int(element.meta.get("step"), float_ok=True)
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

