"""A plotly FigureWidget whose front end draws its current state, and loads in milliseconds.

Why not plotly's own view: plotly 7's ``FigureWidget`` is an anywidget whose
ES module is plotly's whole widget bundle (about 5 MB, plotly.js inside), and
every FigureWidget model imports its own copy of it. anywidget 0.11 gives a
model two seconds, from its creation, to import and initialize its module;
a model that misses this deadline stays alive and its views still draw, but
it drops every later message from the kernel (it waits for a readiness that
was rejected). Voila creates every widget model at once when the page loads,
so on a busy machine a figure's 5 MB import can end after the deadline: the
figure keeps its first drawing while Python steps on. Plotly's view is also
driven by one-off messages (``_py2js_update`` set and reset), so a front end
that misses one never catches up.

:class:`LiveFigure` keeps everything Python-side of ``go.FigureWidget``
(``data``, ``layout``, ``batch_update``, ``plotly_update`` …) and replaces what
reaches the browser:

- the figure's state, as two JSON strings (``_data_json``, ``_layout_json``)
  rewritten after every change, so that any view, however late, draws the
  figure as Python holds it (``Plotly.react``);
- an ES module of a few kilobytes, imported well within anywidget's deadline;
- plotly.js itself, taken from the installed plotly package, carried once per
  kernel by one :class:`PlotlyLibrary` widget and evaluated once per page;
  each figure's view waits for it (no deadline), then draws. Nothing is
  downloaded from a CDN.

Interactions go one way (Python → browser): zooming a figure is not sent back
to Python, and the next change redraws it from Python's state.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as widgets
import plotly
import plotly.graph_objects as go
from plotly.io.json import to_json_plotly
import traitlets

from ..core import guards

__all__ = ["LiveFigure", "PlotlyLibrary", "plotly_library", "figure_widget", "draw_figures_live_in_voila"]

#: The page-wide slot (a property of ``globalThis``) through which the library hands plotly.js to the figures.
_SLOT = "__stmvizPlotly"

_SLOT_JS = f"""
// one slot per page: a promise of plotly.js, resolved by the PlotlyLibrary widget's model
function slot() {{
  let s = globalThis.{_SLOT};
  if (!s) {{
    let resolve;
    const promise = new Promise((r) => {{ resolve = r; }});
    s = globalThis.{_SLOT} = {{ promise, resolve, loading: false }};
  }}
  return s;
}}
"""

#: The library's front end: evaluate plotly.js (its UMD build, from the installed package) once per page.
_LIBRARY_ESM = _SLOT_JS + """
function initialize({ model }) {
  const s = slot();
  if (s.loading) return;
  s.loading = true;
  // after this model's initialization: evaluating plotly.js takes a while, and must not hold anywidget up
  setTimeout(() => {
    if (!window.PlotlyConfig) window.PlotlyConfig = { MathJaxConfig: "local" };
    const module = { exports: {} };
    // plotly.min.js is a UMD build: given a CommonJS `module`, it puts Plotly in module.exports
    new Function("module", "exports", model.get("_source"))(module, module.exports);
    s.resolve(module.exports);
  }, 0);
}
export default { initialize };
"""

#: A figure's front end: draw the figure's current state with Plotly.react, again whenever it changes.
_FIGURE_ESM = _SLOT_JS + """
async function render({ model, el }) {
  el.classList.add("stmviz-live-figure");
  const Plotly = await slot().promise;
  let alive = true;
  let drawing = null;   // the Plotly.react in progress
  let again = false;    // a change came while drawing: draw the newest state once it is done
  const state = () => {
    const layout = JSON.parse(model.get("_layout_json") || "{}");
    if (!layout.height) layout.height = 360;
    return [JSON.parse(model.get("_data_json") || "[]"), layout, { ...model.get("_config") }];
  };
  const draw = () => {
    if (!alive) return;
    if (drawing) { again = true; return; }
    const [data, layout, config] = state();
    drawing = Promise.resolve(Plotly.react(el, data, layout, config))
      .catch((error) => console.error("[stmviz] could not draw a figure", error))
      .then(() => {
        drawing = null;
        document.dispatchEvent(new CustomEvent("plotlywidget-after-render", { detail: { element: el } }));
        if (again) { again = false; draw(); }
      });
  };
  model.on("change:_data_json", draw);
  model.on("change:_layout_json", draw);
  model.on("change:_config", draw);
  draw();
  return () => {
    alive = false;
    Plotly.purge(el);
  };
}
export default { render };
"""


@lru_cache(maxsize=1)
def _plotly_js() -> str:
    """plotly.js as the installed plotly package ships it (``package_data/plotly.min.js``)."""
    return (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text(encoding="utf-8")


class PlotlyLibrary(anywidget.AnyWidget):
    """plotly.js for the page: one widget per kernel carries the installed package's plotly.min.js to the browser.

    It has no view; its model, created in every front end that shows a
    :class:`LiveFigure`, evaluates plotly.js once and hands it to the figures.
    """

    _esm = traitlets.Unicode(_LIBRARY_ESM).tag(sync=True)
    _source = traitlets.Unicode().tag(sync=True)


_LIBRARY: PlotlyLibrary | None = None


def plotly_library() -> PlotlyLibrary:
    """The kernel's :class:`PlotlyLibrary` (made on first use, and again if it was closed)."""
    global _LIBRARY
    if _LIBRARY is None or getattr(_LIBRARY, "comm", None) is None:
        _LIBRARY = PlotlyLibrary(_source=_plotly_js())
    return _LIBRARY


class LiveFigure(go.FigureWidget):
    """A ``go.FigureWidget`` drawn by a small front end of stmviz from the figure's whole state.

    Python-side it is a FigureWidget (``data``, ``layout``, ``batch_update``,
    ``plotly_update``, ``add_traces`` …); each change rewrites the synced
    state (``_data_json``, ``_layout_json``, in one message), which every view
    draws with ``Plotly.react``. See the module's docstring for why.

    >>> fig = LiveFigure(go.Figure(go.Bar(x=[1, 2])))
    >>> fig.plotly_update(restyle_data={"x": [[3]]}, trace_indexes=[0])
    >>> '"x":[3]' in fig._data_json
    True
    """

    _esm = traitlets.Unicode(_FIGURE_ESM).tag(sync=True)
    # plotly's own synced state and messages: kept Python-side only (this front end reads the JSON below)
    _widget_data: traitlets.List[Any] = traitlets.List()
    _widget_layout = traitlets.Dict()
    _data_json = traitlets.Unicode("[]").tag(sync=True)
    _layout_json = traitlets.Unicode("{}").tag(sync=True)
    _library = traitlets.Instance(PlotlyLibrary, allow_none=True).tag(sync=True, **widgets.widget_serialization)

    def __init__(self, data: Any = None, layout: Any = None, frames: Any = None, skip_invalid: bool = False, **kwargs: Any) -> None:
        super().__init__(data=data, layout=layout, frames=frames, skip_invalid=skip_invalid, **kwargs)
        self._library = plotly_library()
        self._push()

    def _push(self, data: bool = True, layout: bool = True) -> None:
        """Write the figure's current traces and/or layout into the synced state (one message)."""
        with self.hold_sync():
            if data:
                self._data_json = to_json_plotly(self._data)
            if layout:
                self._layout_json = to_json_plotly(self._layout)

    # plotly calls these after each change to the figure (data and layout already changed): send the state instead
    def _send_addTraces_msg(self, new_traces_data: Any) -> None:
        self._push()

    def _send_moveTraces_msg(self, current_inds: Any, new_inds: Any) -> None:
        self._push()

    def _send_deleteTraces_msg(self, delete_inds: Any) -> None:
        self._push()

    def _send_restyle_msg(self, restyle_data: Any, trace_indexes: Any = None, source_view_id: Any = None) -> None:
        self._push(layout=False)

    def _send_relayout_msg(self, layout_data: Any, source_view_id: Any = None) -> None:
        self._push(data=False)

    def _send_update_msg(self, restyle_data: Any, relayout_data: Any, trace_indexes: Any = None, source_view_id: Any = None) -> None:
        self._push()

    def _send_animate_msg(self, styles_data: Any, relayout_data: Any, trace_indexes: Any, animation_opts: Any) -> None:
        self._push()


def figure_widget(figure: go.Figure) -> go.FigureWidget:
    """A FigureWidget of ``figure`` that fills its container's width (plotly's autosize and ``responsive`` config).

    It is a :class:`LiveFigure` (see this module's docstring for why not
    plotly's own view).

    >>> fw = figure_widget(go.Figure())
    >>> fw._config["responsive"], fw.layout.width, fw.layout.autosize
    (True, None, True)
    """
    widget = LiveFigure(guards.instance(figure, "figure", go.Figure, where="figure_widget", what="a plotly Figure"))
    widget.layout.width = None  # the container decides
    widget.layout.autosize = True
    widget._config = {**widget._config, "responsive": True, "displaylogo": False}
    return widget


def in_voila() -> bool:
    """Whether this kernel serves a Voila app (Voila starts its kernels with ``SERVER_SOFTWARE=voila/<version>``)."""
    return os.environ.get("SERVER_SOFTWARE", "").startswith("voila/")


def draw_figures_live_in_voila() -> bool:
    """In a Voila app's kernel, display every plotly ``go.Figure`` as a :class:`LiveFigure`; elsewhere do nothing.

    A static figure (``occupancy_figure(trace)`` as a cell's value) reaches the
    page as plotly's mimetype, which the jupyterlab-plotly renderer draws and
    then tries to cache as a PNG on its output model; Voila 0.5 hands the
    renderer a plain object without that method, and the page reports
    ``TypeError: r.setData is not a function``. A LiveFigure draws the same
    figure without that step. JupyterLab keeps plotly's mimetype (and the
    saved notebook its static figure). Returns whether it took effect.
    """
    if not in_voila():
        return False
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - Voila always runs IPython kernels
        return False
    shell = get_ipython()
    if shell is None:
        return False
    shell.display_formatter.ipython_display_formatter.for_type(go.Figure, _display_live)
    return True


def _display_live(figure: go.Figure) -> None:
    """Display ``figure`` as the player shows its figures (a LiveFigure as wide as its container)."""
    from IPython.display import display

    display(figure_widget(figure))
