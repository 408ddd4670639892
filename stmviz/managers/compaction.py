"""Server-side compaction — Anthropic's ``compact_20260112`` and Claude Code's auto-compact — as U and π together.

Sources:

- Anthropic, *Compaction* (platform.claude.com/docs/en/build-with-claude/compaction,
  and the page *Compaction at a token threshold*); the parameters as typed in
  anthropics/anthropic-sdk-python, ``src/anthropic/types/beta/beta_compact_20260112_edit_param.py``
  (``trigger``: "Defaults to 150000 input tokens", ``pause_after_compaction``, ``instructions``).
- Claude Code's auto-compact, as its session files record it (a ``compact_boundary``
  system record with its trigger and pre-compaction tokens, then a user message
  holding the summary) and as public write-ups of its threshold describe it:
  the context window less the tokens reserved for the summary (at most 20,000)
  less a 13,000-token buffer (``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE``: a percentage
  of that effective window instead; older versions fired at about 95 % of the window).

When a request's input tokens reach ``trigger``, the API writes a summary of
the conversation, returns it as a ``compaction`` block at the start of the
response, and "automatically drops all content blocks prior to the compaction
block" on every later request; the system prompt is not part of the messages
and stays. Both halves of the paper's mechanism do a part:

- U: append the step's messages; when an input arrived (a model call follows)
  and the visible request (system prompt + the messages from the last block
  on) has ≥ ``trigger`` tokens, **add the compaction block** — a summary of the
  visible conversation — after everything (with ``pause_after_compaction``:
  before the last ``preserve`` messages, which the client re-sends after the
  block, as the documentation's example does with the last 3);
- π: the system prompt, then **nothing before the last block**: the block and
  what came after it.

In the terms of Definitions 1 and 2: E: chat messages and ``compaction``
blocks; μ, V_max: tokens and the stored history's capacity; O: ``append``,
``compact``; C: the incoming step.

The summary comes from the pluggable summarizer (default: stmviz's offline
extractive one, given the visible messages' texts); :meth:`Compaction.openai_summarizer`
sends the conversation followed by the summarization prompt — ``instructions``,
or :data:`DEFAULT_INSTRUCTIONS` — to an OpenAI-compatible model.

What could not be verified, and how it is labelled:

- "The default summarization prompt varies by model": :data:`DEFAULT_INSTRUCTIONS`
  is the one the documentation shows as an example;
- Claude Code's own compact prompt is not published: :data:`CLAUDE_CODE_INSTRUCTIONS`
  is stmviz's paraphrase of what public write-ups describe (its sections);
  :data:`CLAUDE_CODE_PREFIX` is the text its session files show before the summary.

Departures (docs/fidelity.md): the API requires ``trigger`` ≥ 50,000, stmviz
takes any trigger ≤ V_max so small examples compact; the block is its own
message (the API puts it in the assistant's response); the summary is at most
``summary_tokens`` long; the stored history is bounded by V_max (the oldest,
hidden messages go first, as the documentation allows the client to drop them);
Claude Code's re-attached files and todo list after a compaction are not reproduced.

:meth:`Compaction.claude_code` differs in where it works: Claude Code replaces its
in-memory conversation by the summary, so there U removes every message before
the new block and π shows ω as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._fast.memo import Memo
from ..core import guards
from ..core.context import Context
from ..core.element import Element
from ..core.errors import InvalidArgumentError, UnsupportedOperationError
from ..core.formatting import format_number
from ..core.i18n import N_
from ..core.i18n import gettext as _
from ..core.mechanism import Mechanism, Transition
from ..core.model_input import ModelInput
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ..protocol import element_types_of
from ..text import summarize as default_summarize
from .conversation import CHAT_TYPES, GAP, HISTORY_BOUND, RESULT_WITH_CALL, THINKING_TYPE, appended, as_model_input
from .conversation import check_summary_fits, counts_content_tokens, evict_oldest, pinned_system, step_messages

__all__ = ["Compaction", "DEFAULT_INSTRUCTIONS", "CLAUDE_CODE_PREFIX", "CLAUDE_CODE_INSTRUCTIONS", "CLAUDE_CODE_PLACEMENT"]

#: The summarization prompt Anthropic's compaction documentation shows ("some models use the following prompt").
DEFAULT_INSTRUCTIONS = (
    "You have written a partial transcript for the initial task above. Please write a summary of the transcript. "
    "The purpose of this summary is to provide continuity so you can continue to make progress towards solving the "
    "task in a future context, where the raw history above may not be accessible and will be replaced with this "
    "summary. Write down anything that would be helpful, including the state, next steps, learnings etc. You must "
    "wrap your summary in a <summary></summary> block."
)

#: The text Claude Code's session files show before the summary, in the user message that follows a compact boundary.
CLAUDE_CODE_PREFIX = (
    "This session is being continued from a previous conversation that ran out of context. "
    "The summary below covers the earlier portion of the conversation.\n\n"
)

#: stmviz's paraphrase (Claude Code's prompt is not published) of what its compact prompt asks for.
CLAUDE_CODE_INSTRUCTIONS = (
    "Summarize the conversation so far in detail, so that the work can continue without it. First reason through "
    "it in order inside <analysis> tags, then write the summary inside <summary> tags with these sections: the "
    "user's requests and intent; key technical concepts; files and code touched (with the important snippets); "
    "errors met and how they were fixed; how problems were solved; every user message; pending tasks; the work in "
    "progress just before this summary; and the next step, if any."
)

_FLAVOURS = ("anthropic", "claude_code")


#: Where Claude Code's auto-compact does each part of its work: its history is rewritten (U).
CLAUDE_CODE_PLACEMENT = {
    "append messages": "U",
    "replace the history by a summary": "U",
    "show the messages (the system prompt first)": "π",
}


class Compaction(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of server-side compaction: U adds a summary block, π starts at the last one.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ (tokens for the real thing) and V_max, the stored history's capacity.
    system : str, optional
        The system prompt: kept by every compaction, counted in the input tokens.
    trigger : int
        Compact when the request's input tokens reach this (default 150,000); at most V_max.
    pause_after_compaction : bool
        Pause after the block so the client re-sends the last ``preserve``
        messages after it (the documentation's example keeps 3).
    preserve : int
        Messages re-sent after the block when paused (default 3); a tool
        result is never re-sent without its call.
    instructions : str, optional
        A custom summarization prompt; it replaces :data:`DEFAULT_INSTRUCTIONS`.
    summarizer : callable, optional
        ``summarize(texts, budget) -> str``; default: stmviz's offline extractive one.
    summary_tokens : int, optional
        The summary's budget (default ⌊trigger / 10⌋, at least 16).
    flavour : {"anthropic", "claude_code"}
        Whose block: an assistant ``compaction`` block, or Claude Code's user
        message with :data:`CLAUDE_CODE_PREFIX` (see :meth:`claude_code`).

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> steps = [AgentStep(observation="Build a web scraper."), AgentStep(thought="Plan: fetch, then parse.", observation="Add rate limiting."),
    ...          AgentStep(thought="Added a limiter.", observation="Now error handling."), AgentStep(thought="Done.")]
    >>> m = Compaction(StateSpace(sizes.words, v_max=100), system="Be brief.", trigger=15, summary_tokens=12)
    >>> trace = run(m, steps)
    >>> [(x.role, x.text) for x in trace.project(3)]  # after step 2's input: 19 words ≥ 15, so U added a block
    [('system', 'Be brief.'), ('assistant', 'Build a web scraper. Add rate limiting.')]
    >>> len(trace.state_at(3)) - len(trace.project(3))  # the messages ω still holds but π no longer shows
    5
    """

    name = "Compaction"
    operations = OperationSet(
        {
            "append": "add the step's messages",
            "compact": "add a compaction block: a summary of the visible conversation; π shows nothing before it",
        }
    )
    element_types = element_types_of(
        {**CHAT_TYPES, **THINKING_TYPE,
         "compaction": ("a compaction block: the summary π starts from (a compact boundary)", "#e7ba52", True)}
    )
    #: Which part of the manager's work U does and which π does (read by the figures).
    placement = {
        N_("append messages"): "U",
        N_("add the compaction block (a summary)"): "U",
        N_("show nothing before the last block"): "π",
        N_("keep the system prompt"): "π",
    }

    def __init__(
        self,
        space: StateSpace,
        *,
        system: str | None = None,
        trigger: int = 150_000,
        pause_after_compaction: bool = False,
        preserve: int = 3,
        instructions: str | None = None,
        summarizer: Any = None,
        summary_tokens: int | None = None,
        flavour: str = "anthropic",
    ) -> None:
        super().__init__(space)
        self._pins = pinned_system(space, system)
        self.system = system
        self.trigger = guards.whole_number(trigger, "trigger", 1)
        if trigger > space.v_max:
            raise InvalidArgumentError(
                f"trigger = {format_number(trigger)} > V_max = {format_number(space.v_max)}: the request can never reach "
                f"it, so compaction would never fire; pass a trigger ≤ V_max, e.g. trigger={int(space.v_max * 0.75)}"
            )
        self.pause_after_compaction = guards.flag(pause_after_compaction, "pause_after_compaction")
        self.preserve = guards.whole_number(preserve, "preserve", 0)
        self.instructions = None if instructions is None else guards.text(instructions, "instructions", example="Summarize …")
        #: ``summarize(texts, budget) -> str`` (each answer checked to be text).
        self.summarizer = guards.function(summarizer, "summarizer", "(texts, budget) -> str", returns=str) or default_summarize
        self.summary_tokens = guards.whole_number(summary_tokens, "summary_tokens", 1, none_ok=True)
        self.flavour = guards.choice(flavour, "flavour", _FLAVOURS)
        self._messages = Memo()  # one element object per message: μ is counted once

    @classmethod
    def claude_code(
        cls,
        space: StateSpace,
        *,
        system: str | None = None,
        window: int | None = None,
        percent: float | None = None,
        reserve: int = 20_000,
        buffer: int = 13_000,
        summarizer: Any = None,
        summary_tokens: int | None = None,
    ) -> "Compaction":
        """Claude Code's auto-compact: trigger = window − reserve − buffer (167,000 for a 200,000 window).

        ``window`` defaults to V_max; ``percent`` (like ``CLAUDE_AUTOCOMPACT_PCT_OVERRIDE``)
        fires at that percentage of the effective window (window − reserve)
        instead, capped at the default threshold as Claude Code caps it (the
        override can fire earlier, never later: anthropics/claude-code issue
        31806); when the window is too small for a default threshold, the
        percentage of the window itself. Older versions fired at about 95 % of the window.

        Claude Code's compaction **replaces** its conversation history by the
        summary: here U removes every message before the new block from ω
        (the API flavour only hides them in π).
        """
        if window is None and not space.v_max < 2**63:
            raise InvalidArgumentError(
                f"window defaults to V_max = {format_number(space.v_max)}, too large for a context window; "
                f"pass window=200_000 (a model's window in tokens)"
            )
        window = guards.whole_number(window if window is not None else int(space.v_max), "window", 1)
        reserve = guards.whole_number(reserve, "reserve", 0)
        buffer = guards.whole_number(buffer, "buffer", 0)
        effective = window - reserve
        default = effective - buffer
        if percent is not None:
            guards.real_number(percent, "percent", 0, 100, low_open=True)
            trigger = int((window if effective <= 0 else effective) * percent / 100)
            if default >= 1:  # the override can only lower the threshold (capped at the default)
                trigger = min(trigger, default)
        else:
            trigger = default
        if trigger < 1:
            raise InvalidArgumentError(
                f"window = {format_number(window)} is smaller than Claude Code's reserve ({format_number(reserve)}) "
                f"+ buffer ({format_number(buffer)}); pass percent=95 to fire at 95 % of the window, as older versions did"
            )
        made = cls(space, system=system, trigger=min(trigger, int(space.v_max)), summarizer=summarizer,
                   summary_tokens=summary_tokens, flavour="claude_code")
        made.placement = CLAUDE_CODE_PLACEMENT
        return made

    @property
    def prompt(self) -> str:
        """The summarization prompt the original sends after the conversation."""
        if self.instructions is not None:
            return self.instructions
        return CLAUDE_CODE_INSTRUCTIONS if self.flavour == "claude_code" else DEFAULT_INSTRUCTIONS

    def openai_summarizer(self, client: Any, model: str, **options: Any) -> Any:
        """A summarizer that sends the conversation, then this mechanism's :attr:`prompt`, to an OpenAI-compatible model."""
        from ..text import OpenAISummarizer

        escaped = self.prompt.replace("{", "{{").replace("}", "}}")
        return OpenAISummarizer(client, model, prompt="{text}\n\n" + escaped, **options)

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (the summarizer is not saved: the default is used on rebuild)."""
        return {
            "system": self.system, "trigger": self.trigger, "pause_after_compaction": self.pause_after_compaction,
            "preserve": self.preserve, "instructions": self.instructions, "summary_tokens": self.summary_tokens,
            "flavour": self.flavour,
        }

    def initial_state(self, context: Context) -> State:
        """ω_0: the system prompt (pinned), or ∅."""
        return State(self._pins)

    # -- the view π shows -----------------------------------------------------------
    def visible(self, state: State) -> list[Element]:
        """The elements π shows: the system prompt, then the last compaction block and all after it."""
        order = state.ordered()
        blocks = [k for k, e in enumerate(order) if e.type == "compaction"]
        if not blocks:
            return list(order)
        return [e for e in order[: blocks[-1]] if e.meta.get("pinned")] + list(order[blocks[-1]:])

    def hidden(self, state: State) -> dict[Element, str]:
        """The elements of ω that π(ω) drops, with why."""
        shown = set(self.visible(state))
        why = _("before the last compaction block: dropped from every request")
        return {e: why for e in state.ordered() if e not in shown}

    # -- the controller and U ------------------------------------------------------
    def controller(self, state: State, context: Context) -> list[Operation]:
        """``append``, then ``compact`` when an input arrived and the request's input tokens reach the trigger."""
        ops = [Operation("append")]
        if context.step.has_input:
            size = self.space.size(self.visible(self._appended(state, context).state))
            if size >= self.trigger:
                ops.append(Operation("compact", {"pre_tokens": size},
                                     reason=_("input tokens {size} ≥ trigger = {trigger}").format(
                                         size=format_number(size), trigger=format_number(self.trigger))))
        return ops

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of compaction: append, or add a compaction block summarizing what π shows."""
        if operation.type == "append":
            return self._appended(state, context)
        if operation.type != "compact":
            raise UnsupportedOperationError(f"Compaction has no update for {operation.type!r}")
        shown = [e for e in self.visible(state) if not e.meta.get("pinned")]
        if not shown:
            return Transition(state)
        kept = _preserved([e for e in shown if e.type != "compaction"], self.preserve) if self.pause_after_compaction else []
        meta: dict[str, Any] = {  # before the first message re-sent, else just after the last one summarized
            "t": _between(state.ordered(), kept[0]) if kept else (shown[-1].t or 0) + GAP, "type": "compaction",
            "role": "user" if self.flavour == "claude_code" else "assistant",
            "step": context.t, "trigger": "auto", "pre_tokens": operation.get("pre_tokens", self.space.size(shown)),
        }
        texts = [e.text for e in shown]
        summary = self._summary(texts)
        block = Element((CLAUDE_CODE_PREFIX if self.flavour == "claude_code" else "") + summary, meta)
        result = state | {block}
        reasons: dict[Element, str] = {}
        if self.flavour == "claude_code":  # Claude Code rewrites its history: the summary replaces every message
            why = _("replaced by the compaction summary (Claude Code rewrites its conversation history)")
            reasons = {e: why for e in state.ordered() if not e.meta.get("pinned")}
            result = result - reasons.keys()
        total = self.space.size(result)
        if total > self.space.v_max:
            reasons |= evict_oldest(result.ordered(), total, self.space.v_max, self.space.measure, keep=(block, *kept),
                                   note=HISTORY_BOUND, pairs_note=RESULT_WITH_CALL)
            result = result - reasons.keys()
        check_summary_fits(self.space, result, block, self.summary_tokens or max(16, self.trigger // 10), "Compaction")
        return Transition(result, reasons)

    def _appended(self, state: State, context: Context) -> Transition:
        """ω with step t's messages added; while Σμ > V_max the oldest are cut off, never the last block (a stmviz bound)."""
        new = step_messages(context.step, context.t, api=True, memo=self._messages)
        blocks = [e for e in state.ordered() if e.type == "compaction"]
        return appended(self.space, state, new, keep=blocks[-1:], note=HISTORY_BOUND, pairs_note=RESULT_WITH_CALL)

    def _summary(self, texts: Sequence[str]) -> str:
        budget = self.summary_tokens or max(16, self.trigger // 10)
        return self.summarizer(list(texts), budget).strip() or "(empty summary)"

    # -- π --------------------------------------------------------------------
    def project(self, state: State) -> ModelInput:
        """The projection π : Ω → X of compaction: the system prompt, then the last compaction block and what follows it."""
        return as_model_input(self.visible(state))

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: Σμ over what π shows when μ counts the content's tokens (μ is cached), else counted."""
        if not counts_content_tokens(self.space):
            return super().projection_size(state)
        return int(self.space.size(self.visible(state)))


def _between(order: Sequence[Element], first: Element) -> float:
    """A time strictly between ``first`` and the element before it in ``order``: where a block goes before ``first``."""
    k = order.index(first)
    before = (order[k - 1].t if k else None)
    return ((before if before is not None else (first.t or 0) - 1) + (first.t or 0)) / 2


def _preserved(shown: Sequence[Element], n: int) -> list[Element]:
    """The last n messages re-sent after a paused compaction; a leading tool result brings its call along."""
    if n <= 0:
        return []
    start = max(0, len(shown) - n)
    while start > 0 and shown[start].type == "tool":
        start -= 1
    return list(shown[start:])
