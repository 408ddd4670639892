"""Several runs of one scenario stepped together: one slider, one panel per mechanism.

The paper proposes comparing memory mechanisms within one formal model; here
each panel shows one mechanism's occupancy Σμ(ω_t) with its own marker at t,
its state bar ω_t, step t in words ("the model saw π(ω_t) (N tokens) and
answered …; then arrived …" — the same step, seen through each mechanism's π)
and the operation that produced ω_t.

The panels sit in a CSS grid whose columns are at least
:data:`PANEL_MIN_WIDTH` wide: side by side when the page has room for them,
stacked in one column when it has not (a narrow window, the file browser
open), and every figure is as wide as its panel (:class:`~stmviz.widgets.player.FitWidth`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from ..core import guards
from ..core.errors import InvalidArgumentError
from ..core.formatting import shorten
from ..core.i18n import gettext as _
from ..core.trace import Trace
from ..viz import escape
from ..viz.occupancy import named_traces, occupancy_data, occupancy_figure, removal_markers
from .player import BOX_STYLE, MARKER_COLOR, FitWidth, TimeSteps, TraceView, _clamped, _plotlyjs, player_bundle, step_text_box

#: The narrowest a panel gets before the panels wrap onto more rows (px): a figure still reads at this width.
PANEL_MIN_WIDTH = 400
#: The height of a panel's occupancy figure (px); its legend takes its rows from the plot, never from the title.
PANEL_HEIGHT = 420

__all__ = ["ComparePlayer", "compare_player"]


def _named(traces: Any) -> list[tuple[str, Trace]]:
    if isinstance(traces, Trace):  # a comparison's own rule: it compares several runs
        raise InvalidArgumentError(
            "compare_player needs several traces (a list or a dict name → Trace); for one trace, use TracePlayer(trace)"
        )
    return named_traces(traces, where="compare_player")


class ComparePlayer(widgets.VBox):
    """Several traces of one scenario stepped together by one slider.

    Parameters
    ----------
    traces : list of Trace or dict of str to Trace
        The runs to compare (e.g. one per mechanism on the same steps). Runs
        of different lengths are allowed: a shorter one stays at its final
        state ω_n once t passes n.
    t : int
        The first state shown.
    interval : int
        Milliseconds between steps while playing.
    columns : int, optional
        At most this many panels per row (default: as many as fit, up to 3);
        panels never get narrower than :data:`PANEL_MIN_WIDTH` px, so a narrow
        page shows fewer per row, down to one.

    Attributes
    ----------
    play, slider, back_button, next_button
        The shared controls, as in :class:`~stmviz.widgets.TracePlayer`.
    views : list of TraceView
        One per trace: ``views[i].occupancy`` (with its own marker),
        ``views[i].state`` (its state bar), ``views[i].info``.
    names : list of str

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> steps = ["one two", "three", "four five"]
    >>> small = run(ExampleMechanism(StateSpace(sizes.words, v_max=3)), steps)
    >>> large = run(ExampleMechanism(StateSpace(sizes.words, v_max=9)), steps)
    >>> board = compare_player({"V_max = 3": small, "V_max = 9": large})
    >>> board.slider.value = 3
    >>> [v.t for v in board.views], board.names
    ([3, 3], ['V_max = 3', 'V_max = 9'])
    """

    def __init__(self, traces: Sequence[Trace] | Mapping[str, Trace], t: int = 0, *, interval: int = 400, columns: int | None = None) -> None:
        items = _named(traces)
        self.names = [name for name, _ in items]
        self.traces = [trace for _, trace in items]
        self.n = max(len(trace) for trace in self.traces)
        columns = guards.whole_number(columns, "columns", 1, where="compare_player", none_ok=True)
        interval = guards.whole_number(interval, "interval", where="compare_player", minimum=1, fix="; milliseconds between steps")
        t = _clamped(t, self.n, "compare_player")
        # a kind of removal has one marker in every panel, named alike in every panel
        markers = removal_markers(occupancy_data(trace) for _, trace in items)
        self.views = [
            TraceView(trace, min(t, len(trace)), tokens=False, hierarchy=False, name=name, height=PANEL_HEIGHT, t_max=self.n,
                      markers=markers)
            for name, trace in items
        ]
        self.time = TimeSteps(self.n, t, interval, self._show, "ComparePlayer")
        self.play, self.slider = self.time.play, self.time.slider
        self.back_button, self.next_button = self.time.back_button, self.time.next_button
        # 2 × 2 for four runs (four in one row of a notebook are cramped), else up to three a row
        cols = columns or min(len(items), 2 if len(items) % 2 == 0 else 3)
        self.panels = [
            widgets.VBox(
                [
                    widgets.HTML(f"<b style='{BOX_STYLE};overflow-wrap:anywhere'>{escape(shorten(name, 60))}</b>"),
                    view.occupancy, view.state, step_text_box(view.info),
                ],
                layout=widgets.Layout(min_width="0", overflow="hidden"),
            )
            for name, view in zip(self.names, self.views)
        ]
        gap = 12
        # columns of at least PANEL_MIN_WIDTH px (or the whole width, if narrower), at most `cols` of them
        widest = f"calc((100% - {(cols - 1) * gap}px) / {cols})"
        self.grid = widgets.GridBox(
            self.panels,
            layout=widgets.Layout(
                width="100%",
                grid_template_columns=f"repeat(auto-fit, minmax(max(min(100%, {PANEL_MIN_WIDTH}px), {widest}), 1fr))",
                grid_gap=f"{gap}px",
                align_items="flex-start",
            ),
        )
        self.grid.add_class("stmviz-compare-grid")
        for panel in self.panels:
            panel.add_class("stmviz-compare-panel")
        controls = widgets.HBox(
            [self.play, self.back_button, self.slider, self.next_button], layout=widgets.Layout(flex_flow="row wrap")
        )
        self.fit = FitWidth()
        super().__init__([controls, self.fit, self.grid], layout=widgets.Layout(width="100%"))

    @property
    def t(self) -> int:
        """The t of the slider (a shorter run shows its final state beyond its n)."""
        return self.time.t

    @t.setter
    def t(self, value: int) -> None:
        self.time.go_to(value)

    def step(self, delta: int) -> int:
        """Move by ``delta`` steps, clamped to 0 … n; returns the new t."""
        return self.time.step(delta)

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The widget view, and static fallbacks for where it cannot render (see :func:`~stmviz.widgets.player.player_bundle`)."""
        return player_bundle(self, **kwargs)

    def _show(self, t: int) -> None:
        for view, trace in zip(self.views, self.traces):
            target = min(t, len(trace))
            if target != view.t:
                view.show(target)

    def __repr__(self) -> str:
        names = ", ".join(escape(shorten(n, 24)) for n in self.names)
        return f"ComparePlayer({names}: t = {self.t} of {self.n})"

    def static_html(self, include_plotlyjs: str | bool = False) -> str:
        """All panels at the current t as static HTML (figures only if ``include_plotlyjs`` says where plotly.js comes from)."""
        include_plotlyjs = _plotlyjs(include_plotlyjs, "ComparePlayer.static_html")
        parts = []
        for i, view in enumerate(self.views):
            parts.append(
                f"<div style='flex:1 1 {PANEL_MIN_WIDTH}px;min-width:0'>"
                + view.static_html(include_plotlyjs if i == 0 else False, figures=bool(include_plotlyjs))
                + "</div>"
            )
        return "<div class='stmviz-static-compare' style='display:flex;flex-wrap:wrap;gap:12px'>" + "".join(parts) + "</div>"

    def static_figure(self) -> go.Figure:
        """The occupancy of every run side by side, each with a line at its current t (a static copy of the board)."""
        fig = occupancy_figure(dict(zip(self.names, self.traces)), layout="side")
        for col, view in enumerate(self.views, start=1):
            fig.add_vline(x=view.t, line={"color": MARKER_COLOR, "width": 2}, row=1, col=col)
        fig.update_layout(title={"text": _("t = {t} of {n}: a static copy; run the notebook to step through ω_t").format(
            t=self.t, n=self.n)})
        return fig


def compare_player(traces: Sequence[Trace] | Mapping[str, Trace], t: int = 0, **kwargs: Any) -> ComparePlayer:
    """Step several runs of one scenario together (see :class:`ComparePlayer`).

    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> a = run(ExampleMechanism(StateSpace(sizes.words, v_max=3)), ["a b", "c"])
    >>> compare_player([a, a]).names
    ['example', 'example (2)']
    """
    return ComparePlayer(traces, t, **kwargs)
