"""A finished sweep explored by its capacity: a V_max slider, each mechanism's results at that V_max.

:func:`stmviz.sweep.sweep` ran every mechanism at several V_max; the
:class:`SweepExplorer` shows one V_max at a time: a bar per mechanism (and
parameter set) for the chosen measure, and a table of every measure — key-string
retention, evidence recall, whole turns, answer recall, cost. Moving the slider
updates both in place. Names in the records are escaped.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go

from ..core import guards
from ..core.errors import InvalidArgumentError
from ..core.guards import brief
from ..core.formatting import format_number
from ..core.i18n import N_, gettext as _
from ..viz import escape
from ..viz.sweep import MEASURES, mechanism_colors, series_of, usable_records
from .live_figure import LiveFigure

__all__ = ["SweepExplorer"]

#: The columns of the table, in order.
COLUMNS = ("retention", "evidence_recall", "whole_turns", "answer_recall", "cost", "mean_occupancy")
#: The table's header cells: the first column ("line"), then :data:`COLUMNS` (in English the keys themselves).
HEADERS = (N_("line"), N_("retention"), N_("evidence_recall"), N_("whole_turns"), N_("answer_recall"), N_("cost"),
           N_("mean_occupancy"))


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value <= 1.0:
        return f"{value:.2f}"
    if isinstance(value, (int, float)):
        return format_number(value, 10)
    return escape(value)


class SweepExplorer(widgets.VBox):
    """A V_max slider over a finished sweep, with each line's results at that V_max.

    Parameters
    ----------
    records : list of dict
        The records of :func:`stmviz.sweep.sweep` (runs that failed are left out).
    measure : str
        The measure the bars show (a key of :data:`stmviz.viz.sweep.MEASURES`,
        default ``"evidence_recall"``).
    v_max : number, optional
        The V_max shown first (default: the smallest).

    Attributes
    ----------
    slider : ipywidgets.SelectionSlider
        The V_max values of the sweep, in increasing order.
    figure : plotly.graph_objects.FigureWidget (a :class:`~stmviz.widgets.live_figure.LiveFigure`)
        One bar per line (mechanism, parameters, scenario), in the sweep's order.
    table : ipywidgets.HTML
        Every measure of each line at the chosen V_max.
    series : list of str
        The lines, as :func:`stmviz.viz.sweep.series_of` names them.

    Examples
    --------
    >>> rows = [{"mechanism": m, "scenario": "s", "v_max": v, "evidence_recall": r, "cost": c}
    ...         for m, v, r, c in (("A", 100, 0.2, 5), ("A", 200, 0.4, 9), ("B", 100, 0.3, 4), ("B", 200, 0.5, 8))]
    >>> explorer = SweepExplorer(rows)
    >>> explorer.slider.value, list(explorer.figure.data[0].y)
    (100, [0.2, 0.3])
    >>> explorer.slider.value = 200
    >>> list(explorer.figure.data[0].y)
    [0.4, 0.5]
    """

    def __init__(self, records: Iterable[Mapping[str, Any]], measure: str = "evidence_recall", v_max: Any = None) -> None:
        measure = guards.choice(measure, "measure", MEASURES, where="SweepExplorer")
        rows = usable_records(records, measure, where="SweepExplorer")
        self.measure = measure
        several = len({r.get("scenario") for r in rows}) > 1
        self.series: list[str] = []
        self._at: dict[tuple[str, Any], Mapping[str, Any]] = {}
        mechanisms: dict[str, str] = {}
        for row in rows:
            name = series_of(row, several)
            if name not in mechanisms:
                self.series.append(name)
                mechanisms[name] = str(row.get("mechanism", "?"))
            self._at[(name, row["v_max"])] = row
        self._capacities = sorted({row["v_max"] for row in rows})
        v_max = self._capacity(self._capacities[0] if v_max is None else v_max, "SweepExplorer")
        capacities = self._capacities
        colors = mechanism_colors(rows)
        self.slider = widgets.SelectionSlider(
            options=[(format_number(v, 10), v) for v in capacities],
            value=v_max,
            description="V_max",
            continuous_update=True,
            layout=widgets.Layout(width="95%"),
        )
        bounded = measure in ("evidence_recall", "evidence_word_overlap", "answer_recall", "whole_turns", "retention")
        figure = go.Figure(
            go.Bar(
                x=[escape(name) for name in self.series],
                y=self._values(v_max),
                marker={"color": [colors[mechanisms[name]] for name in self.series]},
                hoverinfo="x+y",
                meta={"role": "bars"},
            )
        )
        figure.update_layout(
            title={"text": self._title(v_max)},
            yaxis_title=escape(_(MEASURES[measure])),
            yaxis={"range": [0, 1.02]} if bounded else {},
            margin={"t": 60, "l": 60, "r": 30, "b": 80},
            template="plotly_white",
            height=360,
        )
        self.figure = LiveFigure(figure)  # drawn from its whole state: steady in Voila (see live_figure)
        self.table = widgets.HTML(self._table(v_max))
        self.slider.observe(self._moved, names="value")
        super().__init__([self.slider, self.figure, self.table])

    def _capacity(self, v_max: Any, where: str) -> Any:
        """``v_max`` if it is one of the sweep's capacities (the slider's values)."""
        number = guards.real_number(v_max, "v_max", where=where)
        for capacity in self._capacities:
            if capacity == number:
                return capacity
        # the sweep's own rule (a V_max it ran), and capacities are numbers: guards.choice lists texts only
        raise InvalidArgumentError(
            f"{where}: V_max = {brief(v_max)} is not one of the sweep's "
            f"({', '.join(format_number(v) for v in self._capacities)}); pick one of them"
        )

    def _values(self, v_max: Any) -> list[Any]:
        values = []
        for name in self.series:
            row = self._at.get((name, v_max))
            values.append(row.get(self.measure) if row is not None else None)
        return values

    def _table(self, v_max: Any) -> str:
        # cells padded apart (an ipywidgets HTML has no notebook table style: "58808 0.69" ran together)
        pad = "padding:2px 12px;text-align:right;white-space:nowrap"
        head = "".join(f"<th style='{pad}'>{html.escape(_(c))}</th>" for c in HEADERS)
        body = []
        for name in self.series:
            row = self._at.get((name, v_max))
            cells = [_cell(row.get(c)) if row is not None else "—" for c in COLUMNS]
            body.append(f"<tr><td style='{pad};text-align:left'>" + escape(name) + "</td>"
                        + "".join(f"<td style='{pad}'>{c}</td>" for c in cells) + "</tr>")
        return (f"<div style='max-width:100%;overflow-x:auto'><table style='border-collapse:collapse'>"
                f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")

    def _title(self, v_max: Any) -> str:
        """The figure's title at ``v_max``: the measure, capitalized, in the language set."""
        return _("{measure} at V_max = {v_max}").format(
            measure=escape(_(MEASURES[self.measure])).capitalize(), v_max=format_number(v_max, 10))

    def _moved(self, change: Mapping[str, Any]) -> None:
        self.show(change["new"])

    def show(self, v_max: Any) -> None:
        """Show the results at ``v_max`` (one of the slider's values)."""
        v_max = self._capacity(v_max, "SweepExplorer.show")
        if self.slider.value != v_max:
            self.slider.value = v_max  # calls back here
            return
        with self.figure.batch_update():
            self.figure.data[0].y = self._values(v_max)
            self.figure.layout.title.text = self._title(v_max)
        self.table.value = self._table(v_max)
