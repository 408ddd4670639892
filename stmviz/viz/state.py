"""A state ω_t as a bar of length V_max: one block of width μ(e) per element e ∈ ω_t.

The blocks follow the canonical order of ω (by ``meta["t"]``, then id) and
are coloured by element type; the free space V_max − Σμ(ω_t) is a block of
its own. For a state of a trace, elements that entered at the previous step
(ω_t ∖ ω_{t−1}) have a thick outline, and elements that step t will remove
(ω_t ∖ ω_{t+1}) are hatched. The legend explains that code with two entries
of its own (:func:`state_legend_dicts`); its type swatches are plain colours
(a type's own trace would show the style of its first block).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import plotly.graph_objects as go

from ..core.element import Element
from ..core import guards
from ..core.guards import brief
from ..core.errors import InvalidArgumentError, ContractError, STMError
from ..core.formatting import format_number, shorten
from ..core.space import State, StateSpace
from ..core.trace import Trace
from ..core.i18n import N_, gettext as _, ngettext
from ._common import FREE_COLOR, color_for, element_lines, escape, hover_text

__all__ = [
    "Block", "StateBar", "state_bar", "state_bar_dicts", "state_bar_traces", "state_legend_dicts", "state_title",
    "state_figure",
]

#: Outline of the elements new in ω_t, and hatch pattern of those about to be removed.
NEW_LINE = {"color": "#111111", "width": 3}
LEAVING_PATTERN = "/"
#: The height of a state figure in px (the legend's rows take from the bar, never from the title).
STATE_HEIGHT = 300
#: The legend names of that code (in English; shown through ``_()``, in the language set by ``stmviz.set_language``).
NEW_NAME = N_("new in ω_t (thick outline)")
LEAVING_NAME = N_("removed by step t (hatched)")


@lru_cache(maxsize=1 << 16)
def _escaped_lines(element: Element, size: float, content_width: int, width: int) -> tuple[str, str]:
    """The escaped head and content lines of an element's hover, cached: players redraw the same elements often."""
    head, content = element_lines(element, size, content_width)
    return hover_text(head, width=width), hover_text(content, width=width)


@dataclass(frozen=True)
class Block:
    """One element e of ω_t in the bar: it covers [start, start + μ(e))."""

    element: Element
    start: float
    size: float
    new: bool = False
    leaving: bool = False

    @property
    def type(self) -> str:
        """e.type."""
        return self.element.type

    def hover(self, content_width: int = 80) -> str:
        """The escaped hover text: label, type, μ, what happens to it, and its shortened content."""
        width = max(content_width, 60)
        head, content = _escaped_lines(self.element, self.size, content_width, width)
        status = []
        if self.new:
            status.append(_("new in this state"))
        if self.leaving:
            status.append(_("removed by this step"))
        where = f"[{format_number(self.start, 4)}, {format_number(self.start + self.size, 4)})" + (f" · {', '.join(status)}" if status else "")
        # a short one-line text needs no shortening (hover_text would return it escaped as it is)
        line = escape(where) if len(where) <= width else hover_text(where, width=width)
        return f"{head}<br>{line}<br>{content}"


@dataclass(frozen=True)
class StateBar:
    """The plain data of a state bar: the blocks of ω_t, Σμ(ω_t), V_max and the free space."""

    label: str
    blocks: tuple[Block, ...]
    used: float
    v_max: float | None
    #: The colour of each type, as the trace's mechanism declares it (``Mechanism.element_types``).
    colors: Mapping[str, str] = field(default_factory=dict)

    @property
    def free(self) -> float:
        """V_max − Σμ(ω_t), at least 0 (0 when V_max is unknown)."""
        if self.v_max is None:
            return 0
        return max(0, self.v_max - self.used)

    @property
    def types(self) -> list[str]:
        """The element types in the bar, in order of first appearance."""
        return list(dict.fromkeys(b.type for b in self.blocks))


def _size_function(space_or_sizes: Any, v_max: float | None) -> tuple[Callable[[Element], float], float | None]:
    if isinstance(space_or_sizes, StateSpace):
        return space_or_sizes.measure, space_or_sizes.v_max if v_max is None else v_max
    if isinstance(space_or_sizes, Trace):
        sizes = space_or_sizes.sizes
        return sizes.__getitem__, space_or_sizes.v_max if v_max is None else v_max
    if isinstance(space_or_sizes, Mapping):
        given: Mapping[Element, float] = space_or_sizes

        def lookup(element: Element) -> float:
            try:
                return given[element]
            except KeyError:  # μ must be known for every e ∈ ω: the mapping's contents, not its type
                raise InvalidArgumentError(
                    f"state_figure: space_or_sizes has no μ(e) for {element.label()}; give a size for every element of ω"
                ) from None

        return lookup, v_max
    if callable(space_or_sizes):
        return space_or_sizes, v_max
    # four kinds, one of them any callable: more than guards.instance names
    raise InvalidArgumentError(
        "state_figure(state) needs space_or_sizes: the StateSpace (μ and V_max), a Trace, a mapping "
        f"element → μ(e), or a size function μ; got {type(space_or_sizes).__name__}"
    )


def _elements(value: object, name: str) -> list[Element]:
    given = guards.items(value, name, where="state_figure", what="Element")
    for k, element in enumerate(given):
        guards.instance(element, f"{name}[{k}]", Element, where="state_figure", what="an Element of ω")
    return given


def _measured(measure: Callable[[Element], float], element: Element) -> float:
    """μ(e) from the size function or mapping the caller gave, checked to be a finite number ≥ 0."""
    try:
        size = measure(element)
    except STMError:
        raise
    except Exception as exc:  # a user's μ that fails: what it raised, said as an argument error
        raise InvalidArgumentError(
            f"state_figure: the size function μ given as space_or_sizes raised {type(exc).__name__} for "
            f"{element.label()}; pass a StateSpace, a Trace, or a μ that returns a number"
        ) from exc
    ok = isinstance(size, numbers.Real) and not isinstance(size, bool)
    if not ok or not (math.isfinite(size) and size >= 0):
        raise ContractError(f"state_figure: μ({element.label()}) must be a finite number ≥ 0, got {brief(size)}")
    return size


def state_bar(
    state_or_trace: State | Trace,
    t: int | None = None,
    *,
    space_or_sizes: StateSpace | Mapping[Element, float] | Callable[[Element], float] | Trace | None = None,
    v_max: float | None = None,
    new: Iterable[Element] = (),
    leaving: Iterable[Element] = (),
) -> StateBar:
    """The blocks of ω_t: each element e ∈ ω_t at its offset, with width μ(e).

    Parameters
    ----------
    state_or_trace : State or Trace
        A state ω, or a trace and the index t of one of its states ω_0 … ω_n.
    t : int, optional
        With a trace: which state (default: the final state ω_n). Negative t counts from the end.
    space_or_sizes : StateSpace, Trace, mapping or callable, optional
        With a state: where μ (and V_max) come from. Required for a state.
    v_max : float, optional
        The capacity, when ``space_or_sizes`` does not carry one.
    new, leaving : iterables of Element
        With a state: elements to mark as new and as about to be removed (a trace marks them itself).

    Returns
    -------
    StateBar

    Examples
    --------
    >>> from stmviz import Element, State, StateSpace, sizes
    >>> omega = State([Element("a b c", {"t": 0}), Element("d", {"t": 1})])
    >>> bar = state_bar(omega, space_or_sizes=StateSpace(sizes.words, v_max=10))
    >>> [(b.start, b.size) for b in bar.blocks], bar.used, bar.free
    ([(0, 3), (3, 1)], 4, 6)
    """
    new, leaving = _elements(new, "new"), _elements(leaving, "leaving")
    guards.instance(state_or_trace, "state_or_trace", (State, Trace), where="state_figure",
                    fix="; pass trace (and t) or a State with space_or_sizes")
    if isinstance(state_or_trace, Trace):
        trace = state_or_trace
        n = len(trace)
        t = n if t is None else guards.time_index(trace, t, "state_figure")
        state = trace.state_at(t)
        measure, cap = _size_function(space_or_sizes if space_or_sizes is not None else trace, v_max)
        new_set = frozenset(trace[t - 1].added) if t > 0 else frozenset()
        leaving_set = frozenset(trace[t].removed) if t < n else frozenset()
        label = f"ω_{t}"
    else:
        if t is not None:  # a bare state has no time: t names a state of a trace
            raise InvalidArgumentError("state_figure: t selects a state of a Trace; with a State, leave t out")
        if space_or_sizes is None:  # a bare state carries no μ: it must be given
            raise InvalidArgumentError(
                "state_figure(state) needs space_or_sizes: the StateSpace (μ and V_max), a mapping "
                "element → μ(e), or a size function μ"
            )
        state = state_or_trace
        measure, cap = _size_function(space_or_sizes, v_max)
        new_set = frozenset(new)
        leaving_set = frozenset(leaving)
        label = "ω"
    if cap is not None:
        guards.real_number(cap, "V_max", 0, low_open=True, where="state_figure")
    blocks = []
    offset: float = 0
    for element in state.ordered():
        size = _measured(measure, element)
        blocks.append(Block(element, offset, size, element in new_set, element in leaving_set))
        offset += size
    kinds = dict.fromkeys(b.type for b in blocks)
    colors = {kind: color_for(kind, state_or_trace) for kind in kinds} if isinstance(state_or_trace, Trace) else {}
    return StateBar(label, tuple(blocks), offset, cap, colors)


@lru_cache(maxsize=1 << 16)
def block_text(element: Element) -> str:
    """The escaped text written inside an element's block (cached: players redraw the same elements often)."""
    return escape(shorten(element.text, 30))


def block_marker(kind: str, blocks: Sequence[Block], color: str | None = None) -> dict[str, Any]:
    """The ``marker`` of the bar trace of one element type: its colour (default :func:`color_for`), outlines of new blocks, hatching of leaving ones."""
    return {
        "color": color or color_for(kind),
        "line": {
            "color": [NEW_LINE["color"] if b.new else "white" for b in blocks],
            "width": [NEW_LINE["width"] if b.new else 1 for b in blocks],
        },
        "pattern": {
            "shape": [LEAVING_PATTERN if b.leaving else "" for b in blocks],
            "fgcolor": "#222222",
            "solidity": 0.35,
        },
    }


def state_bar_dicts(
    bar: StateBar, types: Sequence[str] | None = None, *, y: str | None = None, showlegend: bool = True
) -> list[dict[str, Any]]:
    """One horizontal bar trace per element type (in ``types`` order) plus one for the free space, as plain dicts.

    Passing the same ``types`` for several bars gives them the same list of
    traces (empty for absent types), as animation frames need. Plain dicts
    let the HTML export skip plotly's validation of hundreds of frames.
    """
    guards.instance(bar, "bar", StateBar, where="state_bar_dicts", what="a StateBar (state_bar(trace, t))")
    showlegend = guards.flag(showlegend, "showlegend", where="state_bar_dicts")
    category = y or bar.label
    kinds = list(types) if types is not None else bar.types
    missing = [k for k in bar.types if k not in kinds]
    kinds += missing
    traces: list[dict[str, Any]] = []
    for kind in kinds:
        blocks = [b for b in bar.blocks if b.type == kind]
        traces.append(
            dict(
                type="bar",
                x=[b.size for b in blocks],
                base=[b.start for b in blocks],
                y=[category] * len(blocks),
                orientation="h",
                name=escape(kind),
                marker=block_marker(kind, blocks, bar.colors.get(kind)),
                text=[block_text(b.element) for b in blocks],
                textposition="inside",
                insidetextanchor="start",
                hovertext=[b.hover() for b in blocks],
                hoverinfo="text",
                showlegend=showlegend,
                legendgroup=f"type-{escape(kind)}",
                meta={"role": "type", "type": escape(kind)},
            )
        )
    free = bar.free
    traces.append(
        dict(
            type="bar",
            x=[free],
            base=[bar.used],
            y=[category],
            orientation="h",
            name=_("free"),
            marker={"color": FREE_COLOR, "line": {"color": "#999999", "width": 1}},
            text=[_("free {size}").format(size=format_number(free, 4)) if free else ""],
            textposition="inside",
            hovertext=[hover_text(_("free space V_max − Σμ = {size}").format(size=format_number(free, 4)))],
            hoverinfo="text",
            showlegend=showlegend,
            meta={"role": "free"},
        )
    )
    return traces


def state_legend_dicts(bar: StateBar, types: Sequence[str] | None = None, *, y: str | None = None) -> list[dict[str, Any]]:
    """Legend-only traces of a state bar: one plain swatch per element type, then the code of the blocks.

    The bar's own traces stay out of the legend (``showlegend=False`` in
    :func:`state_bar_dicts`): plotly draws a bar trace's legend swatch in the
    style of its first block, so a type whose first block is leaving would
    show a hatched swatch. Each entry here is an empty bar (width 0) in the
    legend group of its type, so clicking it still hides that type's blocks.
    The last two entries explain the code: a thick outline marks an element
    new in ω_t (it entered at step t − 1), hatching one that step t removes.
    """
    category = y or bar.label
    kinds = list(types) if types is not None else bar.types
    kinds += [k for k in bar.types if k not in kinds]

    def swatch(name: str, marker: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return dict(
            type="bar", x=[0], base=[0], y=[category], orientation="h", name=name, marker=marker,
            hoverinfo="skip", showlegend=True, meta={"role": "legend"}, **extra,
        )

    out = [
        swatch(escape(kind), {"color": bar.colors.get(kind) or color_for(kind), "line": {"color": "white", "width": 1}},
               legendgroup=f"type-{escape(kind)}")
        for kind in kinds
    ]
    out.append(swatch(_(NEW_NAME), {"color": "white", "line": NEW_LINE}))
    out.append(swatch(_(LEAVING_NAME), {"color": "white", "line": {"color": "#999999", "width": 1},
                                     "pattern": {"shape": LEAVING_PATTERN, "fgcolor": "#222222", "solidity": 0.35}}))
    return out


def state_title(bar: StateBar) -> dict[str, Any]:
    """The title of a state bar: ω_t, Σμ against V_max on one line, the number of elements on a smaller line.

    >>> from stmviz import Element, State, StateSpace, sizes
    >>> bar = state_bar(State([Element("a b", {"t": 0})]), space_or_sizes=StateSpace(sizes.words, v_max=4))
    >>> state_title(bar)["text"], state_title(bar)["subtitle"]["text"]
    ('ω: Σμ = 2 of V_max = 4 (50%)', '1 element')
    """
    used = format_number(bar.used, 4)
    if bar.v_max is not None:
        text = _("{state}: Σμ = {size} of V_max = {v_max} ({percent}%)").format(
            state=bar.label, size=used, v_max=format_number(bar.v_max, 4), percent=f"{100 * bar.used / bar.v_max:.0f}")
    else:
        text = _("{state}: Σμ = {size}").format(state=bar.label, size=used)
    count = len(bar.blocks)
    return {
        "text": escape(text), "font": {"size": 14}, "x": 0.01, "xanchor": "left",
        "subtitle": {"text": ngettext("{n} element", "{n} elements", count).format(n=count),
                     "font": {"size": 12, "color": "#555555"}},
    }


def state_bar_traces(
    bar: StateBar, types: Sequence[str] | None = None, *, y: str | None = None, showlegend: bool = True
) -> list[go.Bar]:
    """:func:`state_bar_dicts` as ``go.Bar`` objects (validated by plotly)."""
    return [go.Bar(d) for d in state_bar_dicts(bar, types, y=y, showlegend=showlegend)]


def state_figure(
    state_or_trace: State | Trace,
    t: int | None = None,
    *,
    space_or_sizes: StateSpace | Mapping[Element, float] | Callable[[Element], float] | Trace | None = None,
    v_max: float | None = None,
    new: Iterable[Element] = (),
    leaving: Iterable[Element] = (),
) -> go.Figure:
    """A state ω_t as blocks of width μ(e) inside a bar of length V_max.

    Parameters are those of :func:`state_bar`. Blocks are coloured by
    element type; new elements have a thick outline, elements about to be
    removed are hatched; the free space is its own block (trace ``"free"``)
    and V_max a vertical line (a shape named ``"V_max"``). The legend, at
    the bottom, lists the types and that code (:func:`state_legend_dicts`,
    traces with ``meta={"role": "legend"}`` after the bar's own).

    Returns
    -------
    plotly.graph_objects.Figure

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> fig = state_figure(trace, 2)
    >>> [(d.name, list(d.x)) for d in fig.data if d.meta["role"] != "legend"]
    [('step', [2, 1]), ('free', [1])]
    >>> [d.name for d in fig.data if d.meta["role"] == "legend"]
    ['step', 'new in ω_t (thick outline)', 'removed by step t (hatched)']
    >>> list(fig.data[0].marker.pattern.shape)  # step 2 evicts 'one two'
    ['/', '']
    """
    bar = state_bar(state_or_trace, t, space_or_sizes=space_or_sizes, v_max=v_max, new=new, leaving=leaving)
    fig = go.Figure(state_bar_dicts(bar, showlegend=False) + state_legend_dicts(bar))
    cap = bar.v_max
    if cap is not None:
        fig.add_shape(
            type="line",
            x0=cap,
            x1=cap,
            y0=-0.5,
            y1=0.5,
            yref="y",
            line={"color": "black", "width": 2, "dash": "dash"},
            name="V_max",
        )
        fig.add_annotation(x=cap, y=0.5, yref="y", text=f"V_max = {format_number(cap, 4)}", showarrow=False, yanchor="bottom")
    upper = max(cap or 0, bar.used) or 1
    fig.update_layout(
        title=state_title(bar),
        barmode="overlay",
        bargap=0.3,
        height=STATE_HEIGHT,
        template="plotly_white",
        uniformtext={"minsize": 8, "mode": "hide"},
        # at the bottom, in a margin plotly grows to fit its rows (see occupancy.bottom_legend)
        legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0, "xanchor": "left"},
        margin={"t": 70, "l": 50, "r": 30, "b": 10},
        xaxis={"title": {"text": "Σμ"}, "range": [0, upper * 1.02]},
        yaxis={"showticklabels": True},
    )
    return fig
