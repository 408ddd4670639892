"""The paper's architectures (Section 4) as mechanisms (O, E, Ω_STM, C, U, X, π)."""

from .agentfold import AgentFold
from .fifo import FIFOWindow
from .scm import SCM
from .hiagent import HiAgent
# the managers practitioners run, after the paper's four (which declare their element types first)
from .clear_tool_uses import ClearToolUses
from .compaction import Compaction
from .langchain_summarization import LangChainSummarization
from .adk_compaction import ADKCompaction
from .letta_memory import LettaMemory
from .llamaindex_memory import LlamaIndexMemory
from .openai_sessions import SummarizingSession, TrimmingSession

__all__: list[str] = []
__all__ += ["HiAgent", "AgentFold"]
__all__ += ["FIFOWindow", "SCM"]
__all__ += ["ClearToolUses"]
__all__ += ["LangChainSummarization"]
__all__ += ["Compaction"]
__all__ += ["LlamaIndexMemory", "TrimmingSession", "SummarizingSession", "LettaMemory", "ADKCompaction"]
