"""The short-term memory managers practitioners run, as mechanisms (O, E, Ω_STM, C, U, X, π).

Not the paper's architectures (those are in :mod:`stmviz.mechanisms`) but
what agent frameworks and model APIs ship, each reproduced from its source
and checked against it where the library runs offline:

- :class:`ClearToolUses` — Anthropic's context editing and LangChain's
  ``ClearToolUsesEdit``: π shows old tool results as a placeholder;
- :class:`Compaction` — Anthropic's server-side compaction and Claude Code's
  auto-compact: U adds a summary block, π starts at the last one;
- :class:`LangChainSummarization` — LangChain's ``SummarizationMiddleware``:
  U replaces the oldest messages by a summary message;
- :class:`ADKCompaction` — Google ADK's event compaction;
- :class:`LettaMemory` — MemGPT / Letta: core memory, a sliding-window
  summary, paging by tool calls;
- :class:`LlamaIndexMemory` — LlamaIndex's ``Memory`` and its memory blocks;
- :class:`TrimmingSession`, :class:`SummarizingSession` — the OpenAI Agents
  SDK's session recipes.

Each holds a conversation, and all of them — with the paper's FIFO window —
share one model of it, :mod:`stmviz.managers.conversation`: how an agent step
becomes chat messages (one time scheme), the system prompt, the oldest-first
eviction that keeps a tool call with its result, and π's list of messages.
Each class is whole in its file and subclasses :class:`~stmviz.Mechanism`
directly; a manager's ``placement`` says which of its parts U does and which π.
"""

from .clear_tool_uses import ClearToolUses
from .compaction import Compaction
from .langchain_summarization import LangChainSummarization
from .adk_compaction import ADKCompaction
from .letta_memory import LettaMemory
from .llamaindex_memory import LlamaIndexMemory
from .openai_sessions import SummarizingSession, TrimmingSession

#: In this order :func:`stmviz.mechanisms.catalog.declared_types` reads their element types, after the paper's four.
__all__ = [
    "ClearToolUses",
    "Compaction",
    "LangChainSummarization",
    "ADKCompaction",
    "LettaMemory",
    "LlamaIndexMemory",
    "SummarizingSession",
    "TrimmingSession",
]
