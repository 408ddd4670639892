"""The paper's architectures (Section 4) as mechanisms (O, E, Ω_STM, C, U, X, π)."""

from .agentfold import AgentFold
from .fifo import FIFOWindow
from .scm import SCM
from .hiagent import HiAgent
from .adk_compaction import ADKCompaction
from .letta_memory import LettaMemory
from .llamaindex_memory import LlamaIndexMemory
from .openai_sessions import SummarizingSession, TrimmingSession

__all__: list[str] = []
__all__ += ["HiAgent", "AgentFold"]
__all__ += ["FIFOWindow", "SCM"]
__all__ += ["LlamaIndexMemory", "TrimmingSession", "SummarizingSession", "LettaMemory", "ADKCompaction"]
