"""The OpenAI Agents SDK's session recipes for short-term memory: trimming and summarizing by user turns.

Source: the OpenAI Cookbook, "Context Engineering - Short-Term Memory
Management with Sessions from OpenAI Agents SDK"
(``openai/openai-cookbook``, ``examples/agents_sdk/session_memory.ipynb``;
https://cookbook.openai.com/examples/agents_sdk/session_memory), two custom
``Session`` classes written on the SDK's session protocol (``get_items``,
``add_items``, ``pop_item``, ``clear_session``; ``agents.memory.session``).

A *turn* is one user message and everything after it — assistant replies,
tool calls, tool results — up to the next user message.

- :class:`TrimmingSession` keeps only the last ``max_turns`` (default 8) user
  turns. It trims on every write and on every read: everything before the
  earliest of the last ``max_turns`` user messages is dropped.
- :class:`SummarizingSession` lets the history grow to ``context_limit``
  (default 3) real user turns; past that, everything before the earliest of
  the last ``keep_last_n_turns`` (default 3) turns is replaced by a synthetic
  user → assistant pair: the user line "Summarize the conversation we had so
  far." and the generated summary. An earlier pair is part of what is
  summarized the next time, so the summary rolls forward.

In the paper's terms both are **U**: the session *is* the state ω (the
items it stores), the trim or the summary rewrites it, and π is the stored
items in order (after the agent's instructions as the system message) — the
model sees exactly what the session returns. Neither bounds tokens: a turn
with a huge tool result stays whole (the cookbook says so: "token spikes
still possible"), so Σμ may pass V_max and :func:`~stmviz.run` then raises
:class:`~stmviz.errors.CapacityError` — set V_max to the model's window and
you see where the recipe would have overflowed it.

Departures (docs/fidelity.md, "OpenAI Agents SDK sessions"):

- the model input is the recipe's ``get_items()`` after the step's messages
  were added, as the cookbook's example flow uses it (``add_items`` then
  ``get_items``); the SDK's ``Runner`` reads the stored history *before*
  adding the new user message and sends history + new input, so its first
  model call of a turn can hold ``max_turns + 1`` turns;
- the summary comes from stmviz's pluggable summarizer (offline extractive
  default, or :class:`~stmviz.text.OpenAISummarizer` with
  :data:`SUMMARY_PROMPT_TEMPLATE`), not from ``gpt-4o``; the cookbook sends its
  prompt as a system message and the transcript as a user message, the
  adapter sends one user message with both;
- items that are not chat messages (the SDK's ``function_call`` items have
  no ``role``) are, in the cookbook's ``SummarizingSession``, stored as
  *user* messages holding ``str(item)`` — so each tool call would count as a
  user turn. stmviz keeps tool calls as assistant messages and their results
  as tool messages (the recipe's stated intent: "a turn starts at a real user
  message").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.context import Context
from ..core.element import Element
from ..core.errors import InvalidArgumentError, UnsupportedOperationError
from ..core.mechanism import Mechanism, Transition
from ..core.model_input import ModelInput
from ..core.operation import Operation, OperationSet
from ..protocol import ElementType, element_types_of
from ..core.space import State, StateSpace
from ..core import guards
from ..core.i18n import N_
from ..core.i18n import gettext as _
from ..text.pluggable import pluggable_summarizer
from .._fast.memo import Memo
from .conversation import CHAT_TYPES, GAP, as_model_input, check_summary_fits, step_messages, system_element

__all__ = ["TrimmingSession", "SummarizingSession", "SUMMARY_PROMPT", "SUMMARY_PROMPT_TEMPLATE", "SHADOW_USER_LINE"]

#: The cookbook's synthetic user line that precedes the summary.
SHADOW_USER_LINE = "Summarize the conversation we had so far."

#: The cookbook's summarization prompt (sent as the system message of the summary call).
SUMMARY_PROMPT = """You are a senior customer-support assistant for tech devices, setup, and software issues.
Compress the earlier conversation into a precise, reusable snapshot for future turns.

Before you write (do this silently):
- Contradiction check: compare user claims with system instructions and tool definitions/logs; note any conflicts or reversals.
- Temporal ordering: sort key events by time; the most recent update wins. If timestamps exist, keep them.
- Hallucination control: if any fact is uncertain/not stated, mark it as UNVERIFIED rather than guessing.

Write a structured, factual summary ≤ 200 words using the sections below (use the exact headings):

• Product & Environment:
  - Device/model, OS/app versions, network/context if mentioned.

• Reported Issue:
  - Single-sentence problem statement (latest state).

• Steps Tried & Results:
  - Chronological bullets (include tool calls + outcomes, errors, codes).

• Identifiers:
  - Ticket #, device serial/model, account/email (only if provided).

• Timeline Milestones:
  - Key events with timestamps or relative order (e.g., 10:32 install → 10:41 error).

• Tool Performance Insights:
  - What tool calls worked/failed and why (if evident).

• Current Status & Blockers:
  - What’s resolved vs pending; explicit blockers preventing progress.

• Next Recommended Step:
  - One concrete action (or two alternatives) aligned with policies/tools.

Rules:
- Be concise, no fluff; use short bullets, verbs first.
- Do not invent new facts; quote error strings/codes exactly when available.
- If previous info was superseded, note “Superseded:” and omit details unless critical.
"""

#: :data:`SUMMARY_PROMPT` as a template for :class:`~stmviz.text.OpenAISummarizer` (``{text}``: the transcript).
SUMMARY_PROMPT_TEMPLATE = SUMMARY_PROMPT.replace("{", "{{").replace("}", "}}") + "\n{text}"

_TOOL_ROLES = ("tool", "tool_result")
_APPEND = Operation("append")


def _is_user(element: Element) -> bool:
    return element.meta.get("role") == "user"


class TrimmingSession(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of the Agents SDK cookbook's ``TrimmingSession``: keep the last N user turns.

    U appends the step's messages and keeps everything from the earliest of the
    last ``max_turns`` user messages on (fewer user messages: keeps all). The
    trim never splits a turn, so a tool result never loses its call. π is the
    system message (``system``, the agent's instructions) and the kept items.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ and V_max (the model's window; the recipe itself bounds turns, not tokens).
    max_turns : int
        N, the user turns kept (the cookbook's default 8; its examples use 3).
    system : str, optional
        The agent's instructions, sent as the system message before the items.

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> steps = [AgentStep(observation="Hi"), AgentStep(thought="Hello!", observation="It broke."),
    ...          AgentStep(thought="Reboot it.", observation="Error 42 now.")]
    >>> trace = run(TrimmingSession(StateSpace(sizes.words, 100), max_turns=2), steps)
    >>> [(m.role, m.content) for m in trace.project(3)]
    [('user', 'It broke.'), ('assistant', 'Reboot it.'), ('user', 'Error 42 now.')]
    """

    name = "TrimmingSession"
    operations = OperationSet({"append": "add the step's messages, then keep only the last max_turns user turns"})
    element_types = element_types_of(CHAT_TYPES)
    #: Where each part of the recipe happens: U rewrites ω, π only reads it.
    placement = {N_("trim to the last max_turns user turns"): "U", N_("system message + stored items"): "π"}

    def __init__(self, space: StateSpace, *, max_turns: int = 8, system: str | None = None) -> None:
        super().__init__(space)
        self.max_turns = guards.whole_number(max_turns, "max_turns", 1)
        self.system = system
        self._system = system_element(system)
        self._messages = Memo()  # one element object per message: μ is counted once

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments."""
        return {"max_turns": self.max_turns, "system": self.system}

    def initial_state(self, context: Context) -> State:
        """ω_0: the agent's instructions as the system message, or ∅."""
        return State([self._system] if self._system is not None else [])

    def controller(self, state: State, context: Context) -> Operation:
        """Choose o: ``append`` (each write trims, as the recipe's ``add_items`` does)."""
        return _APPEND

    def items(self, state: State) -> list[Element]:
        """The stored items of the session (ω without the system message), oldest first."""
        return [e for e in state.ordered() if not e.meta.get("pinned")]

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω: append the step's messages, then keep only the last ``max_turns`` user turns."""
        if operation.type != "append":
            raise UnsupportedOperationError(f"{self} has no update for {operation.type!r}")  # pragma: no cover
        new = step_messages(context.step, context.t, memo=self._messages)
        removed = self.trimmed(self.items(state) + new)
        return Transition(state.replace(removed.keys(), [e for e in new if e not in removed]), removed)

    def trimmed(self, items: list[Element]) -> dict[Element, str]:
        """The items the trim drops (everything before the earliest of the last ``max_turns`` user messages), with why."""
        starts = [i for i, e in enumerate(items) if _is_user(e)]
        if len(starts) < self.max_turns:
            return {}
        start = starts[-self.max_turns]
        if not start:
            return {}
        why = _("before the earliest of the last {n} user turns (max_turns = {n}; {stored} user turns stored)").format(
            n=self.max_turns, stored=len(starts))
        return {e: why for e in items[:start]}

    def project(self, state: State) -> ModelInput:
        """The projection π: the agent's instructions, then the session's items in order (what ``get_items`` returns)."""
        return as_model_input(state.ordered())


class SummarizingSession(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of the Agents SDK cookbook's ``SummarizingSession``: older turns → a synthetic pair.

    U appends the step's messages; when the real user turns exceed
    ``context_limit``, everything before the earliest of the last
    ``keep_last_n_turns`` turns (everything, when it is 0) is summarized and
    replaced by two messages: the user line :data:`SHADOW_USER_LINE` and the
    assistant summary. Earlier synthetic messages are not turns, and are
    summarized again with the rest. π is the system message and the items.

    The summarizer receives one line per summarized message, ``"ROLE: text"``
    (tool results longer than ``tool_trim_limit`` characters cut, with " …"),
    and the budget ``summary_budget`` (the cookbook's ``max_tokens = 400``).

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ and V_max.
    keep_last_n_turns : int
        Turns kept verbatim (default 3); at most ``context_limit``.
    context_limit : int
        Real user turns allowed before summarizing (default 3).
    summarize : callable, optional
        ``summarize(texts, budget) -> str``; default the offline
        :func:`stmviz.text.summarize`. For a model, pass
        ``OpenAISummarizer(client, model, prompt=SUMMARY_PROMPT_TEMPLATE)``.
    tool_trim_limit : int
        Characters of a tool result kept in the summarizer's input (default 600).
    summary_budget : int
        Tokens of the summary (default 400).
    system : str, optional
        The agent's instructions, sent as the system message.

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> steps = [AgentStep(observation="My router fails."), AgentStep(thought="Firmware?", observation="v1.0.3."),
    ...          AgentStep(thought="Reset it.", observation="Error 42 now."), AgentStep(thought="Update it.")]
    >>> trace = run(SummarizingSession(StateSpace(sizes.words, 500), keep_last_n_turns=1, context_limit=2), steps)
    >>> [m.role for m in trace.project(3)], trace.project(3)[0].content
    (['user', 'assistant', 'user'], 'Summarize the conversation we had so far.')
    """

    name = "SummarizingSession"
    operations = OperationSet(
        {
            "append": "add the step's messages; past context_limit user turns, replace all but the last "
            "keep_last_n_turns turns by a synthetic user → assistant summary pair"
        }
    )
    element_types = element_types_of(
        {
            **CHAT_TYPES,
            "summary_prompt": ("the synthetic user line that asks for the summary", "#c49c94"),
            "summary": ElementType("summary", "the synthetic assistant summary of older turns", "#bcbd22", summary=True),
        }
    )
    #: Where each part of the recipe happens.
    placement = {N_("summarize older turns into a synthetic pair"): "U", N_("system message + stored items"): "π"}

    def __init__(
        self,
        space: StateSpace,
        *,
        keep_last_n_turns: int = 3,
        context_limit: int = 3,
        summarize: Callable[[Sequence[str], int], str] | None = None,
        tool_trim_limit: int = 600,
        summary_budget: int = 400,
        system: str | None = None,
    ) -> None:
        super().__init__(space)
        self.context_limit = guards.whole_number(context_limit, "context_limit", 1)
        self.keep_last_n_turns = guards.whole_number(keep_last_n_turns, "keep_last_n_turns", 0)
        if self.keep_last_n_turns > self.context_limit:
            raise InvalidArgumentError(
                f"keep_last_n_turns = {keep_last_n_turns} > context_limit = {context_limit}: the recipe keeps at most "
                f"context_limit turns verbatim; lower keep_last_n_turns or raise context_limit"
            )
        self.tool_trim_limit = guards.whole_number(tool_trim_limit, "tool_trim_limit", 1)
        self.summary_budget = guards.whole_number(summary_budget, "summary_budget", 1)
        self.summarize, self._summarize = pluggable_summarizer(summarize)
        self.system = system
        self._system = system_element(system)
        self._messages = Memo()  # one element object per message: μ is counted once

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (a custom summarize is not recorded)."""
        return {
            "keep_last_n_turns": self.keep_last_n_turns,
            "context_limit": self.context_limit,
            "tool_trim_limit": self.tool_trim_limit,
            "summary_budget": self.summary_budget,
            "system": self.system,
        }

    def initial_state(self, context: Context) -> State:
        """ω_0: the agent's instructions as the system message, or ∅."""
        return State([self._system] if self._system is not None else [])

    def controller(self, state: State, context: Context) -> Operation:
        """Choose o: ``append`` (each write summarizes when needed, as the recipe's ``add_items`` does)."""
        return _APPEND

    def items(self, state: State) -> list[Element]:
        """The stored items of the session (ω without the system message), oldest first."""
        return [e for e in state.ordered() if not e.meta.get("pinned")]

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω: append the step's messages; past ``context_limit`` turns, summarize the older ones."""
        if operation.type != "append":
            raise UnsupportedOperationError(f"{self} has no update for {operation.type!r}")  # pragma: no cover
        new = step_messages(context.step, context.t, memo=self._messages)
        removed, pair = self.summarized(self.items(state) + new, context.t)
        result = state.replace(removed.keys(), [e for e in new if e not in removed] + pair)
        if pair:
            check_summary_fits(self.space, result, pair[1], self.summary_budget, "SummarizingSession")
        return Transition(result, removed)

    def snippets(self, messages: Sequence[Element]) -> list[str]:
        """The summarizer's input: ``"ROLE: text"`` per message with text, long tool results cut (the recipe's ``to_snippet``)."""
        lines = []
        for e in messages:
            role = str(e.meta.get("role") or "assistant").lower()
            text = e.text.strip()
            if not text:
                continue
            if role in _TOOL_ROLES and len(text) > self.tool_trim_limit:
                text = text[: self.tool_trim_limit] + " …"
            lines.append(f"{role.upper()}: {text}")
        return lines

    def summarized(self, items: list[Element], t: int) -> tuple[dict[Element, str], list[Element]]:
        """The items the recipe summarizes at step t (with why), and the synthetic pair that replaces them."""
        starts = [i for i, e in enumerate(items) if _is_user(e) and not e.meta.get("synthetic")]
        if len(starts) <= self.context_limit:
            return {}, []
        boundary = len(items) if self.keep_last_n_turns == 0 else starts[-self.keep_last_n_turns]
        if boundary <= 0:
            return {}, []
        prefix = items[:boundary]
        summary = self._summarize(self.snippets(prefix), self.summary_budget)
        # the pair goes just before the first turn kept (or after the last item): GAP, then GAP / 2 from it
        at = float(items[boundary].meta["t"]) - GAP if boundary < len(items) else float(items[-1].meta["t"]) + GAP / 2
        steps = [int(e.meta["step"]) for e in prefix if "step" in e.meta]
        covers = (min(steps), max(steps)) if steps else (t, t)
        common = {"synthetic": True, "step": t, "range": covers}
        pair = [
            Element(SHADOW_USER_LINE, {**common, "t": at, "type": "summary_prompt", "role": "user",
                                       "kind": "history_summary_prompt"}),
            Element(summary, {**common, "t": at + GAP / 2, "type": "summary", "role": "assistant",
                              "kind": "history_summary"}),
        ]
        why = _("summarized: {turns} user turns > context_limit = {limit}, so everything before the last {keep} turns "
                "became the synthetic summary pair").format(turns=len(starts), limit=self.context_limit, keep=self.keep_last_n_turns)
        return {e: why for e in prefix}, pair

    def project(self, state: State) -> ModelInput:
        """The projection π: the agent's instructions, then the session's items in order (what ``get_items`` returns)."""
        return as_model_input(state.ordered())
