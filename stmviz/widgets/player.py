"""Step through a run t = 0 … n: the loop of Figure 1 replayed, one state ω_t at a time.

:class:`TracePlayer` is an ipywidgets layout: a ``Play`` button and an
``IntSlider`` joined by ``jslink`` choose t; the occupancy figure marks t,
the state bar shows ω_t, a label says step t in words ("the model saw
π(ω_t) (N tokens) and answered …; then arrived …") and which operation
o_{t−1} produced ω_t and why elements left, the projection π(ω_t) is shown as coloured tokens,
and when the mechanism declares a hierarchy (``Mechanism.hierarchy``,
``Mechanism.folds``: HiAgent, AgentFold, or a mechanism of your own) the
hierarchy of ω_t is drawn. Moving
the slider updates every ``go.FigureWidget`` in place inside
``batch_update()``; nothing is recreated. ``Play`` and the slider are linked
in the kernel, so the slider's readout changes in the same message round as
the panels: they never show different steps.

The figures fill the player's width, in a narrow column as on a wide screen:
each FigureWidget has no fixed width and plotly's ``responsive`` config, and
a zero-height :class:`FitWidth` widget in the player watches the player's
width (a ``ResizeObserver``) and asks plotly to fit again whenever it changes
(side panel opened or closed, window resized, figure drawn before it was
attached).

Where the widget view cannot render (a saved notebook opened without its
kernel or untrusted, nbconvert, nbviewer), the display bundle carries a static
copy of the view at its current t: the figure as plotly's own mimetype, which
JupyterLab draws with its bundled plotly.js, offline and untrusted, and a
script-free HTML summary (step in words, π(ω_t)). Nothing loads from a CDN.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import json
import time

import anywidget
import ipywidgets as widgets
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots
import traitlets

from ..core import guards
from ..core.errors import InvalidIndexError
from ..core.guards import time_index
from ..core.formatting import describe_final, format_number, shorten
from ..core.i18n import N_, gettext as _, ngettext
from ..core.trace import Trace, require_trace, step_halves
from ..viz import escape, hover_text
from ..viz.hierarchy import (
    hierarchy_figure, hierarchy_graph, hierarchy_kind, hierarchy_title, node_arrays, node_marker, step_axis,
)
from ..viz.occupancy import bottom_legend, figure_title, occupancy_data, occupancy_figure, step_range
from ..viz.state import block_marker, block_text, state_bar, state_bar_traces, state_figure, state_legend_dicts, state_title
from ..viz.tokens import tokens_html
from .live_figure import figure_widget  # public here too: the player's figures are made by it

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

__all__ = ["FitWidth", "TracePlayer", "TraceView", "figure_widget", "step_html"]

#: The colour of the step marker in the occupancy figure.
MARKER_COLOR = "#d62728"
#: Above this many steps the hierarchy of ω_t shows only depth ≤ 2 (a long folding history is unreadable).
HIERARCHY_FULL_STEPS = 300
#: Above this many steps the static HTML fallback shows no figures (they would be large).
STATIC_FIGURE_STEPS = 2000
#: The one row (y category) of the state bar in the player.
STATE_ROW = "ω_t"
#: The height of a player's step text (it scrolls when longer), so that the charts below never move between steps.
STEP_TEXT_HEIGHT = "11.5em"
#: How many token views of π(ω_t) a player keeps (recently seen t).
TOKEN_CACHE = 64
#: While Play runs, the token view follows t when rendering it took less than this (seconds); else it waits for a pause.
TOKEN_PLAY_BUDGET_S = 0.05

#: The front end of :class:`FitWidth` (an anywidget ES module): watch the player's width, ask plotly to fit again.
_FIT_ESM = """
function render({ el }) {
  el.classList.add("stmviz-fit-width");
  el.style.height = "0px";
  el.style.margin = "0";
  el.style.overflow = "hidden";
  let last = 0;
  let timer = null;
  // plotly's "responsive" config resizes a figure on the window's resize event: send one, debounced
  const nudge = () => {
    clearTimeout(timer);
    timer = setTimeout(() => window.dispatchEvent(new Event("resize")), 30);
  };
  // a figure of this box whose width is not its container's (drawn detached, or while off-screen)
  const unfitted = () => {
    const box = el.parentElement;
    if (!box) return false;
    return Array.from(box.querySelectorAll(".js-plotly-plot")).some((gd) => {
      const host = gd.parentElement;
      return gd._fullLayout && host && host.clientWidth > 0 && Math.abs(gd._fullLayout.width - host.clientWidth) > 2;
    });
  };
  const check = () => { if (unfitted()) nudge(); };
  const resized = new ResizeObserver((entries) => {
    const width = Math.round(entries[entries.length - 1].contentRect.width);
    if (width > 0 && width !== last) {
      last = width;
      nudge();
    }
  });
  resized.observe(el);
  // JupyterLab lays out cells lazily: check again whenever the player scrolls into view
  const seen = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) check(); });
  let watched = null;
  const watch = () => {
    const box = el.parentElement;
    if (box && box !== watched) {
      if (watched) seen.unobserve(watched);
      seen.observe(box);
      watched = box;
    }
  };
  // a figure drawn (plotly's widget draws before it is attached): once it is on the page, fit it
  const drawn = (event) => {
    const target = event.detail && event.detail.element;
    let tries = 0;
    const settle = () => {
      watch();
      if (target && target.isConnected) check();
      else if (tries++ < 600) requestAnimationFrame(settle);
    };
    settle();
  };
  document.addEventListener("plotlywidget-after-render", drawn);
  requestAnimationFrame(watch);
  return () => {
    resized.disconnect();
    seen.disconnect();
    document.removeEventListener("plotlywidget-after-render", drawn);
    clearTimeout(timer);
  };
}
export default { render };
"""


class FitWidth(anywidget.AnyWidget):
    """A zero-height widget that makes the plotly figures of its parent box fill its width, at every width.

    plotly's FigureWidget draws itself once, often before JupyterLab has
    attached it to the page (so at plotly's default 700 px), and only follows
    the window's resize events. Put in a box next to FigureWidgets made by
    :func:`figure_widget`, this widget watches the box's width in the browser
    and, whenever it changes, or a figure of the box has just been drawn, or
    the box scrolls into view (JupyterLab lays out off-screen cells lazily)
    with a figure whose width is not its container's, sends the window a
    resize event; plotly then fits every responsive figure to its container.
    """

    _esm = traitlets.Unicode(_FIT_ESM).tag(sync=True)


def _mimetype_figure(figure: go.Figure) -> dict[str, Any]:
    """A figure as the JSON of plotly's mimetype ``application/vnd.plotly.v1+json`` (no plotly.js inside)."""
    data: dict[str, Any] = json.loads(pio.to_json(figure, validate=False))
    data["config"] = {"responsive": True, "displaylogo": False}
    return data

_UNSET = object()

#: CSS of the players' text (step info, titles): the notebook's UI font.
BOX_STYLE = "font-family:var(--jp-ui-font-family, sans-serif);font-size:13px;line-height:1.45;overflow-wrap:anywhere"


def step_html(trace: Trace, t: int, *, max_items: int = 4, width: int = 80) -> str:
    """The loop at ω_t in words: what the model saw and answered, what arrived then, and what produced ω_t.

    The first lines say step t (:meth:`~stmviz.core.trace.Step.describe`):
    "the model saw π(ω_t) (N tokens) and answered …; then arrived …" — or
    that no model call happened (the user spoke first), or that no input
    arrived; at t = n, what the model would see next. Then the operation
    o_{t−1} of step t − 1 that produced ω_t, what it added and removed, and
    why. Every string from the trace is shortened and escaped.

    Parameters
    ----------
    trace : Trace
    t : int
        The state ω_t, 0 ≤ t ≤ n.
    max_items : int
        A group of added or removed elements longer than this is collapsed
        (a ``<details>`` that lists every element when opened); none is cut.
    width : int
        Agent texts (the output, the input) are shortened to this many characters.

    Returns
    -------
    str
        An HTML fragment.

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["<b>one</b> two", "three", "four five"])
    >>> html = step_html(trace, 3)
    >>> "oldest element" in html, "<b>one" in html, "&lt;b&gt;one" in html
    (True, False, True)
    >>> "then arrived the user message “&lt;b&gt;one&lt;/b&gt; two”" in step_html(trace, 0)
    True
    """
    trace = require_trace(trace, "step_html")
    t = time_index(trace, t, where="step_html")
    max_items = guards.whole_number(max_items, "max_items", where="step_html", minimum=0)
    width = guards.whole_number(width, "width", where="step_html", minimum=1)
    n = len(trace)
    size = trace.size_at(t)
    head = _(STEP_WORDS["head"]).format(
        t=t, size=escape(format_number(size, 4)), v_max=escape(format_number(trace.v_max, 4)),
        percent=f"{100 * size / trace.v_max:.0f}",
    )
    now = "<br>&nbsp;&nbsp;".join(escape(half) for half in _halves(trace, t, width))
    lines = [head, f"<span class='stmviz-loop-words'>{now}</span>"]
    if t < n:
        nxt = "; ".join(escape(shorten(str(o), 60)) for o in trace[t].operations) or "—"
        lines.append(f"<span style='color:#777'>{_(STEP_WORDS['next']).format(t=t, operations=f'<code>{nxt}</code>')}</span>")
    if t == 0:
        lines.append(_(STEP_WORDS["initial"]))
    else:
        step = trace[t - 1]
        ops = "; ".join(escape(shorten(str(o), 60)) for o in step.operations) or "—"
        why_ops = "; ".join(dict.fromkeys(escape(shorten(o.reason, 80)) for o in step.operations if o.reason))
        made = _(STEP_WORDS["made_by"]).format(t=t, previous=t - 1, operations=f"<code>{ops}</code>")
        lines.append(_(STEP_WORDS["made_by_because"]).format(made_by=made, why=why_ops) if why_ops else made)
        lines.extend(_retrieval_lines(step.operations))
        if step.added:
            lines.append(_element_group("added", [escape(e.label(30)) for e in step.added], max_items))
        if step.removed:
            lines.append(_element_group(
                "removed", [f"{escape(e.label(30))} — {_reason_html(why)}" for e, why in zip(step.removed, step.reasons)],
                max_items,
            ))
        if not step.added and not step.removed:
            lines.append(_(STEP_WORDS["unchanged"]))
    return f"<div class='stmviz-step' style='{BOX_STYLE}'>" + "".join(f"<div>{line}</div>" for line in lines) + "</div>"


#: The words of the step text, whole sentences with named placeholders, in English; shown through ``_()`` (the
#: language set by :func:`stmviz.set_language`). A collapsed group counts its elements in the form its number
#: takes (``ngettext``, in ``_collapsed``).
STEP_WORDS = {
    "head": N_("<b>ω<sub>{t}</sub></b> · Σμ = {size} of V<sub>max</sub> = {v_max} ({percent}%)"),
    "next": N_("next: step {t} applies {operations}"),
    "initial": N_("the initial state ω<sub>0</sub>, before the first step"),
    "made_by": N_("ω<sub>{t}</sub> = U(ω<sub>{previous}</sub>, o, c<sub>{previous}</sub>) with o = {operations}"),
    "made_by_because": N_("{made_by} — {why}"),
    "unchanged": N_("ω unchanged"),
    "added": N_("<span style='color:#2ca02c'>added</span>: {elements}"),
    "removed": N_("<span style='color:#d62728'>removed</span>:{elements}"),
    "added_collapsed": "<span style='color:#2ca02c'>added</span>: {count} elements (click to list them all)",
    "removed_collapsed": "<span style='color:#d62728'>removed</span>: {count} elements (click to list them all, each with its reason)",
}


def _collapsed(kind: str, count: int) -> str:
    """The summary line of a collapsed group of ``count`` elements, in the form its number takes (Russian has three)."""
    if kind == "added":
        return ngettext("<span style='color:#2ca02c'>added</span>: {count} elements (click to list them all)",
                        "<span style='color:#2ca02c'>added</span>: {count} elements (click to list them all)",
                        count).format(count=count)
    return ngettext(
        "<span style='color:#d62728'>removed</span>: {count} elements (click to list them all, each with its reason)",
        "<span style='color:#d62728'>removed</span>: {count} elements (click to list them all, each with its reason)",
        count).format(count=count)


def _element_group(kind: str, items: list[str], open_limit: int) -> str:
    """The added or removed elements of a step (escaped HTML items), every one of them.

    Up to ``open_limit`` items are listed in the open; a longer group is a
    collapsed ``<details>`` whose summary says how many, and which lists them
    all when opened: nothing is cut.
    """
    if kind == "added":
        listed = ", ".join(items)
    else:
        listed = "".join(f"<div style='margin-left:1.2em'>{item}</div>" for item in items)
    if len(items) <= open_limit:
        return _(STEP_WORDS[kind]).format(elements=listed)
    summary = _collapsed(kind, len(items))
    body = f"<div style='margin-left:1.2em'>{listed}</div>" if kind == "added" else listed
    return (f"<details class='stmviz-{kind}'><summary style='cursor:pointer'>{summary}</summary>"
            f"{body}</details>")


#: A removal reason longer than this shows its start, and the whole of it on a click.
REASON_CHARS = 90


def _reason_html(why: str) -> str:
    """A removal reason, escaped: whole when short; else its start, and the whole reason on demand (a ``<details>``)."""
    if len(why) <= REASON_CHARS:
        return f"<i>{escape(why)}</i>"
    start = _("{reason} (whole reason)").format(reason=f"<i>{escape(shorten(why, REASON_CHARS))}</i>")
    return (f"<details class='stmviz-reason' style='display:inline-block;vertical-align:top'>"
            f"<summary style='cursor:pointer'>{start}</summary>"
            f"<i>{escape(why)}</i></details>")


def _retrieval_lines(operations: Any) -> list[str]:
    """Escaped lines with a retrieval's recorded scores and judgements (params ``scores`` and ``judgements``, as SCM records them)."""
    lines = []
    for o in operations:
        scores = o.get("scores") if hasattr(o, "get") else None
        judgements = o.get("judgements") if hasattr(o, "get") else None
        if scores:
            shown = ", ".join(f"#{escape(str(i))} {escape(str(v))}" for i, v in list(scores)[:6])
            more = f" … (+{len(scores) - 6})" if len(scores) > 6 else ""
            lines.append(_("<span style='color:#9467bd'>scores</span>: {scores}").format(scores=shown + more))
        if judgements:
            shown = "; ".join(
                f"#{escape(str(i))} <b>{escape(str(v))}</b> (<i>{escape(shorten(str(why), 70))}</i>)"
                for i, v, why in list(judgements)[:6]
            )
            more = f" … (+{len(judgements) - 6})" if len(judgements) > 6 else ""
            lines.append(_("<span style='color:#9467bd'>judgements</span>: {judgements}").format(judgements=shown + more))
    return lines


def _halves(trace: Trace, t: int, width: int) -> tuple[str, ...]:
    """Step t in words, in two halves (output, input); at t = n, the final state in one line."""
    if t < len(trace):
        step = trace[t]
        return step_halves(t, step.context.step, step.input_size, width)
    return (describe_final(t, trace.final_input_size),)


def _plain(value: Any) -> dict[str, Any]:
    data = value.to_plotly_json() if hasattr(value, "to_plotly_json") else dict(value)
    data.pop("type", None)
    data.pop("uid", None)
    return data


class TraceView:
    """The figures of one trace at one state ω_t, each a ``go.FigureWidget`` updated in place.

    Used by :class:`TracePlayer` (every view) and by
    :func:`~stmviz.widgets.compare_player` (occupancy, state bar and label per trace).

    Parameters
    ----------
    trace : Trace
    t : int
        The first state shown.
    tokens, hierarchy : bool
        Whether to build the token view of π(ω_t) and the hierarchy figure
        (``hierarchy=None``: when the trace's mechanism declares a hierarchy).
    max_tokens : int
        At most this many tokens of π(ω_t) are shown.
    name : str, optional
        A name for the figures' titles (default: the mechanism's name).
    height : int, optional
        The occupancy figure's height in pixels.
    t_max : int, optional
        The occupancy figure's x axis runs over 0 … ``t_max`` (default n, this
        trace's length); it is fixed, whatever t is shown.
    markers : dict, optional
        Removal markers shared with other views (see
        :func:`~stmviz.viz.occupancy_figure`): a comparison marks a kind of
        removal alike in every panel.

    Notes
    -----
    On a trace longer than :data:`HIERARCHY_FULL_STEPS` steps the hierarchy
    shows depth ≤ 2 only (ω_t, its elements, and what each block merged last),
    so that it stays readable and quick to update.

    Attributes
    ----------
    occupancy : plotly.graph_objects.FigureWidget
        Σμ(ω_t) over t; a vertical line (layout shape named ``"step"``) and a
        marker trace (``meta={"role": "marker"}``) sit at t.
    state : plotly.graph_objects.FigureWidget
        The state bar of ω_t (:func:`~stmviz.viz.state_figure`).
    info : ipywidgets.HTML
        :func:`step_html` of ω_t.
    tokens : ipywidgets.HTML or None
        :func:`~stmviz.viz.tokens_html` of π(ω_t).
    hierarchy : plotly.graph_objects.FigureWidget or None
        :func:`~stmviz.viz.hierarchy_figure` of ω_t.
    """

    def __init__(
        self,
        trace: Trace,
        t: int = 0,
        *,
        tokens: bool = True,
        hierarchy: bool | None = None,
        max_tokens: int = 1500,
        name: str | None = None,
        height: int | None = None,
        t_max: int | None = None,
        markers: dict[tuple[str, str], tuple[str, str]] | None = None,
    ) -> None:
        self.trace = require_trace(trace, "TraceView")
        tokens = guards.flag(tokens, "tokens", where="TraceView")
        hierarchy = guards.flag(hierarchy, "hierarchy", where="TraceView", none_ok=True)
        max_tokens = guards.whole_number(max_tokens, "max_tokens", where="TraceView", minimum=0)
        name = guards.text(name, "name", where="TraceView", none_ok=True, blank_ok=True)
        height = guards.whole_number(height, "height", where="TraceView", none_ok=True, minimum=10, fix="; a height in pixels, or None")
        t_max = guards.whole_number(t_max, "t_max", where="TraceView", none_ok=True, minimum=len(self.trace),
                                    fix="; the last t of the x axis (≥ n), or None for n")
        self.n = len(trace)
        self.t = self._clamp(t)
        self.max_tokens = max_tokens
        self.name = name or trace.name
        data = occupancy_data(trace)
        self._totals = data.total
        occupancy = occupancy_figure(trace, names=[self.name], markers=markers)
        occupancy.add_shape(
            type="line", x0=self.t, x1=self.t, y0=0, y1=1, xref="x", yref="paper",
            line={"color": MARKER_COLOR, "width": 2}, name="step",
        )
        occupancy.add_trace(
            go.Scatter(
                x=[self.t], y=[self._totals[self.t]], mode="markers", name="ω_t",
                marker={"color": MARKER_COLOR, "size": 11, "symbol": "circle-open", "line": {"width": 3}},
                hovertemplate="ω_%{x}: Σμ = %{y}<extra></extra>", showlegend=False, meta={"role": "marker"},
            )
        )
        if height:
            occupancy.update_layout(height=height)
        if t_max is not None:  # a comparison: every panel's x axis runs to the longest run's n
            occupancy.update_xaxes(range=step_range(t_max), autorange=False)
        self.occupancy = figure_widget(occupancy)
        self._marker_index = len(self.occupancy.data) - 1
        self._shape_index = len(self.occupancy.layout.shapes) - 1
        self._shapes = [shape.to_plotly_json() for shape in self.occupancy.layout.shapes]
        # the state bar: one trace per element type of the whole trace, so the list never changes
        self._types = list(dict.fromkeys(e.type for e in trace.sizes))
        self._state_signatures: dict[int, tuple] = {}
        self._state_layout: dict[str, Any] = {}
        # the state bar is brought to its final traces (one per element type of the trace) as a plain figure and
        # only then made a widget: a FigureWidget changed after it was made keeps, as the state a late front end
        # (Voila, which asks for every widget's state after the notebook ran) receives, the figure first built;
        # the change itself goes out as a one-off message that such a front end never sees
        self.state = state_figure(trace, self.t)
        self._free_index = -1  # state_figure drew the types of ω_t only: the first sync draws every type of the trace
        self._free_marker: dict[str, Any] = {}
        self._sync_state(self.t)
        self.state = figure_widget(self.state)
        self.info = widgets.HTML(value=step_html(trace, self.t))
        self._token_cache: dict[int, str] = {}
        self._token_seconds = 0.0
        self.tokens = widgets.HTML(value=self._tokens_cached(self.t)) if tokens else None
        self.tokens_t = self.t
        self.tokens_header = widgets.HTML(value=self._tokens_header(self.t, self.t)) if tokens else None
        show_hierarchy = hierarchy_kind(trace) == "tree" if hierarchy is None else bool(hierarchy)
        self._depth = None if self.n <= HIERARCHY_FULL_STEPS else 2
        self._hierarchy_layout: dict[str, Any] = {}
        self._hierarchy_depth: int | None = None
        self.hierarchy = figure_widget(hierarchy_figure(self._graph(self.t))) if show_hierarchy else None
        if self.hierarchy is not None:
            self._hierarchy_depth = len(self.hierarchy.layout.yaxis.tickvals or ()) - 1

    # -- per-t data --------------------------------------------------------------
    def _clamp(self, t: int) -> int:
        return _clamped(t, self.n, "TraceView")

    def _graph(self, t: int) -> nx.DiGraph:
        return hierarchy_graph(self.trace, t, max_depth=self._depth)

    def _tokens(self, t: int) -> str:
        try:
            x = self.trace.project(t)
        except Exception as exc:  # π may need the mechanism, absent from a loaded trace
            why = _("π(ω_{t}) unavailable: {error}").format(t=t, error=escape(shorten(str(exc), 120)))
            return f"<div style='{BOX_STYLE}'>{why}</div>"
        return tokens_html(x, max_tokens=self.max_tokens)

    def _sync_state(self, t: int) -> None:
        """Update the state bar to ω_t in one ``plotly_update`` message.

        The values are those :func:`~stmviz.viz.state.state_bar_dicts` gives
        (one trace per element type of the trace, then the free space), written
        straight into the figure under top-level keys only (``x``, ``marker``,
        ``title`` …): plotly parses a dotted path such as ``marker.line.color``
        on every update, and re-validating hundreds of colours through the
        graph objects would cost tens of milliseconds. A type whose blocks did
        not change (the query, the tools, a pinned system prompt) is not sent.
        """
        bar = state_bar(self.trace, t)
        fig = self.state
        groups: dict[str, list[Any]] = {kind: [] for kind in self._types}
        for block in bar.blocks:
            group = groups.get(block.type)
            if group is None:  # an element type the figure has no trace for: rebuild once
                self._types.append(block.type)
                group = groups[block.type] = []
            group.append(block)
        if self._free_index != len(self._types):  # a new type: the bar's traces, then the legend's, again
            with fig.batch_update():
                fig.data = ()
                fig.add_traces(state_bar_traces(bar, self._types, y=STATE_ROW, showlegend=False))
                fig.add_traces([go.Bar(d) for d in state_legend_dicts(bar, self._types, y=STATE_ROW)])
            self._state_signatures = {}
            self._state_layout = {}
            self._free_index = len(self._types)
            self._free_marker = fig.data[self._free_index].marker.to_plotly_json()
        # one constant category: the bar's row keeps its place
        category = STATE_ROW
        keys = ("x", "base", "y", "text", "hovertext", "marker")
        restyle: dict[str, list[Any]] = {key: [] for key in keys}
        changed: list[int] = []
        signatures = self._state_signatures
        for i, kind in enumerate(self._types):
            blocks = groups[kind]
            signature = tuple((b.element, b.start, b.new, b.leaving) for b in blocks)
            if signatures.get(i) == signature:
                continue
            signatures[i] = signature
            changed.append(i)
            restyle["x"].append([b.size for b in blocks])
            restyle["base"].append([b.start for b in blocks])
            restyle["y"].append([category] * len(blocks))
            restyle["text"].append([block_text(b.element) for b in blocks])
            restyle["hovertext"].append([b.hover() for b in blocks])
            restyle["marker"].append(block_marker(kind, blocks, bar.colors.get(kind)))
        free = bar.free
        free_signature = (free, bar.used)
        if signatures.get(-1) != free_signature:
            signatures[-1] = free_signature
            changed.append(len(self._types))
            restyle["x"].append([free])
            restyle["base"].append([bar.used])
            restyle["y"].append([category])
            restyle["text"].append([_("free {size}").format(size=format_number(free, 4)) if free else ""])
            restyle["hovertext"].append([hover_text(_("free space V_max − Σμ = {size}").format(size=format_number(free, 4)))])
            restyle["marker"].append(self._free_marker)  # the free-space block keeps its own style
        upper = max(bar.v_max or 0, bar.used) or 1
        relayout = self._changed_layout({"title": state_title(bar), "xaxis.range": [0, upper * 1.02]}, self._state_layout)
        if changed or relayout:
            with fig.batch_update():
                fig.plotly_update(
                    restyle_data=restyle if changed else None, relayout_data=relayout, trace_indexes=changed or None
                )

    @staticmethod
    def _changed_layout(values: dict[str, Any], last: dict[str, Any]) -> dict[str, Any]:
        """The layout values that differ from those last sent (and remember them)."""
        out = {}
        for key, value in values.items():
            if last.get(key, _UNSET) != value:
                last[key] = value
                out[key] = value
        return out

    def _sync_hierarchy(self, t: int) -> None:
        fig = self.hierarchy
        if fig is None:
            return
        graph = self._graph(t)
        arrays = node_arrays(graph)
        if set(arrays["types"]) - {tr.name for tr in fig.data[2:]}:
            fresh = hierarchy_figure(graph)  # a type the legend lacks: rebuild the traces (rare)
            with fig.batch_update():
                fig.data = ()
                fig.add_traces(fresh.data)
                fig.layout.update(fresh.layout)
            self._hierarchy_layout = {}
            self._hierarchy_depth = arrays["depth"]
            return
        # top-level keys only (plotly parses dotted paths on every update); the edges trace gets
        # None for the node-only keys, as it has none of them
        restyle = {
            "x": [arrays["edge_x"], arrays["x"]],
            "y": [arrays["edge_y"], arrays["y"]],
            "mode": ["lines", arrays["mode"]],
            "text": [None, arrays["text"]],
            "textposition": [None, arrays["textposition"]],
            "hovertext": [None, arrays["hovertext"]],
            "marker": [None, node_marker(arrays)],
        }
        depth = arrays["depth"]
        axis = step_axis(arrays["x"])  # whole-step ticks and room at the ends while the run is short, then plotly's own
        relayout = self._changed_layout(
            {"title.text": hierarchy_title(graph, t), "xaxis.range": axis.get("range"),
             "xaxis.autorange": "range" not in axis, "xaxis.dtick": axis.get("dtick"), "xaxis.tick0": axis.get("tick0")},
            self._hierarchy_layout,
        )
        if depth != self._hierarchy_depth:
            self._hierarchy_depth = depth
            relayout["yaxis.tickvals"] = list(range(depth + 1))
            relayout["yaxis.ticktext"] = ["ω_t"] + [str(d) for d in range(1, depth + 1)]
        with fig.batch_update():
            fig.plotly_update(restyle_data=restyle, relayout_data=relayout, trace_indexes=[0, 1])

    def _tokens_cached(self, t: int) -> str:
        cache = self._token_cache
        html = cache.pop(t, None)
        if html is None:
            start = time.perf_counter()
            html = self._tokens(t)
            self._token_seconds = time.perf_counter() - start
            if len(cache) >= TOKEN_CACHE:
                cache.pop(next(iter(cache)))
        cache[t] = html  # most recently used last
        return html

    @property
    def tokens_fast(self) -> bool:
        """Whether the last token view took less than :data:`TOKEN_PLAY_BUDGET_S` to render (then it follows Play)."""
        return self._token_seconds < TOKEN_PLAY_BUDGET_S

    @staticmethod
    def _tokens_header(shown: int, t: int) -> str:
        head = _("<b>π(ω<sub>{shown}</sub>)</b>, the model input at t = {shown}, token by token").format(shown=shown)
        if shown != t:
            head += " — <i style='color:#b35900'>" + _(
                "shown for t = {shown} while Play runs at t = {t}; it updates when you pause").format(shown=shown, t=t) + "</i>"
        return f"<span style='{BOX_STYLE}'>{head}</span>"

    def show(self, t: int, *, tokens: bool = True) -> None:
        """Show ω_t: move the occupancy marker, update the state bar, label, tokens and hierarchy in place.

        With ``tokens=False`` the token view keeps its old value, and its
        header says which t it shows and that it updates on pause (a player
        skips it while playing when it is slow to render, and catches up
        when paused).
        """
        t = self._clamp(t)
        tokens = guards.flag(tokens, "tokens", where="TraceView.show")
        self.t = t
        occ = self.occupancy
        shapes = [dict(shape) for shape in self._shapes]  # the whole list under one key: no path parsing
        shapes[self._shape_index].update(x0=t, x1=t)
        self._shapes = shapes
        with occ.batch_update():
            occ.plotly_update(
                restyle_data={"x": [[t]], "y": [[self._totals[t]]]},
                relayout_data={"shapes": shapes},
                trace_indexes=[self._marker_index],
            )
        self._sync_state(t)
        self.info.value = step_html(self.trace, t)
        if self.tokens is not None and tokens:
            self.tokens.value = self._tokens_cached(t)
            self.tokens_t = t
        if self.tokens_header is not None:
            self.tokens_header.value = self._tokens_header(self.tokens_t, t)
        self._sync_hierarchy(t)

    def catch_up(self) -> None:
        """Bring the token view up to the current t (after ``show(t, tokens=False)``)."""
        if self.tokens is not None and self.tokens_t != self.t:
            self.tokens.value = self._tokens_cached(self.t)
            self.tokens_t = self.t
        if self.tokens_header is not None:
            self.tokens_header.value = self._tokens_header(self.tokens_t, self.t)

    # -- static ------------------------------------------------------------------
    def figures(self) -> list[go.FigureWidget]:
        """The FigureWidgets of this view."""
        return [f for f in (self.occupancy, self.state, self.hierarchy) if f is not None]

    def static_figure(self) -> go.Figure:
        """The view at its current t as one static figure: the occupancy with its step marker above, ω_t's bar below.

        It is what a saved notebook shows where the widget cannot render
        (see :func:`player_bundle`).
        """
        occ, bar = self.occupancy, self.state
        second = any(getattr(d, "yaxis", None) == "y2" for d in occ.data)
        fig = make_subplots(
            rows=2, cols=1, row_heights=[0.68, 0.32], vertical_spacing=0.16,
            specs=[[{"secondary_y": second}], [{}]],
        )
        for trace in occ.data:
            fig.add_trace(go.Scatter(trace), row=1, col=1, secondary_y=second and trace.yaxis == "y2")
        for trace in bar.data:
            if (trace.meta or {}).get("role") != "legend":
                fig.add_trace(go.Bar(trace, showlegend=False), row=2, col=1)
        fig.add_vline(x=self.t, line={"color": MARKER_COLOR, "width": 2}, row=1, col=1)
        fig.add_vline(x=self.trace.v_max, line={"color": "black", "width": 2, "dash": "dash"}, row=2, col=1)
        fig.update_xaxes(title_text=_("t (state ω_t)"), range=occ.layout.xaxis.range, autorange=False, row=1, col=1)
        fig.update_yaxes(title_text=occ.layout.yaxis.title.text, range=occ.layout.yaxis.range, row=1, col=1)
        fig.update_xaxes(title_text="Σμ", range=bar.layout.xaxis.range, row=2, col=1)
        title = state_title(state_bar(self.trace, self.t))
        fig.update_layout(
            title=figure_title(
                _("{name} at t = {t} of {n}").format(name=escape(shorten(self.name, 40)), t=self.t, n=self.n),
                _("a static copy: {title}, {subtitle}; run the notebook to step through ω_t").format(
                    title=title["text"], subtitle=title["subtitle"]["text"]),
            ),
            barmode="overlay", template="plotly_white", height=560, hovermode="closest",
            legend=bottom_legend(), margin={"t": 80, "l": 60, "r": 60, "b": 10},
        )
        return fig

    def static_html(self, include_plotlyjs: str | bool = False, figures: bool | None = None) -> str:
        """A static HTML version of the view at its current t: heading, step in words, π(ω_t) as tokens.

        With ``include_plotlyjs`` (``"cdn"``, ``True`` …, as
        ``plotly.io.to_html`` takes it) the figures are added too (none over
        2,000 steps, unless ``figures=True``); by default the HTML holds no
        script at all, so it shows the same untrusted and offline.
        """
        include_plotlyjs = _plotlyjs(include_plotlyjs, "TraceView.static_html")
        figures = guards.flag(figures, "figures", where="TraceView.static_html", none_ok=True)
        if figures is None:
            figures = bool(include_plotlyjs) and self.n <= STATIC_FIGURE_STEPS
        heading = _("{name} at t = {t} of {n}").format(name=escape(shorten(self.name, 80)), t=self.t, n=self.n)
        parts = [f"<h4 style='{BOX_STYLE}'>{heading}</h4>", self.info.value]
        if figures:
            first = True
            for fig in self.figures():
                parts.append(
                    go.Figure(fig).to_html(full_html=False, include_plotlyjs=include_plotlyjs if first else False)
                )
                first = False
        if self.tokens is not None:
            parts.append(self.tokens.value)
        return "<div class='stmviz-static'>" + "\n".join(parts) + "</div>"


def step_text_box(info: widgets.HTML) -> widgets.HTML:
    """Make a step text a box of fixed height that scrolls (it never grows under the charts, nothing of it is cut).

    The box is :data:`STEP_TEXT_HEIGHT` tall whatever step it shows, so the
    charts below it stay in place while Play runs; a longer text scrolls
    inside it (its vertical scroll bar always shown, so that a reader sees
    there is more), and long lists of elements are collapsed in it
    (:func:`step_html`).
    """
    info.layout = widgets.Layout(
        height=STEP_TEXT_HEIGHT, overflow="hidden scroll", border="1px solid #e4e4e4", padding="2px 4px",
        flex="0 0 auto",
    )
    info.add_class("stmviz-step-box")
    return info


def _plotlyjs(value: object, where: str) -> str | bool:
    """``include_plotlyjs`` of a static HTML copy, if it is one plotly.io.to_html takes: True, False or a str."""
    return guards.instance(
        value, "include_plotlyjs", (bool, str), where=where,
        what="True, False or a str as plotly.io.to_html takes it ('cdn', 'directory', 'require', or a path to plotly.min.js)",
    )


def _clamped(t: object, n: int, where: str) -> int:
    """A time index t of a player, clamped to 0 … n (a slider never leaves its range); t must be a whole number."""
    number = guards.whole_number(t, "t", maximum=None, where=where, error=InvalidIndexError,
                                 fix=f"; pass t = 0 … {n} to name a state ω_t")
    return max(0, min(number, n))


def time_controls(n: int, t: int, interval: int) -> tuple[widgets.Play, widgets.IntSlider, widgets.Button, widgets.Button]:
    """The controls of time t in a player: play, the slider over ω_0 … ω_n, and one-step buttons.

    ``Play`` and the slider are joined in the kernel by ``link`` (not in
    the browser by ``jslink``): the slider's readout then moves in the same
    round of messages as the panels it drives, so the two never show
    different steps while Play runs. The buttons are wired by
    :class:`TimeSteps`.

    Returns
    -------
    (Play, IntSlider, Button, Button)
        play, slider, back, forward.
    """
    play = widgets.Play(value=t, min=0, max=n, step=1, interval=interval, description=_("play"), show_repeat=False)
    slider = widgets.IntSlider(
        value=t, min=0, max=n, step=1, description="t", continuous_update=True,
        layout=widgets.Layout(width="min(600px, 60%)"),
    )
    widgets.link((play, "value"), (slider, "value"))
    back = widgets.Button(description=_("◀ step"), tooltip=_("previous state ω_{t−1}"), layout=widgets.Layout(width="80px"))
    forward = widgets.Button(description=_("step ▶"), tooltip=_("next state ω_{t+1}"), layout=widgets.Layout(width="80px"))
    return play, slider, back, forward


class TimeSteps:
    """Time t of a player, ω_0 … ω_n: its controls (play, slider, one-step buttons), wired to the player's ``show(t)``.

    A player holds one (``player.time``) and shows what it says: moving the
    slider, clicking a button or Play calls ``show(t)`` and enables the
    buttons that can move.

    Parameters
    ----------
    n : int
        The last state ω_n.
    t : int
        The first state shown.
    interval : int
        Milliseconds between steps while playing.
    show : callable
        ``show(t)``: bring the player's panels to ω_t.
    where : str
        The player's name, for error messages.
    """

    def __init__(self, n: int, t: int, interval: int, show: Any, where: str) -> None:
        self.n = n
        self.where = where
        self.play, self.slider, self.back_button, self.next_button = time_controls(n, t, interval)
        self._show = show
        self.back_button.on_click(lambda _b: self.step(-1))
        self.next_button.on_click(lambda _b: self.step(+1))
        self.slider.observe(self._on_value, names="value")
        self._update_buttons(self.slider.value)

    @property
    def t(self) -> int:
        """The state ω_t shown now."""
        return int(self.slider.value)

    def go_to(self, t: object) -> int:
        """Move to ω_t, t clamped to 0 … n (t must be a whole number); returns t."""
        self.slider.value = _clamped(t, self.n, self.where)
        return self.t

    def step(self, delta: int) -> int:
        """Move the slider by ``delta`` steps, clamped to 0 … n; returns the new t."""
        delta = guards.whole_number(delta, "delta", where=self.where + ".step", fix="; e.g. 1 or -1")
        self.slider.value = max(0, min(self.slider.value + delta, self.n))
        return self.t

    def _update_buttons(self, t: int) -> None:
        self.back_button.disabled = t <= 0
        self.next_button.disabled = t >= self.n

    def _on_value(self, change: dict[str, Any]) -> None:
        t = change["new"]
        self._show(t)
        self._update_buttons(t)


def player_bundle(player: widgets.Widget, **kwargs: Any) -> dict[str, Any]:
    """A player's display bundle: the widget view, and static fallbacks for where it cannot render; none loads anything.

    - ``application/vnd.jupyter.widget-view+json``: the live widget
      (JupyterLab and Voila with a kernel; JupyterLab renders it only in a
      trusted notebook).
    - ``application/vnd.plotly.v1+json``: the player's ``static_figure()``,
      which JupyterLab draws with its own bundled plotly.js (the
      jupyterlab-plotly extension), offline and in an untrusted notebook,
      where it ranks before ``text/html``.
    - ``text/html``: the player's ``static_html()``, without any script
      (nbconvert, nbviewer, GitHub).
    - ``text/plain``: the repr.
    """
    data = widgets.VBox._repr_mimebundle_(player, **kwargs) or {}
    data["text/plain"] = repr(player)
    try:
        data["text/html"] = player.static_html()
        data["application/vnd.plotly.v1+json"] = _mimetype_figure(player.static_figure())
    except Exception as exc:  # the fallback must never break the live view
        data["text/html"] = "<pre>" + _("{player}: no static view ({error})").format(
            player=escape(repr(player)), error=escape(type(exc).__name__)) + "</pre>"
    return data


class TracePlayer(widgets.VBox):
    """Replay a run step by step: ω_t, the operation that produced it, π(ω_t) and its hierarchy.

    Parameters
    ----------
    trace : Trace
        The run to replay (``run(mechanism, steps)``).
    t : int
        The first state shown (default ω_0).
    interval : int
        Milliseconds between steps while playing.
    tokens : bool
        Show π(ω_t) as coloured tokens.
    hierarchy : bool, optional
        Show the hierarchy graph (default: when the trace's mechanism declares a hierarchy).
    max_tokens : int
        Show at most this many tokens of π(ω_t).

    Notes
    -----
    Moving the slider updates the FigureWidgets in place, one
    ``plotly_update`` message per figure inside ``batch_update()``. While
    ``Play`` runs, the token view follows t when it renders in under 50 ms
    (:data:`TOKEN_PLAY_BUDGET_S`); a slower one waits, its header says which t
    it shows and that it updates on pause, and it catches up when Play stops
    (the last 64 token views are cached). The figures fill the player's width
    (:class:`FitWidth`). In JupyterLab and Voila the widget view renders;
    where it cannot, the display bundle holds a static copy of the view at
    the current t (see :func:`player_bundle`), which loads
    nothing from the network.

    Attributes
    ----------
    play : ipywidgets.Play
    slider : ipywidgets.IntSlider
        The state index t; ``link``-ed to ``play`` in the kernel.
    back_button, next_button : ipywidgets.Button
        One step back / forward, clamped to 0 … n.
    occupancy, state, hierarchy : plotly.graph_objects.FigureWidget
        Updated in place (see :class:`TraceView`); ``hierarchy`` is ``None``
        when not shown.
    info, tokens, tokens_header : ipywidgets.HTML
        The step label, the token view of π(ω_t) and its header (which t it shows).
    fit : FitWidth
        Keeps the figures as wide as the player.

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> player = TracePlayer(trace)
    >>> player.next_button.click(); player.t
    1
    >>> player.slider.value = 3
    >>> list(player.occupancy.data[-1].x), player.next_button.disabled
    ([3], True)
    """

    def __init__(
        self,
        trace: Trace,
        t: int = 0,
        *,
        interval: int = 400,
        tokens: bool = True,
        hierarchy: bool | None = None,
        max_tokens: int = 1500,
    ) -> None:
        trace = require_trace(trace, "TracePlayer")
        interval = guards.whole_number(interval, "interval", where="TracePlayer", minimum=1, fix="; milliseconds between steps")
        self.trace = trace
        self.n = len(trace)
        self.view = TraceView(trace, t, tokens=tokens, hierarchy=hierarchy, max_tokens=max_tokens)
        t = self.view.t
        self.time = TimeSteps(self.n, t, interval, self._show, "TracePlayer")
        self.play, self.slider = self.time.play, self.time.slider
        self.back_button, self.next_button = self.time.back_button, self.time.next_button
        v = self.view
        self.occupancy, self.state, self.hierarchy = v.occupancy, v.state, v.hierarchy
        self.info, self.tokens = v.info, v.tokens
        self.tokens_header = v.tokens_header
        controls = widgets.HBox(
            [self.play, self.back_button, self.slider, self.next_button], layout=widgets.Layout(flex_flow="row wrap")
        )
        self.fit = FitWidth()
        # the step text has a fixed height and scrolls: the charts below it stay in place while Play runs
        step_text_box(self.info)
        children: list[widgets.Widget] = [controls, self.fit, self.info, self.occupancy, self.state]
        if self.hierarchy is not None:
            children.append(self.hierarchy)
        if self.tokens is not None and self.tokens_header is not None:
            children.append(
                widgets.VBox(
                    [self.tokens_header, self.tokens],
                    layout=widgets.Layout(max_height="320px", overflow="auto", border="1px solid #ddd", padding="4px"),
                )
            )
        super().__init__(children, layout=widgets.Layout(width="100%"))
        self.play.observe(self._on_playing, names="playing")

    @property
    def t(self) -> int:
        """The state ω_t shown now."""
        return self.time.t

    @t.setter
    def t(self, value: int) -> None:
        self.time.go_to(value)

    def step(self, delta: int) -> int:
        """Move by ``delta`` steps, clamped to 0 … n; returns the new t."""
        return self.time.step(delta)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The widget view, and static fallbacks for where it cannot render (:func:`player_bundle`)."""
        return player_bundle(self, **kwargs)

    def _show(self, t: int) -> None:
        # while Play runs, the token view follows t if it renders fast; if not, it waits (and says so) until a pause
        self.view.show(t, tokens=not self.play.playing or self.view.tokens_fast)

    def _on_playing(self, change: dict[str, Any]) -> None:
        if not change["new"]:
            self.view.catch_up()

    def __repr__(self) -> str:
        return f"TracePlayer({escape(shorten(self.trace.name, 40))}: ω_{self.view.t} of ω_0 … ω_{self.n})"

    def static_html(self, include_plotlyjs: str | bool = False) -> str:
        """The view at the current t as static HTML (with figures only if ``include_plotlyjs`` says where plotly.js comes from)."""
        return self.view.static_html(include_plotlyjs)

    def static_figure(self) -> go.Figure:
        """The view at the current t as one static figure (:meth:`TraceView.static_figure`)."""
        return self.view.static_figure()

    @property
    def figure_widgets(self) -> Sequence[go.FigureWidget]:
        """The FigureWidgets (occupancy, state bar, hierarchy if shown)."""
        return self.view.figures()
