"""Widgets of stmviz: the only part of the package that imports ipywidgets.

- :class:`TracePlayer` — replay one run t = 0 … n: ``Play`` and an ``IntSlider``
  move through the states ω_t; the occupancy figure, the state bar, the
  operation that produced ω_t, π(ω_t) as tokens and (when the mechanism
  declares one) the hierarchy of ω_t follow, updated in place.
- :func:`compare_player` — several runs of one scenario stepped together by
  one slider.
- :class:`SweepExplorer` — a finished sweep, one V_max at a time (a slider).

Their figures are :class:`~stmviz.widgets.live_figure.LiveFigure` s, drawn from
the figure's whole state by a small front end (plotly's own could miss every
update in Voila); in a Voila app, importing this package also draws a static
figure shown as a cell's value that way (``draw_figures_live_in_voila``).

Both render in JupyterLab and Voila, their figures as wide as the page lets
them; where the widget cannot render (no kernel, an untrusted notebook,
nbconvert, nbviewer) they fall back to a static view that loads nothing
from the network.
"""

from .compare import ComparePlayer, compare_player
from .live_figure import draw_figures_live_in_voila
from .player import FitWidth, TracePlayer, TraceView, step_html
from .sweep import SweepExplorer

__all__ = ["TracePlayer", "TraceView", "ComparePlayer", "compare_player", "step_html", "SweepExplorer", "FitWidth"]

# In a Voila app, static figures too are drawn by stmviz's LiveFigure (see draw_figures_live_in_voila).
draw_figures_live_in_voila()
