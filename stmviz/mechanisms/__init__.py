"""The paper's architectures (Section 4) as mechanisms (O, E, Ω_STM, C, U, X, π).

The managers practitioners run (tool-result clearing, compaction, the
summarization middleware, sessions, Letta, LlamaIndex, ADK) are in
:mod:`stmviz.managers`; their names here still work for one release, with a
DeprecationWarning.
"""

import importlib as _importlib
import warnings as _warnings
from typing import Any as _Any

from .agentfold import AgentFold
from .fifo import FIFOWindow
from .scm import SCM
from .hiagent import HiAgent

__all__: list[str] = []
__all__ += ["HiAgent", "AgentFold"]
__all__ += ["FIFOWindow", "SCM"]

#: The practitioners' managers, moved to stmviz.managers.
_MANAGERS = ("ClearToolUses", "Compaction", "LangChainSummarization", "ADKCompaction", "LettaMemory",
             "LlamaIndexMemory", "SummarizingSession", "TrimmingSession")


def __getattr__(name: str) -> _Any:
    """A manager under its old name ``stmviz.mechanisms.<name>`` (deprecated: import it from stmviz.managers)."""
    if name in _MANAGERS:
        _warnings.warn(  # the message of stmviz._moved.moved_to, pointing at the caller's line
            f"{__name__}.{name} is deprecated and will be removed in the next release; import {name} from stmviz.managers",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(_importlib.import_module("stmviz.managers"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
