"""Google ADK's event compaction (``EventsCompactionConfig``): summaries appended to the session, compacted events hidden in π.

Source: ``google/adk-python``, ``src/google/adk/apps/app.py``
(``EventsCompactionConfig``), ``src/google/adk/apps/compaction.py``
(``_run_compaction_for_sliding_window``, ``_run_compaction_for_token_threshold``,
``_events_to_compact_for_token_threshold``), ``src/google/adk/apps/llm_event_summarizer.py``
(``LlmEventSummarizer``) and ``src/google/adk/flows/llm_flows/contents.py``
(``_process_compaction_events``); docs: https://google.github.io/adk-docs/context/compaction/.

An ADK session is a list of *events* (the user's message, the model's
replies and function calls, the function responses), each with a timestamp
and the id of its *invocation* (one user-initiated run). Compaction never
deletes an event: it appends a compaction event holding a summary and the
range [start, end] of timestamps it covers. When the request to the model is
built, every raw event inside a kept range is left out and the summary stands
at the range's end.

- **Sliding window** (``compaction_interval``, ``overlap_size``): after an
  invocation ends, if at least ``compaction_interval`` invocations are new
  since the end of the last compaction, the events from ``overlap_size``
  invocations before the first new one through the last new one are
  summarized (compaction events excluded). Ranges overlap, so consecutive
  summaries share context; a range inside a later one is *subsumed* and drops
  out of the request.
- **Token threshold** (``token_threshold`` with ``event_retention_size``, set
  together): when the prompt reaches ``token_threshold`` tokens, every raw
  event after the last compaction except the last ``event_retention_size``
  is summarized, with the previous summary as the first event (a rolling
  summary); the cut moves earlier so that a kept function response keeps its
  function call. When it fires, the sliding window is skipped for that turn.

In the paper's terms: **U** appends (events, and the compaction event with
its summary — nothing is removed from ω, so V_max bounds the whole session);
**π** hides every compacted event and shows the non-subsumed summaries.

Version: the rules above are those of ``compaction.py`` in the 1.x releases
(token threshold added in commit a88e864, its call-keeping split and the
pre-request check in 485fcb8); the sliding window and the request are checked
equal to google-adk 1.26's at every step (tests/mechanisms/test_peers_b.py).
google-adk 2.13.0 (read, not run against stmviz) adds two guards stmviz does not reproduce: a range is compacted only
if it can remove more serialized characters than the last summary holds
(``_is_range_worth_compacting``), and it is trimmed to its longest prefix
that leaves no answerable function call unanswered
(``_longest_self_contained_prefix``); rewound invocations are skipped.

Departures (docs/fidelity.md, "Google ADK compaction"):

- the token count is Σμ of the events π would show next (ADK reads the
  model's reported ``prompt_token_count``, else estimates text characters / 4);
- the token check runs after every step, as the pre-request check of ADK ≥ 1.26
  does (commit 485fcb8, "token compaction pre-request"); the sliding window runs
  when an invocation ends — at a reply without a tool call;
- an invocation is a user turn: the user's message and everything until the next;
- the summary comes from stmviz's pluggable summarizer, whose input is ADK's
  ``"author: text"`` lines (text parts only: function calls and responses carry
  no text part and are not in it); :data:`SUMMARY_PROMPT` is the prompt
  ``LlmEventSummarizer`` sends, for an adapter. Not verified: ADK's source
  writes the prompt's and the lines' separators as ``'\\\\n'``, a backslash and an
  ``n``, not a line break; stmviz keeps that text as it is.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import Any

from ..core.context import Context
from ..core.element import Element
from ..core.errors import InvalidArgumentError, UnsupportedOperationError
from ..core.mechanism import Mechanism, Transition
from ..core.model_input import Message, ModelInput
from ..core.operation import Operation, OperationSet
from ..protocol import ElementType, element_types_of
from ..core.space import State, StateSpace
from ..core import guards
from ..core.i18n import N_
from ..text.pluggable import pluggable_summarizer
from .._fast.memo import Memo
from .conversation import CHAT_TYPES, GAP, as_model_input, check_summary_fits, step_messages, system_element

__all__ = ["ADKCompaction", "SUMMARY_PROMPT"]

#: The prompt of ``LlmEventSummarizer`` (``{conversation_history}``: the events as ``author: text`` lines).
SUMMARY_PROMPT = (
    "The following is a conversation history between a user and an AI agent. Please summarize the conversation, "
    "focusing on key information and decisions made, as well as any unresolved questions or tasks. The summary "
    "should be concise and capture the essence of the interaction.\\n\\n{conversation_history}"
)

_APPEND = Operation("append")


class ADKCompaction(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of Google ADK's event compaction: U appends summaries, π hides what they cover.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ and V_max — here the bound of the whole session, since no event leaves it.
    compaction_interval : int
        New invocations that trigger a sliding-window compaction (required by ADK; 0 turns it off).
    overlap_size : int
        Invocations before the new ones included again in the next summary (required, as in
        ADK's ``EventsCompactionConfig``, which gives it no default; 0: no overlap).
    token_threshold : int, optional
        Prompt tokens (in μ) that trigger a token-threshold compaction; set with ``event_retention_size``.
    event_retention_size : int, optional
        Raw events kept out of a token-threshold compaction (0: every event since the last
        compaction is compacted, as ADK's ``_events_to_compact_for_token_threshold`` does).
    summarize : callable, optional
        ``summarize(texts, budget) -> str``; default the offline :func:`stmviz.text.summarize`.
    summary_budget : int
        Tokens of a summary (ADK leaves it to the model; default 200).
    agent_name : str
        The author of the model's events in the summarizer's input (ADK: the agent's name).
    system : str, optional
        The agent's instruction, sent as the system message.

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> steps = [AgentStep(observation="Find flights to Oslo."), AgentStep(thought="Found three.", observation="Cheapest?"),
    ...          AgentStep(thought="The 9:40 one.", observation="Book it."), AgentStep(thought="Booked.")]
    >>> trace = run(ADKCompaction(StateSpace(sizes.words, 500), compaction_interval=2, overlap_size=0), steps)
    >>> [m.role for m in trace.project(3)]  # invocations 1–2 summarized after the second ended: one model message
    ['assistant', 'user']
    >>> len(trace.state_at(3)) - len(trace.state_at(2))  # …but no event left ω: 1 reply, 1 summary, 1 user message
    3
    """

    name = "ADKCompaction"
    operations = OperationSet(
        {"append": "append the step's events; when a trigger fires (token threshold, else the sliding window at the "
                   "end of an invocation), append a compaction event summarizing a range of events"}
    )
    element_types = element_types_of(
        {**CHAT_TYPES, "summary": ElementType("summary", "a compaction event: the summary of events in [start, end]",
                                              "#bcbd22", summary=True, label="s[{start},{end}]")}
    )
    #: Where each part of ADK compaction happens.
    placement = {
        N_("append the compaction event (summary of a range)"): "U",
        N_("hide events inside compacted ranges; show non-subsumed summaries"): "π",
    }

    def __init__(
        self,
        space: StateSpace,
        *,
        compaction_interval: int,
        overlap_size: int | None = None,
        token_threshold: int | None = None,
        event_retention_size: int | None = None,
        summarize: Callable[[Sequence[str], int], str] | None = None,
        summary_budget: int = 200,
        agent_name: str = "agent",
        system: str | None = None,
    ) -> None:
        super().__init__(space)
        self.compaction_interval = guards.whole_number(compaction_interval, "compaction_interval", 0)
        if overlap_size is None:
            raise InvalidArgumentError(
                "ADKCompaction needs overlap_size: ADK's EventsCompactionConfig has no default for it (a required "
                "field, like compaction_interval); pass overlap_size=0 for no overlap, or e.g. overlap_size=1"
            )
        self.overlap_size = guards.whole_number(overlap_size, "overlap_size", 0)
        self.token_threshold = guards.whole_number(token_threshold, "token_threshold", 1, none_ok=True)
        self.event_retention_size = guards.whole_number(event_retention_size, "event_retention_size", 0, none_ok=True)
        if (self.token_threshold is None) != (self.event_retention_size is None):
            raise InvalidArgumentError(
                "token_threshold and event_retention_size must be set together (as ADK's EventsCompactionConfig "
                f"requires), got token_threshold={token_threshold!r}, event_retention_size={event_retention_size!r}"
            )
        self.summarize, self._summarize = pluggable_summarizer(summarize)
        self.summary_budget = guards.whole_number(summary_budget, "summary_budget", 1)
        self.agent_name = guards.text(agent_name, "agent_name", example="agent")
        self.system = system
        self._system = system_element(system)
        self._messages = Memo()
        self._splits = Memo(64)

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (a custom summarize is not recorded)."""
        return {
            "compaction_interval": self.compaction_interval,
            "overlap_size": self.overlap_size,
            "token_threshold": self.token_threshold,
            "event_retention_size": self.event_retention_size,
            "summary_budget": self.summary_budget,
            "agent_name": self.agent_name,
            "system": self.system,
        }

    def initial_state(self, context: Context) -> State:
        """ω_0: the agent's instruction (if any)."""
        return State([self._system] if self._system is not None else [])

    def controller(self, state: State, context: Context) -> Operation:
        """Choose o: ``append`` (the triggers are checked inside U, as ADK's runner checks them after events)."""
        return _APPEND

    # -- the session's events --------------------------------------------------------------
    def _events(self, context: Context) -> list[Element]:
        """The step's events: messages with their invocation (user turns so far) and, for a call, the text part ``said``."""
        invocation = sum(1 for s in context.history if s.observation and not s.action and s.meta.get("role") != "system")
        out = []
        for e in step_messages(context.step, context.t, memo=self._messages):
            said = context.step.thought if e.meta.get("call") and e.meta["role"] == "assistant" else None
            if e.meta["role"] == "user":
                invocation += 1
            meta: dict[str, Any] = {"invocation": invocation}
            if said is not None:
                meta["said"] = said
            out.append(e.with_meta(**meta))
        return out

    def raw(self, state: State) -> list[Element]:
        """The raw events of the session (no compaction events, no system message), oldest first."""
        return self._split(state)[0]

    def compactions(self, state: State) -> list[Element]:
        """The compaction events, in the order they were appended."""
        return self._split(state)[1]

    def _split(self, state: State) -> tuple[list[Element], list[Element]]:
        """(raw events in order, compaction events by n) of ω, kept per ω: U and π read them several times a step."""

        def split(elements: frozenset) -> tuple[list[Element], list[Element]]:
            raw, done = [], []
            for e in state.ordered():
                kind = e.meta["type"]
                if kind == "summary":
                    done.append(e)
                elif not e.meta.get("pinned"):
                    raw.append(e)
            return raw, sorted(done, key=lambda e: e.meta["n"])

        return self._splits.lookup(state.elements, split)

    def _text(self, e: Element) -> str:
        """ADK's ``author: text`` line of an event ('' when it has no text part)."""
        if e.type == "summary":
            return f"{self.agent_name}: {e.text}"
        role = e.meta["role"]
        if role == "tool":
            return ""
        text = e.meta.get("said", e.text) if e.meta.get("call") else e.text
        return f"{'user' if role == 'user' else self.agent_name}: {text}" if text else ""

    def _compaction(self, events: list[Element], state: State, t: int, trigger: str) -> Element:
        """The compaction event summarizing ``events`` (a seed summary first, if any)."""
        lines = [line for line in map(self._text, events) if line]
        summary = self._summarize(lines, self.summary_budget)
        start, end = events[0].meta.get("start", _t(events[0])), _t(events[-1])
        n = len(self.compactions(state))
        at = float(end) + GAP * (1 + n % 50) / 51  # just after the range's last event, before the next message
        return Element(summary, {"t": at, "type": "summary", "role": "assistant",
                                 "start": start, "end": end, "n": n, "step": t, "trigger": trigger})

    # -- U ----------------------------------------------------------------------------------
    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω: append the events; when a trigger fires, append a compaction event."""
        if operation.type != "append":
            raise UnsupportedOperationError(f"{self} has no update for {operation.type!r}")  # pragma: no cover
        events = self._events(context)
        for e in events:
            state = state | [e]
            if e.meta["role"] == "assistant" and not e.meta.get("call"):  # a reply: the invocation ended
                fired = self._token_threshold(state, context.t)
                if fired is None:
                    fired = self._sliding_window(state, context.t)
                if fired is not None:
                    state = state | [fired]
                    check_summary_fits(self.space, state, fired, self.summary_budget, "ADKCompaction")
        fired = self._token_threshold(state, context.t)  # the pre-request check before the next model call
        if fired is not None:
            state = state | [fired]
            check_summary_fits(self.space, state, fired, self.summary_budget, "ADKCompaction")
        return Transition(state)

    def _token_threshold(self, state: State, t: int) -> Element | None:
        if self.token_threshold is None or self.event_retention_size is None:
            return None
        if self.prompt_tokens(state) < self.token_threshold:
            return None
        done = self.compactions(state)
        last = max(done, key=lambda e: (e.meta["end"], e.meta["n"])) if done else None
        after = last.meta["end"] if last is not None else float("-inf")
        candidates = [e for e in self.raw(state) if _t(e) > after]
        if len(candidates) <= self.event_retention_size:
            return None
        split = len(candidates) if self.event_retention_size == 0 else self._safe_split(candidates)  # ADK: 0 keeps none
        if split <= 0:
            return None
        events = candidates[:split]
        if last is not None:  # the rolling summary: the previous summary is the first event
            events = [Element(last.text, {"t": last.meta["start"], "type": "summary", "start": last.meta["start"]})] + events
        return self._compaction(events, state, t, "token_threshold")

    def _safe_split(self, candidates: list[Element]) -> int:
        """Where the retained tail starts: ``len − event_retention_size``, moved earlier so no kept result loses its call."""
        initial = len(candidates) - (self.event_retention_size or 0)
        if initial <= 0:
            return 0
        unmatched: set[str] = set()
        for i in range(len(candidates) - 1, -1, -1):
            e = candidates[i]
            if e.meta.get("call"):
                if e.meta["role"] == "tool":
                    unmatched.add(e.meta["call"])
                else:
                    unmatched.discard(e.meta["call"])
            if not unmatched and i <= initial:
                return i
        return 0

    def _sliding_window(self, state: State, t: int) -> Element | None:
        if self.compaction_interval == 0:
            return None
        done = self.compactions(state)
        after = done[-1].meta["end"] if done else float("-inf")
        raw = self.raw(state)
        latest: dict[int, float] = {}
        for e in raw:
            latest[e.meta["invocation"]] = max(latest.get(e.meta["invocation"], float("-inf")), _t(e))
        invocations = list(latest)
        new = [i for i in invocations if latest[i] > after]
        if len(new) < self.compaction_interval:
            return None
        start = invocations[max(0, invocations.index(new[0]) - self.overlap_size)]
        chosen = set(invocations[invocations.index(start): invocations.index(new[-1]) + 1])
        events = [e for e in raw if e.meta["invocation"] in chosen]
        return self._compaction(events, state, t, "sliding_window") if events else None

    # -- π ----------------------------------------------------------------------------------
    def kept_compactions(self, state: State) -> list[Element]:
        """The compaction events π shows: those no other range contains (a same range: the later one wins).

        In the order (start, −end, −n), a range is contained in another exactly when some range before
        it ends at or after its end: one pass with the largest end so far.
        """
        kept, reach = [], float("-inf")
        for e in sorted(self.compactions(state), key=lambda e: (e.meta["start"], -e.meta["end"], -e.meta["n"])):
            if reach < e.meta["end"]:
                kept.append(e)
            reach = max(reach, e.meta["end"])
        return sorted(kept, key=lambda e: e.meta["n"])

    def visible(self, state: State) -> list[Element]:
        """The events of the request: raw events outside every kept range, and the kept summaries at their ends."""
        kept = self.kept_compactions(state)
        starts: list[float] = []
        ends: list[float] = []  # the kept ranges merged into disjoint intervals, in order
        for start, end in sorted((e.meta["start"], e.meta["end"]) for e in kept):
            if ends and start <= ends[-1]:
                ends[-1] = max(ends[-1], end)
            else:
                starts.append(start)
                ends.append(end)

        def hidden(e: Element) -> bool:
            k = bisect_right(starts, _t(e)) - 1
            return k >= 0 and _t(e) <= ends[k]

        raw = [e for e in self.raw(state) if not hidden(e)]
        return sorted(raw + kept, key=lambda e: (float(e.meta["end"]) + 0.001 if e.type == "summary" else _t(e)))

    def prompt_tokens(self, state: State) -> float:
        """Σμ of the events π shows (the prompt's size in μ, system message included)."""
        measure = self.space.measure
        return sum(measure(e) for e in self.visible(state)) + (measure(self._system) if self._system is not None else 0)

    def project(self, state: State) -> ModelInput:
        """The projection π: the instruction, then the events with compacted ones replaced by their summary (``contents.py``)."""
        head = list(as_model_input([self._system])) if self._system is not None else []
        return ModelInput(head + [Message(str(e.meta["role"]), e.content) for e in self.visible(state)])


def _t(e: Element) -> float:
    """An event's timestamp: its t."""
    return float(e.meta["t"])
