"""The occupancy Σμ(ω_t) of a run over t = 0 … n, against the capacity V_max.

:func:`occupancy_data` computes the plain numbers in one pass over the step
diffs of a :class:`~stmviz.Trace` (no ω_t is rebuilt); :func:`occupancy_figure`
draws them: stacked areas by element type whose heights add up to Σμ(ω_t),
the line V_max, markers where U removed elements (named by the operations
of the mechanism's vocabulary O that the step applied, with what was removed
and why in the hover), and the size |π(ω_t)| of the model input.

The figures fill their container's width (no fixed width; plotly's autosize),
and their legend sits at the bottom of the figure, below the x-axis title, in
the figure's own margin (``legend.yref = "container"``): however many rows
a narrow column makes it wrap into, plotly grows that margin, so the legend
never covers the title or the axis titles (:func:`bottom_legend`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..core import guards
from ..core.guards import brief
from ..core.errors import InvalidArgumentError
from ..core.formatting import format_number, shorten
from ..core.i18n import gettext as _, ngettext
from ..core.trace import Trace, require_trace
from ._common import color_for, escape, hover_text

__all__ = [
    "OccupancyData", "Removal", "bottom_legend", "step_range", "occupancy_data", "occupancy_trace_dicts", "occupancy_figure", "named_traces",
    "removal_markers",
]

#: Line colours of the traces compared in one panel (``layout="overlay"``).
COMPARE_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")

#: At most this many removed elements are listed in one marker's hover.
MAX_HOVER_ELEMENTS = 8

#: Size in px of the removal markers: larger than the |π(ω_t)| line's hover target, so a marker's hover wins.
REMOVAL_MARKER_SIZE = 10
#: The markers of removals, per kind (dropped, or replaced in place), one per distinct operation of that kind, in order.
REMOVAL_MARKERS: dict[str, list[tuple[str, str]]] = {
    "evicted": [("x", "#d62728"), ("triangle-down", "#e6550d"), ("star", "#843c39"), ("cross", "#ad494a"),
                ("triangle-up", "#fd8d3c"), ("hourglass", "#a50f15"), ("bowtie", "#f16913"), ("star-triangle-down", "#67000d")],
    "folded": [("diamond", "#7b4173"), ("square", "#3182bd"), ("hexagon", "#31a354"), ("pentagon", "#bcbd22"),
               ("star-diamond", "#08519c"), ("octagon", "#006d2c"), ("diamond-tall", "#54278f"), ("star-square", "#8c6d31")],
}


def bottom_legend(**extra: Any) -> dict[str, Any]:
    """A horizontal legend at the bottom of the figure, in its own margin (plotly grows the margin to fit it).

    ``yref="container"`` anchors it to the whole figure, not to the plot
    area: plotly then reserves room for every row of the legend below the
    x-axis title, instead of drawing it at a fixed fraction under the axis
    (where a second row covered the axis title).
    """
    return {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0, "xanchor": "left", **extra}


def step_range(n: int) -> list[float]:
    """The x-range of an occupancy chart over t = 0 … n: fixed, whatever t a player marks.

    plotly's autorange would follow the player's marker at t (and pad for its
    size), so the axis moved while playing ([−1.6, 25.6] at t = 0, [0, 25.5]
    from t = 2); a fixed range with room for a marker at either end does not.

    >>> step_range(25)
    [-0.5, 25.5]
    """
    pad = max(0.5, n * 0.01)
    return [-pad, (n or 1) + pad]


def figure_title(text: str, subtitle: str | None = None) -> dict[str, Any]:
    """A short title, and the run's name on a smaller line below it: together they fit a 300 px wide panel."""
    title: dict[str, Any] = {"text": text, "font": {"size": 15}, "x": 0.01, "xanchor": "left"}
    if subtitle:
        title["subtitle"] = {"text": subtitle, "font": {"size": 12, "color": "#555555"}}
    return title


@dataclass(frozen=True)
class Removal:
    """One step t at which U removed elements: ω_t ∖ ω_{t+1} ≠ ∅."""

    t: int
    size_after: float
    operation: str
    labels: tuple[str, ...]
    reasons: tuple[str, ...]
    replaced: bool
    #: The types of the operations o_t the step applied (from the mechanism's vocabulary O), in order.
    operation_types: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        """``'folded'`` when the removed elements were replaced in place, else ``'evicted'``.

        A removal counts as a fold (a summary, a consolidation) when the step
        added an element whose ``meta["t"]`` is not after every removed
        element's: it takes their place in the canonical order, instead of
        being appended at the end as a new observation is.
        """
        return "folded" if self.replaced else "evicted"

    @property
    def label(self) -> str:
        """The name of the markers of such removals, in English: the operations, in the mechanism's own words.

        It keys the markers given out (:func:`removal_markers`) and ``meta``; a legend shows
        :meth:`legend_name`, the same words in the language set by :func:`stmviz.set_language`.

        >>> Removal(3, 10, "append", ("e#1",), ("oldest",), False, ("append",)).label
        'removed by append'
        """
        return REMOVED_BY.format(operations=self.operations)

    @property
    def operations(self) -> str:
        """The operations that removed, in the mechanism's own words (``"U"`` when the step named none)."""
        return " + ".join(dict.fromkeys(self.operation_types)) or "U"

    def legend_name(self, both_kinds: bool = False) -> str:
        """:attr:`label` in the language set by :func:`stmviz.set_language`; with ``both_kinds``, which kind it is."""
        n = len(dict.fromkeys(self.operation_types)) or 1  # a translation agrees with how many operations removed
        if both_kinds and self.kind == "folded":
            shown = ngettext("removed by {operations} (replaced in place)", "removed by {operations} (replaced in place)", n)
        elif both_kinds:
            shown = ngettext("removed by {operations} (dropped)", "removed by {operations} (dropped)", n)
        else:
            shown = ngettext("removed by {operations}", "removed by {operations}", n)
        return shown.format(operations=self.operations)

    def hover(self) -> str:
        """The escaped hover text: the step, its operation(s), each removed element and why."""
        lines = [_("step {t}: ω_{t} → ω_{next} · {operation}").format(t=self.t, next=self.t + 1,
                                                                      operation=self.operation or "—"),
                 ngettext("removed {n} element(s), Σμ(ω_{next}) = {size}", "removed {n} element(s), Σμ(ω_{next}) = {size}",
                          len(self.labels)).format(
                     n=len(self.labels), next=self.t + 1, size=format_number(self.size_after, 4))]
        for label, why in list(zip(self.labels, self.reasons))[:MAX_HOVER_ELEMENTS]:
            lines.append(f"− {label} — {why}")
        if len(self.labels) > MAX_HOVER_ELEMENTS:
            rest = len(self.labels) - MAX_HOVER_ELEMENTS
            lines.append(ngettext("… and {n} more", "… and {n} more", rest).format(n=rest))
        return hover_text(*lines, width=100)


#: The name of a removal's markers in English (:attr:`Removal.label`, a key of the markers given out; a legend
#: shows :meth:`Removal.legend_name`, the same words in the language set).
REMOVED_BY = "removed by {operations}"
#: The name when the same operations both dropped elements and replaced them in place (in different panels).
REMOVED_BY_KIND = {"folded": "removed by {operations} (replaced in place)", "evicted": "removed by {operations} (dropped)"}


@dataclass(frozen=True)
class OccupancyData:
    """The numbers behind the occupancy figure of one trace.

    Attributes
    ----------
    t : list of int
        0 … n, the indices of the states ω_t.
    total : list of float
        Σμ(ω_t) for each t.
    by_type : dict of str to list of float
        For each element type (in order of first appearance), Σ_{e ∈ ω_t, e.type = type} μ(e);
        the lists add up to ``total``.
    input_size : list of int or None
        |π(ω_t)| in tokens (``None`` for ω_n when the trace did not record it).
    removals : list of Removal
        The steps that removed elements.
    v_max : float
        The capacity V_max.
    size_name : str
        The name of μ (e.g. ``"tokens('cl100k_base')"``).
    colors : dict of str to str
        The colour of each type, as the trace's mechanism declares it (``Mechanism.element_types``).
    """

    t: list[int]
    total: list[float]
    by_type: dict[str, list[float]]
    input_size: list[int | None]
    removals: list[Removal] = field(default_factory=list)
    v_max: float = 0.0
    size_name: str = ""
    colors: dict[str, str] = field(default_factory=dict)

    @property
    def counts_tokens(self) -> bool:
        """Whether μ counts tokens, so Σμ and |π(ω_t)| share a unit."""
        return self.size_name.startswith("tokens")


def occupancy_data(trace: Trace) -> OccupancyData:
    """The occupancy Σμ(ω_t), t = 0 … n, by element type, from the step diffs of a trace.

    One pass over the steps: the per-type sums are updated from each step's
    added and removed elements, so the cost is O(n + Σ|diff|), not O(n · |ω|).

    Parameters
    ----------
    trace : Trace

    Returns
    -------
    OccupancyData

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> data = occupancy_data(trace)
    >>> data.total, data.by_type
    ([0, 2, 3, 3], {'step': [0, 2, 3, 3]})
    >>> [(r.t, r.kind, r.reasons) for r in data.removals]
    [(2, 'evicted', ('oldest element; Σμ exceeded V_max',))]
    """
    trace = require_trace(trace, "occupancy_data")
    sizes = trace.sizes
    current: dict[str, float] = {}
    for element in trace.initial.elements:
        current[element.type] = current.get(element.type, 0) + sizes[element]
    n = len(trace)
    by_type: dict[str, list[float]] = {}
    for name in sorted(current, key=lambda k: min((e.t or 0) for e in trace.initial.elements if e.type == k)):
        by_type[name] = [current[name]]
    total: list[float] = [sum(current.values())]
    inputs: list[int | None] = []
    removals: list[Removal] = []
    for i, step in enumerate(trace):
        inputs.append(step.input_size)
        touched = set()
        for element in step.removed:
            kind = element.type
            current[kind] = current[kind] - sizes[element]
            touched.add(kind)
        for element in step.added:
            kind = element.type
            if kind not in by_type:
                by_type[kind] = [0] * (i + 1)
                current[kind] = 0
            current[kind] = current[kind] + sizes[element]
            touched.add(kind)
        for kind, values in by_type.items():
            value = current[kind]
            if kind in touched and isinstance(value, float) and abs(value) < 1e-9:
                value = 0.0
            values.append(value)
        total.append(step.size_after)
        if step.removed:
            removals.append(
                Removal(
                    t=step.t,
                    size_after=step.size_after,
                    operation=step.operation,
                    labels=tuple(e.label(40) for e in step.removed),
                    reasons=tuple(step.reasons),
                    replaced=_replaced(step.added, step.removed),
                    operation_types=tuple(str(getattr(o, "type", o)) for o in step.operations),
                )
            )
    inputs.append(trace.final_input_size)
    return OccupancyData(
        t=list(range(n + 1)),
        total=total,
        by_type=by_type,
        colors={kind: color_for(kind, trace) for kind in by_type},
        input_size=inputs,
        removals=removals,
        v_max=trace.v_max,
        size_name=trace.size_name,
    )


def _replaced(added: Sequence[Any], removed: Sequence[Any]) -> bool:
    latest = max((e.t for e in removed if e.t is not None), default=None)
    if latest is None:
        return False
    return any(e.t is not None and e.t <= latest for e in added)


def named_traces(traces: Any, *, where: str, name: str = "traces", names: Any = None) -> list[tuple[str, Trace]]:
    """The runs a figure compares, as (name, Trace) pairs: from a Trace, a list of Traces or a dict name → Trace.

    A run is named by its key in a dict, else by ``names`` (one str per run), else
    by its mechanism; a name given twice gets a count, ``"FIFOWindow (2)"``.
    ``where`` and ``name`` name the public function and its argument for the messages.

    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two"])
    >>> [name for name, _ in named_traces([trace, trace], where="occupancy_figure")]
    ['example', 'example (2)']
    """
    fix = "; pass what run(mechanism, steps) returns"
    items = [(None, traces)] if isinstance(traces, Trace) else guards.labelled(
        traces, name, where=where, what="Traces", empty_ok=False, fix=fix
    )
    for i, (label, value) in enumerate(items):
        guards.instance(value, f"{name}[{i if label is None else repr(label)}]", Trace, where=where, fix=fix)
    if names is not None:
        given = guards.items(names, "names", where=where, what=f"str, one name per trace ({len(items)})")
        if len(given) != len(items) or not all(isinstance(name, str) for name in given):  # one name per run
            raise InvalidArgumentError(
                f"{where}: names must be a list of str, one name per trace ({len(items)}), got {brief(names)}"
            )
        items = list(zip(given, (value for _, value in items)))
    out: list[tuple[str, Trace]] = []
    seen: dict[str, int] = {}
    for given_name, value in items:
        label = given_name if given_name is not None else value.name
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} ({seen[label]})"
        out.append((label, value))
    return out


def removal_markers(
    datas: Iterable[OccupancyData], markers: dict[tuple[str, str], tuple[str, str]] | None = None
) -> dict[tuple[str, str], tuple[str, str]]:
    """Give out the removal markers of every panel of a figure, before any is drawn.

    Maps (operation label, kind) to (symbol, colour): distinct operations of a
    kind get distinct markers, the n-th label of a kind the n-th marker of that
    kind. Given out for all the panels at once, a label removed in two kinds in
    different panels (FIFO's ``append`` evicts, a session's ``append`` replaces
    in place) is named with its kind in every panel, so the legend never shows
    one name in two shapes. ``markers`` is filled and returned.
    """
    markers = {} if markers is None else markers
    for data in datas:
        for removal in data.removals:
            key = (removal.label, removal.kind)
            if key not in markers:
                order = sum(1 for _, k in markers if k == removal.kind)
                markers[key] = REMOVAL_MARKERS[removal.kind][order % len(REMOVAL_MARKERS[removal.kind])]
    return markers


def occupancy_trace_dicts(
    data: OccupancyData,
    name: str,
    *,
    stacked: bool = True,
    show_input: bool = True,
    by_type: bool = True,
    group: str = "",
    show_legend_types: bool = True,
    color: str | None = None,
    markers: dict[tuple[str, str], tuple[str, str]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The plotly traces of one occupancy panel as plain dicts, keyed by role.

    Roles: ``areas`` (one per type, or the total), ``v_max``, ``input`` and
    ``removals`` (one trace per operation label :attr:`Removal.label` and
    kind, ``evicted`` or ``folded``, drawn last so that a marker's hover wins
    over the |π(ω_t)| line under it). Plain dicts let the HTML export skip
    plotly's (slow) validation of long traces.

    ``markers`` maps (operation label, kind) to the (symbol, colour) of its
    removal markers; pass one dict to every panel of a figure so that a kind
    of removal has one marker in all of them and distinct kinds distinct
    markers (it is filled as new kinds appear).
    """
    guards.instance(data, "data", OccupancyData, where="occupancy_trace_dicts", what="OccupancyData (occupancy_data(trace))")
    stacked, show_input, by_type, show_legend_types = (
        guards.flag(value, key, where="occupancy_trace_dicts")
        for key, value in (("stacked", stacked), ("show_input", show_input), ("by_type", by_type),
                           ("show_legend_types", show_legend_types))
    )
    prefix = f"{name}: " if group else ""
    # names go into hovertemplates, where "%{...}" is markup: escape "%" as well
    sname = escape(shorten(name, 60)).replace("%", "&#37;")
    out: dict[str, list[dict[str, Any]]] = {"areas": [], "v_max": [], "input": [], "removals": []}
    unit = escape(data.size_name).replace("%", "&#37;")
    if by_type:
        for kind, values in data.by_type.items():
            type_color = data.colors.get(kind) or color_for(kind)
            ekind = escape(kind)
            out["areas"].append(
                dict(
                    type="scatter",
                    x=data.t,
                    y=values,
                    name=escape(prefix) + ekind,
                    mode="lines",
                    line={"width": 0.5 if stacked else 2, "color": type_color},
                    stackgroup=(f"occupancy-{group}" if stacked else None),
                    fillcolor=type_color if stacked else None,
                    legendgroup=f"type-{ekind}" if not group else group,
                    showlegend=show_legend_types,
                    hovertemplate=f"{sname} · {ekind.replace('%', '&#37;')}<br>t = %{{x}}: Σμ = %{{y}} ({unit})<extra></extra>",
                    meta={"role": "type", "type": ekind},
                )
            )
    if not by_type or not stacked:
        out["areas"].append(
            dict(
                type="scatter",
                x=data.t,
                y=data.total,
                name=escape(prefix) + "Σμ(ω_t)",
                mode="lines",
                line={"width": 2, "color": color},
                legendgroup=group or None,
                hovertemplate=f"{sname}<br>t = %{{x}}: Σμ(ω_t) = %{{y}} ({unit})<extra></extra>",
                meta={"role": "total"},
            )
        )
    n = data.t[-1]
    out["v_max"].append(
        dict(
            type="scatter",
            x=[0, n] if n else [0, 1],
            y=[data.v_max, data.v_max],
            name=escape(prefix) + "V_max",
            mode="lines",
            line={"color": color or "black", "dash": "dash", "width": 1.5},
            legendgroup=group or None,
            hovertemplate=f"{sname}<br>V_max = {format_number(data.v_max, 4)}<extra></extra>",
            meta={"role": "v_max"},
        )
    )
    groups: dict[tuple[str, str], list[Removal]] = {}
    for removal in data.removals:
        groups.setdefault((removal.label, removal.kind), []).append(removal)
    markers = removal_markers([data], markers)
    kinds_of: dict[str, int] = {}  # over every panel the markers were given out for, not this one alone
    for label, _kind in markers:
        kinds_of[label] = kinds_of.get(label, 0) + 1
    for (label, kind), removals in groups.items():
        symbol, kind_color = markers[(label, kind)]
        key = f"{kind}: {label}"
        both = kinds_of[label] > 1  # the same operations both evicted and replaced in place: say which marker is which
        shown = removals[0].legend_name(both_kinds=both)  # in the language set; meta keeps the English words
        if both:
            label = REMOVED_BY_KIND[kind].format(operations=removals[0].operations)
        out["removals"].append(
            dict(
                type="scatter",
                x=[r.t + 1 for r in removals],
                y=[r.size_after for r in removals],
                name=escape(prefix + shown),
                mode="markers",
                marker={
                    "symbol": symbol,
                    "size": REMOVAL_MARKER_SIZE,
                    "color": color or kind_color,
                    "line": {"width": 1, "color": "white"},
                },
                hovertext=[r.hover() for r in removals],
                hoverinfo="text",
                legendgroup=group or None,
                meta={"role": "removals", "kind": kind, "operations": escape(label), "marker": escape(key)},
            )
        )
    if show_input:
        points = [(t, x) for t, x in zip(data.t, data.input_size) if x is not None]
        out["input"].append(
            dict(
                type="scatter",
                x=[p[0] for p in points],
                y=[p[1] for p in points],
                name=escape(prefix) + _("|π(ω_t)| tokens"),
                mode="lines",
                line={"color": color or "#444", "width": 1.5, "dash": "dot"},
                legendgroup=group or None,
                hovertemplate=sname + "<br>" + _("t = {t}: |π(ω_t)| = {size} tokens").format(t="%{x}", size="%{y}")
                + "<extra></extra>",
                meta={"role": "input"},
            )
        )
    _removals_in_top_hover(out["areas"], data)
    return {role: [_drop_none(d) for d in dicts] for role, dicts in out.items()}


def _removals_in_top_hover(areas: list[dict[str, Any]], data: OccupancyData) -> None:
    """Add each removal's hover to the point of the curve Σμ(ω_t) it sits on.

    A removal marker sits at (t + 1, Σμ(ω_{t+1})), exactly on a point of the
    top curve (the last stacked area, or the total line). plotly's closest
    hover prefers a line's point to a marker at the same place, so that
    point's hover says what the marker says too.
    """
    if not areas or not data.removals:
        return
    top = areas[-1]
    template = top["hovertemplate"]
    extra = {r.t + 1: r.hover().replace("%", "&#37;") for r in data.removals}
    top["hovertemplate"] = [
        template.replace("<extra></extra>", f"<br>{extra[t]}<extra></extra>") if t in extra else template for t in data.t
    ]


def _drop_none(trace: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in trace.items() if value is not None}


def occupancy_traces(data: OccupancyData, name: str, **options: Any) -> dict[str, list[go.Scatter]]:
    """:func:`occupancy_trace_dicts` as ``go.Scatter`` objects (validated by plotly)."""
    return {role: [go.Scatter(d) for d in dicts] for role, dicts in occupancy_trace_dicts(data, name, **options).items()}


def occupancy_figure(
    trace_or_traces: Trace | Sequence[Trace] | Mapping[str, Trace],
    *,
    stacked: bool = True,
    show_input: bool = True,
    names: Sequence[str] | None = None,
    layout: Literal["overlay", "side"] = "overlay",
    markers: dict[tuple[str, str], tuple[str, str]] | None = None,
) -> go.Figure:
    """The occupancy Σμ(ω_t) over t = 0 … n against V_max, for one run or several.

    Parameters
    ----------
    trace_or_traces : Trace, list of Trace or dict of str to Trace
        The run(s) to draw. Several traces are compared side by side or overlaid.
    stacked : bool
        Stack areas by element type (their heights add up to Σμ(ω_t)); with
        ``False`` draw one line per type and the total Σμ(ω_t).
    show_input : bool
        Also draw |π(ω_t)|, the tokens of the model input (on a second y axis
        when μ does not count tokens).
    names : list of str, optional
        One name per trace (default: the mechanisms' names).
    layout : {"overlay", "side"}
        With several traces: ``"side"`` draws one panel per trace (by type);
        ``"overlay"`` draws every trace's total Σμ(ω_t) in one panel.
    markers : dict, optional
        The removal markers already given out, (operation label, kind) →
        (symbol, colour), filled as new kinds appear: figures drawn with one
        such dict (the panels of a comparison) mark a kind of removal alike.

    Returns
    -------
    plotly.graph_objects.Figure
        Traces carry ``meta={"role": ...}``: ``type`` (one per element type),
        ``total``, ``v_max``, ``input`` and ``removals`` (one trace per
        operation label, e.g. ``"removed by append"`` in the mechanism's own
        vocabulary O, and kind, ``meta["kind"]`` ``evicted`` (×) or
        ``folded`` (◆, replaced in place); markers at x = t + 1, the first
        state without the removed elements; the hover lists each removed
        element and its reason).

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> fig = occupancy_figure(trace)
    >>> [(d.name, d.meta["role"]) for d in fig.data]
    [('step', 'type'), ('V_max', 'v_max'), ('|π(ω_t)| tokens', 'input'), ('removed by append', 'removals')]
    """
    guards.choice(layout, "layout", ("overlay", "side"), where="occupancy_figure")
    stacked = guards.flag(stacked, "stacked", where="occupancy_figure")
    show_input = guards.flag(show_input, "show_input", where="occupancy_figure")
    items = named_traces(trace_or_traces, where="occupancy_figure", name="trace_or_traces", names=names)
    datas = [(name, occupancy_data(trace)) for name, trace in items]
    secondary = show_input and not all(d.counts_tokens for _, d in datas)
    several = len(datas) > 1
    if several and layout == "side":
        cols = len(datas)
        fig = make_subplots(
            rows=1,
            cols=cols,
            shared_yaxes=True,
            subplot_titles=[escape(shorten(name, 50)) for name, _ in datas],
            specs=[[{"secondary_y": secondary} for _ in range(cols)]],
            horizontal_spacing=min(0.08, 0.5 / cols),
        )
        seen_types: set[str] = set()
        seen_markers: set[str] = set()
        markers = removal_markers((data for _, data in datas), markers)  # one marker per kind of removal, in every panel
        batch: list[tuple[dict[str, Any], int, bool]] = []
        for col, (name, data) in enumerate(datas, start=1):
            parts = occupancy_trace_dicts(data, name, stacked=stacked, show_input=show_input, markers=markers)
            for role, traces in parts.items():
                for trace in traces:
                    if trace["meta"]["role"] == "type":
                        trace["showlegend"] = trace["meta"]["type"] not in seen_types
                    elif trace["meta"]["role"] == "removals":  # every kind of marker in the legend, once
                        trace["showlegend"] = trace["meta"]["marker"] not in seen_markers
                        seen_markers.add(trace["meta"]["marker"])
                    elif col > 1:
                        trace["showlegend"] = False
                    batch.append((trace, col, role == "input"))
            seen_types.update(escape(k) for k in data.by_type)
    else:
        fig = make_subplots(rows=1, cols=1, specs=[[{"secondary_y": secondary}]])
        markers = removal_markers((data for _, data in datas), markers)
        batch = []
        for i, (name, data) in enumerate(datas):
            parts = occupancy_trace_dicts(
                data,
                name,
                stacked=stacked,
                show_input=show_input,
                by_type=not several,
                group=name if several else "",
                color=COMPARE_COLORS[i % len(COMPARE_COLORS)] if several else None,
                markers=markers,
            )
            for role, traces in parts.items():
                batch.extend((trace, 1, role == "input") for trace in traces)
    # one batched add: plotly validates each trace once
    fig.add_traces(
        [trace for trace, _, _ in batch],
        rows=[1] * len(batch),
        cols=[col for _, col, _ in batch],
        secondary_ys=[on_second for _, _, on_second in batch] if secondary else None,
    )
    first = datas[0][1]
    unit = escape(first.size_name) if len({d.size_name for _, d in datas}) == 1 else "μ"
    title = figure_title(
        _("Occupancy Σμ(ω_t) against V_max"), None if several else escape(shorten(datas[0][0], 48))
    )
    fig.update_layout(
        title=title,
        hovermode="closest",
        # below the x-axis title, in a bottom margin plotly grows to fit every row of the legend
        legend=bottom_legend(),
        margin={"t": 58 if several else 72, "l": 60, "r": 60, "b": 10},
        height=460 if several else 440,
        template="plotly_white",
    )
    if several and layout == "side":  # the panels' titles: small, so that they fit narrow panels
        fig.update_annotations(font={"size": 12})
    # one fixed range for every panel (the longest run's 0 … n): it never moves while a player marks t
    fig.update_xaxes(title_text=_("t (state ω_t)"), range=step_range(max(d.t[-1] for _, d in datas)), autorange=False)
    # one scale for every panel, so that compared runs read alike
    size_top = max(max(d.v_max, max(d.total)) for _, d in datas) * 1.05
    input_top = max((x for _, d in datas for x in d.input_size if x is not None), default=0) * 1.05
    if not secondary:
        size_top = max(size_top, input_top)
    side = several and layout == "side"
    fig.update_yaxes(secondary_y=False, range=[0, size_top])
    fig.update_yaxes(title_text=f"Σμ ({unit})", secondary_y=False, row=1, col=1)
    if secondary:
        fig.update_yaxes(secondary_y=True, range=[0, input_top or 1], showgrid=False)
        if side:
            fig.update_yaxes(secondary_y=True, showticklabels=False)
        last = len(datas) if side else 1
        fig.update_yaxes(title_text=_("|π(ω_t)| (tokens)"), secondary_y=True, showticklabels=True, row=1, col=last)
    return fig
