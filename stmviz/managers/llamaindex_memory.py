"""LlamaIndex's ``Memory``: a token-bounded FIFO queue that waterfalls into memory blocks rendered into the system message.

Source: ``run-llama/llama_index``, ``llama-index-core``,
``llama_index/core/memory/memory.py`` (class ``Memory``; checked against
llama-index-core 0.14.25) with ``memory_blocks/static.py``
(``StaticMemoryBlock``) and ``memory_blocks/fact.py``
(``FactExtractionMemoryBlock``); the agent side is
``llama_index/core/agent/workflow/base_agent.py`` (the agent's system prompt is
sent before what ``memory.aget()`` returns).

How the original works, in the paper's terms:

- **U — the waterfall** (``_manage_queue``, after every ``put``): when the
  active chat history holds more than ``token_limit × chat_history_token_ratio``
  tokens (30,000 × 0.7 = 21,000 by default), it takes the oldest messages
  until at least ``token_flush_size`` tokens are gathered (always leaving one
  message), then keeps taking messages until the queue starts with a *user*
  message; if that would leave nothing but a non-user message, the last
  complete turn (from its user message on) goes back into the queue. The taken
  messages are archived (they leave the active queue: they leave ω) and handed
  to every memory block (``aput``): a static block ignores them, a fact block
  extracts facts from them with an LLM. It repeats while still over the limit.
  A turn is never split at the front, so a tool result never loses its call.
- **π — the memory blocks** (``aget``): each block's content (asked in
  priority order), and if blocks + history exceed ``token_limit`` the blocks
  are dropped whole — the lowest-numbered priority first, priority 0 never —
  until they fit. The rest are rendered into ``<memory><name>…</name></memory>``
  and put in front of the first system message of the history (or a new system
  message at the start; with ``insert_method="user"``, in front of the latest
  user message). The agent's own system prompt comes before all of it.

stmviz keeps the queue and the blocks in ω (e.type ``user`` … ``tool`` and
``block``) and does the waterfall in U, the rendering and truncation in π.

Departures (docs/fidelity.md, "LlamaIndex Memory"):

- tokens are μ (``space.measure``) of the message text; LlamaIndex counts
  ``tokenizer_fn`` tokens of the text blocks plus ``str(additional_kwargs)``
  (tool-call ids and arguments stored there); with no kwargs and μ the same
  tokenizer the counts agree (tests/mechanisms/test_peers_b.py checks the
  model input at every step, with static blocks and with a fact block whose
  LLM is a stand-in answering with stmviz's facts);
- a fact block's facts come from stmviz's pluggable summarizer (the sentences of
  a summary of the flushed messages), not from an LLM answering
  :data:`FACT_EXTRACT_PROMPT`; the prompt is here for an adapter;
- archived messages leave ω (LlamaIndex keeps them in its SQL store with the
  status ARCHIVED, outside what the model sees).

Not verified: the original's ``priority`` field says "0 = never truncate, 1 =
highest priority", yet its truncation visits blocks in ascending priority, so
priority 1 is dropped first; stmviz does what the code does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.context import Context
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
from .conversation import CHAT_TYPES, as_model_input, step_messages, system_element

__all__ = ["LlamaIndexMemory", "MemoryBlock", "FACT_EXTRACT_PROMPT", "DEFAULT_TOKEN_LIMIT", "DEFAULT_FLUSH_SIZE"]

#: LlamaIndex's defaults: the token limit of history + blocks, and the flush size (10 % of it).
DEFAULT_TOKEN_LIMIT = 30_000
DEFAULT_FLUSH_SIZE = int(DEFAULT_TOKEN_LIMIT * 0.1)

#: The instruction ``FactExtractionMemoryBlock`` sends after the flushed messages (``{existing_facts}``: the facts so far).
FACT_EXTRACT_PROMPT = """You are a precise fact extraction system designed to identify key information from conversations.

INSTRUCTIONS:
1. Review the conversation segment provided prior to this message
2. Extract specific, concrete facts the user has disclosed or important information discovered
3. Focus on factual information like preferences, personal details, requirements, constraints, or context
4. Format each fact as a separate <fact> XML tag
5. Do not include opinions, summaries, or interpretations - only extract explicit information
6. Do not duplicate facts that are already in the existing facts list

<existing_facts>
{existing_facts}
</existing_facts>

Return ONLY the extracted facts in this exact format:
<facts>
  <fact>Specific fact 1</fact>
  <fact>Specific fact 2</fact>
  <!-- More facts as needed -->
</facts>

If no new facts are present, return: <facts></facts>"""

_KINDS = ("static", "facts")
_INSERT = ("system", "user")
_APPEND = Operation("append")


@dataclass(frozen=True)
class MemoryBlock:
    """One LlamaIndex memory block: a name, a priority, and what it holds.

    ``kind="static"`` is ``StaticMemoryBlock`` (fixed ``content``; ignores
    flushed messages); ``kind="facts"`` is ``FactExtractionMemoryBlock``
    (facts gathered from flushed messages, at most ``max_facts``).
    Priority 0 is never truncated; others are dropped lowest number first.
    """

    name: str
    content: str = ""
    priority: int = 0
    kind: str = "static"
    max_facts: int = 50

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise InvalidArgumentError(f"a memory block's name is a tag name such as 'core_info', got {self.name!r}")
        guards.choice(self.kind, f"memory block {self.name!r}: kind", _KINDS, "StaticMemoryBlock or FactExtractionMemoryBlock")
        guards.whole_number(self.priority, f"memory block {self.name!r}: priority", 0)
        guards.whole_number(self.max_facts, f"memory block {self.name!r}: max_facts", 1)
        guards.text(self.content, f"memory block {self.name!r}: content", blank_ok=True)
        if self.kind == "static" and not self.content.strip():
            raise InvalidArgumentError(f"static memory block {self.name!r} has no content; give content='...'")


class LlamaIndexMemory(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of LlamaIndex's ``Memory``: U waterfalls old turns into blocks, π renders the blocks.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ (LlamaIndex's ``tokenizer_fn``) and V_max ≥ ``token_limit``.
    token_limit : int
        The token budget of chat history + memory blocks (default 30,000).
    chat_history_token_ratio : float
        The share of ``token_limit`` the history may fill before a flush (default 0.7).
    token_flush_size : int
        Tokens taken per flush (default 3,000, 10 % of the default limit);
        one larger than ``token_limit`` becomes 70 % of it, as
        ``Memory.from_defaults`` does.
    blocks : sequence of MemoryBlock
        The memory blocks, in the order they are rendered.
    insert_method : {"system", "user"}
        Where the rendered blocks go: the first system message, or the latest user message.
    system : str, optional
        The agent's system prompt, sent before the memory's messages.
    summarize : callable, optional
        ``summarize(texts, budget) -> str`` for fact blocks (default offline).
    fact_budget : int
        Tokens of the summary a fact block turns into facts per flush (default 60).

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> memory = LlamaIndexMemory(StateSpace(sizes.words, 40), token_limit=20, token_flush_size=4,
    ...                           blocks=[MemoryBlock("core_info", "The user is Ann.")])
    >>> steps = [AgentStep(observation="Hi, I am Ann and I like cats"), AgentStep(thought="Nice to meet you Ann",
    ...          observation="Which cat food is best for kittens"), AgentStep(thought="Try a wet food")]
    >>> trace = run(memory, steps)
    >>> [(m.role, m.content[:9]) for m in trace.project(1)]
    [('system', '<memory>\\n'), ('user', 'Hi, I am ')]
    >>> [(m.role, m.content[:9]) for m in trace.project(2)]  # 8 + 5 + 7 words > 20 × 0.7: the first turn was flushed
    [('system', '<memory>\\n'), ('user', 'Which cat')]
    >>> print(trace.project(2)[0].content)
    <memory>
    <core_info>
    The user is Ann.
    </core_info>
    </memory>
    """

    name = "LlamaIndexMemory"
    operations = OperationSet(
        {"append": "put the step's messages one by one; after each, flush the oldest turns into the memory blocks "
                   "while the history exceeds token_limit × chat_history_token_ratio"}
    )
    element_types = element_types_of(
        {**CHAT_TYPES, "block": ElementType("block", "a memory block rendered into the system message", "#ad494a",
                                            summary=True, label="{name}")}
    )
    #: Where each part of Memory happens.
    placement = {
        N_("flush the oldest turns into the memory blocks (waterfall)"): "U",
        N_("fact extraction from flushed messages"): "U",
        N_("memory blocks rendered into the system message"): "π",
        N_("truncation of blocks by priority"): "π",
    }

    def __init__(
        self,
        space: StateSpace,
        *,
        token_limit: int = DEFAULT_TOKEN_LIMIT,
        chat_history_token_ratio: float = 0.7,
        token_flush_size: int = DEFAULT_FLUSH_SIZE,
        blocks: Iterable[MemoryBlock] = (),
        insert_method: str = "system",
        system: str | None = None,
        summarize: Callable[[Sequence[str], int], str] | None = None,
        fact_budget: int = 60,
    ) -> None:
        super().__init__(space)
        self.token_limit = guards.whole_number(token_limit, "token_limit", 1)
        if self.token_limit > space.v_max:
            raise InvalidArgumentError(
                f"token_limit = {token_limit} > V_max = {format_number(space.v_max)}: LlamaIndex's token_limit is the "
                f"budget of history + memory blocks, which must fit Ω_STM; pass token_limit ≤ V_max or raise v_max"
            )
        self.chat_history_token_ratio = guards.real_number(chat_history_token_ratio, "chat_history_token_ratio", 0, 1, low_open=True)
        flush = guards.whole_number(token_flush_size, "token_flush_size", 1)
        self.token_flush_size = int(self.token_limit * 0.7) if flush > self.token_limit else flush
        if isinstance(blocks, MemoryBlock):
            blocks = [blocks]
        self.blocks = tuple(blocks)
        if not all(isinstance(b, MemoryBlock) for b in self.blocks):
            raise InvalidArgumentError("blocks must be MemoryBlock objects, e.g. MemoryBlock('core_info', 'The user is Ann.')")
        names = [b.name for b in self.blocks]
        if len(names) != len(set(names)):
            raise InvalidArgumentError(f"memory blocks need unique names, got {names}")
        self.insert_method = guards.choice(insert_method, "insert_method", _INSERT, "the first system message, or the latest user message")
        self.system = system
        self._system = system_element(system)
        self.summarize, self._summarize = pluggable_summarizer(summarize)
        self.fact_budget = guards.whole_number(fact_budget, "fact_budget", 1)
        self._messages = Memo()
        self._sizes = Memo()

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (a custom summarize is not recorded)."""
        return {
            "token_limit": self.token_limit,
            "chat_history_token_ratio": self.chat_history_token_ratio,
            "token_flush_size": self.token_flush_size,
            "insert_method": self.insert_method,
            "system": self.system,
            "fact_budget": self.fact_budget,
        }

    # -- ω ----------------------------------------------------------------------------
    def _block_element(self, index: int, block: MemoryBlock, content: str) -> Element:
        return Element(content, {"t": -1 + (index + 1) / (len(self.blocks) + 2), "type": "block", "name": block.name,
                                 "priority": block.priority, "kind": block.kind, "index": index, "pinned": True})

    def initial_state(self, context: Context) -> State:
        """ω_0: the system prompt (if any) and the static memory blocks (a fact block enters ω with its first fact)."""
        items = [self._block_element(k, b, b.content) for k, b in enumerate(self.blocks) if b.kind == "static"]
        if self._system is not None:
            items.append(self._system)
        return State(items)

    def queue(self, state: State) -> list[Element]:
        """The active chat history (the FIFO queue), oldest first."""
        return [e for e in state.ordered() if not e.meta.get("pinned")]

    def block_elements(self, state: State) -> list[Element]:
        """The memory blocks of ω, in declaration order."""
        return sorted((e for e in state if e.type == "block"), key=lambda e: e.meta["index"])

    def tokens(self, text: str) -> float:
        """μ of a text (LlamaIndex's ``_estimate_token_count`` of a text)."""
        return self._sizes.lookup(text, lambda s: self.space.measure(Element(s)))

    # -- U ----------------------------------------------------------------------------
    def controller(self, state: State, context: Context) -> Operation:
        """Choose o: ``append`` (the waterfall runs inside U after every put, as ``aput`` runs ``_manage_queue``)."""
        return _APPEND

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω: ``put`` each message of the step, then the waterfall."""
        if operation.type != "append":
            raise UnsupportedOperationError(f"{self} has no update for {operation.type!r}")  # pragma: no cover
        queue = self.queue(state)
        blocks = {e.meta["name"]: e for e in self.block_elements(state)}
        removed: dict[Element, str] = {}
        for message in step_messages(context.step, context.t, memo=self._messages):
            queue.append(message)
            batches, queue, why = self.waterfall(queue)
            for batch in batches:  # each flush hands its messages to every block, as aput does
                for e in batch:
                    removed[e] = why
                blocks = self._put(blocks, batch, context.t)
        old_blocks = set(self.block_elements(state))
        new_state = State(
            [e for e in state if e.meta.get("pinned") and e.type != "block"] + list(blocks.values()) + queue
        )
        rewritten = old_blocks - set(blocks.values())
        if rewritten:
            why = _("fact block rewritten with the facts of the flushed messages")
            for e in rewritten:
                removed[e] = why
        return Transition(new_state, removed)

    def waterfall(self, queue: list[Element]) -> tuple[list[list[Element]], list[Element], str]:
        """``_manage_queue`` on a queue oldest first: (the flushed batches, oldest first; the queue left; why)."""
        limit = self.token_limit * self.chat_history_token_ratio
        total = sum(self.tokens(e.text) for e in queue)
        if total <= limit:
            return [], queue, ""
        why = _("flushed to the memory blocks: chat history μ = {total} > token_limit × ratio = {limit} "
                "(flush size {flush})").format(total=format_number(total), limit=format_number(limit), flush=self.token_flush_size)
        queue = list(queue)
        batches: list[list[Element]] = []
        while total - limit > 0 and len(queue) > 1:
            batch: list[Element] = []
            gathered = 0.0
            while gathered < self.token_flush_size and len(queue) > 1:
                batch.append(queue.pop(0))
                gathered += self.tokens(batch[-1].text)
            while queue[0].meta["role"] != "user" and len(queue) > 1:
                batch.append(queue.pop(0))
            if queue[0].meta["role"] != "user" and batch:  # only a non-user message left: keep the last whole turn
                batch.append(queue.pop(0))
                users = [i for i, e in enumerate(batch) if e.meta["role"] == "user"]
                if users:
                    queue, batch = batch[users[-1]:], batch[: users[-1]]
            if not batch:
                break
            batches.append(batch)
            total = sum(self.tokens(e.text) for e in queue)
        return batches, queue, why

    def _put(self, blocks: dict[str, Element], flushed: list[Element], t: int) -> dict[str, Element]:
        """Each block's ``aput`` of the flushed messages: static blocks ignore them, fact blocks gather facts."""
        out = dict(blocks)
        for k, block in enumerate(self.blocks):
            if block.kind != "facts":
                continue
            element = out.get(block.name)
            text = element.text if element is not None else ""
            facts = [line[6:-7] for line in text.splitlines() if line.startswith("<fact>")]
            summary = self._summarize([e.text for e in flushed], self.fact_budget)
            from ..text import split_sentences

            for fact in split_sentences(summary):
                if fact not in facts:
                    facts.append(fact)
            if len(facts) > block.max_facts:  # the condense step: the facts summarized again, within max_facts
                facts = split_sentences(self._summarize(facts, self.fact_budget))[: block.max_facts]
            if facts:
                out[block.name] = self._block_element(k, block, "\n".join(f"<fact>{f}</fact>" for f in facts))
        return out

    # -- π ----------------------------------------------------------------------------
    def rendered_blocks(self, state: State) -> str:
        """The memory blocks that fit, rendered as LlamaIndex's default template (``""`` when none has content)."""
        history = sum(self.tokens(e.text) for e in self.queue(state))
        elements = [e for e in self.block_elements(state) if e.text]
        kept = {e.meta["name"]: e for e in elements}
        over = sum(self.tokens(e.text) for e in elements) + history - self.token_limit
        if over > 0:
            for e in sorted(elements, key=lambda e: e.meta["priority"]):
                if over <= 0:
                    break
                if e.meta["priority"] == 0:
                    continue
                over -= self.tokens(e.text)
                del kept[e.meta["name"]]
        if not kept:
            return ""
        body = "".join(f"<{e.meta['name']}>\n{e.text}\n</{e.meta['name']}>\n" for e in elements if e.meta["name"] in kept)
        return f"<memory>\n{body}</memory>"

    def dropped_blocks(self, state: State) -> list[str]:
        """The names of the blocks π leaves out to fit ``token_limit`` (truncation by priority)."""
        shown = self.rendered_blocks(state)
        return [e.meta["name"] for e in self.block_elements(state) if e.text and f"<{e.meta['name']}>\n" not in shown]

    def project(self, state: State) -> ModelInput:
        """The projection π: the agent's system prompt, then ``Memory.aget()`` — the history with the rendered blocks inserted."""
        history = [Message(str(e.meta["role"]), e.text) for e in self.queue(state)]
        memory = self.rendered_blocks(state)
        if memory:
            if self.insert_method == "system":
                at = next((i for i, m in enumerate(history) if m.role == "system"), None)
                if at is None:
                    history.insert(0, Message("system", memory))
                else:
                    history[at] = Message("system", f"{memory}\n{history[at].content}")
            else:
                at = next((i for i in range(len(history) - 1, -1, -1) if history[i].role == "user"), None)
                if at is None:
                    history.append(Message("user", memory))
                else:
                    history[at] = Message("user", f"{memory}\n{history[at].content}")
        head = list(as_model_input([self._system])) if self._system is not None else []
        return ModelInput(head + history)
