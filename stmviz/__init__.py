"""stmviz — see how an LLM agent's short-term memory works.

The core implements the paper's Definition 1 (the state space Ω_STM of sets
of elements e = (i, d) with Σμ(e) ≤ V_max) and Definition 2 (the mechanism
(O, E, Ω_STM, C, U, X, π)); :func:`run` drives the loop of Figure 1 and
records a :class:`Trace`. The mechanisms, the managers, the scenarios and
the contract check load on first use; importing stmviz loads no plotting or
widget library and builds nothing. Errors live in :mod:`stmviz.errors`.
"""

import importlib as _importlib
import os as _os
import sys as _sys
import warnings as _warnings
from typing import Any as _Any

from .core import *  # noqa: F401,F403
from .core import __all__ as _core_all
from .core import errors, sizes

# ``stmviz.errors`` and ``stmviz.sizes`` are the core's modules themselves, under a shorter name:
# ``import stmviz.sizes`` and ``from stmviz.errors import STMError`` find them here, whatever the import order.
_sys.modules[__name__ + ".errors"] = errors
_sys.modules[__name__ + ".sizes"] = sizes

__version__ = "0.1.0"

#: names loaded on first use: name → the module that defines it
_LAZY = {
    "FIFOWindow": ".mechanisms", "SCM": ".mechanisms", "HiAgent": ".mechanisms", "AgentFold": ".mechanisms",
    "ClearToolUses": ".managers", "Compaction": ".managers", "LangChainSummarization": ".managers",
    "ADKCompaction": ".managers", "LettaMemory": ".managers", "LlamaIndexMemory": ".managers",
    "SummarizingSession": ".managers", "TrimmingSession": ".managers",
    "Scenario": ".scenarios", "load_scenario": ".scenarios", "list_scenarios": ".scenarios",
    "check_mechanism": ".contract", "CheckReport": ".contract", "CheckResult": ".contract",
    "ElementType": ".protocol", "Hierarchy": ".protocol",
    "export_html": ".viz.export",
}

__all__ = list(_core_all) + ["__version__", "errors"]
__all__ += ["FIFOWindow", "SCM", "HiAgent", "AgentFold"]
__all__ += ["Scenario", "load_scenario", "list_scenarios"]
__all__ += ["check_mechanism", "CheckReport", "CheckResult", "ElementType", "Hierarchy"]
__all__ += ["ClearToolUses", "Compaction", "LangChainSummarization"]
__all__ += ["LlamaIndexMemory", "TrimmingSession", "SummarizingSession", "LettaMemory", "ADKCompaction"]
# export_html is not in __all__: ``from stmviz import *`` must not load plotly.


def __getattr__(name: str) -> _Any:
    """A name loaded on first use (a mechanism, a scenario loader, ``export_html``), or an error class
    under its old top-level name (deprecated: it lives in :mod:`stmviz.errors`)."""
    if name in _LAZY:
        value = getattr(_importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    if name in errors.__all__ or name in errors.RENAMED:
        current = errors.RENAMED.get(name, name)
        _warnings.warn(
            f"stmviz.{name} is deprecated and will be removed in the next release; use stmviz.errors.{current}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(errors, current)
    raise AttributeError(f"module 'stmviz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _voila_figures() -> None:
    """In a Voila app's kernel, have static plotly figures drawn by stmviz's LiveFigure, whatever the notebook imports.

    jupyterlab-plotly's renderer of a static figure logs ``r.setData is not a
    function`` in Voila (see ``stmviz.widgets.draw_figures_live_in_voila``,
    which ``import stmviz.widgets`` turns on). A notebook that never imports
    the widgets (11 shows figures, no player) escaped it: here the first
    figure displayed imports them, lazily, by the type's name: nothing is
    loaded until a figure is shown, and nothing at all outside Voila.
    """
    if not _os.environ.get("SERVER_SOFTWARE", "").startswith("voila/") or "IPython" not in _sys.modules:
        return
    shell = _sys.modules["IPython"].get_ipython()
    if shell is None:
        return

    def first_figure(figure: _Any) -> None:
        from IPython.display import display

        from .widgets.live_figure import figure_widget  # stmviz.widgets registers the LiveFigure display for later figures

        display(figure_widget(figure))

    shell.display_formatter.ipython_display_formatter.for_type_by_name("plotly.graph_objs._figure", "Figure", first_figure)


_voila_figures()
