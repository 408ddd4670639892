"""stmviz — see how an LLM agent's short-term memory works.

The core implements the paper's Definition 1 (the state space Ω_STM of sets
of elements e = (i, d) with Σμ(e) ≤ V_max) and Definition 2 (the mechanism
(O, E, Ω_STM, C, U, X, π)); :func:`run` drives the loop of Figure 1 and
records a :class:`Trace`. Importing stmviz loads no plotting or widget library.
"""

import sys as _sys
from typing import Any as _Any

from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .core import errors, sizes

# ``stmviz.errors`` and ``stmviz.sizes`` are the core's modules themselves, under a shorter name:
# ``import stmviz.sizes`` and ``from stmviz.errors import STMError`` find them here, whatever the import order.
_sys.modules[__name__ + ".errors"] = errors
_sys.modules[__name__ + ".sizes"] = sizes

__version__ = "0.1.0"

from .mechanisms import SCM, AgentFold, FIFOWindow, HiAgent  # noqa: E402
from .mechanisms import ClearToolUses, Compaction, LangChainSummarization  # noqa: E402
from .mechanisms import ADKCompaction, LettaMemory, LlamaIndexMemory, SummarizingSession, TrimmingSession  # noqa: E402
from .scenarios import Scenario, list_scenarios, load_scenario  # noqa: E402

__all__ = list(_core_all) + ["__version__"]
__all__ += ["Scenario", "load_scenario", "list_scenarios"]
__all__ += ["FIFOWindow", "SCM", "HiAgent", "AgentFold"]
__all__ += ["ClearToolUses", "Compaction", "LangChainSummarization"]
__all__ += ["LlamaIndexMemory", "TrimmingSession", "SummarizingSession", "LettaMemory", "ADKCompaction"]
# export_html is not in __all__: ``from stmviz import *`` must not load plotly.


def __getattr__(name: str) -> _Any:
    """``stmviz.export_html``, imported on first use so that ``import stmviz`` does not load plotly."""
    if name == "export_html":
        from .viz.export import export_html

        return export_html
    raise AttributeError(f"module 'stmviz' has no attribute {name!r}")
