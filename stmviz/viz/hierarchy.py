"""The multi-scale structure of a state ω_t as a graph: AgentFold's folds, HiAgent's subgoals.

The paper's Section 4 describes two mechanisms whose state ω is not a flat
list but a hierarchy:

- **AgentFold** — ω_t holds summary blocks s_{x,y} (meta ``range`` = (x, y))
  and the latest interaction I_{t−1}. *Granular condensation* turns one
  interaction into a block; *deep consolidation* replaces a chain of blocks by
  one block covering them. Reading the trace, a step that removes blocks and
  adds a block whose range covers them makes the new block the **parent** of
  the removed ones, so the folding history is a tree whose leaves are the
  folded steps in order.
- **HiAgent** — ω_t holds the task, the current subgoal with its
  action–observation pairs, finished subgoals collapsed to a summary, and
  the pairs of a finished subgoal brought back by trajectory retrieval.

:func:`hierarchy_graph` builds that structure as an :class:`networkx.DiGraph`
rooted at ``"ω_t"``; :func:`hierarchy_layout` lays it out in layers (time left
to right, depth top to bottom); :func:`hierarchy_figure` draws it with plotly.
Any other trace (a FIFO window, SCM) gives a flat graph: the root with one
child per element of ω_t.
"""

from __future__ import annotations

import math
import weakref
from functools import lru_cache
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import networkx as nx
import plotly.graph_objects as go

from ..core.element import Element, order_key
from ..core.space import State
from ..core.trace import Trace
from ._common import color_for, escape, shorten

__all__ = [
    "ROOT",
    "ROOT_COLOR",
    "AGENTFOLD_TYPES",
    "HIAGENT_TYPES",
    "hierarchy_kind",
    "hierarchy_graph",
    "hierarchy_layout",
    "hierarchy_figure",
]

#: The key of the root node, the state ω_t itself.
ROOT = "ω_t"
#: The colour of the root node.
ROOT_COLOR = "#444444"
#: Element types that mark an AgentFold state.
AGENTFOLD_TYPES = ("query", "tools", "block", "latest")
#: Element types that mark a HiAgent state.
HIAGENT_TYPES = ("task", "subgoal", "pair", "summary", "retrieved")

_CONTENT_WIDTH = 160


# --------------------------------------------------------------------------- reading metadata


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _range(element: Element) -> tuple[int, int] | None:
    """meta ``range`` = (x, y) of a block as two whole numbers x ≤ y, or ``None``."""
    value = element.meta.get("range")
    if not isinstance(value, tuple) or len(value) != 2:
        return None
    x, y = _int(value[0]), _int(value[1])
    if x is None or y is None or x > y:
        return None
    return (x, y)


def _span(element: Element) -> tuple[int, int] | None:
    """The steps an element covers: a block's range, else (step, step), else ``None``."""
    r = _range(element)
    if r is not None:
        return r
    s = _int(element.meta.get("step"))
    return (s, s) if s is not None else None


def _kind_of(types: Iterable[str]) -> str:
    seen = set(types)
    if seen & {"block", "latest"}:
        return "agentfold"
    if seen & set(HIAGENT_TYPES):
        return "hiagent"
    return "flat"


# --------------------------------------------------------------------------- trace index


class _FoldIndex:
    """What one pass over a trace yields: its kind and, for AgentFold, each block's children."""

    __slots__ = ("kind", "children", "attrs", "__weakref__")

    def __init__(self, trace: Trace) -> None:
        self.kind = _kind_of(e.type for e in trace.sizes)
        self.children: dict[Element, tuple[Element, ...]] = {}
        #: the node attributes of each element that does not depend on t (computed once, on demand)
        self.attrs: dict[Element, dict[str, Any]] = {}
        if self.kind == "agentfold":
            for step in trace:
                if step.added and step.removed:
                    self._record(step.added, step.removed)

    def _record(self, added: Iterable[Element], removed: Iterable[Element]) -> None:
        new_blocks = [(b, r) for b in added if b.type == "block" for r in (_range(b),) if r is not None]
        if not new_blocks:
            return
        candidates = [
            (e, s) for e in removed if e.type in ("block", "latest") for s in (_span(e),) if s is not None
        ]
        taken: set[Element] = set()
        for block, (x, y) in new_blocks:
            kids = [e for e, (a, b) in candidates if e not in taken and x <= a and b <= y]
            # a deep consolidation merges blocks; a block made from the latest interaction alone
            # (granular condensation) is a leaf of the tree
            if any(k.type == "block" for k in kids):
                kids.sort(key=lambda e: (_span(e), order_key(e)))
                self.children[block] = tuple(kids)
                taken.update(kids)


_INDEX: dict[int, tuple[weakref.ref, int, _FoldIndex]] = {}


def _index(trace: Trace) -> _FoldIndex:
    """The (cached) fold index of a trace; rebuilt if the trace grew."""
    key = id(trace)
    hit = _INDEX.get(key)
    if hit is not None and hit[0]() is trace and hit[1] == len(trace):
        return hit[2]
    index = _FoldIndex(trace)
    _INDEX[key] = (weakref.ref(trace, lambda _ref, key=key: _INDEX.pop(key, None)), len(trace), index)
    return index


def hierarchy_kind(trace_or_state: Trace | State | Iterable[Element]) -> str:
    """Which hierarchy a trace or state ω has: ``"agentfold"``, ``"hiagent"`` or ``"flat"``.

    A trace is AgentFold's if any element it ever held has type ``"block"`` or
    ``"latest"``, HiAgent's if any has one of :data:`HIAGENT_TYPES`; anything
    else is drawn flat.

    Examples
    --------
    >>> from stmviz import Element, State
    >>> hierarchy_kind(State([Element("s", {"t": 0, "type": "block", "range": (0, 2)})]))
    'agentfold'
    >>> hierarchy_kind(State([Element("hi", {"t": 0, "type": "user"})]))
    'flat'
    """
    if isinstance(trace_or_state, Trace):
        return _index(trace_or_state).kind
    return _kind_of(e.type for e in _as_state(trace_or_state))


def _as_state(value: Any) -> State:
    if isinstance(value, State):
        return value
    try:
        return State(value)
    except Exception:
        raise TypeError(
            f"expected a Trace, a State ω or an iterable of elements, got {type(value).__name__}"
        ) from None


# --------------------------------------------------------------------------- the graph


def _label(element: Element) -> str:
    kind = element.type
    r = _range(element)
    step = _int(element.meta.get("step"))
    sub = element.meta.get("subgoal")
    if kind == "block" and r is not None:
        return f"s[{r[0]},{r[1]}]"
    if kind == "latest":
        return f"I[{step}]" if step is not None else "I"
    if kind == "subgoal":
        return f"g{sub}" if sub is not None else "subgoal"
    if kind == "summary":
        return f"Σg{sub}" if sub is not None else "summary"
    if kind in ("pair", "retrieved"):
        mark = "a/o" if kind == "pair" else "↺ a/o"
        return f"{mark} {step}" if step is not None else mark
    if kind in ("task", "query", "tools"):
        return kind
    t = element.t
    return f"{kind} {t:g}" if t is not None else kind


def _element_attrs(element: Element, sizes: Mapping[Element, float]) -> dict[str, Any]:
    size = sizes.get(element)
    return {
        "type": element.type,
        "label": _label(element),
        "size": float(size) if size is not None else 1.0,
        "content": escape(shorten(element.text, _CONTENT_WIDTH)),
        "range": _range(element),
        "step": _int(element.meta.get("step")),
        "t": element.t,
        "element": element,
    }


def _add_element(
    graph: nx.DiGraph,
    element: Element,
    parent: str,
    sizes: Mapping[Element, float],
    in_state: bool,
    cache: dict[Element, dict[str, Any]] | None = None,
) -> str:
    node = element.id
    attrs = cache.get(element) if cache is not None else None
    if attrs is None:
        attrs = _element_attrs(element, sizes)
        if cache is not None:
            cache[element] = attrs
    graph.add_node(node, **attrs, depth=graph.nodes[parent]["depth"] + 1, in_state=in_state)
    graph.add_edge(parent, node)
    return node


def hierarchy_graph(trace: Trace | State, t: int | None = None, *, max_depth: int | None = None) -> nx.DiGraph:
    """The structure of a state ω_t as a tree rooted at ``"ω_t"`` (AgentFold, HiAgent) or a flat graph.

    Parameters
    ----------
    trace : Trace or State
        A recorded run; a bare State ω is accepted too (then AgentFold's
        folding history is unknown and its blocks hang directly under the root).
    t : int, optional
        Which state ω_t (0 ≤ t ≤ n); default the final state ω_n.
    max_depth : int, optional
        Leave out nodes deeper than this (the root has depth 0). Useful to keep a
        long AgentFold history readable; the default keeps the whole tree.

    Returns
    -------
    networkx.DiGraph
        Edges go from parent to child, children in time order. The root
        :data:`ROOT` stands for ω_t itself. Every node has the attributes
        ``type`` (e.type, ``"state"`` for the root), ``label`` (a short name
        such as ``s[3,7]``), ``size`` (μ(e); Σμ(ω_t) for the root), ``content``
        (shortened and HTML-escaped), ``range`` ((x, y) or ``None``), ``step``,
        ``t``, ``depth``, ``in_state`` (whether e ∈ ω_t, or only in the folding
        history) and ``element`` (the Element, ``None`` for the root). The
        graph attributes ``kind``, ``t``, ``v_max`` and ``name`` describe it.

    Notes
    -----
    - **AgentFold** (elements of type ``"block"`` with meta ``range`` (x, y)
      and one ``"latest"``): the blocks of ω_t and the latest interaction are
      children of the root, next to the query and tools. For each step, a
      block it adds whose range covers blocks (and the latest interaction) the
      same step removes is a deep consolidation and becomes their parent; a
      block made from the latest interaction alone is a leaf. The leaves
      under the blocks then cover the folded steps in order, without overlap,
      as long as the mechanism only ever merges whole chains of blocks.
    - **HiAgent** (types ``task``, ``subgoal``, ``pair``, ``summary``,
      ``retrieved``, meta ``subgoal`` id and ``current``): root → task →
      subgoals and summaries; the pairs of a subgoal hang under it; a finished
      subgoal is collapsed into its summary node, and when its trajectory was
      retrieved, the ``retrieved`` pairs hang under that summary.
    - **Anything else** (FIFO window, SCM): the root with one child per element.

    Examples
    --------
    >>> from stmviz import Element, State
    >>> omega = State([Element("hello", {"t": 0, "type": "user", "step": 0}),
    ...                Element("hi!", {"t": 1, "type": "assistant", "step": 0})])
    >>> g = hierarchy_graph(omega)
    >>> g.graph["kind"], [g.nodes[n]["label"] for n in g.successors(ROOT)]
    ('flat', ['user 0', 'assistant 1'])
    """
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 0):
        raise ValueError(f"max_depth must be a whole number ≥ 0 or None, got {max_depth!r}")
    if isinstance(trace, Trace):
        n = len(trace)
        if t is None:
            t = n
        if isinstance(t, bool) or not isinstance(t, int):
            raise TypeError(f"t must be a whole number of steps, got {t!r}")
        if not -(n + 1) <= t <= n:
            raise IndexError(f"the trace has states ω_0 … ω_{n}; there is no ω_{t}")
        if t < 0:
            t += n + 1
        state = trace.state_at(t)
        index: _FoldIndex | None = _index(trace)
        kind = index.kind
        sizes: Mapping[Element, float] = trace.sizes
        v_max: float | None = trace.v_max
        name = trace.name
    else:
        state = _as_state(trace)
        index = None
        kind = _kind_of(e.type for e in state)
        sizes = {}
        v_max = None
        name = "state"
    missing = [e for e in state.elements if e not in sizes]
    if missing:  # a bare State: μ is unknown, draw every element with size 1
        sizes = dict(sizes)
        for e in missing:
            sizes[e] = 1.0  # type: ignore[index]
    graph = nx.DiGraph(kind=kind, t=t, v_max=v_max, name=name)
    total = sum(sizes[e] for e in state.elements)
    graph.add_node(
        ROOT,
        type="state",
        label=f"ω_{t}" if t is not None else "ω",
        size=float(total),
        content=escape(f"{len(state)} elements, Σμ = {total:g}" + (f" of V_max = {v_max:g}" if v_max else "")),
        range=None,
        step=None,
        t=None,
        depth=0,
        in_state=True,
        element=None,
    )
    limit = math.inf if max_depth is None else max_depth
    cache = index.attrs if index is not None else None

    def add(element: Element, parent: str, in_state: bool = True) -> str | None:
        if graph.nodes[parent]["depth"] + 1 > limit:
            return None
        return _add_element(graph, element, parent, sizes, in_state, cache)

    ordered = state.ordered()
    if kind == "agentfold":
        children = index.children if index is not None else {}

        def descend(block: Element, node: str) -> None:
            for kid in children.get(block, ()):
                kid_node = add(kid, node, in_state=False)
                if kid_node is not None:
                    descend(kid, kid_node)

        for element in ordered:
            node = add(element, ROOT)
            if node is not None and element.type == "block":
                descend(element, node)
    elif kind == "hiagent":
        tasks = [e for e in ordered if e.type == "task"]
        task_node = add(tasks[0], ROOT) if tasks else None
        for extra_task in tasks[1:]:
            add(extra_task, ROOT)
        top = task_node or ROOT
        subgoal_nodes: dict[Any, str] = {}
        summary_nodes: dict[Any, str] = {}
        for element in ordered:
            if element.type in ("subgoal", "summary"):
                node = add(element, top)
                if node is not None:
                    table = subgoal_nodes if element.type == "subgoal" else summary_nodes
                    table.setdefault(element.meta.get("subgoal"), node)
        for element in ordered:
            sub = element.meta.get("subgoal")
            if element.type == "pair":
                parent = subgoal_nodes.get(sub) or summary_nodes.get(sub) or top
            elif element.type == "retrieved":
                parent = summary_nodes.get(sub) or subgoal_nodes.get(sub) or top
            elif element.type in ("task", "subgoal", "summary"):
                continue
            else:
                parent = ROOT
            if parent in graph:
                add(element, parent)
    else:
        for element in ordered:
            add(element, ROOT)
    return graph


# --------------------------------------------------------------------------- layout


def _check_graph(graph: Any) -> nx.DiGraph:
    if not isinstance(graph, nx.DiGraph):
        raise TypeError(f"expected a networkx.DiGraph from hierarchy_graph, got {type(graph).__name__}")
    if ROOT not in graph:
        raise ValueError(f"not a hierarchy graph: it has no root node {ROOT!r}; build it with hierarchy_graph(trace, t)")
    for node, data in graph.nodes(data=True):
        for key in ("type", "depth", "size"):
            if key not in data:
                raise ValueError(
                    f"not a hierarchy graph: node {shorten(repr(node), 30)} has no {key!r} attribute; "
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
    graph = _check_graph(graph)
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
    for (_, _), members in groups.items():
        if len(members) > 1:
            width = 0.7
            for i, node in enumerate(members):
                x[node] = x[node] - width / 2 + width * i / (len(members) - 1)
    return {node: (x[node], nodes[node]["depth"]) for node in graph}


# --------------------------------------------------------------------------- the figure

_MIN_PX, _MAX_PX, _ROOT_PX = 9.0, 38.0, 16.0


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


def _hover(data: Mapping[str, Any]) -> str:
    key = (
        data.get("label", ""), data["type"], data.get("size"), data.get("range"), data.get("step"),
        bool(data.get("in_state", True)), data.get("content"),
    )
    try:
        return _hover_cached(key)
    except TypeError:  # an unhashable attribute of a hand-built graph
        return _hover_text(data)


@lru_cache(maxsize=1 << 16)
def _hover_cached(key: tuple) -> str:
    """:func:`_hover_text` of the attributes in ``key`` (cached: a player redraws the same nodes often)."""
    label, kind, size, r, step, in_state, content = key
    return _hover_text(
        {"label": label, "type": kind, "size": size, "range": r, "step": step, "in_state": in_state, "content": content}
    )


def _hover_text(data: Mapping[str, Any]) -> str:
    lines = [f"<b>{escape(data.get('label', ''))}</b> · {escape(data['type'])}"]
    size = data.get("size")
    if size is not None:
        lines.append(f"{'Σμ' if data['type'] == 'state' else 'μ'} = {float(size):g}")
    r = data.get("range")
    if r is not None:
        lines.append(f"steps {r[0]}–{r[1]}")
    elif data.get("step") is not None:
        lines.append(f"step {data['step']}")
    if not data.get("in_state", True):
        lines.append("<i>folded away: no longer in ω_t</i>")
    content = data.get("content")
    if content:
        # hierarchy_graph stores content escaped; a hand-built graph may not, so escape raw markup
        lines.append(content if _is_inert(content) else escape(content))
    return "<br>".join(lines)


def _is_inert(text: str) -> bool:
    return "<" not in text and ">" not in text and '"' not in text


def _node_arrays(graph: nx.DiGraph, labels: bool | None = None) -> dict[str, Any]:
    """Plain data for the node and edge traces (also used by the widgets to update in place)."""
    pos = hierarchy_layout(graph)
    order = list(graph.nodes)
    nodes = graph.nodes
    edge_x: list[float | None] = []
    edge_y: list[float | None] = []
    for parent, child in graph.edges:
        (x0, y0), (x1, y1) = pos[parent], pos[child]
        edge_x += [x0, x1, None]
        edge_y += [y0, y1, None]
    show = labels if labels is not None else len(order) <= 40
    return {
        "edge_x": edge_x,
        "edge_y": edge_y,
        "x": [pos[n][0] for n in order],
        "y": [pos[n][1] for n in order],
        "size": _marker_sizes(graph, order),
        "color": [ROOT_COLOR if n == ROOT else color_for(nodes[n]["type"]) for n in order],
        "opacity": [1.0 if nodes[n].get("in_state", True) else 0.45 for n in order],
        "line_color": ["#222222" if nodes[n].get("in_state", True) else "#ffffff" for n in order],
        "text": [escape(nodes[n].get("label", "")) for n in order] if show else None,
        "hovertext": [_hover(nodes[n]) for n in order],
        "mode": "markers+text" if show else "markers",
        "depth": max((nodes[n]["depth"] for n in order), default=0),
        "types": list(dict.fromkeys(nodes[n]["type"] for n in order if n != ROOT)),
    }


def _node_marker(arrays: Mapping[str, Any]) -> dict[str, Any]:
    """The ``marker`` of the node trace from :func:`_node_arrays`."""
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
        most 40 nodes).
    height : int
        The figure's height in pixels.

    Returns
    -------
    plotly.graph_objects.Figure
        Trace 0 draws the edges, trace 1 the nodes: a node's marker area
        follows its size μ (square-root scaled), its colour its type e.type
        (:data:`stmviz.viz._common.TYPE_COLORS`); nodes that are no longer in
        ω_t (folded away) are faded. Hovering shows the shortened, escaped
        content. The remaining traces only fill the legend, one per type.

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
    if isinstance(graph_or_trace, nx.DiGraph):
        graph = _check_graph(graph_or_trace)
    elif isinstance(graph_or_trace, (Trace, State)):
        graph = hierarchy_graph(graph_or_trace, t, max_depth=max_depth)
    else:
        raise TypeError(
            f"hierarchy_figure needs a graph from hierarchy_graph, a Trace or a State; "
            f"got {type(graph_or_trace).__name__}"
        )
    arrays = _node_arrays(graph, labels)
    kind = graph.graph.get("kind", "flat")
    t_value = graph.graph.get("t")
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
            text=arrays["text"], textposition="top center", textfont={"size": 10},
            hovertext=arrays["hovertext"], hoverinfo="text",
            marker=_node_marker(arrays),
            showlegend=False,
        )
    )
    for kind_type in _legend_types(kind, arrays["types"]):
        fig.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", name=escape(kind_type),
                marker={"size": 10, "color": color_for(kind_type)}, hoverinfo="skip",
            )
        )
    depth = arrays["depth"]
    fig.update_layout(
        title={"text": _figure_title(kind, t_value)},
        height=height,
        margin={"l": 50, "r": 20, "t": 50, "b": 40},
        hovermode="closest",
        plot_bgcolor="white",
        legend={"orientation": "h", "y": -0.15},
        xaxis={"title": {"text": "step"}, "showgrid": True, "gridcolor": "#eeeeee", "zeroline": False},
        yaxis={
            "title": {"text": "depth"},
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


def _figure_title(kind: str, t: int | None) -> str:
    what = {"agentfold": "AgentFold: folded summaries", "hiagent": "HiAgent: task → subgoals → pairs"}.get(
        kind, "elements of ω"
    )
    return f"Hierarchy of ω_{t} — {what}" if t is not None else f"Hierarchy of ω — {what}"


def _legend_types(kind: str, present: list[str]) -> list[str]:
    if kind == "agentfold":
        fixed = list(AGENTFOLD_TYPES)
    elif kind == "hiagent":
        fixed = list(HIAGENT_TYPES)
    else:
        fixed = []
    return fixed + [p for p in present if p not in fixed]
