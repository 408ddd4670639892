"""What a mechanism declares about itself: its element types, its directives, its hierarchy.

The paper writes an element as e = (i, d) ∈ E = I × D, with d its metadata,
and "the type of an element is a metadata component": ``e.meta["type"]``.
Each mechanism uses a few types of its own (the FIFO window's ``user`` and
``assistant`` messages, AgentFold's summary blocks, HiAgent's subgoals). A
mechanism *declares* them, with what each means and the colour figures draw
it in, as :class:`ElementType`. It also declares the directives its
controller reads from a step (``AgentStep.directives``: HiAgent's subgoal
switch, AgentFold's folding directive) and, where its state ω is not flat,
its hierarchy: the nodes and edges of ω, as a :class:`Hierarchy`.

The figures, the metrics and the widgets read these declarations and
nothing else, so a mechanism written in a notebook gets coloured figures, a
legend and a hierarchy graph without an edit anywhere else::

    class Notebook(Mechanism):
        element_types = {"note": ("a note the agent wrote", "#1b9e77"),
                         "digest": ElementType("digest", "a summary of notes", "#d95f02", summary=True)}
        directives = {"note": "the text of a note to keep"}

        def hierarchy(self, state):
            digests = [e for e in state if e.type == "digest"]
            return Hierarchy.from_parents(state, lambda e: digests[0] if e.type == "note" and digests else None)

The core's :class:`~stmviz.core.mechanism.Mechanism` holds a declaration as
written; its readers normalize the friendly forms (a dict ``{name: (meaning,
colour)}``, a list of names, ...) with :func:`types_of` (once per class) and
:func:`directives_declared`, and :func:`check_mechanism` reports a bad one.
There is no registry of every class's types: figures that have no mechanism at
hand (a state alone, a trace loaded from JSON whose mechanism cannot be
rebuilt) read the types of the mechanisms stmviz ships
(:func:`stmviz.mechanisms.catalog.declared_types`).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .core.element import Element
from .core import guards
from .core.guards import as_int, brief
from .core.errors import InvalidArgumentError, ContractError
from .core.formatting import shorten

__all__ = [
    "ElementType",
    "Hierarchy",
    "default_label",
    "element_types_of",
    "directives_of",
    "types_of",
    "directives_declared",
    "step_range",
]

_COLOR = re.compile(
    r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})"
    r"|(?:rgb|rgba|hsl|hsla)\([^()]*\)"
    r"|[a-zA-Z]+"
)


@dataclass(frozen=True)
class ElementType:
    """One element type: a value of the metadata component ``e.meta["type"]`` of e = (i, d).

    Parameters
    ----------
    name : str
        The value of ``meta["type"]`` (e.g. ``"user"``, ``"block"``).
    meaning : str
        What an element of this type is, in a sentence (shown in legends' hovers and docs).
    color : str, optional
        A CSS colour (``"#1f77b4"``, ``"rgb(31,119,180)"``, ``"teal"``) the
        figures draw it in; ``None`` lets the figures pick a stable colour
        from the name.
    summary : bool
        Whether an element of this type summarizes other elements (HiAgent's
        subgoal summaries, AgentFold's blocks); :func:`stmviz.metrics.is_summary`
        reads it.
    label : str
        A short label of an element of this type in a hierarchy graph, as a
        :meth:`str.format` template over its metadata, e.g.
        ``"s[{range[0]},{range[1]}]"`` or ``"g{subgoal}"``. Empty: the type
        name and the element's t. A template naming a missing key gives the
        type name.

    Examples
    --------
    >>> block = ElementType("block", "a summary of steps x…y", "#ad494a", summary=True, label="s[{range[0]},{range[1]}]")
    >>> block.label_of(Element("…", {"t": 3, "type": "block", "range": (3, 7)}))
    's[3,7]'
    >>> ElementType("note").label_of(Element("hi", {"t": 2, "type": "note"}))
    'note 2'
    """

    name: str
    meaning: str = ""
    color: str | None = None
    summary: bool = False
    label: str = ""

    def __post_init__(self) -> None:
        guards.text(self.name, "an element type's name (the value of meta['type'])", example="user")
        where = f"element type {self.name!r}"
        guards.instance(self.meaning, "meaning", str, where=where, what="a sentence (str)")
        # a CSS colour is a rule of the figures' colours, not a guard's (and no other module checks one)
        if self.color is not None and not (isinstance(self.color, str) and _COLOR.fullmatch(self.color.strip())):
            raise InvalidArgumentError(
                f"{where}: color must be a CSS colour such as '#1f77b4', 'rgb(31,119,180)' "
                f"or 'teal', or None for a colour picked from the name; got {brief(self.color)}"
            )
        guards.flag(self.summary, "summary", where=where)
        guards.instance(self.label, "label", str, where=where, what="a str.format template such as 'g{subgoal}'")

    def label_of(self, element: Element) -> str:
        """The short label of an element of this type (see ``label``)."""
        if not self.label:
            return default_label(element)
        fields = {key: _plain(value) for key, value in element.meta.items()}
        try:
            return self.label.format(**fields)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            return self.name


def default_label(element: Element) -> str:
    """The label of an element of an undeclared type: its type and its t.

    >>> default_label(Element("hi", {"t": 1, "type": "user"}))
    'user 1'
    """
    t = element.t
    return f"{element.type} {t:g}" if isinstance(t, (int, float)) and not isinstance(t, bool) else element.type


def _plain(value: Any) -> Any:
    """Whole floats as ints (a range read back from JSON), elementwise in tuples."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


@dataclass(frozen=True)
class Hierarchy:
    """The hierarchy of a state ω: its elements as nodes and parent → child edges among them.

    An element without a parent hangs under ω itself (the root of the graph
    :func:`stmviz.viz.hierarchy_graph` draws). ``nodes`` lists every parent
    before its children; children are drawn in the order of ``nodes``.

    Parameters
    ----------
    nodes : tuple of Element
        The elements of ω, each once, parents first.
    edges : tuple of (Element, Element)
        (parent, child) pairs; a child has at most one parent.
    title : str
        What the hierarchy shows, for figure titles (e.g. ``"task → subgoals → pairs"``).

    Notes
    -----
    A *folding* mechanism (AgentFold) replaces elements by one element that
    summarizes them, so its tree also holds elements that left ω. It states
    which, step by step, with ``Mechanism.folds(added, removed)``: the elements
    a step adds that are the parents of elements the same step removes. The
    figures draw those folded-away children faded under their parent.

    Examples
    --------
    >>> from stmviz import State
    >>> goal = Element("find the bug", {"t": 0, "type": "goal"})
    >>> step = Element("read the log", {"t": 1, "type": "step"})
    >>> h = Hierarchy.from_parents(State([goal, step]), lambda e: goal if e.type == "step" else None)
    >>> [(p.text, c.text) for p, c in h.edges]
    [('find the bug', 'read the log')]
    """

    nodes: tuple[Element, ...]
    edges: tuple[tuple[Element, Element], ...] = ()
    title: str = ""
    _parent: Mapping[Element, Element] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        nodes = tuple(self.nodes)
        edges = tuple(tuple(edge) for edge in self.edges)
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "edges", edges)
        position: dict[Element, int] = {}
        for k, node in enumerate(nodes):
            if not isinstance(node, Element):
                raise ContractError(
                    f"Hierarchy: node {k} is a {type(node).__name__}, not an element e of ω; list the elements of ω"
                )
            if node in position:
                raise ContractError(f"Hierarchy: element {node.label()} is listed twice among the nodes")
            position[node] = k
        parent = _parents(edges, position)
        if not isinstance(self.title, str):
            raise ContractError(f"Hierarchy: title must be a str, got {type(self.title).__name__}")
        object.__setattr__(self, "_parent", MappingProxyType(parent))

    def parent(self, element: Element) -> Element | None:
        """The parent of an element, ``None`` for an element that hangs under ω itself."""
        return self._parent.get(element)

    @classmethod
    def flat(cls, elements: Iterable[Element], title: str = "") -> "Hierarchy":
        """The flat hierarchy: every element directly under ω (the default of a mechanism)."""
        return cls(tuple(_ordered(elements)), (), title)

    @classmethod
    def from_parents(
        cls, elements: Iterable[Element], parent: Callable[[Element], Element | None], title: str = ""
    ) -> "Hierarchy":
        """A hierarchy from a function that names each element's parent (``None``: under ω).

        The nodes are put parents first, otherwise in the elements' canonical
        order; a parent that is not among ``elements`` counts as ``None``.
        """
        ordered = list(_ordered(elements))
        members = set(ordered)
        up = {}
        for e in ordered:
            p = parent(e)
            if p is not None and p in members and p is not e:
                up[e] = p
        nodes: list[Element] = []
        placed: set[Element] = set()

        def place(e: Element, trail: tuple[Element, ...] = ()) -> None:
            if e in placed:
                return
            if e in trail:
                raise ContractError(f"Hierarchy.from_parents: the parents of {e.label()} form a cycle")
            p = up.get(e)
            if p is not None:
                place(p, trail + (e,))
            placed.add(e)
            nodes.append(e)

        for e in ordered:
            place(e)
        return cls(tuple(nodes), tuple((up[e], e) for e in nodes if e in up), title)


def _parents(edges: Sequence[Sequence[Element]], position: Mapping[Element, int]) -> dict[Element, Element]:
    """child → parent from (parent, child) edges, checked: both ends are nodes, one parent each, parents first."""
    parent: dict[Element, Element] = {}
    for edge in edges:
        if len(edge) != 2:
            raise ContractError(f"Hierarchy: an edge is a (parent, child) pair, got {shorten(repr(edge))}")
        up, down = edge
        if up not in position or down not in position:
            raise ContractError(
                f"Hierarchy: edge {shorten(repr(edge))} names an element that is not a node; "
                f"an edge joins two elements of ω listed in nodes"
            )
        if down in parent:
            raise ContractError(
                f"Hierarchy: element {down.label()} has two parents ({parent[down].label()} and {up.label()}); "
                f"ω's hierarchy is a tree, give each element at most one parent"
            )
        if position[up] >= position[down]:
            raise ContractError(
                f"Hierarchy: parent {up.label()} is listed after its child {down.label()}; "
                f"list every parent before its children (this also rules out cycles)"
            )
        parent[down] = up
    return parent


def _ordered(elements: Iterable[Element]) -> Sequence[Element]:
    ordered = getattr(elements, "ordered", None)
    return ordered() if callable(ordered) else tuple(elements)


# --------------------------------------------------------------------------- normalizing declarations


def element_types_of(value: Any, owner: str = "a mechanism") -> Mapping[str, ElementType]:
    """Normalize a declaration of element types to a read-only mapping name → :class:`ElementType`.

    Accepted forms: a mapping ``{name: ElementType | (meaning, colour) |
    (meaning, colour, summary) | meaning | {"meaning": …, "color": …,
    "summary": …, "label": …}}``, or an iterable of ElementTypes and names.

    Raises
    ------
    InvalidArgumentError
        For any other form, naming the entry and how to write it.

    Examples
    --------
    >>> types = element_types_of({"note": ("a note", "#1b9e77"), "digest": "a summary"})
    >>> types["note"].color, types["digest"].meaning
    ('#1b9e77', 'a summary')
    """
    items: list[tuple[str, Any]]
    if isinstance(value, Mapping):
        items = list(value.items())
    else:
        entries = guards.items(value, f"{owner}.element_types",
                               what="ElementTypes or names (or a dict {name: (meaning, colour)})")
        items = [(e.name if isinstance(e, ElementType) else e, e) for e in entries]
    out: dict[str, ElementType] = {}
    for name, spec in items:
        guards.text(name, "a type name", where=f"{owner}.element_types")
        declared = _element_type(name, spec, owner)
        if declared.name != name:  # the declaration's rule: one name per type
            raise InvalidArgumentError(
                f"{owner}.element_types: the key {name!r} names an ElementType called {declared.name!r}; use one name"
            )
        out[name] = declared
    return MappingProxyType(out)


def _element_type(name: str, spec: Any, owner: str) -> ElementType:
    try:
        if isinstance(spec, ElementType):
            return spec
        if spec is None or isinstance(spec, str) and spec == name:
            return ElementType(name)
        if isinstance(spec, str):
            return ElementType(name, spec)
        if isinstance(spec, tuple) and 1 <= len(spec) <= 3:
            return ElementType(name, *spec)
        if isinstance(spec, Mapping):
            unknown = set(spec) - {"meaning", "color", "summary", "label"}
            if unknown:  # ElementType's fields: a misspelt one would be lost
                raise InvalidArgumentError(
                    f"unknown keys {sorted(unknown)}; use meaning, color, summary, label"
                )
            return ElementType(name, **spec)
    except InvalidArgumentError as exc:  # the same error, said where the declaration is
        raise InvalidArgumentError(f"{owner}.element_types[{name!r}]: {exc}") from None
    # the forms a declaration may take: several kinds at once, more than guards.instance lists
    raise InvalidArgumentError(
        f"{owner}.element_types[{name!r}] = {brief(spec)}: give an ElementType, a meaning, "
        f"or a tuple (meaning, colour[, summary])"
    )


def directives_of(value: Any, owner: str = "a mechanism") -> Mapping[str, str]:
    """Normalize a declaration of directives to a read-only mapping name → meaning.

    A directive is a key of ``AgentStep.directives`` that the controller
    reads (the model's instruction to the memory, e.g. HiAgent's
    ``"subgoal"``). Accepted: a mapping name → meaning, or an iterable of names.

    >>> dict(directives_of(["fold"]))
    {'fold': ''}
    """
    if isinstance(value, Mapping):
        items = list(value.items())
    else:
        names = guards.items(value, f"{owner}.directives", what="directive names (or a dict {name: meaning})")
        items = [(name, "") for name in names]
    out: dict[str, str] = {}
    for name, meaning in items:
        guards.text(name, "a directive's name", where=f"{owner}.directives")
        guards.instance(meaning, "the meaning", str, where=f"{owner}.directives[{name!r}]", what="a sentence (str)")
        out[name] = meaning
    return MappingProxyType(out)


# --------------------------------------------------------------------------- reading a declaration

_NORMALIZED: "weakref.WeakKeyDictionary[type, Mapping[str, ElementType]]" = weakref.WeakKeyDictionary()


def types_of(source: Any) -> Mapping[str, ElementType]:
    """The element types a mechanism declares (``element_types``), normalized: name → :class:`ElementType`.

    ``source`` is a mechanism, a mechanism class, or a trace (its mechanism);
    anything else declares nothing. A class's declaration is normalized once
    and kept; a bad one raises :class:`~stmviz.errors.InvalidArgumentError`
    naming the class and the entry. Nothing is registered anywhere: what a
    figure knows of a mechanism it reads from that mechanism.
    """
    mechanism = getattr(source, "mechanism", source) if not isinstance(source, type) else source
    if mechanism is None:
        return MappingProxyType({})
    cls = mechanism if isinstance(mechanism, type) else type(mechanism)
    own = getattr(mechanism, "element_types", None)
    if own is None:
        return MappingProxyType({})
    if not isinstance(mechanism, type) and "element_types" in getattr(mechanism, "__dict__", {}):
        return element_types_of(own, cls.__name__)  # declared on the instance: not kept
    try:
        return _NORMALIZED[cls]
    except (KeyError, TypeError):
        normalized = element_types_of(own, cls.__name__)
        try:
            _NORMALIZED[cls] = normalized
        except TypeError:  # pragma: no cover - a class that cannot be weakly referenced
            pass
        return normalized


def directives_declared(source: Any) -> Mapping[str, str]:
    """The directives a mechanism declares (``directives``), normalized: name → meaning."""
    mechanism = getattr(source, "mechanism", source) if not isinstance(source, type) else source
    cls = mechanism if isinstance(mechanism, type) else type(mechanism)
    return directives_of(getattr(mechanism, "directives", None) or {}, cls.__name__)


def step_range(element: Element) -> tuple[int, int] | None:
    """The steps x … y an element summarizes, from its metadata ``range`` = (x, y) (AgentFold's s_{x,y}).

    ``None`` when the element has no such range, or it is not two whole numbers x ≤ y.

    >>> step_range(Element("…", {"type": "block", "range": (3, 7)})), step_range(Element("hi"))
    ((3, 7), None)
    """
    value = element.meta.get("range")
    if not isinstance(value, tuple) or len(value) != 2:
        return None
    x, y = as_int(value[0], float_ok=True), as_int(value[1], float_ok=True)
    if x is None or y is None or x > y:
        return None
    return (x, y)
