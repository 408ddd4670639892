"""The mechanism protocol (stmviz.protocol): what a mechanism declares, and who reads it.

The central test is the issue's: a mechanism written here, as a student would
write one in a notebook, with its own element types and a hierarchy, gets
coloured figures in its declared colours, a legend with its type names and a
hierarchy graph, with no edit anywhere outside its own code.
"""

from __future__ import annotations

import networkx as nx
import pytest

from stmviz import Element, Mechanism, State, StateSpace, Trace, run, sizes
from stmviz.core.errors import InvalidArgumentError, ContractError
from stmviz.mechanisms.catalog import declared_types
from stmviz.protocol import ElementType, Hierarchy, directives_declared, directives_of, element_types_of, types_of
from stmviz.mechanisms import AgentFold, FIFOWindow, HiAgent, SCM
from stmviz.metrics import is_summary, summarizer_calls
from stmviz.viz import hierarchy_figure, hierarchy_graph, hierarchy_kind, occupancy_figure, state_figure
from stmviz.viz._common import FALLBACK_COLORS, color_for
from stmviz.viz.hierarchy import ROOT
from stmviz.widgets import TracePlayer

NOTE, DIGEST = "#1b9e77", "#d95f02"


class Notebook(Mechanism):
    """A student's mechanism: keep notes; when they overflow, fold them into one digest."""

    operations = {"note": "write the observation down; digest the notes when they do not fit"}
    element_types = {
        "jotting": ("a note the agent wrote", NOTE),
        "digest": ElementType("digest", "the notes so far, summarized", DIGEST, summary=True, label="Σ{t}"),
    }
    directives = {"remember": "a sentence the model wants kept"}

    def update(self, state, operation, context):
        note = Element(context.observation, {"t": context.t, "type": "jotting", "step": context.t})
        new = state | {note}
        if new not in self.space:
            digest = Element(f"{len(state)} notes", {"t": context.t, "type": "digest", "step": context.t})
            new = State([digest, note])
        return new

    def hierarchy(self, state):
        digests = [e for e in state if e.type == "digest"]
        return Hierarchy.from_parents(state, lambda e: digests[0] if digests and e.type == "jotting" else None, "digest → notes")


def notebook_trace():
    return run(Notebook(StateSpace(sizes.words, v_max=12)), [f"fact number {i} here" for i in range(8)])


def test_a_students_mechanism_gets_its_colours_legend_and_hierarchy():
    trace = notebook_trace()
    assert {e.type for e in trace.sizes} == {"jotting", "digest"}

    occupancy = occupancy_figure(trace)
    areas = {d.name: d for d in occupancy.data if (d.meta or {}).get("role") == "type"}
    assert set(areas) == {"jotting", "digest"}  # the legend names its types
    assert areas["jotting"].fillcolor == NOTE and areas["digest"].fillcolor == DIGEST

    bar = state_figure(trace, len(trace))
    blocks = {d.name: d for d in bar.data if (d.meta or {}).get("role") == "type"}
    assert blocks["jotting"].marker.color == NOTE and blocks["digest"].marker.color == DIGEST

    assert hierarchy_kind(trace) == "tree"
    graph = hierarchy_graph(trace)
    (digest,) = [n for n in graph.successors(ROOT) if graph.nodes[n]["type"] == "digest"]
    notes = list(graph.successors(digest))
    assert notes and all(graph.nodes[n]["type"] == "jotting" for n in notes)
    assert nx.is_arborescence(graph)
    assert graph.nodes[digest]["label"] == f"Σ{graph.nodes[digest]['t']}"  # its declared label
    figure = hierarchy_figure(trace)
    assert set(figure.data[1].marker.color) == {"#444444", NOTE, DIGEST}
    assert [d.name for d in figure.data[2:]] == ["jotting", "digest"]  # legend: its declared types
    assert "Notebook: digest → notes" in figure.layout.title.text

    player = TracePlayer(trace)
    assert player.hierarchy is not None  # shown, because the mechanism declares a hierarchy
    player.slider.value = 2
    assert "ω_2" in player.hierarchy.layout.title.text
    assert set(player.hierarchy.data[1].marker.color) <= {"#444444", NOTE, DIGEST}

    # metrics read the declared summary type
    assert is_summary(trace.final.where(type="digest")[0], trace.mechanism)
    assert summarizer_calls(trace).count >= 1


def test_a_trace_whose_mechanism_cannot_be_rebuilt_falls_back():
    trace = notebook_trace()
    loaded = Trace.from_json(trace.to_json())
    assert loaded.mechanism is None  # a class outside stmviz is never imported from a file
    assert hierarchy_kind(loaded) == "flat"
    graph = hierarchy_graph(loaded)
    assert all(graph.nodes[n]["depth"] <= 1 for n in graph)  # flat: root → elements
    figure = occupancy_figure(loaded)  # no registry of what this process saw: the stable fallback colours
    areas = {d.name: d.fillcolor for d in figure.data if (d.meta or {}).get("role") == "type"}
    assert areas == {"jotting": color_for("jotting"), "digest": color_for("digest")}
    assert set(areas.values()) <= set(FALLBACK_COLORS)
    assert hierarchy_figure(loaded).layout.title.text.endswith("elements of ω")


def test_undeclared_types_get_stable_fallback_colours():
    class Plain(Mechanism):
        operations = {"add": "add"}

        def update(self, state, operation, context):
            return state | {Element(context.observation, {"t": context.t, "type": "scribble-xyz"})}

    trace = run(Plain(StateSpace(sizes.chars, 1000)), ["a", "b"])
    (area,) = [d for d in occupancy_figure(trace).data if (d.meta or {}).get("role") == "type"]
    assert area.fillcolor in FALLBACK_COLORS and area.fillcolor == color_for("scribble-xyz")
    assert hierarchy_kind(trace) == "flat" and Plain.element_types == {} and Plain.directives == {}


def test_the_four_mechanisms_declare_their_types_and_directives():
    expected = {
        FIFOWindow: {"system", "user", "assistant", "tool"},
        SCM: {"flash", "activation", "message"},
        HiAgent: {"task", "subgoal", "pair", "summary", "retrieved"},
        AgentFold: {"query", "tools", "block", "latest"},
    }
    for cls, names in expected.items():
        assert set(cls.element_types) == names
        assert all(t.color and t.meaning for t in cls.element_types.values())
        assert all(color_for(name) == cls.element_types[name].color for name in names)
    assert set(HiAgent.directives) == {"subgoal", "subgoal_done", "retrieve"} and set(AgentFold.directives) == {"fold"}
    assert {"block", "summary"} <= {n for n, t in declared_types().items() if t.summary}
    assert HiAgent.element_types["summary"].summary and not AgentFold.element_types["latest"].summary


def test_friendly_forms_are_normalized_once():
    types = element_types_of(["a", ElementType("b", color="teal")], "M")
    assert list(types) == ["a", "b"] and types["b"].color == "teal"
    types = element_types_of({"x": {"meaning": "m", "color": "rgb(1,2,3)", "summary": True}, "y": None})
    assert types["x"].summary and types["y"] == ElementType("y")
    assert dict(directives_of({"go": "start"})) == {"go": "start"}


@pytest.mark.parametrize(
    "value, message",
    [
        ("user", r"must be a list \(or another iterable\) of ElementTypes or names.*got 'user'"),
        ({"x": ("m", "not a colour!")}, "CSS colour"),
        ({"x": ("m", "#123", "yes")}, "True or False"),
        ({"x": 42}, "give an ElementType"),
        ({"x": ElementType("y")}, "use one name"),
        ({"": "m"}, "non-empty"),
        ({"x": {"colour": "#123"}}, "unknown keys"),
        (17, "element_types must be a list.*got 17"),
    ],
)
def test_bad_element_types_are_clear_errors(value, message):
    with pytest.raises(InvalidArgumentError, match=message):
        element_types_of(value, "M")


def test_a_bad_declaration_fails_when_it_is_read():
    class Broken(Mechanism):
        element_types = {"note": ("a note", "#12345")}

    class Broken2(Mechanism):
        directives = "subgoal"

    with pytest.raises(InvalidArgumentError, match=r"Broken\.element_types\['note'\]"):
        types_of(Broken)
    with pytest.raises(InvalidArgumentError, match="directives"):
        directives_declared(Broken2)


def test_check_mechanism_reports_a_bad_declaration():
    from stmviz import check_mechanism

    class Broken(Mechanism):
        operations = {"note": "keep it"}
        element_types = {"note": ("a note", "#12345")}

        def update(self, state, operation, context):
            return state

    report = check_mechanism(Broken(StateSpace(sizes.words, 5)))
    (clause,) = [r for r in report.results if r.name == "declarations"]
    assert not clause.passed and "Broken.element_types['note']" in clause.detail
    assert not [r for r in check_mechanism(FIFOWindow(StateSpace(sizes.words, 50))).results if r.name == "declarations"]


def test_no_class_changes_how_another_mechanisms_elements_are_drawn():
    """Issue 24: a global registry of element types kept the first colour a name was ever given."""

    class First(Mechanism):
        element_types = {"jot": ("a note", "#ff0000")}

    class Second(Mechanism):
        element_types = {"jot": ("a note", "#0000ff")}

    assert "jot" not in declared_types()  # only the types of the mechanisms stmviz ships
    assert color_for("jot", Second(StateSpace(sizes.words, 5))) == "#0000ff"
    assert color_for("jot", First) == "#ff0000"


def test_hierarchy_is_checked():
    a, b, c = (Element(x, {"t": i}) for i, x in enumerate("abc"))
    h = Hierarchy((a, b, c), ((a, b), (b, c)), "chain")
    assert h.parent(c) is b and h.parent(a) is None
    with pytest.raises(ContractError, match="two parents"):
        Hierarchy((a, b, c), ((a, c), (b, c)))
    with pytest.raises(ContractError, match="before its children"):
        Hierarchy((a, b), ((b, a),))
    with pytest.raises(ContractError, match="not a node"):
        Hierarchy((a,), ((a, b),))
    with pytest.raises(ContractError, match="cycle"):
        Hierarchy.from_parents([a, b], lambda e: b if e is a else a)
    # parents come first whatever the input order
    h = Hierarchy.from_parents([c, b, a], lambda e: {c: b, b: a}.get(e))
    assert h.nodes == (a, b, c)


def test_a_hierarchy_outside_omega_is_a_contract_error():
    class Liar(Notebook):
        def hierarchy(self, state):
            return Hierarchy((Element("not in ω", {"t": 0}),))

    trace = run(Liar(StateSpace(sizes.words, v_max=12)), ["one"])
    with pytest.raises(ContractError, match="not elements of ω"):
        hierarchy_graph(trace)


def test_the_traces_own_declaration_wins_over_another_mechanisms():
    class RedUsers(Mechanism):
        """Declares 'user', as FIFOWindow does, in its own colour."""

        operations = {"add": "add the message"}
        element_types = {"user": ("a message", "#ff0000")}

        def update(self, state, operation, context):
            return state | {Element(context.observation, {"t": context.t, "type": "user", "step": context.t})}

    trace = run(RedUsers(StateSpace(sizes.chars, 1000)), ["hi", "there"])
    assert color_for("user") == FIFOWindow.element_types["user"].color  # the first declaration of the name
    assert color_for("user", trace) == "#ff0000"  # but a trace's own mechanism comes first
    (area,) = [d for d in occupancy_figure(trace).data if (d.meta or {}).get("role") == "type"]
    (bar,) = [d for d in state_figure(trace).data if (d.meta or {}).get("role") == "type"]
    nodes = hierarchy_figure(trace).data[1]
    assert area.fillcolor == bar.marker.color == "#ff0000"
    assert set(nodes.marker.color) == {"#444444", "#ff0000"}
    player = TracePlayer(trace, hierarchy=True)
    player.slider.value = 1
    assert player.state.data[0].marker.color == "#ff0000"


def test_a_declaration_whose_repr_fails_is_still_named():
    class Hostile:
        def __repr__(self) -> str:
            raise RuntimeError("hostile repr")

    # the messages formatted {self.name!r} and {self.color!r}: a raw RuntimeError
    with pytest.raises(InvalidArgumentError, match=r"an element type's name \(the value of meta\['type'\]\) must be a non-empty text, got a Hostile"):
        ElementType(Hostile())
    with pytest.raises(InvalidArgumentError, match=r"element type 'x': color must be a CSS colour .*got a Hostile \(its repr fails\)"):
        ElementType("x", color=Hostile())
    with pytest.raises(InvalidArgumentError, match="element type 'x': summary must be True or False, got int 1"):
        ElementType("x", summary=1)
