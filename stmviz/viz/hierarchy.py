"""The hierarchy of a state ω_t as a graph, read from the mechanism's declaration.

A mechanism whose state ω is not a flat set declares its hierarchy (the
protocol of :mod:`stmviz.protocol`):

- ``Mechanism.hierarchy(ω)`` gives the nodes and parent → child edges among
  the elements of ω (HiAgent: task → subgoals and summaries → pairs);
- ``Mechanism.folds(added, removed)`` says, for one step, which element the
  step adds is the parent of which elements it removes (AgentFold's deep
  consolidation merges blocks into one block). Reading a trace step by step,
  these folds form a tree whose leaves are the folded-away elements, drawn
  faded under the element that replaced them.

:func:`hierarchy_graph` builds that structure as a :class:`networkx.DiGraph`
rooted at ``"ω_t"``; :func:`hierarchy_layout` lays it out in layers (time left
to right, depth top to bottom); :func:`hierarchy_figure` draws it with plotly.
A mechanism that declares no hierarchy (a FIFO window, SCM), a bare state,
or a trace whose mechanism could not be rebuilt gives a flat graph: the root
with one child per element of ω_t. Labels and colours come from the
mechanism's declared element types (:class:`~stmviz.protocol.ElementType`).
"""

from __future__ import annotations

import math
import re
import weakref
from functools import lru_cache
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx
import plotly.graph_objects as go

from ..core.element import Element, order_key
from ..core import guards
from ..core.guards import brief, time_index
from ..core.errors import InvalidArgumentError, ContractError
from ..core.mechanism import Mechanism
from ..core.guards import as_int
from ..mechanisms.catalog import declared_types
from ..protocol import ElementType, Hierarchy, default_label, step_range, types_of
from ..core.space import State
from ..core.i18n import gettext as _, get_language, ngettext
from ..core.trace import Trace
from ._common import color_for, element_types_of_trace, escape, shorten

__all__ = [
    "ROOT",
    "ROOT_COLOR",
    "hierarchy_kind",
    "hierarchy_graph",
    "hierarchy_layout",
    "hierarchy_figure",
    "hierarchy_title",
    "node_arrays",
    "node_marker",
    "legend_types",
    "declares_hierarchy",
]

#: The key of the root node, the state ω_t itself.
ROOT = "ω_t"
#: The colour of the root node.
ROOT_COLOR = "#444444"

_CONTENT_WIDTH = 160


# --------------------------------------------------------------------------- reading metadata




def declares_hierarchy(mechanism: Mechanism | None) -> bool:
    """Whether a mechanism declares a hierarchy: it overrides ``hierarchy`` or ``folds``."""
    if mechanism is None:
        return False
    cls = type(mechanism)
    return cls.hierarchy is not Mechanism.hierarchy or cls.folds is not Mechanism.folds


# --------------------------------------------------------------------------- trace index


class _FoldIndex:
    """What one pass over a trace yields: each element's fold children (``Mechanism.folds``), and node attributes."""

    __slots__ = ("children", "attrs", "__weakref__")

    def __init__(self, trace: Trace) -> None:
        self.children: dict[Element, tuple[Element, ...]] = {}
        #: the node attributes of each element that do not depend on t (computed once, on demand)
        self.attrs: dict[Element, dict[str, Any]] = {}
        mechanism = trace.mechanism
        if mechanism is None or type(mechanism).folds is Mechanism.folds:
            return
        for step in trace:
            if step.added and step.removed:
                for parent, kids in mechanism.folds(step.added, step.removed).items():
                    self.children[parent] = tuple(kids)


_INDEX: dict[int, tuple[weakref.ref, int, _FoldIndex]] = {}


def _index(trace: Trace) -> _FoldIndex:
    """The fold index of a trace, kept while the trace lives; rebuilt if the trace grew."""
    key = id(trace)
    hit = _INDEX.get(key)
    if hit is not None and hit[0]() is trace and hit[1] == len(trace):
        return hit[2]
    index = _FoldIndex(trace)
    def forget(_ref: weakref.ref) -> None:
        _INDEX.pop(key, None)

    _INDEX[key] = (weakref.ref(trace, forget), len(trace), index)
    return index


def hierarchy_kind(trace_or_state: Trace | State, mechanism: Mechanism | None = None) -> str:
    """``"tree"`` if the mechanism declares a hierarchy of ω, else ``"flat"``.

    The mechanism is the trace's own (or ``mechanism``); a bare state ω
    without a mechanism, or a trace whose mechanism could not be rebuilt
    from its file, is flat.

    Examples
    --------
    >>> from stmviz import Element, HiAgent, State, StateSpace, sizes
    >>> omega = State([Element("find the bug", {"t": -1, "type": "task"})])
    >>> hierarchy_kind(omega), hierarchy_kind(omega, HiAgent(StateSpace(sizes.chars, 1000)))
    ('flat', 'tree')
    """
    guards.instance(trace_or_state, "trace_or_state", (Trace, State), where="hierarchy_kind")
    guards.instance(mechanism, "mechanism", Mechanism, where="hierarchy_kind", none_ok=True)
    if mechanism is None and isinstance(trace_or_state, Trace):
        mechanism = trace_or_state.mechanism
    return "tree" if declares_hierarchy(mechanism) else "flat"


def _as_state(value: Any) -> State:
    if isinstance(value, State):
        return value
    try:
        return State(value)
    except Exception:  # State's own rule of what ω may hold (and a hostile iterable's error)
        raise InvalidArgumentError(
            f"expected a Trace, a State ω or an iterable of elements, got {type(value).__name__}"
        ) from None


# --------------------------------------------------------------------------- the graph


def _label(element: Element, types: Mapping[str, ElementType]) -> str:
    declared = types.get(element.type)
    return declared.label_of(element) if declared is not None else default_label(element)


def _element_attrs(element: Element, sizes: Mapping[Element, float], types: Mapping[str, ElementType]) -> dict[str, Any]:
    size = sizes.get(element)
    return {
        "type": element.type,
        "label": _label(element, types),
        "color": color_for(element.type, types),
        "size": float(size) if size is not None else 1.0,
        "content": escape(shorten(element.text, _CONTENT_WIDTH)),
        "range": step_range(element),
        "step": as_int(element.meta.get("step"), float_ok=True),
        "t": element.t,
        "element": element,
    }


def _declared(mechanism: Mechanism | None, state: State) -> Hierarchy:
    """The mechanism's hierarchy of ω, checked against ω; the flat one if it declares none."""
    hierarchy = mechanism.hierarchy(state) if mechanism is not None else None
    if hierarchy is None:
        return Hierarchy.flat(state)
    if not isinstance(hierarchy, Hierarchy):
        raise ContractError(
            f"{mechanism}.hierarchy(ω) returned {type(hierarchy).__name__}; it must return a Hierarchy "
            f"(stmviz.protocol) or None for a flat ω"
        )
    members = state.elements
    strangers = [e for e in hierarchy.nodes if e not in members]
    if strangers:
        raise ContractError(
            f"{mechanism}.hierarchy(ω) lists {len(strangers)} node(s) that are not elements of ω, e.g. "
            f"{strangers[0].label()}; a hierarchy of ω has the elements of ω as nodes"
        )
    listed = set(hierarchy.nodes)
    missing = [e for e in state.ordered() if e not in listed]
    if missing:  # elements the hierarchy left out hang under ω
        hierarchy = Hierarchy(hierarchy.nodes + tuple(missing), hierarchy.edges, hierarchy.title)
    return hierarchy


def hierarchy_graph(
    trace: Trace | State,
    t: int | None = None,
    *,
    mechanism: Mechanism | None = None,
    max_depth: int | None = None,
) -> nx.DiGraph:
    """The hierarchy of a state ω_t, as the mechanism declares it, as a tree rooted at ``"ω_t"``.

    Parameters
    ----------
    trace : Trace or State
        A recorded run; a bare State ω is accepted too (then the folds of
        the trace are unknown, and without ``mechanism`` ω is drawn flat).
    t : int, optional
        Which state ω_t (0 ≤ t ≤ n, negative counts from the end); default
        the final state ω_n.
    mechanism : Mechanism, optional
        The mechanism whose declarations to read; default the trace's own.
    max_depth : int, optional
        Leave out nodes deeper than this (the root has depth 0). Useful to keep a
        long folding history readable; the default keeps the whole tree.

    Returns
    -------
    networkx.DiGraph
        Edges go from parent to child. The root :data:`ROOT` stands for ω_t
        itself; an element the hierarchy gives no parent hangs under it.
        Every node has the attributes ``type`` (e.type, ``"state"`` for the
        root), ``label`` (from the declared type's label, e.g. ``s[3,7]``),
        ``color``, ``size`` (μ(e); Σμ(ω_t) for the root), ``content``
        (shortened and HTML-escaped), ``range`` ((x, y) or ``None``),
        ``step``, ``t``, ``depth``, ``in_state`` (whether e ∈ ω_t, or only in
        the folding history) and ``element`` (the Element, ``None`` for the
        root). The graph attributes ``kind`` (``"tree"`` or ``"flat"``),
        ``t``, ``v_max``, ``name`` (the mechanism's), ``title`` (the
        hierarchy's) and ``element_types`` (the declared types) describe it.

    Examples
    --------
    >>> from stmviz import Element, State
    >>> omega = State([Element("hello", {"t": 0, "type": "user", "step": 0}),
    ...                Element("hi!", {"t": 1, "type": "assistant", "step": 0})])
    >>> g = hierarchy_graph(omega)
    >>> g.graph["kind"], [g.nodes[n]["label"] for n in g.successors(ROOT)]
    ('flat', ['user 0', 'assistant 1'])
    """
    max_depth = guards.whole_number(max_depth, "max_depth", 0, where="hierarchy_graph", none_ok=True)
    guards.instance(mechanism, "mechanism", Mechanism, where="hierarchy_graph", none_ok=True)
    source = _source(trace, t, mechanism)
    hierarchy = _declared(source.mechanism, source.state)
    graph = nx.DiGraph(
        kind="tree" if declares_hierarchy(source.mechanism) else "flat",
        t=source.t,
        v_max=source.v_max,
        name=source.name,
        title=hierarchy.title,
        element_types=source.types,
        own_types=tuple(types_of(source.mechanism)) if source.mechanism is not None else (),
    )
    _add_root(graph, source)
    _add_nodes(graph, hierarchy, source, math.inf if max_depth is None else max_depth)
    return graph


@dataclass
class _Source:
    """What a hierarchy graph is drawn from: ω_t, its mechanism and declared types, μ, the trace's folds."""

    state: State
    t: int | None
    mechanism: Mechanism | None
    types: Mapping[str, ElementType]
    sizes: Mapping[Element, float]
    v_max: float | None
    name: str
    index: _FoldIndex | None


def _source(trace: Trace | State, t: int | None, mechanism: Mechanism | None) -> _Source:
    if isinstance(trace, Trace):
        t = time_index(trace, len(trace) if t is None else t, where="hierarchy_graph")
        state = trace.state_at(t)
        own = mechanism is None or mechanism is trace.mechanism
        mechanism = mechanism or trace.mechanism
        types = element_types_of_trace(trace) if mechanism is None else _types_of(mechanism)
        index = _index(trace) if own else None
        sizes: Mapping[Element, float] = trace.sizes
        source = _Source(state, t, mechanism, types, sizes, trace.v_max, trace.name, index)
    else:
        if t is not None:  # a bare state has no time: t names a state of a trace
            raise InvalidArgumentError(
                f"hierarchy_graph: t selects a state of a Trace; with a State, leave t out (got t = {brief(t)})"
            )
        state = _as_state(trace)
        name = str(mechanism) if mechanism is not None else "state"
        source = _Source(state, None, mechanism, _types_of(mechanism), {}, None, name, None)
    missing = [e for e in source.state.elements if e not in source.sizes]
    if missing:  # a bare State: μ is unknown, draw every element with size 1
        source.sizes = {**source.sizes, **{e: 1.0 for e in missing}}
    return source


def _add_root(graph: nx.DiGraph, source: _Source) -> None:
    """The root node: ω_t itself, of size Σμ(ω_t)."""
    state, t, v_max = source.state, source.t, source.v_max
    total = sum(source.sizes[e] for e in state.elements)
    graph.add_node(
        ROOT,
        type="state",
        label=f"ω_{t}" if t is not None else "ω",
        color=ROOT_COLOR,
        size=float(total),
        content=escape(_root_content(len(state), total, v_max)),
        range=None,
        step=None,
        t=None,
        depth=0,
        in_state=True,
        element=None,
    )


def _root_content(count: int, total: float, v_max: float | None) -> str:
    """The root's hover line: how many elements ω_t holds and Σμ(ω_t) (against V_max if known), in the language set."""
    if v_max:
        return ngettext("{n} element, Σμ = {size} of V_max = {v_max}", "{n} elements, Σμ = {size} of V_max = {v_max}",
                        count).format(n=count, size=f"{total:g}", v_max=f"{v_max:g}")
    return ngettext("{n} element, Σμ = {size}", "{n} elements, Σμ = {size}", count).format(n=count, size=f"{total:g}")


def _add_nodes(graph: nx.DiGraph, hierarchy: Hierarchy, source: _Source, limit: float) -> None:
    """The elements of ω under their parents (or the root), each followed by what it folded, down to ``limit``."""
    cache = source.index.attrs if source.index is not None else {}
    children = source.index.children if source.index is not None else {}

    def add(element: Element, parent: str, in_state: bool) -> str | None:
        depth = graph.nodes[parent]["depth"] + 1
        if depth > limit:
            return None
        attrs = cache.get(element)
        if attrs is None:
            attrs = cache[element] = _element_attrs(element, source.sizes, source.types)
        graph.add_node(element.id, **attrs, depth=depth, in_state=in_state)
        graph.add_edge(parent, element.id)
        return element.id

    def descend(element: Element, node: str) -> None:
        for kid in children.get(element, ()):
            kid_node = add(kid, node, in_state=False)
            if kid_node is not None:
                descend(kid, kid_node)

    for element in hierarchy.nodes:
        up = hierarchy.parent(element)
        parent = ROOT if up is None else up.id
        if parent in graph:
            node = add(element, parent, in_state=True)
            if node is not None:
                descend(element, node)


def _types_of(mechanism: Mechanism | None) -> Mapping[str, ElementType]:
    """The mechanism's declared element types, over every declared type (its own win)."""
    if mechanism is None:
        return declared_types()
    return {**declared_types(), **types_of(mechanism)}


# --------------------------------------------------------------------------- layout


def _check_graph(graph: Any, where: str) -> nx.DiGraph:
    guards.instance(graph, "graph", nx.DiGraph, where=where, what="a networkx.DiGraph from hierarchy_graph")
    # what a hierarchy graph holds (its root and the nodes' attributes): hierarchy_graph's own rule
    if ROOT not in graph:
        raise InvalidArgumentError(
            f"{where}: not a hierarchy graph: it has no root node {ROOT!r}; build it with hierarchy_graph(trace, t)"
        )
    for node, data in graph.nodes(data=True):
        for key in ("type", "depth", "size"):
            if key not in data:
                raise InvalidArgumentError(
                    f"{where}: not a hierarchy graph: node {brief(node, 30)} has no {key!r} attribute; "
                    f"build it with hierarchy_graph(trace, t)"
                )
    return graph


def hierarchy_layout(graph: nx.DiGraph) -> dict[Any, tuple[float, float]]:
    """A layered layout of a hierarchy graph: x is time (steps), y is depth.

    A node with a step range (x, y) sits at its centre (x + y) / 2, a node
    with a step at that step; a node with children and no range sits at the
    mean of its children. Nodes with no time at all (the query, the tools, a
    system prompt) are lined up, in canonical order, left of the earliest
    step. Nodes that would coincide at one depth are spread apart slightly.

    Parameters
    ----------
    graph : networkx.DiGraph
        A graph from :func:`hierarchy_graph`.

    Returns
    -------
    dict
        node → (x, depth).

    Examples
    --------
    >>> from stmviz import Element, State
    >>> g = hierarchy_graph(State([Element("a", {"t": 0, "type": "user", "step": 3}),
    ...                            Element("b", {"t": 1, "type": "user", "step": 5})]))
    >>> sorted(xy for n, xy in hierarchy_layout(g).items() if n != ROOT)
    [(3.0, 1), (5.0, 1)]
    >>> hierarchy_layout(g)[ROOT]
    (4.0, 0)
    """
    graph = _check_graph(graph, "hierarchy_layout")
    nodes = graph.nodes
    x: dict[Any, float] = {}
    untimed: list[Any] = []
    for node, data in nodes(data=True):
        r = data.get("range")
        if r is not None:
            x[node] = (r[0] + r[1]) / 2
        elif data.get("step") is not None and graph.out_degree(node) == 0:
            x[node] = float(data["step"])
    # internal nodes without a range: mean of their children, bottom up
    for node in reversed(list(nx.topological_sort(graph))):
        if node in x:
            continue
        kids = [x[k] for k in graph.successors(node) if k in x]
        if kids:
            x[node] = sum(kids) / len(kids)
        elif nodes[node].get("step") is not None:
            x[node] = float(nodes[node]["step"])
        else:
            untimed.append(node)
    if untimed:
        def key(node: Any) -> tuple:
            element = nodes[node].get("element")
            return order_key(element) if element is not None else (2, 0, str(node))

        untimed.sort(key=key)
        start = (min(x.values()) - 1.0) if x else float(len(untimed) - 1)
        count = len(untimed)
        for i, node in enumerate(untimed):
            x[node] = start - (count - 1 - i)
        # parents of untimed leaves (rare): centre them again
        for node in reversed(list(nx.topological_sort(graph))):
            if node in untimed and graph.out_degree(node):
                kids = [x[k] for k in graph.successors(node)]
                x[node] = sum(kids) / len(kids)
    # spread nodes that coincide at one depth
    groups: dict[tuple[int, float], list[Any]] = defaultdict(list)
    for node, data in nodes(data=True):
        groups[(data["depth"], round(x[node], 6))].append(node)
    for (_depth, _x), members in groups.items():
        if len(members) > 1:
            width = 0.7
            for i, node in enumerate(members):
                x[node] = x[node] - width / 2 + width * i / (len(members) - 1)
    return {node: (x[node], nodes[node]["depth"]) for node in graph}


# --------------------------------------------------------------------------- the figure

_MIN_PX, _MAX_PX, _ROOT_PX = 9.0, 38.0, 16.0

#: Above this many nodes no label is written by default (only hovers): laying them out would cost more than it shows.
MAX_LABELLED_NODES = 200
#: Labels are laid out for a plot area this wide (px): the plot area of a figure in the narrowest layout
#: the browser tests measure (a 480 px window, about 300 px between the axes); wider, labels have room to spare.
LABEL_PLOT_PX = 300.0
#: The average width of one character of a 10 px label (px), and the room left between two labels.
_CHAR_PX, _LABEL_GAP_PX = 6.2, 6.0

_INDEXED = re.compile(r"^([^\[\]<>&]+)\[([^\[\]<>]+)\]$")


def math_label(label: str) -> str:
    """An element's label as the figures write it: an index in brackets becomes a subscript, as in the prose.

    The label is escaped first; only the ``<sub>`` tags are markup.

    >>> math_label("s[3,7]"), math_label("I[12]"), math_label("query"), math_label("<b>[1]")
    ('s<sub>3,7</sub>', 'I<sub>12</sub>', 'query', '&lt;b&gt;[1]')
    """
    match = _INDEXED.match(label)
    if match is None:
        return escape(label)
    return f"{escape(match.group(1))}<sub>{escape(match.group(2))}</sub>"


def _label_px(label: str) -> float:
    """The width of a label drawn by :func:`math_label` in px, roughly (a subscript is smaller)."""
    match = _INDEXED.match(label)
    if match is None:
        return len(label) * _CHAR_PX
    return len(match.group(1)) * _CHAR_PX + len(match.group(2)) * _CHAR_PX * 0.75


def _short_label(label: str) -> str:
    """A label without its words (``a/o``, ``task``): its step numbers and marks, e.g. ``"↺ a/o 9"`` → ``"↺ 9"``."""
    kept = [word for word in label.split() if not any(c.isalpha() for c in word)]
    return " ".join(kept) or label


def label_layout(
    x: Sequence[float], depth: Sequence[int], labels: Sequence[str], first: Sequence[bool] = ()
) -> tuple[list[str], list[str]]:
    """Where each node's label goes so that no two labels overlap: above its node, below it, or not drawn.

    The x axis is assumed to span :data:`LABEL_PLOT_PX` px (a narrow
    column). At each depth, labels are placed one by one — the nodes
    flagged in ``first`` (the elements of ω_t), then the others, each group
    left to right — above its node if that row is free there, else below it;
    a label with room in neither row is shortened to its last word (the
    step of "a/o 8"), and left out only if that has no room either (hovering
    its node still shows it). A row is the gap between two levels, shared by the labels
    below the upper level's nodes and above the lower level's.

    Returns
    -------
    (list of str, list of str)
        The text of each node (:func:`math_label`, or ``""``) and its
        plotly ``textposition``.

    Examples
    --------
    >>> texts, where = label_layout([0, 0.1, 0.2, 10], [1, 1, 1, 1], ["a", "b", "c", "d"])
    >>> texts, where
    (['a', 'b', '', 'd'], ['top center', 'bottom center', 'top center', 'top center'])
    >>> label_layout([0, 7, 8, 9, 16], [3] * 5, ["a/o 0", "↺ a/o 7", "a/o 8", "↺ a/o 9", "a/o 16"])[0]
    ['a/o 0', '↺ a/o 7', 'a/o 8', '↺ 9', 'a/o 16']
    """
    count = len(x)
    span = (max(x) - min(x)) if count else 0.0
    px = LABEL_PLOT_PX / span if span > 0 else 1.0
    prefer = list(first) + [False] * (count - len(first))
    texts = [""] * count
    where = ["top center"] * count
    rows: dict[int, list[tuple[float, float]]] = defaultdict(list)  # the gap below level d → its labels' spans
    order = sorted(range(count), key=lambda i: (not prefer[i], x[i]))
    for i in order:
        if not labels[i]:
            continue
        # the whole label, or where it has no room its short form ("a/o 8" → "8", "↺ a/o 9" → "↺ 9")
        for label in dict.fromkeys([labels[i], _short_label(labels[i])]):
            half = (_label_px(label) + _LABEL_GAP_PX) / 2
            left, right = x[i] * px - half, x[i] * px + half
            placed = False
            for side in ("top center", "bottom center"):
                # a label above a node at depth d and one below a node at depth d − 1 share the gap between
                # those two levels: they are one row, so labels of neighbouring depths cannot collide either
                taken = rows[depth[i] - 1 if side == "top center" else depth[i]]
                if all(right <= a or left >= b for a, b in taken):
                    taken.append((left, right))
                    texts[i], where[i] = math_label(label), side
                    placed = True
                    break
            if placed:
                break
    return texts, where


def _marker_sizes(graph: nx.DiGraph, order: list[Any]) -> list[float]:
    values = [graph.nodes[n]["size"] for n in order if n != ROOT]
    top = max(values) if values else 1.0
    out = []
    for node in order:
        if node == ROOT:
            out.append(_ROOT_PX)
        else:
            mu = max(float(graph.nodes[node]["size"]), 0.0)
            out.append(_MIN_PX + (_MAX_PX - _MIN_PX) * math.sqrt(mu / top) if top > 0 else _MIN_PX)
    return out


def _spaced_sizes(sizes: list[float], x: Sequence[float], depth: Sequence[int]) -> list[float]:
    """Marker diameters no wider than the room beside each node at its depth, so that circles never overlap.

    The x axis is assumed to span :data:`LABEL_PLOT_PX` px, as for the labels
    (AgentFold's fold tree drew big blocks over their neighbours and their labels).

    >>> _spaced_sizes([38.0, 38.0, 38.0], [0, 1, 30], [1, 1, 1])
    [9.0, 9.0, 38.0]
    """
    span = (max(x) - min(x)) if len(x) else 0.0
    px = LABEL_PLOT_PX / span if span > 0 else 1.0
    by_depth: dict[int, list[int]] = defaultdict(list)
    for i, d in enumerate(depth):
        by_depth[d].append(i)
    out = list(sizes)
    for members in by_depth.values():
        members.sort(key=lambda i: x[i])
        for k, i in enumerate(members):
            gaps = [abs(x[i] - x[j]) * px for j in (members[k - 1] if k else None, members[k + 1] if k + 1 < len(members) else None)
                    if j is not None]
            room = min(gaps, default=math.inf) - 2.0  # a neighbour's circle takes half of the gap, this one the other
            out[i] = max(_MIN_PX, min(out[i], room))
    return out


def _hover(data: Mapping[str, Any]) -> str:
    key = (
        data.get("label", ""), data["type"], data.get("size"), data.get("range"), data.get("step"),
        bool(data.get("in_state", True)), data.get("content"),
    )
    try:
        return _hover_cached(key, get_language())
    except TypeError:  # an unhashable attribute of a hand-built graph
        return _hover_text(data)


@lru_cache(maxsize=1 << 16)
def _hover_cached(key: tuple, language: str) -> str:
    """:func:`_hover_text` of the attributes in ``key``, in ``language`` (cached: a player redraws the same nodes often)."""
    label, kind, size, r, step, in_state, content = key
    return _hover_text(
        {"label": label, "type": kind, "size": size, "range": r, "step": step, "in_state": in_state, "content": content}
    )


def _hover_text(data: Mapping[str, Any]) -> str:
    lines = [f"<b>{math_label(str(data.get('label', '')))}</b> · {escape(data['type'])}"]
    size = data.get("size")
    if size is not None:
        lines.append(f"{'Σμ' if data['type'] == 'state' else 'μ'} = {float(size):g}")
    r = data.get("range")
    if r is not None:
        lines.append(_("steps {first}–{last}").format(first=r[0], last=r[1]))
    elif data.get("step") is not None:
        lines.append(_("step {t}").format(t=data["step"]))
    if not data.get("in_state", True):
        lines.append("<i>" + _("folded away: no longer in ω_t") + "</i>")
    content = data.get("content")
    if content:
        # hierarchy_graph stores content escaped; a hand-built graph may not, so escape raw markup
        lines.append(content if _is_inert(content) else escape(content))
    return "<br>".join(lines)


def _is_inert(text: str) -> bool:
    return "<" not in text and ">" not in text and '"' not in text


def node_arrays(graph: nx.DiGraph, labels: bool | None = None) -> dict[str, Any]:
    """Plain data of the node and edge traces of :func:`hierarchy_figure` (widgets update a figure in place with it).

    Parameters
    ----------
    graph : networkx.DiGraph
        A graph from :func:`hierarchy_graph`.
    labels : bool, optional
        Write the labels next to the nodes (default: at most 200 nodes; labels that would collide are left out, see :func:`label_layout`).

    Returns
    -------
    dict
        ``edge_x``, ``edge_y`` (edge segments separated by ``None``), ``x``,
        ``y``, ``size``, ``color``, ``opacity``, ``line_color``, ``text``
        and ``textposition`` (:func:`label_layout`: labels that would
        overlap at one depth go below their node, or are left out),
        ``hovertext``, ``mode`` (one entry per node, in graph order),
        ``depth`` (the deepest level) and ``types`` (the element types
        present, in order of first appearance).
    """
    graph = _check_graph(graph, "node_arrays")
    labels = guards.flag(labels, "labels", where="node_arrays", none_ok=True)
    types = graph.graph.get("element_types")
    pos = hierarchy_layout(graph)
    order = list(graph.nodes)
    nodes = graph.nodes
    edge_x: list[float | None] = []
    edge_y: list[float | None] = []
    for parent, child in graph.edges:
        (x0, y0), (x1, y1) = pos[parent], pos[child]
        edge_x += [x0, x1, None]
        edge_y += [y0, y1, None]
    show = labels if labels is not None else len(order) <= MAX_LABELLED_NODES
    xs = [pos[n][0] for n in order]
    if show:
        texts, where = label_layout(
            xs, [nodes[n]["depth"] for n in order], [str(nodes[n].get("label", "")) for n in order],
            [bool(nodes[n].get("in_state", True)) for n in order],
        )
    else:
        texts, where = [], []
    return {
        "edge_x": edge_x,
        "edge_y": edge_y,
        "x": xs,
        "y": [pos[n][1] for n in order],
        "size": _spaced_sizes(_marker_sizes(graph, order), xs, [nodes[n]["depth"] for n in order]),
        "color": [ROOT_COLOR if n == ROOT else nodes[n].get("color") or color_for(nodes[n]["type"], types) for n in order],
        "opacity": [1.0 if nodes[n].get("in_state", True) else 0.45 for n in order],
        "line_color": ["#222222" if nodes[n].get("in_state", True) else "#ffffff" for n in order],
        "text": texts if show else None,
        "textposition": where if show else "top center",
        "hovertext": [_hover(nodes[n]) for n in order],
        "mode": "markers+text" if show else "markers",
        "depth": max((nodes[n]["depth"] for n in order), default=0),
        "types": list(dict.fromkeys(nodes[n]["type"] for n in order if n != ROOT)),
    }


def node_marker(arrays: Mapping[str, Any]) -> dict[str, Any]:
    """The ``marker`` of the node trace of :func:`hierarchy_figure`, from :func:`node_arrays`."""
    guards.instance(arrays, "arrays", Mapping, where="node_marker", what="the dict of node_arrays(graph)")
    if any(key not in arrays for key in ("size", "color", "opacity", "line_color")):  # what node_arrays gives
        raise InvalidArgumentError(
            f"node_marker needs the dict of node_arrays(graph) (keys size, color, opacity, line_color), got {brief(arrays)}"
        )
    return {
        "size": arrays["size"], "color": arrays["color"], "opacity": arrays["opacity"],
        "line": {"color": arrays["line_color"], "width": 1},
    }


def hierarchy_figure(
    graph_or_trace: nx.DiGraph | Trace | State,
    t: int | None = None,
    *,
    max_depth: int | None = None,
    labels: bool | None = None,
    height: int = 380,
) -> go.Figure:
    """The hierarchy of ω_t drawn as a layered tree: time left to right, depth top to bottom.

    Parameters
    ----------
    graph_or_trace : networkx.DiGraph, Trace or State
        A graph from :func:`hierarchy_graph`, or a trace / state to build one from.
    t : int, optional
        With a trace: which ω_t (default the final state). Ignored for a graph.
    max_depth : int, optional
        With a trace or state: passed to :func:`hierarchy_graph`.
    labels : bool, optional
        Write each node's short label next to it (default: when there are at
        most 200 nodes; those that would collide are left out).
    height : int
        The figure's height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0 draws the edges, trace 1 the nodes: a node's marker area
        follows its size μ (square-root scaled), its colour its type e.type
        as the mechanism declares it (``Mechanism.element_types``); nodes that
        are no longer in ω_t (folded away) are faded. Hovering shows the
        shortened, escaped content. The remaining traces only fill the legend,
        one per type: a tree's declared types first, then any other present.

    Examples
    --------
    >>> from stmviz import Element, State
    >>> omega = State([Element("<b>hello</b>", {"t": 0, "type": "user", "step": 0})])
    >>> fig = hierarchy_figure(omega)
    >>> [tr.name for tr in fig.data]
    ['edges', 'nodes', 'user']
    >>> "<b>hello" in fig.data[1].hovertext[1]
    False
    """
    labels = guards.flag(labels, "labels", where="hierarchy_figure", none_ok=True)
    if height is not None:
        height = guards.whole_number(height, "height", where="hierarchy_figure", minimum=10, fix="; a height in pixels")
    guards.instance(graph_or_trace, "graph_or_trace", (nx.DiGraph, Trace, State), where="hierarchy_figure",
                    what="a graph from hierarchy_graph, a Trace or a State")
    if isinstance(graph_or_trace, nx.DiGraph):
        graph = _check_graph(graph_or_trace, "hierarchy_figure")
    else:
        graph = hierarchy_graph(graph_or_trace, t, max_depth=max_depth)
    arrays = node_arrays(graph, labels)
    kind = graph.graph.get("kind", "flat")
    types = graph.graph.get("element_types")
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=arrays["edge_x"], y=arrays["edge_y"], mode="lines", name="edges",
            line={"color": "#9a9a9a", "width": 1}, hoverinfo="skip", showlegend=False,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=arrays["x"], y=arrays["y"], mode=arrays["mode"], name="nodes",
            text=arrays["text"], textposition=arrays["textposition"], textfont={"size": 10},
            hovertext=arrays["hovertext"], hoverinfo="text",
            marker=node_marker(arrays),
            showlegend=False,
        )
    )
    for kind_type in legend_types(graph, arrays["types"]):
        fig.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", name=escape(kind_type),
                marker={"size": 10, "color": color_for(kind_type, types)}, hoverinfo="skip",
            )
        )
    depth = arrays["depth"]
    fig.update_layout(
        title={"text": hierarchy_title(graph), "font": {"size": 13}, "x": 0.01, "xanchor": "left"},
        height=height,
        margin={"l": 50, "r": 20, "t": 50, "b": 10},
        hovermode="closest",
        plot_bgcolor="white",
        # at the bottom, in a margin plotly grows to fit its rows (see occupancy.bottom_legend)
        legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0, "xanchor": "left"},
        xaxis=step_axis(arrays["x"]),
        yaxis={
            "title": {"text": _("depth")},
            "autorange": "reversed",
            "tickmode": "array",
            "tickvals": list(range(depth + 1)),
            "ticktext": ["ω_t"] + [str(d) for d in range(1, depth + 1)],
            "showgrid": False,
            "zeroline": False,
        },
        meta={"stmviz": "hierarchy", "kind": kind},
    )
    return fig


def step_axis(xs: Sequence[float]) -> dict[str, Any]:
    """The x axis of steps: whole-step ticks on a short run (no 0.2, 0.4 … at t = 0), half a step of room either side.

    >>> step_axis([0.0, 1.0])["dtick"], step_axis([0.0, 1.0])["range"]
    (1, [-0.6, 1.6])
    """
    axis: dict[str, Any] = {"title": {"text": _("step")}, "showgrid": True, "gridcolor": "#eeeeee", "zeroline": False}
    values = [float(v) for v in xs if v is not None]
    if values and max(values) - min(values) < 12:
        # markers up to 38 px wide at the ends need room, and a step is a whole number
        axis.update(dtick=1, tick0=0, range=[min(values) - 0.6, max(values) + 0.6])
    return axis


def hierarchy_title(graph: nx.DiGraph, t: int | None = None) -> str:
    """The title of a hierarchy figure: ω_t, the mechanism's name and what its hierarchy shows.

    Parameters
    ----------
    graph : networkx.DiGraph
        A graph from :func:`hierarchy_graph` (its ``name``, ``title`` and ``t``).
    t : int, optional
        The time index to name (default the graph's ``t``).

    Examples
    --------
    >>> from stmviz import Element, State
    >>> hierarchy_title(hierarchy_graph(State([Element("hi", {"t": 0})])))
    'Hierarchy of ω — elements of ω'
    """
    guards.instance(graph, "graph", nx.DiGraph, where="hierarchy_title", what="a graph from hierarchy_graph")
    t = graph.graph.get("t") if t is None else guards.whole_number(t, "t", where="hierarchy_title", minimum=0)
    title = graph.graph.get("title") or ""
    title = _(title) if title else ""  # the mechanism's words (its module marks them), in the language set
    name = graph.graph.get("name") or ""
    what = f"{name}: {title}" if title and name else title or _("elements of ω")
    if t is not None:
        return _("Hierarchy of ω_{t} — {what}").format(t=t, what=what)
    return _("Hierarchy of ω — {what}").format(what=what)


def legend_types(graph: nx.DiGraph, present: Sequence[str] = ()) -> list[str]:
    """The element types a hierarchy figure's legend lists: a tree's declared types, then the others present."""
    declared: list[str] = []
    if graph.graph.get("kind") == "tree":
        own = graph.graph.get("own_types") or ()
        declared = list(own)
    return declared + [p for p in present if p not in declared]
