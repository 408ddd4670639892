"""MemGPT / Letta: core memory blocks in the system prompt, a message queue compacted by a sliding window, and paging by tool calls.

Source: ``letta-ai/letta`` release 0.16.8 (the last before the server repository was archived,
August 2026; every rule below is read there) — ``letta/services/summarizer/summarizer_sliding_window.py``
(``summarize_via_sliding_window``), ``letta/services/summarizer/thresholds.py``
and ``letta/constants.py`` (``SUMMARIZATION_TRIGGER_MULTIPLIER = 0.9``,
``CORE_MEMORY_PERSONA_CHAR_LIMIT`` / ``CORE_MEMORY_HUMAN_CHAR_LIMIT`` = 20,000, not enforced
on an edit: ``core_memory_append`` / ``core_memory_replace`` in ``letta/services/tool_executor/core_tool_executor.py``
write the new value and return it; ``DEFAULT_PERSONA_BLOCK_DESCRIPTION`` / ``DEFAULT_HUMAN_BLOCK_DESCRIPTION``),
``letta/schemas/memory.py`` (``Memory._render_memory_blocks_standard``: each block with its
``<description>``, ``<metadata>`` and ``<value>``),
``RETRIEVAL_QUERY_DEFAULT_PAGE_SIZE = 5``), ``letta/services/summarizer/summarizer_config.py``
(``CompactionSettings``: mode ``sliding_window``, ``sliding_window_percentage`` =
``partial_evict_summarizer_percentage`` = 0.3, ``clip_chars`` = 50,000),
``letta/services/summarizer/compact.py`` (fallback to summarizing everything),
``letta/system.py`` (the summary message) and the base tools
``core_memory_append``, ``core_memory_replace``, ``archival_memory_insert``,
``archival_memory_search``, ``conversation_search``; the MemGPT paper
(Packer et al., 2023, arXiv 2310.08560).

How it works, in the paper's terms:

- **ω** holds the *main context*: the core memory blocks (``persona``,
  ``human``, each with a character limit; e.type ``core``), the in-context
  message queue, and the summary message of what was evicted. Archival memory
  and recall memory (every message ever, searchable) are *external* context:
  they are not in ω; stmviz rebuilds them from the history in c.
- **U**: the step's messages join the queue. A memory tool call the agent
  makes — a directive of the step named after the tool, which stands for
  the step's tool call (an ``action`` of the same step is not used) — edits a core block
  (append / replace, refused past the block's limit), inserts a passage into
  archival memory, or searches archival or recall memory; its result (a page
  of at most 5 hits) enters the queue as the tool's message: that is paging.
  Then, if the context (system prompt with core memory + queue) exceeds
  0.9 × the window, the sliding window compacts: it cuts at 40 %, 50 %, … of
  the messages (the first cut past 30 %), each time at the last assistant
  message before the cut, until the system prompt and the messages after the
  cut take less than (1 − 0.3) × the window; everything before the cut (an
  earlier summary included) is summarized, and the summary message takes
  its place right after the system prompt. If no cut works, everything is
  summarized. As Letta's ``compact_messages`` does, when the context is still
  at or above the trigger after the sliding window, everything in context
  (the new summary message included) is summarized again (``summarize_all``),
  and Letta carries on even if that is still over. stmviz must keep
  Σμ ≤ V_max (Definition 1): a summary that would leave the context over V_max
  is cut to fit and marked so (a stmviz bound, labelled in the reason).
- **π**: the system message — base instructions and the core blocks rendered
  with their sizes and limits — then the summary message, then the queue.

Departures (docs/fidelity.md, "Letta"):

- tokens are μ; Letta counts with the model's tokenizer, per-message overheads
  and a safety margin, and from the model's reported usage for the trigger;
- the summary comes from stmviz's pluggable summarizer with
  :data:`SUMMARY_PROMPT` (MemGPT's summarizer instruction) available to an
  adapter; its text is clipped at ``clip_chars``;
- the trigger is 0.9 of the window for every model (Letta uses 0.9 for the
  GPT-5 family and proactive paths, 1.0 otherwise);
- memory tool calls are read from the step's directives (Letta parses the
  model's function call); archival search ranks by stmviz's offline embedding
  (Letta: the agent's embedding model), recall search by a case-insensitive
  substring match; the search results' wording is stmviz's (not verified);
  an edit's result is the block's new value, as 0.16.8 returns it;
- the summary message follows 0.16.8's ``package_summarize_message_no_counts``:
  after a sliding window "Note: N messages from the beginning of the
  conversation have been hidden …" (N: the in-context messages before less
  those after), after summarizing everything "Note: prior messages have been
  hidden …"; it is a user message holding a JSON ``system_alert`` (Letta may
  use a ``summary`` role instead); the time field is the step;
- the rest of Letta's system prompt around the memory blocks (tool rules,
  memory metadata, the agent type's base instructions) is not reproduced.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.context import AgentStep, Context
from ..core.element import Element
from ..core.errors import InvalidArgumentError, UnsupportedOperationError
from ..core.formatting import format_number
from ..core.i18n import N_
from ..core.i18n import gettext as _
from ..core.mechanism import Mechanism, Transition
from ..core.model_input import Message, ModelInput
from ..core.operation import Operation, OperationSet
from ..protocol import ElementType, element_types_of
from ..core.space import State, StateSpace
from ..core import guards
from ..text.pluggable import pluggable_summarizer
from .._fast.memo import Memo
from .conversation import CHAT_TYPES, INPUT, TOOL_RESULT, step_messages

__all__ = ["LettaMemory", "SUMMARY_PROMPT", "MEMORY_TOOLS", "DEFAULT_PERSONA", "DEFAULT_HUMAN", "BLOCK_DESCRIPTIONS"]

#: MemGPT's summarizer instruction (``{budget}``: its word limit, 100 in MemGPT; ``{text}``: the messages).
SUMMARY_PROMPT = (
    "Your job is to summarize a history of previous messages in a conversation between an AI persona and a human.\n"
    "The conversation you are given is a from a fixed context window and may not be complete.\n"
    "Messages sent by the AI are marked with the 'assistant' role.\n"
    "The AI 'assistant' can also make calls to functions, whose outputs can be seen in messages with the 'function' role.\n"
    "Things the AI says in the message content are considered inner monologue and are not seen by the user.\n"
    "The only AI messages seen by the user are from when the AI uses 'send_message'.\n"
    "Messages the user sends are in the 'user' role.\n"
    "The 'user' role is also used for important system events, such as login events and heartbeat events "
    "(heartbeats run the AI's program without user action, allowing the AI to act without prompting from the user "
    "sending them a message).\n"
    "Summarize what happened in the conversation from the perspective of the AI (use the first person).\n"
    "Keep your summary less than {budget} words, do NOT exceed this word limit.\n"
    "Only output the summary, do NOT include anything else in your output.\n\n{text}"
)

#: The memory tools the agent calls (directives of a step), with their arguments.
MEMORY_TOOLS = {
    "core_memory_append": ("label", "content"),
    "core_memory_replace": ("label", "old_content", "new_content"),
    "archival_memory_insert": ("content",),
    "archival_memory_search": ("query",),
    "conversation_search": ("query",),
}

#: The blocks' descriptions Letta 0.16.8 renders (``DEFAULT_PERSONA_BLOCK_DESCRIPTION``, ``DEFAULT_HUMAN_BLOCK_DESCRIPTION``
#: in ``letta/constants.py``; Apache-2.0).
BLOCK_DESCRIPTIONS = {
    "persona": "The persona block: Stores details about your current persona, guiding how you behave and respond. "
               "This helps you to maintain consistency and personality in your interactions.",
    "human": "The human block: Stores key details about the person you are conversing with, allowing for more "
             "personalized and friend-like conversation.",
}
DEFAULT_PERSONA = "I am a helpful assistant. I keep what I learn about the user in my core memory."
DEFAULT_HUMAN = "Nothing is known about the user yet."
PAGE_SIZE = 5
_APPEND = Operation("append")


class LettaMemory(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of MemGPT/Letta: core memory in the system prompt, a sliding-window-compacted queue, paging by tools.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ and V_max.
    context_window : int, optional
        The model's window in μ (default V_max).
    system : str
        The base instructions at the head of the system prompt.
    persona, human : str
        The initial values of the two core memory blocks.
    block_limit : int
        The ``chars_limit`` each core block shows (Letta 0.16.8's 20,000 for persona and human);
        as in 0.16.8 an edit past it is not refused.
    trigger : float
        Compaction fires when the context passes ``trigger × context_window`` (0.9).
    sliding_window_percentage : float
        Letta's 0.3: the first cut is past this share of the messages, and the
        kept part must fit (1 − it) × the window.
    summarize : callable, optional
        ``summarize(texts, budget) -> str``; default the offline :func:`stmviz.text.summarize`.
        For a model: ``OpenAISummarizer(client, model, prompt=SUMMARY_PROMPT)``.
    summary_budget : int
        Tokens of a summary (MemGPT asks for under 100 words; default 150 tokens).
    clip_chars : int
        Characters a summary is clipped to (Letta's 50,000).

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> letta = LettaMemory(StateSpace(sizes.words, 200), system="You are Sam.")
    >>> steps = [AgentStep(observation="Hi, I am Ann and I live in Oslo."),
    ...          AgentStep(thought="Saving that.", directives={"core_memory_append": {"label": "human", "content": "Name: Ann. City: Oslo."}}),
    ...          AgentStep(thought="Nice to meet you, Ann!")]
    >>> trace = run(letta, steps)
    >>> print(letta.block(trace.final, "human"))
    Nothing is known about the user yet.
    Name: Ann. City: Oslo.
    >>> [m.role for m in trace.project(3)]
    ['system', 'user', 'assistant', 'tool', 'assistant']
    """

    name = "LettaMemory"
    operations = OperationSet(
        {"append": "add the step's messages, run the agent's memory tool calls (edit core memory, insert or search "
                   "archival / recall memory), then compact the queue with the sliding window past 0.9 of the window"}
    )
    directives = {name: f"the agent calls {name}({', '.join(args)})" for name, args in MEMORY_TOOLS.items()}
    element_types = element_types_of(
        {
            **CHAT_TYPES,
            "core": ElementType("core", "a core memory block (persona, human) rendered into the system prompt", "#de9ed6",
                                label="{label}"),
            "summary": ElementType("summary", "the summary message of the evicted messages", "#bcbd22", summary=True),
        }
    )
    #: Where each part of Letta happens.
    placement = {
        N_("core memory edits (core_memory_append / replace)"): "U",
        N_("paging: archival / recall search results enter the queue"): "U",
        N_("sliding-window compaction with the summary message"): "U",
        N_("core memory blocks rendered into the system prompt"): "π",
    }

    def __init__(
        self,
        space: StateSpace,
        *,
        context_window: int | None = None,
        system: str = "You are a helpful assistant with a self-editing memory.",
        persona: str = DEFAULT_PERSONA,
        human: str = DEFAULT_HUMAN,
        block_limit: int = 20_000,
        trigger: float = 0.9,
        sliding_window_percentage: float = 0.3,
        summarize: Callable[[Sequence[str], int], str] | None = None,
        summary_budget: int = 150,
        clip_chars: int = 50_000,
    ) -> None:
        super().__init__(space)
        window = space.v_max if context_window is None else guards.whole_number(context_window, "context_window", 1)
        if window > space.v_max:
            raise InvalidArgumentError(
                f"context_window = {context_window} > V_max = {format_number(space.v_max)}: the main context must fit "
                f"Ω_STM; pass context_window ≤ V_max or raise v_max"
            )
        self.context_window = window
        self.system = guards.text(system, "system", example="You are Sam.")
        self.persona = guards.text(persona, "persona", example=DEFAULT_PERSONA)
        self.human = guards.text(human, "human", example=DEFAULT_HUMAN)
        self.block_limit = guards.whole_number(block_limit, "block_limit", 1)
        self.trigger = guards.real_number(trigger, "trigger", 0, 1, low_open=True)
        self.sliding_window_percentage = guards.real_number(sliding_window_percentage, "sliding_window_percentage", 0, 1, low_open=True)
        self.summarize, self._summarize = pluggable_summarizer(summarize)
        self.summary_budget = guards.whole_number(summary_budget, "summary_budget", 1)
        self.clip_chars = guards.whole_number(clip_chars, "clip_chars", 1)
        self._messages = Memo()
        self._embeddings = Memo()

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (a custom summarize is not recorded)."""
        return {
            "context_window": self.context_window, "system": self.system, "persona": self.persona, "human": self.human,
            "block_limit": self.block_limit, "trigger": self.trigger,
            "sliding_window_percentage": self.sliding_window_percentage, "summary_budget": self.summary_budget,
            "clip_chars": self.clip_chars,
        }

    # -- ω -------------------------------------------------------------------------------------
    def _core(self, label: str, value: str, k: int) -> Element:
        return Element(value, {"t": -1 + k / 10, "type": "core", "label": label, "limit": self.block_limit, "pinned": True})

    def initial_state(self, context: Context) -> State:
        """ω_0: the two core memory blocks (the base instructions are π's text, not an element)."""
        return State([self._core("persona", self.persona, 1), self._core("human", self.human, 2)])

    @staticmethod
    def block(state: State, label: str) -> str:
        """The value of the core block ``label``."""
        return next(e.text for e in state if e.type == "core" and e.meta["label"] == label)

    def queue(self, state: State) -> list[Element]:
        """The in-context messages after the system prompt: the summary message first, then the queue, oldest first."""
        return [e for e in state.ordered() if e.type != "core"]

    def system_prompt(self, state: State) -> str:
        """The system message: the base instructions and the core memory blocks with their sizes and limits."""
        blocks = sorted((e for e in state if e.type == "core"), key=lambda e: e.t or 0)
        parts = [
            f"<{e.meta['label']}>\n<description>\n{BLOCK_DESCRIPTIONS.get(e.meta['label'], '')}\n</description>\n"
            f"<metadata>\n- chars_current={len(e.text)}\n- chars_limit={e.meta['limit']}\n"
            f"</metadata>\n<value>\n{e.text}\n</value>\n</{e.meta['label']}>\n"
            for e in blocks
        ]
        memory = "<memory_blocks>\nThe following memory blocks are currently engaged in your core memory unit:\n\n"
        return f"{self.system}\n\n{memory}" + "\n".join(parts) + "\n</memory_blocks>"

    def context_tokens(self, state: State) -> float:
        """The context's size in μ: the system prompt (with core memory) and every in-context message."""
        measure = self.space.measure
        return measure(Element(self.system_prompt(state))) + sum(measure(e) for e in self.queue(state))

    # -- U -------------------------------------------------------------------------------------
    def controller(self, state: State, context: Context) -> Operation:
        """Choose o: ``append`` (tool calls and compaction run inside U, as Letta's agent step runs them)."""
        return _APPEND

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω: the step's messages and memory tool calls, then the sliding window."""
        if operation.type != "append":
            raise UnsupportedOperationError(f"{self} has no update for {operation.type!r}")  # pragma: no cover
        calls = [(name, context.step.directives[name]) for name in MEMORY_TOOLS if name in context.step.directives]
        removed: dict[Element, str] = {}
        if calls:
            new, cores = self._tool_step(state, context, calls)
            for old, fresh in cores.items():
                removed[old] = _("core block {label} edited by the agent's tool call").format(label=repr(old.meta["label"]))
                state = state.replace([old], [fresh])
        else:
            new = step_messages(context.step, context.t, memo=self._messages)
        state = state | new
        if self.context_tokens(state) > self.trigger * self.context_window:
            state, evicted = self.compact(state, context.t)
            removed.update(evicted)
        return Transition(state, removed)

    def _fits(self, state: State) -> bool:
        return self.space.size(state) <= self.space.v_max

    def _tool_step(
        self, state: State, context: Context, calls: list[tuple[str, Any]]
    ) -> tuple[list[Element], dict[Element, Element]]:
        """The messages of a step whose output calls memory tools: the call, the tools' results, then any input.

        The call and its result are the messages of the step as if its action were the memory calls and its input
        their results; Letta runs the tools itself, so their result takes the slot t + ¼, before the step's own input
        (a user message, at t + ½; an action's result is replaced by the memory tools').
        """
        t, step = context.t, context.step
        said = "\n".join(f"{name}({json.dumps(dict(args) if isinstance(args, Mapping) else args)})" for name, args in calls)
        cores: dict[Element, Element] = {}
        results = []
        for name, args in calls:
            text, edited = self._run_tool(state, context, name, args)
            results.append(text)
            if edited is not None:
                old = next(e for e in state if e.type == "core" and e.meta["label"] == edited.meta["label"])
                cores[old] = edited
                state = state.replace([old], [edited])
        call, result = step_messages(AgentStep(thought=step.thought, action=said, observation="\n".join(results)), t)
        out = [call, result.with_meta(t=t + TOOL_RESULT)]
        if step.observation and not step.action:
            user = AgentStep(observation=step.observation, meta=step.meta)
            out += [e.with_meta(t=t + INPUT) for e in step_messages(user, t)]
        return out, cores

    def _run_tool(self, state: State, context: Context, name: str, args: Any) -> tuple[str, Element | None]:
        """One memory tool call: its result text, and the edited core block if it edited one."""
        if not isinstance(args, Mapping):
            return f"Error: {name} takes arguments {', '.join(MEMORY_TOOLS[name])}, got {args!r}", None
        if name in ("core_memory_append", "core_memory_replace"):
            label = args.get("label")
            block = next((e for e in state if e.type == "core" and e.meta["label"] == label), None)
            if block is None:
                return f"Error: no core memory block {label!r} (blocks: persona, human)", None
            if name == "core_memory_append":
                value = block.text + "\n" + str(args.get("content", ""))
            else:
                old = str(args.get("old_content", ""))
                if not old or old not in block.text:
                    return f"Error: Old content '{old}' not found in memory block '{label}'", None  # 0.16.8's ValueError text
                value = block.text.replace(old, str(args.get("new_content", "")))
            return value, None if value == block.text else Element(value, dict(block.meta))  # 0.16.8: no limit check
        if name == "archival_memory_insert":
            return "None", None
        query = str(args.get("query", ""))
        page = args.get("page", 0) if isinstance(args.get("page", 0), int) else 0
        hits = self._archival_hits(context, query) if name == "archival_memory_search" else self._recall_hits(context, query)
        shown = hits[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
        pages = max(1, -(-len(hits) // PAGE_SIZE))
        return f"Showing {len(shown)} of {len(hits)} results (page {page}/{pages - 1}): {json.dumps(shown)}", None

    def _archival_hits(self, context: Context, query: str) -> list[str]:
        """Archival memory (every passage inserted so far), ranked by similarity to the query."""
        from ..text import cosine, embed

        passages = [str(args.get("content", "")) for step in [*context.history, context.step]
                    for name, args in step.directives.items()
                    if name == "archival_memory_insert" and isinstance(args, Mapping)]
        q = self._embeddings.lookup(query, embed)
        scored = sorted(((-cosine(q, self._embeddings.lookup(p, embed)), k, p) for k, p in enumerate(passages)))
        return [p for _, _, p in scored]

    def _recall_hits(self, context: Context, query: str) -> list[str]:
        """Recall memory (every message so far, evicted ones too) that contains the query, newest first."""
        needle = query.lower()
        texts = [
            f"{e.meta['role']}: {e.text}"
            for t, step in enumerate(context.history) for e in step_messages(step, t)
        ]
        return [x for x in reversed(texts) if needle in x.lower()]

    def compact(self, state: State, t: int) -> tuple[State, dict[Element, str]]:
        """The sliding window of ``summarize_via_sliding_window`` (everything summarized when no cut works)."""
        measure = self.space.measure
        messages = self.queue(state)  # in-context[1:], the summary message first
        total = len(messages) + 1  # with the system prompt
        system_tokens = measure(Element(self.system_prompt(state)))
        goal = (1 - self.sliding_window_percentage) * self.context_window
        eviction, approx, cut = self.sliding_window_percentage, float(self.context_window), None
        while approx >= goal and eviction < 1.0:
            eviction += 0.10
            cutoff = round(eviction * total)
            cut = next((i for i in range(min(cutoff, total - 1), 0, -1) if messages[i - 1].meta.get("role") == "assistant"
                        and messages[i - 1].type != "summary"), None)
            if cut is None:
                continue
            approx = system_tokens + sum(measure(e) for e in messages[cut - 1:])
        if cut is None or eviction >= 1.0 or cut >= total - 1:
            return self._summarized(state, messages, "all", t)  # Letta falls back to summarizing every message
        compacted, removed = self._summarized(state, messages[: cut - 1], "sliding_window", t)
        if self.context_tokens(compacted) >= self.trigger * self.context_window:  # compact_messages' fallback
            again, removed_again = self._summarized(compacted, self.queue(compacted), "all", t)
            removed.update({e: why for e, why in removed_again.items() if e in state})
            compacted = again
        return compacted, removed

    def _summarized(self, state: State, evicted: list[Element], mode: str, t: int) -> tuple[State, dict[Element, str]]:
        """ω with ``evicted`` replaced by the summary message of them."""
        lines = [f"{e.meta.get('role', 'user')}: {e.text}" for e in evicted]
        summary = self._summarize(lines, self.summary_budget)
        if len(summary) > self.clip_chars:
            summary = summary[: self.clip_chars] + "... [summary truncated to fit]"
        hidden = len(evicted) - 1  # Letta's count: in-context messages before less after (the summary message is new)
        meta: dict[str, Any] = {"t": -0.5, "type": "summary", "role": "user", "step": t, "mode": mode, "hidden": hidden}
        message = _alert(summary, len(summary), t, meta)
        words = {"trigger": format_number(self.trigger), "window": format_number(self.context_window)}
        why = _(_COMPACTED[mode]).format(**words)
        result = state.replace(evicted, [message])
        if not self._fits(result):  # Letta carries on over its window; Definition 1 does not: cut the summary to fit
            cut_to = _longest_fitting(len(summary), lambda n: self._fits(state.replace(evicted, [_alert(summary, n, t, meta)])))
            result = state.replace(evicted, [_alert(summary, cut_to, t, meta)])
            why = _(_COMPACTED_CUT[mode]).format(**words, chars=len(summary), cut=cut_to, v_max=format_number(self.space.v_max))
        return result, {e: why for e in evicted}

    # -- π -------------------------------------------------------------------------------------
    def project(self, state: State) -> ModelInput:
        """The projection π: the system prompt with core memory, then the summary message and the queue."""
        return ModelInput([Message("system", self.system_prompt(state))]
                          + [Message(str(e.meta.get("role", "user")), e.content) for e in self.queue(state)])


#: Why messages left at a compaction, by its mode; and the same when the summary had to be cut to fit V_max.
_COMPACTED = {
    "all": N_("compacted (all): context μ > {trigger} × window {window}; summarized into the summary message"),
    "sliding_window": N_("compacted (sliding window): context μ > {trigger} × window {window}; summarized into the summary "
                         "message"),
}
_COMPACTED_CUT = {
    "all": N_("compacted (all): context μ > {trigger} × window {window}; summarized into the summary message (the summary, "
              "{chars} characters, was cut to {cut} to fit V_max = {v_max}: a stmviz bound)"),
    "sliding_window": N_("compacted (sliding window): context μ > {trigger} × window {window}; summarized into the summary "
                         "message (the summary, {chars} characters, was cut to {cut} to fit V_max = {v_max}: a stmviz bound)"),
}


def _alert(summary: str, n: int, t: int, meta: dict[str, Any]) -> Element:
    """The summary message (0.16.8's ``package_summarize_message_no_counts``), the summary cut to ``n`` characters.

    After a sliding window it says how many messages were hidden; after summarizing everything, "prior
    messages". A summary cut to fit V_max (a stmviz bound: see ``_summarized``) says so and is marked ``cut``.
    """
    cut = n < len(summary)
    text = summary[:n] + ("... [summary cut to fit V_max]" if cut else "")
    if meta["mode"] == "sliding_window":
        note = (f"Note: {meta['hidden']} messages from the beginning of the conversation have been hidden from view due "
                "to memory constraints.\n")
    else:
        note = "Note: prior messages have been hidden from view due to conversation memory constraints.\n"
    alert = note + f"The following is a summary of the previous messages:\n {text}"
    return Element(json.dumps({"type": "system_alert", "message": alert, "time": f"step {t}"}), {**meta, "cut": cut})


def _longest_fitting(n: int, fits: Callable[[int], bool]) -> int:
    """The largest k ≤ n with ``fits(k)`` (0 if none), by bisection: fits is monotone in k."""
    low, high = 0, n
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low
