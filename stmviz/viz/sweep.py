"""Figures of a finished sweep (:func:`stmviz.sweep.sweep`): quality against V_max, and cost against quality.

- :func:`recall_figure` — a measure (evidence recall by default) against the
  capacity V_max, one line per mechanism (and parameter set, and scenario);
- :func:`pareto_figure` — every run as a point, cost Σ_t |π(ω_t)| against a
  measure, with the Pareto front marked: the runs that no other run beats on
  both (as cheap or cheaper, and as good or better, one of them strictly);
- :func:`pareto_front` — the indices of those runs, as plain data;
- :func:`series_of` — how records group into the lines of a figure.

Records that hold an ``"error"`` or no value of the measure are left out.
Each mechanism keeps one colour across both figures (the comparison colours
of :func:`stmviz.viz.occupancy_figure`, in the order the mechanisms first
appear); labels and hovers are escaped, since they carry user-given names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import plotly.graph_objects as go

from ..core import guards
from ..core.errors import InvalidArgumentError
from ..core.formatting import format_number
from ..core.i18n import N_, gettext as _
from ._common import escape, shorten
from .occupancy import COMPARE_COLORS

__all__ = ["recall_figure", "pareto_figure", "pareto_front", "series_of", "usable_records", "mechanism_colors", "MEASURES"]

#: The measures a figure can draw, with their axis titles (in English; a figure shows them through ``_()``).
MEASURES: Mapping[str, str] = {
    "evidence_recall": N_("evidence recall at question time"),
    "evidence_word_overlap": N_("evidence word overlap (bag of words)"),
    "answer_recall": N_("answer-token recall at question time"),
    "whole_turns": N_("evidence turns present whole"),
    "retention": N_("key-string retention"),
    "cost": N_("cost Σ_t |π(ω_t)| (input tokens)"),
    "total_prompt_tokens": N_("input tokens Σ_t |π(ω_t)|"),
    "mean_occupancy": N_("mean occupancy Σμ(ω_t) / V_max"),
    "max_prompt_tokens": N_("largest |π(ω_t)| (tokens)"),
}
#: The short names of the measures in a run's hover (``"{name} = {value}"``).
HOVER_NAMES: Mapping[str, str] = {
    "evidence_recall": N_("evidence recall"),
    "evidence_word_overlap": N_("evidence word overlap"),
    "answer_recall": N_("answer recall"),
    "whole_turns": N_("whole turns"),
    "retention": N_("retention"),
}

#: Record keys that are not parameters of a run (so they do not name a line).
_MEASURED = frozenset(
    {
        "scenario", "mechanism", "v_max", "steps", "mean_occupancy", "max_occupancy", "total_prompt_tokens",
        "max_prompt_tokens", "evictions", "summarizer_calls", "probes", "retained", "retention",
        "evidence_recall", "evidence_word_overlap", "whole_turns", "answer_recall", "cost", "trace", "error",
    }
)


def usable_records(records: Any, *keys: str, where: str = "usable_records") -> list[dict[str, Any]]:
    """The records of a sweep that have a number for every key (copies), after checking their shape.

    ``where`` names the public function for the messages.

    Raises
    ------
    InvalidArgumentError
        if ``records`` is not a list of dicts, a key is no known measure, or no record has a value.
    """
    rows = guards.items(records, "records", where=where, what="records (dicts) that sweep() returns")
    for k, row in enumerate(rows):
        guards.instance(row, f"records[{k}]", Mapping, where=where, what="a dict (one run of sweep())")
    for key in keys:
        guards.choice(key, "measure", [*MEASURES, "v_max"], where=where)
        if rows and not any(key in row for row in rows):  # the sweep's rule: a measure some run recorded
            raise InvalidArgumentError(f"{where}: no record has {key!r}; are these the records of sweep()?")
    usable = [
        dict(row)
        for row in rows
        if "error" not in row and all(isinstance(row.get(k), (int, float)) and not isinstance(row.get(k), bool) for k in keys)
    ]
    if not usable:  # the same rule: a figure needs a run that scored the measure
        raise InvalidArgumentError(
            f"{where}: no record has a value of {' and '.join(map(repr, keys))} (runs that failed or scored no probe are "
            f"left out); give the sweep scenarios with probes"
        )
    return usable


def series_of(record: Mapping[str, Any], several_scenarios: bool = False) -> str:
    """The line a record belongs to: its mechanism, its grid parameters, and its scenario if the sweep had several.

    >>> series_of({"mechanism": "SCM", "v_max": 800, "k": 3, "cost": 10})
    'SCM k=3'
    """
    record = guards.instance(record, "record", Mapping, where="series_of", what="a dict (one run of sweep())")
    several_scenarios = guards.flag(several_scenarios, "several_scenarios", where="series_of")
    params = " ".join(f"{k}={v}" for k, v in record.items() if k not in _MEASURED and v is not None)
    label = str(record.get("mechanism", "?")) + (f" {params}" if params else "")
    if several_scenarios:
        label += f" · {record.get('scenario', '')}"
    return label


def mechanism_colors(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """One comparison colour per mechanism label, in the order the labels first appear."""
    colors: dict[str, str] = {}
    for row in rows:
        name = str(row.get("mechanism", "?"))
        if name not in colors:
            colors[name] = COMPARE_COLORS[len(colors) % len(COMPARE_COLORS)]
    return colors


_DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")


def _hover(row: Mapping[str, Any], several: bool) -> str:
    lines = [series_of(row, several), f"V_max = {format_number(row['v_max'], 6)}"]
    for key in ("evidence_recall", "evidence_word_overlap", "answer_recall", "whole_turns", "retention"):
        value = row.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            lines.append(f"{_(HOVER_NAMES[key])} = {value:.3f}")
    if isinstance(row.get("cost"), (int, float)):
        lines.append(_("cost = {cost} tokens").format(cost=format_number(row["cost"], 10)))
    # agent-given names are escaped; "%" would start plotly's template markup
    return "<br>".join(escape(shorten(line, 90)).replace("%", "&#37;") for line in lines)


def recall_figure(records: Iterable[Mapping[str, Any]], measure: str = "evidence_recall") -> go.Figure:
    """A measure against V_max, one line per mechanism (and parameter set, and scenario when there are several).

    Parameters
    ----------
    records : list of dict
        The records of :func:`stmviz.sweep.sweep`.
    measure : str
        A key of :data:`MEASURES` (default ``"evidence_recall"``).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``scatter`` trace per line, ``meta={"role": "series", "mechanism": …}``.

    Examples
    --------
    >>> rows = [{"mechanism": "FIFO", "scenario": "s", "v_max": v, "evidence_recall": r}
    ...         for v, r in ((100, 0.2), (200, 0.5))]
    >>> fig = recall_figure(rows)
    >>> [(d.name, list(d.x), list(d.y)) for d in fig.data]
    [('FIFO', [100, 200], [0.2, 0.5])]
    """
    measure = guards.choice(measure, "measure", MEASURES, where="recall_figure")
    rows = usable_records(records, measure, where="recall_figure")
    several = len({r.get("scenario") for r in rows}) > 1
    colors = mechanism_colors(rows)
    lines: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        lines.setdefault(series_of(row, several), []).append(row)
    variants: dict[str, int] = {}
    fig = go.Figure()
    for name, members in lines.items():
        members.sort(key=lambda r: r["v_max"])
        mechanism = str(members[0].get("mechanism", "?"))
        variant = variants.get(mechanism, 0)
        variants[mechanism] = variant + 1
        fig.add_trace(
            go.Scatter(
                x=[r["v_max"] for r in members],
                y=[r[measure] for r in members],
                mode="lines+markers",
                name=escape(shorten(name, 60)),
                line={"color": colors[mechanism], "dash": _DASHES[variant % len(_DASHES)]},
                hovertext=[_hover(r, several) for r in members],
                hoverinfo="text",
                meta={"role": "series", "mechanism": mechanism},
            )
        )
    bounded = measure in ("evidence_recall", "evidence_word_overlap", "answer_recall", "whole_turns", "retention")
    fig.update_layout(
        title={"text": _("{measure} against V_max").format(measure=escape(_(MEASURES[measure])).capitalize())},
        xaxis_title=_("V_max (capacity of ω)"),
        yaxis_title=escape(_(MEASURES[measure])),
        hovermode="closest",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        margin={"t": 90, "l": 60, "r": 30, "b": 50},
        template="plotly_white",
    )
    if bounded:
        fig.update_yaxes(range=[-0.02, 1.02])
    return fig


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def pareto_front(records: Iterable[Mapping[str, Any]], quality: str = "evidence_recall", cost: str = "cost") -> list[int]:
    """The indices (into ``records``) of the runs on the Pareto front of low cost and high quality.

    A run is on the front when no other run has cost ≤ its cost and quality ≥
    its quality with one of them strict. Runs with equal cost and quality are
    all kept. Records without both values are skipped. Sorted by cost.

    >>> pareto_front([{"cost": 10, "q": 0.5}, {"cost": 5, "q": 0.5}, {"cost": 20, "q": 0.9}, {"cost": 6, "q": 0.1}], "q")
    [1, 2]
    """
    rows = guards.items(records, "records", where="pareto_front", what="records (dicts) that sweep() returns")
    points = []
    for i, row in enumerate(rows):
        guards.instance(row, f"records[{i}]", Mapping, where="pareto_front", what="a dict (one run of sweep())")
        c: Any = row.get(cost)
        q: Any = row.get(quality)
        if "error" in row or not _number(c) or not _number(q):
            continue
        points.append((c, -float(q), i))
    points.sort()
    front: list[int] = []
    best = None  # the highest quality of any cheaper-or-equal point seen so far
    last: tuple[Any, Any] | None = None
    for c, negative_q, i in points:
        q = -negative_q
        if last is not None and (c, q) == last:
            front.append(i)  # the same point as a run already on the front
            continue
        if best is None or q > best:
            front.append(i)
            best = q
            last = (c, q)
    return front


def pareto_figure(
    records: Iterable[Mapping[str, Any]], quality: str = "evidence_recall", cost: str = "cost"
) -> go.Figure:
    """Cost against quality: every run as a point, coloured by mechanism, the Pareto front marked.

    Parameters
    ----------
    records : list of dict
        The records of :func:`stmviz.sweep.sweep`.
    quality : str
        The measure on the y axis (default ``"evidence_recall"``).
    cost : str
        The cost on the x axis (default ``"cost"``, Σ_t |π(ω_t)|).

    Returns
    -------
    plotly.graph_objects.Figure
        One marker trace per mechanism (``meta={"role": "runs", ...}``) and
        the front as a step line through its runs (``meta={"role": "front",
        "indices": [...]}``, indices into the usable records).

    Examples
    --------
    >>> rows = [{"mechanism": m, "scenario": "s", "v_max": v, "cost": c, "evidence_recall": r}
    ...         for m, v, c, r in (("A", 1, 10, 0.2), ("A", 2, 20, 0.6), ("B", 1, 15, 0.1))]
    >>> fig = pareto_figure(rows)
    >>> [d.meta["role"] for d in fig.data], fig.data[-1].meta["indices"]
    (['runs', 'runs', 'front'], [0, 1])
    """
    quality = guards.choice(quality, "quality", MEASURES, where="pareto_figure")
    cost = guards.choice(cost, "cost", [*MEASURES, "v_max"], where="pareto_figure")
    rows = usable_records(records, quality, cost, where="pareto_figure")
    several = len({r.get("scenario") for r in rows}) > 1
    colors = mechanism_colors(rows)
    fig = go.Figure()
    for mechanism, color in colors.items():
        members = [r for r in rows if str(r.get("mechanism", "?")) == mechanism]
        fig.add_trace(
            go.Scatter(
                x=[r[cost] for r in members],
                y=[r[quality] for r in members],
                mode="markers",
                name=escape(shorten(mechanism, 60)),
                marker={"color": color, "size": 9, "opacity": 0.8},
                hovertext=[_hover(r, several) for r in members],
                hoverinfo="text",
                meta={"role": "runs", "mechanism": mechanism},
            )
        )
    front = pareto_front(rows, quality, cost)
    # a staircase: the best quality so far holds until a costlier run on the front improves it
    xs, ys = [rows[i][cost] for i in front], [rows[i][quality] for i in front]
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            name=_("Pareto front"),
            line={"color": "rgba(0,0,0,0.55)", "dash": "dot", "shape": "hv"},
            marker={"symbol": "circle-open", "size": 15, "color": "black", "line": {"width": 2}},
            hoverinfo="skip",
            meta={"role": "front", "indices": front},
        )
    )
    fig.update_layout(
        title={"text": _("Cost against {measure}: the Pareto front").format(measure=escape(_(MEASURES[quality])))},
        xaxis_title=escape(_(MEASURES[cost]) if cost in MEASURES else cost),
        yaxis_title=escape(_(MEASURES[quality])),
        hovermode="closest",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
        margin={"t": 90, "l": 60, "r": 30, "b": 50},
        template="plotly_white",
    )
    return fig
