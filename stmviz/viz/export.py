"""A whole run as one self-contained HTML page that plays without a kernel.

The page holds plotly.js itself (it works offline) and one figure with
animation frames: on top the occupancy Σμ(ω_t) against V_max with a marker at
the current t, below the state ω_t as a bar of blocks of width μ(e). A slider
and a play button step through t. Long traces are sampled to at most
``max_frames`` frames, and the page says so. Each frame's title says the
step in words — "the model saw π(ω_t) (N tokens) and answered …; then
arrived …" (:meth:`~stmviz.core.trace.Step.describe`) — and the page lists
those sentences for every frame shown, so they read without JavaScript.
Every string from the trace is escaped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from ..core import guards
from ..core.guards import brief
from ..core.errors import InvalidArgumentError
from ..io.files import html_text, write_text
from ..core.formatting import describe_final, format_number, shorten
from ..core.i18n import gettext as _, get_language, ngettext
from ..core.trace import Trace, require_trace, step_halves
from ._common import escape
from .occupancy import occupancy_data, occupancy_trace_dicts
from .state import state_bar, state_bar_dicts

__all__ = ["DEFAULT_MAX_FRAMES", "frame_indices", "animation_dict", "trace_animation", "trace_html", "export_html", "words_html"]

#: At most this many animation frames by default.
DEFAULT_MAX_FRAMES = 300
#: The y category of the state bar in every frame.
BAR_ROW = "ω_t"


def frame_indices(n_states: int, max_frames: int = DEFAULT_MAX_FRAMES) -> list[int]:
    """The states ω_t shown as frames: all of 0 … n_states − 1, or at most ``max_frames`` evenly spaced.

    The first and the last state are always shown.

    Examples
    --------
    >>> frame_indices(5, 300)
    [0, 1, 2, 3, 4]
    >>> frame_indices(10001, 5)
    [0, 2500, 5000, 7500, 10000]
    """
    n_states = guards.whole_number(n_states, "n_states", 0, where="frame_indices")
    max_frames = guards.whole_number(max_frames, "max_frames", 2)
    if n_states <= max_frames:
        return list(range(n_states))
    last = n_states - 1
    return sorted({round(i * last / (max_frames - 1)) for i in range(max_frames)})


#: The animate arguments of the pause button: plotly.js stops at once (a redraw here rejects an "undefined" promise).
_PAUSE = {"mode": "immediate", "transition": {"duration": 0}, "frame": {"duration": 0, "redraw": False}}


def _frame_title(trace: Trace, t: int) -> str:
    n = len(trace)
    size = trace.size_at(t)
    text = _("t = {t} of {n} · Σμ(ω_{t}) = {size} / V_max = {v_max}").format(
        t=t, n=n, size=format_number(size, 4), v_max=format_number(trace.v_max, 4))
    if t < n:
        step = trace[t]
        text += ngettext(" · |π(ω_{t})| = {tokens} tokens · step {t}: {operation}",
                         " · |π(ω_{t})| = {tokens} tokens · step {t}: {operation}", step.input_size).format(
            t=t, tokens=step.input_size, operation=shorten(step.operation or "—", 40))
        text += f" (+{len(step.added)} −{len(step.removed)})"
    else:
        text += _(" · final state")
    return escape(text) + "<br>" + "<br>".join(escape(half) for half in _words(trace, t, 60))


def _words(trace: Trace, t: int, width: int) -> tuple[str, ...]:
    """The loop at ω_t in words (plain text): step t's two halves, or at t = n the final state."""
    if t < len(trace):
        step = trace[t]
        return step_halves(t, step.context.step, step.input_size, width)
    return (describe_final(t, trace.final_input_size),)


def words_html(trace: Trace, indices: list[int], width: int = 120) -> str:
    """The loop step by step in words, as an escaped HTML list over the states ω_t in ``indices``.

    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=9)), [{"thought": "<i>hi</i>", "observation": "ok"}])
    >>> print(words_html(trace, [0]))  # doctest: +NORMALIZE_WHITESPACE
    <details class="stmviz-words" open><summary><b>The loop step by step</b>: what the model saw, what it answered, what arrived then</summary>
    <ol start="0" style="padding-left:2.5em"><li value="0">step 0: the model saw π(ω_0) (0 tokens) and answered “&lt;i&gt;hi&lt;/i&gt;”; then arrived the user message “ok”, seen from π(ω_1) on</li></ol></details>
    """
    trace = require_trace(trace, "words_html")
    width = guards.whole_number(width, "width", 1, where="words_html")
    shown = [guards.time_index(trace, t, "words_html") for t in guards.items(indices, "indices", where="words_html", what="time indices t")]
    items = "".join(f'<li value="{t}">{escape("; ".join(_words(trace, t, width)))}</li>' for t in shown)
    summary = _("<b>The loop step by step</b>: what the model saw, what it answered, what arrived then")
    return (
        f'<details class="stmviz-words" open><summary>{summary}</summary>\n'
        f'<ol start="0" style="padding-left:2.5em">{items}</ol></details>'
    )


def animation_dict(trace: Trace, *, max_frames: int = DEFAULT_MAX_FRAMES) -> dict[str, Any]:
    """The animated figure of a run as a plain plotly dict ``{"data", "layout", "frames"}``.

    Nothing in it is validated by plotly's Python classes, which makes it fast
    for long traces; :func:`trace_animation` wraps it in a ``go.Figure``.
    """
    trace = require_trace(trace, "export_html")
    n = len(trace)
    indices = frame_indices(n + 1, max_frames)
    data = occupancy_data(trace)
    types = [escape(k) for k in data.by_type]
    parts = occupancy_trace_dicts(data, trace.name, stacked=True, show_input=True)
    traces: list[dict[str, Any]] = []
    for role in ("areas", "v_max", "input", "removals"):  # removal markers on top: their hover wins over |π|
        # the areas carry the type legend: every type, in every frame
        traces.extend({**item, "xaxis": "x", "yaxis": "y"} for item in parts[role])
    top = max([data.v_max, *data.total, *(x for x in data.input_size if x is not None)]) * 1.05

    def cursor(t: int) -> dict[str, Any]:
        return {
            "type": "scatter",
            "x": [t, t],
            "y": [0, top],
            "mode": "lines",
            "line": {"color": "#222222", "width": 2},
            "name": "t",
            "hoverinfo": "skip",
            "showlegend": False,
            "meta": {"role": "cursor"},
            "xaxis": "x",
            "yaxis": "y",
        }

    def bars(t: int) -> list[dict[str, Any]]:
        kinds = list(data.by_type)
        return [
            {**item, "xaxis": "x2", "yaxis": "y2"}
            for item in state_bar_dicts(state_bar(trace, t), kinds, y=BAR_ROW, showlegend=False)
        ]

    start = indices[0]
    traces.append(cursor(start))
    animated = list(range(len(traces) - 1, len(traces) + len(types) + 1))
    traces.extend(bars(start))
    frames = [
        {
            "name": str(t),
            "data": [cursor(t), *bars(t)],
            "traces": animated,
            "layout": {"title": {"text": _frame_title(trace, t)}},
        }
        for t in indices
    ]

    animate = {"mode": "immediate", "frame": {"duration": 0, "redraw": True}, "transition": {"duration": 0}}
    skeleton = make_subplots(
        rows=2,
        cols=1,
        row_heights=[0.68, 0.32],
        vertical_spacing=0.2,
        subplot_titles=[_("Occupancy Σμ(ω_t) against V_max"), _("The state ω_t: blocks of width μ(e)")],
    )
    skeleton.update_layout(
        title={"text": _frame_title(trace, start), "font": {"size": 14}},
        barmode="overlay",
        bargap=0.25,
        height=700,
        template="plotly_white",
        uniformtext={"minsize": 8, "mode": "hide"},
        hovermode="closest",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.04, "x": 0},
        margin={"t": 150, "l": 60, "r": 30, "b": 110},
        updatemenus=[
            {
                "type": "buttons",
                "direction": "left",
                "x": 0.12,
                "y": 0,
                "xanchor": "right",
                "yanchor": "top",
                "pad": {"t": 60, "r": 10},
                "showactive": False,
                "buttons": [
                    {
                        "label": _("▶ play"),
                        "method": "animate",
                        "args": [None, {"frame": {"duration": 250, "redraw": True}, "fromcurrent": True,
                                        "transition": {"duration": 0}}],
                    },
                    {"label": _("❚❚ pause"), "method": "animate", "args": [[None], _PAUSE]},
                ],
            }
        ],
    )
    skeleton.update_xaxes(title_text=_("t (state ω_t)"), row=1, col=1, range=[0, max(n, 1)])
    skeleton.update_yaxes(title_text=f"Σμ ({escape(trace.size_name)})", row=1, col=1, range=[0, top])
    upper = max(data.v_max, max(data.total)) * 1.02
    skeleton.update_xaxes(title_text="Σμ", row=2, col=1, range=[0, upper])
    skeleton.add_shape(type="line", x0=data.v_max, x1=data.v_max, y0=0, y1=1, xref="x2", yref="y2 domain",
                       line={"color": "black", "width": 2, "dash": "dash"}, name="V_max")
    layout = skeleton.layout.to_plotly_json()
    layout["sliders"] = [
        {
            "active": 0,
            "x": 0.14,
            "len": 0.86,
            "y": 0,
            "yanchor": "top",
            "currentvalue": {"prefix": "t = ", "font": {"size": 13, "color": "#222222"}},
            "pad": {"t": 50, "b": 10},
            # hundreds of tick labels overlap: show them only for short traces
            "font": {"color": "#444444" if len(indices) <= 40 else "rgba(0,0,0,0)"},
            "steps": [{"label": str(t), "method": "animate", "args": [[str(t)], animate]} for t in indices],
        }
    ]
    return {"data": traces, "layout": layout, "frames": frames}


def trace_animation(trace: Trace, *, max_frames: int = DEFAULT_MAX_FRAMES) -> go.Figure:
    """The animated figure of a run: occupancy with a moving marker at t, and the state bar ω_t per frame.

    Parameters
    ----------
    trace : Trace
    max_frames : int
        At most this many frames (states sampled evenly, see :func:`frame_indices`).

    Returns
    -------
    plotly.graph_objects.Figure
        With ``frames`` named by t, a slider and play / pause buttons.

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> fig = trace_animation(trace)
    >>> [f.name for f in fig.frames], len(fig.layout.sliders[0].steps)
    (['0', '1', '2', '3'], 4)
    """
    return go.Figure(animation_dict(trace, max_frames=max_frames))


def trace_html(trace: Trace, *, title: str | None = None, max_frames: int = DEFAULT_MAX_FRAMES) -> str:
    """The self-contained HTML page of a run (plotly.js embedded, no kernel, works offline).

    Parameters are those of :func:`export_html`.

    Returns
    -------
    str
        A full HTML document.
    """
    trace = require_trace(trace, "export_html")
    title = guards.text(title, "title", where="export_html", none_ok=True, blank_ok=True)
    n = len(trace)
    figure = animation_dict(trace, max_frames=max_frames)
    shown = len(figure["frames"])
    heading = escape(title if title is not None else _("stmviz: a run of {name}").format(name=trace.name))
    facts = [
        _("mechanism {name}").format(name=escape(trace.name)),
        ngettext("{n} steps", "{n} steps", n).format(n=n),
        f"V_max = {escape(format_number(trace.v_max, 4))}",
        f"μ = {escape(trace.size_name)}",
    ]
    query = "<p>" + _("<b>query Q:</b> {query}").format(query=escape(shorten(trace.query, 300))) + "</p>" if trace.query else ""
    if shown < n + 1:
        sampling = "<p class=\"stmviz-sampling\">" + _(
            "<b>Sampled:</b> the animation shows {shown} of the {states} states ω_0 … ω_{n} (about every {every}th, "
            "the first and the last included); the occupancy curve shows every step.").format(
            shown=shown, states=n + 1, n=n, every=max(1, round(n / max(1, shown - 1)))) + "</p>"
    else:
        sampling = "<p class=\"stmviz-sampling\">" + _("The animation shows all {states} states ω_0 … ω_{n}.").format(
            states=n + 1, n=n) + "</p>"
    plot = pio.to_html(
        _html_strings(figure),
        validate=False,
        full_html=False,
        include_plotlyjs=True,
        div_id="stmviz-trace",
        auto_play=False,
        config={"responsive": True, "displaylogo": False},
    )
    return (
        f"<!DOCTYPE html>\n<html lang=\"{get_language()}\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{heading}</title>\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<style>body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}"
        "h1{font-size:1.3em}p{max-width:60em}</style>\n</head>\n<body>\n"
        f"<h1>{heading}</h1>\n<p>{' · '.join(facts)}</p>\n{query}{sampling}"
        "<p>" + _("Top: the occupancy Σμ(ω_t) by element type, the capacity V_max (dashed), |π(ω_t)| in tokens "
                  "(dotted) and the steps where U removed elements, named by the mechanism's operations (× dropped, "
                  "◆ replaced in place by what the step added). Bottom: the state ω_t; "
                  "outlined blocks entered at the previous step, hatched blocks are removed by step t. "
                  "Use the slider or ▶ play.") + "</p>\n"
        f"{plot}\n{words_html(trace, frame_indices(n + 1, max_frames))}\n</body>\n</html>\n"
    )


def _target(path: object) -> Path:
    """The path export_html writes to: a str or path-like that the file system can name."""
    named: str | os.PathLike[str] = guards.instance(
        path, "path", (str, os.PathLike), where="export_html", what="a str or a pathlib.Path naming the HTML file",
        fix="; e.g. export_html(trace, 'run.html')",
    )
    try:
        text = os.fspath(named)
    except Exception as exc:  # a path-like whose __fspath__ fails: the guards read only a value's type
        raise InvalidArgumentError(f"export_html: path {brief(path)} gives no file name ({type(exc).__name__})") from exc
    text = guards.text(text, "path", where="export_html", example="run.html")
    try:
        os.fsencode(text)
    except UnicodeEncodeError:  # a name the file system cannot store: a rule of file names, not of str
        raise InvalidArgumentError(
            f"export_html: the path {brief(text)} holds characters the file system cannot store "
            "(e.g. half of an emoji); choose another file name"
        ) from None
    if "\x00" in text:  # the same rule: no file name holds NUL
        raise InvalidArgumentError(f"export_html: the path {brief(text)} holds a NUL character; choose another file name")
    return Path(text)


def export_html(
    trace: Trace,
    path: str | os.PathLike[str],
    *,
    title: str | None = None,
    max_frames: int = DEFAULT_MAX_FRAMES,
) -> Path:
    """Write a run as one self-contained, offline HTML file that animates ω_0 … ω_n.

    Parameters
    ----------
    trace : Trace
        The run to export.
    path : str or path-like
        Where to write the page (parent directories must exist).
    title : str, optional
        The page title (escaped); default names the mechanism.
    max_frames : int
        At most this many animation frames; longer traces are sampled evenly and the page says so.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile, os
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "<b>three</b>"])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     page = export_html(trace, os.path.join(folder, "run.html")).read_text(encoding="utf-8")
    >>> "<b>three" in page, "&lt;b&gt;three" in page
    (False, True)
    """
    trace = require_trace(trace, "export_html")
    target = _target(path)
    if target.is_dir():  # what the disk holds at the path: a rule of the file system, no guard's
        raise InvalidArgumentError(f"export_html: {target} is a directory; pass a file path such as {target / 'trace.html'}")
    if not target.parent.exists():  # the same: the disk has no such folder
        raise InvalidArgumentError(f"export_html: the folder {target.parent} does not exist; create it first")
    page = html_text(trace_html(trace, title=title, max_frames=max_frames))  # lone surrogates become U+FFFD
    return write_text(target, page, what="HTML page")  # atomically: a failed export leaves an old page intact


def _html_strings(value: Any) -> Any:
    """``value`` (a figure's plain data) with lone surrogates in its strings shown as U+FFFD.

    plotly serializes with orjson when it is installed, and orjson refuses a lone surrogate
    (half an emoji cut from agent text); the HTML half of the encoding policy replaces it.
    """
    if isinstance(value, str):
        return html_text(value)
    if isinstance(value, dict):
        return {key: _html_strings(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_html_strings(item) for item in value]
    return value
