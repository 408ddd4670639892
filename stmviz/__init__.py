"""stmviz — see how an LLM agent's short-term memory works.

The core implements the paper's Definition 1 (the state space Ω_STM of sets
of elements e = (i, d) with Σμ(e) ≤ V_max) and Definition 2 (the mechanism
(O, E, Ω_STM, C, U, X, π)); :func:`run` drives the loop of Figure 1 and
records a :class:`Trace`. Importing stmviz loads no plotting or widget library.
"""

from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .core import sizes  # noqa: F401

__version__ = "0.1.0"

from .scenarios import Scenario, list_scenarios, load_scenario  # noqa: E402

__all__ = list(_core_all) + ["__version__"]
__all__ += ["Scenario", "load_scenario", "list_scenarios"]

from .mechanisms import AgentFold, HiAgent  # noqa: E402

__all__ += ["HiAgent", "AgentFold"]
from .mechanisms import FIFOWindow, SCM  # noqa: E402
__all__ += ["FIFOWindow", "SCM"]

from .export import export_html  # noqa: E402  (plotly is imported only when it is called)

__all__ += ["export_html"]
