"""Figures of stmviz: the only part of the package that imports plotly and networkx.

Every figure function validates its input, computes plain data from a
:class:`~stmviz.Trace` (or a state ω), builds and returns a
``plotly.graph_objects.Figure`` (or an HTML string); none of them shows
anything itself. Every string that comes from agent content is escaped.

- :func:`occupancy_figure` — Σμ(ω_t) over t by element type against V_max,
  removals, and |π(ω_t)|; one run or several compared.
- :func:`mark_recorded_compactions` — where a transcript's own system compacted,
  as dashed lines on a figure over t.
- :func:`state_figure` — ω_t as blocks of width μ(e) in a bar of length V_max.
- :func:`tokens_html` — the model input π(ω_t) with every token coloured.
- :func:`loop_figure` — the loop of the paper's Figure 1 at step t.
- :func:`export_html` — a run as one self-contained, offline, animated HTML page.
- :func:`hierarchy_graph`, :func:`hierarchy_figure` — the hierarchy of ω_t that
  the mechanism declares (``Mechanism.hierarchy``, ``Mechanism.folds``) as a graph.
- :func:`recall_figure`, :func:`pareto_figure` — a finished sweep
  (:func:`stmviz.sweep.sweep`): a measure against V_max, cost against quality.

Colours, legends, labels and titles come from what the trace's mechanism
declares (:mod:`stmviz.protocol`), never from a list of known mechanisms.
"""

import sys as _sys

from ._common import TYPE_COLORS, color_for, escape, hover_text
from .export import export_html, trace_animation, trace_html
from .hierarchy import hierarchy_figure, hierarchy_graph, hierarchy_kind, hierarchy_title, node_arrays, node_marker
from .loop import loop_figure
from .occupancy import OccupancyData, occupancy_data, occupancy_figure
from .placement import placement_figure, placements
from .recorded import mark_recorded_compactions
from .state import StateBar, state_bar, state_figure
from .sweep import pareto_figure, pareto_front, recall_figure
from .tokens import TokensHTML, token_pieces, tokens_html

# In a kernel, a figure displayed through plotly's mimetype (JupyterLab, Voila) follows the window's width:
# JupyterLab refits it on its own layout changes, Voila only on the window's resize event, which needs
# plotly's "responsive" config. (Outside a kernel nothing is displayed: plotly's renderers, which import
# IPython, are left alone.)
if "IPython" in _sys.modules:
    import plotly.io as _pio

    for _name in ("plotly_mimetype", "jupyterlab", "nteract", "vscode"):
        if _name in _pio.renderers:
            _pio.renderers[_name].config.setdefault("responsive", True)

__all__ = [
    "TYPE_COLORS",
    "color_for",
    "escape",
    "hover_text",
    "occupancy_figure",
    "occupancy_data",
    "OccupancyData",
    "mark_recorded_compactions",
    "placement_figure",
    "placements",
    "state_figure",
    "state_bar",
    "StateBar",
    "tokens_html",
    "token_pieces",
    "TokensHTML",
    "loop_figure",
    "export_html",
    "trace_html",
    "trace_animation",
    "hierarchy_graph",
    "hierarchy_figure",
    "hierarchy_kind",
    "hierarchy_title",
    "node_arrays",
    "node_marker",
    "recall_figure",
    "pareto_figure",
    "pareto_front",
]
