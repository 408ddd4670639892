"""Several runs of one scenario stepped together: one slider, one panel per mechanism.

The paper proposes comparing memory mechanisms within one formal model; here
each panel shows one mechanism's occupancy Σμ(ω_t) with its own marker at t,
its state bar ω_t, step t in words ("the model saw π(ω_t) (N tokens) and
answered …; then arrived …" — the same step, seen through each mechanism's π)
and the operation that produced ω_t.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ipywidgets as widgets

from ..core import arguments
from ..core.arguments import describe
from ..core.errors import InvalidArgumentError
from ..core.formatting import shorten
from ..core.trace import Trace
from ..viz import escape
from .player import BOX_STYLE, Stepping, TraceView, _clamped, time_controls

__all__ = ["ComparePlayer", "compare_player"]


def _named(traces: Any) -> list[tuple[str, Trace]]:
    if isinstance(traces, Trace):
        raise InvalidArgumentError(
            "compare_player needs several traces (a list or a dict name → Trace); for one trace, use TracePlayer(trace)"
        )
    if isinstance(traces, Mapping):
        try:
            pairs = list(traces.items())
        except Exception as exc:
            raise InvalidArgumentError(f"compare_player: the dict of traces could not be read ({type(exc).__name__})") from exc
        items = [(k if isinstance(k, str) else describe(k), v) for k, v in pairs]
    elif isinstance(traces, Sequence) and not isinstance(traces, (str, bytes)):
        items = [(v.name if isinstance(v, Trace) else f"trace {i}", v) for i, v in enumerate(traces)]
    else:
        raise InvalidArgumentError(
            f"compare_player needs a list or a dict name → Trace, got {type(traces).__name__}; "
            f"e.g. compare_player([run(fifo, steps), run(scm, steps)])"
        )
    if not items:
        raise InvalidArgumentError("compare_player needs at least one trace, got an empty collection; pass the traces of run(...)")
    for name, trace in items:
        if not isinstance(trace, Trace):
            raise InvalidArgumentError(
                f"compare_player: {describe(name, 40)} is a {type(trace).__name__}, not a Trace; "
                f"pass what run(mechanism, steps) returns"
            )
    seen: dict[str, int] = {}
    out = []
    for name, trace in items:  # the same mechanism twice: make the names distinct
        seen[name] = seen.get(name, 0) + 1
        out.append((name if seen[name] == 1 else f"{name} ({seen[name]})", trace))
    return out


class ComparePlayer(Stepping, widgets.VBox):
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
        Panels per row (default: all in one row, up to 3).

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
    >>> from stmviz.core.mechanism import _Example
    >>> steps = ["one two", "three", "four five"]
    >>> small = run(_Example(StateSpace(sizes.words, v_max=3)), steps)
    >>> large = run(_Example(StateSpace(sizes.words, v_max=9)), steps)
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
        if columns is not None and (isinstance(columns, bool) or not isinstance(columns, int) or columns < 1):
            raise InvalidArgumentError(f"compare_player: columns must be a whole number ≥ 1 (or None), got {describe(columns)}")
        interval = arguments.whole_number(interval, "compare_player", "interval", minimum=1, fix="; milliseconds between steps")
        t = _clamped(t, self.n, "compare_player")
        self.views = [
            TraceView(trace, min(t, len(trace)), tokens=False, hierarchy=False, name=name, height=340)
            for name, trace in items
        ]
        self.play, self.slider, self.back_button, self.next_button = time_controls(self.n, t, interval)
        cols = columns or min(len(items), 3)
        panels = [
            widgets.VBox(
                [widgets.HTML(f"<b style='{BOX_STYLE}'>{escape(shorten(name, 60))}</b>"), view.occupancy, view.state, view.info],
                layout=widgets.Layout(width=f"{100 / cols - 1:.2f}%", min_width="320px", margin="0 0.5% 8px 0"),
            )
            for name, view in zip(self.names, self.views)
        ]
        grid = widgets.HBox(panels, layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start"))
        controls = widgets.HBox([self.play, self.back_button, self.slider, self.next_button])
        super().__init__([controls, grid])
        self._wire()

    def _show(self, t: int) -> None:
        for view, trace in zip(self.views, self.traces):
            target = min(t, len(trace))
            if target != view.t:
                view.show(target)

    def __repr__(self) -> str:
        names = ", ".join(escape(shorten(n, 24)) for n in self.names)
        return f"ComparePlayer({names}: t = {self.t} of {self.n})"

    def static_html(self, include_plotlyjs: str | bool = "cdn") -> str:
        """All panels at the current t as static HTML."""
        parts = []
        for i, view in enumerate(self.views):
            parts.append(
                "<div style='display:inline-block;vertical-align:top;min-width:320px;width:32%'>"
                + view.static_html(include_plotlyjs if i == 0 else False)
                + "</div>"
            )
        return "<div class='stmviz-static-compare'>" + "".join(parts) + "</div>"


def compare_player(traces: Sequence[Trace] | Mapping[str, Trace], t: int = 0, **kwargs: Any) -> ComparePlayer:
    """Step several runs of one scenario together (see :class:`ComparePlayer`).

    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import _Example
    >>> a = run(_Example(StateSpace(sizes.words, v_max=3)), ["a b", "c"])
    >>> compare_player([a, a]).names
    ['example', 'example (2)']
    """
    return ComparePlayer(traces, t, **kwargs)
