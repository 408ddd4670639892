"""Tests of stmviz.viz.hierarchy: the hierarchy of ω_t a mechanism declares, as a graph and its figure.

The small mechanisms below (``MiniFold``, ``MiniHiAgent``) make AgentFold's and
HiAgent's elements and declare the same protocol (element types, folds,
hierarchy) by borrowing those mechanisms' declarations; the widget tests load
them from here too.
"""

from __future__ import annotations

import importlib

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, Element, Mechanism, Operation, State, StateSpace, Transition, make_mechanism, run, sizes
from stmviz.mechanisms.agentfold import AgentFold
from stmviz.mechanisms.hiagent import HiAgent
from stmviz.viz._common import TYPE_COLORS
from stmviz.viz.hierarchy import (
    ROOT,
    ROOT_COLOR,
    hierarchy_figure,
    hierarchy_graph,
    hierarchy_kind,
    hierarchy_layout,
)

PAYLOAD = '<script>alert(1)</script><img src=x onerror="alert(2)">'


# ----------------------------------------------------------------------------- test mechanisms


class MiniFold(Mechanism):
    """AgentFold in miniature: the latest interaction I_{t−1} is condensed or consolidated at step t.

    ``fold={"op": "consolidate", "from": k}`` merges the blocks starting at step ≥ k and
    I_{t−1} into one block s_{x, t−1}; anything else condenses I_{t−1} into s_{t−1, t−1}.
    """

    name = "mini-fold"
    operations = {"condense": "I_{t−1} → s_{t−1,t−1}", "consolidate": "s_{x..}, I_{t−1} → s_{x,t−1}", "start": "first step"}
    element_types = AgentFold.element_types
    directives = AgentFold.directives
    hierarchy = AgentFold.hierarchy
    folds = AgentFold.folds

    def initial_state(self, context):
        return State(
            [
                Element(context.query or "the question", {"t": -2, "type": "query"}),
                Element(", ".join(context.tools) or "no tools", {"t": -1, "type": "tools"}),
            ]
        )

    def controller(self, state, context):
        if not state.where(type="latest"):
            return Operation("start")
        fold = context.step.directives.get("fold") or {}
        if fold.get("op") == "consolidate":
            return Operation("consolidate", {"from": int(fold.get("from", 0))}, reason="deep consolidation")
        return Operation("condense", reason="granular condensation")

    def _latest(self, context):
        text = context.step.text or f"step {context.t}"
        return Element(text, {"t": context.t + 0.5, "type": "latest", "step": context.t})

    def update(self, state, operation, context):
        latest = self._latest(context)
        if operation.type == "start":
            return state | {latest}
        (old,) = state.where(type="latest")
        last = old.meta["step"]
        if operation.type == "condense":
            block = Element(f"summary of step {last}: {old.text[:40]}", {"t": last, "type": "block", "range": (last, last)})
            return Transition(state.replace({old}, {block, latest}), {old: "condensed into a block"})
        start = operation.get("from", 0)
        merged = [b for b in state.where(type="block") if b.meta["range"][0] >= start]
        x = min([b.meta["range"][0] for b in merged] + [last])
        block = Element(f"summary of steps {x}–{last}", {"t": x, "type": "block", "range": (x, last)})
        reasons = {b: f"merged into s_{{{x},{last}}}" for b in merged}
        reasons[old] = "folded into the consolidated block"
        return Transition(state.replace([*merged, old], {block, latest}), reasons)

    def project(self, state):
        return "\n".join(e.text for e in state)


class MiniHiAgent(Mechanism):
    """HiAgent in miniature: task → current subgoal → action–observation pairs; summaries; retrieval.

    A step with ``subgoal`` starts a new subgoal (summarizing the current one);
    ``subgoal_done`` finishes it; ``meta={"retrieve": k}`` brings back the pairs of
    finished subgoal k as ``retrieved`` elements.
    """

    name = "mini-hiagent"
    operations = {"act": "add the pair, switching or summarizing subgoals as the step says"}
    element_types = HiAgent.element_types
    directives = HiAgent.directives
    hierarchy = HiAgent.hierarchy

    def initial_state(self, context):
        return State([Element(context.query or "the task", {"t": -1, "type": "task"})])

    @staticmethod
    def _subgoal_ids(history, upto):
        """The subgoal id of each step 0 … upto (ids count subgoal markers from 0)."""
        ids, current = [], -1
        for step in list(history)[:upto]:
            if step.directives.get("subgoal") is not None:
                current += 1
            ids.append(current)
        return ids

    def update(self, state, operation, context):
        step = context.step
        reasons = {}
        current = [e for e in state.where(type="subgoal") if e.meta.get("current")]
        ids = self._subgoal_ids(context.history, context.t)
        sub_id = (ids[-1] if ids else -1) + (1 if step.directives.get("subgoal") is not None else 0)

        def finish(subgoal):
            nonlocal state
            sid = subgoal.meta["subgoal"]
            pairs = [e for e in state.where(type="pair") if e.meta.get("subgoal") == sid]
            summary = Element(
                f"summary of subgoal {sid}: {subgoal.text} ({len(pairs)} pairs)",
                {"t": context.t + 0.1, "type": "summary", "subgoal": sid, "current": False, "step": context.t},
            )
            for e in (subgoal, *pairs):
                reasons[e] = f"subgoal {sid} finished: replaced by its summary"
            state = state.replace([subgoal, *pairs], {summary})

        if step.directives.get("subgoal") is not None:
            for subgoal in current:
                finish(subgoal)
            state = state | {
                Element(step.directives["subgoal"], {"t": context.t + 0.2, "type": "subgoal", "subgoal": sub_id, "current": True, "step": context.t})
            }
        if state.where(type="subgoal", current=True):
            state = state | {
                Element(step.text or "(empty)", {"t": context.t + 0.3, "type": "pair", "subgoal": sub_id, "current": True, "step": context.t})
            }
        want = step.meta.get("retrieve")
        if want is not None and state.where(type="summary", subgoal=want):
            for k, old in enumerate(context.history):
                if ids[k] == want:
                    state = state | {
                        Element(old.text, {"t": context.t + 0.4 + k / 1e4, "type": "retrieved", "subgoal": want, "step": k})
                    }
        if step.directives.get("subgoal_done"):
            for subgoal in state.where(type="subgoal", current=True):
                finish(subgoal)
        return Transition(state, reasons)

    def project(self, state):
        return "\n".join(e.text for e in state)


def fold_trace(directives, *, payload: str | None = None, query="Find the price."):
    """Run MiniFold over steps whose fold directives are given (None → condense, k → consolidate from k)."""
    steps = []
    for t, k in enumerate(directives):
        fold = {"op": "consolidate", "from": k} if k is not None else {"op": "condense"}
        steps.append(
            AgentStep(thought=f"thinking {t}", action=f"search({t})", observation=payload or f"result {t} " + "x" * (t % 7), directives={"fold": fold} if fold else {})
        )
    return run(MiniFold(StateSpace(sizes.chars, 10**7)), steps, query=query, tools=("search",))


def hiagent_trace(payload: str | None = None):
    """A HiAgent run: subgoals 0, 1, 2; subgoal 0 retrieved at step 7; subgoal 2 current at the end."""
    obs = payload or "observation"
    steps = [
        AgentStep(thought="plan", action="search(a)", observation=f"{obs} 0", directives={"subgoal": "find candidates"}),
        AgentStep(action="open(a)", observation=f"{obs} 1"),
        AgentStep(action="open(b)", observation=f"{obs} 2", directives={"subgoal_done": True}),
        AgentStep(action="search(c)", observation=f"{obs} 3", directives={"subgoal": "compare prices"}),
        AgentStep(action="open(c)", observation=f"{obs} 4"),
        AgentStep(action="calc()", observation=f"{obs} 5", directives={"subgoal": "write answer"}),
        AgentStep(action="draft()", observation=f"{obs} 6"),
        AgentStep(action="check()", observation=f"{obs} 7", meta={"retrieve": 0}),
    ]
    return run(MiniHiAgent(StateSpace(sizes.chars, 10**7)), steps, query="Buy the cheapest laptop.")


def flat_trace(n=6, payload: str | None = None):
    def add(m, state, op, c):
        return state | {Element(payload or c.observation, {"t": c.t, "type": "user", "step": c.t})}

    m = make_mechanism(StateSpace(sizes.chars, 10**6), operations={"append": "add"}, update=add, name="flat")
    return run(m, [f"message {i}" for i in range(n)])


# ----------------------------------------------------------------------------- helpers


def block_leaves(graph):
    """The leaves under the root's block children, sorted by the steps they cover."""
    leaves = []
    for top in graph.successors(ROOT):
        if graph.nodes[top]["type"] != "block":
            continue
        for node in nx.descendants(graph, top) | {top}:
            if graph.out_degree(node) == 0:
                data = graph.nodes[node]
                span = data["range"] or (data["step"], data["step"])
                leaves.append((span, node))
    return sorted(leaves)


def assert_covers(leaves, first, last):
    expected = first
    for (x, y), _ in leaves:
        assert x == expected, f"leaves do not tile the steps: expected a leaf starting at {expected}, got {x}"
        assert y >= x
        expected = y + 1
    assert expected == last + 1


# ----------------------------------------------------------------------------- AgentFold


def test_agentfold_tree_structure_and_parents():
    # steps: 0 start, 1..4 condense I_0..I_3, 5 consolidates blocks from 1 and I_4 → s_{1,4}
    trace = fold_trace([None, None, None, None, None, 1, None, 0, None])
    g = hierarchy_graph(trace, t=6)
    assert g.graph["kind"] == "tree" and g.graph["t"] == 6
    assert nx.is_arborescence(g)
    labels = {g.nodes[n]["label"]: n for n in g}
    assert {"query", "tools", "s[0,0]", "s[1,4]", "I[5]"} <= set(labels)
    # the consolidated block is the parent of the blocks it merged and of the folded I_4
    kids = [g.nodes[k]["label"] for k in g.successors(labels["s[1,4]"])]
    assert kids == ["s[1,1]", "s[2,2]", "s[3,3]", "I[4]"]
    # the root's children are exactly ω_6, the history nodes are marked as folded away
    assert {g.nodes[n]["element"] for n in g.successors(ROOT)} == set(trace.state_at(6).elements)
    assert all(not g.nodes[n]["in_state"] for n in g if g.nodes[n]["depth"] >= 2)
    assert_covers(block_leaves(g), 0, 4)
    # consolidating everything (step 7 from 0) nests the earlier consolidation one level deeper
    g8 = hierarchy_graph(trace, t=8)
    top = [n for n in g8.successors(ROOT) if g8.nodes[n]["type"] == "block"]
    assert [g8.nodes[n]["label"] for n in top] == ["s[0,6]"]
    assert nx.dag_longest_path_length(g8) == 3  # ω → s[0,6] → s[1,4] → s[1,1]
    assert_covers(block_leaves(g8), 0, 6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    directives=st.lists(st.one_of(st.none(), st.integers(min_value=0, max_value=30)), min_size=1, max_size=30),
    data=st.data(),
)
def test_agentfold_leaves_tile_the_folded_steps(directives, data):
    trace = fold_trace(directives)
    t = data.draw(st.integers(min_value=0, max_value=len(trace)))
    g = hierarchy_graph(trace, t)
    assert nx.is_tree(g) and nx.is_arborescence(g)
    leaves = block_leaves(g)
    if t >= 2:
        assert_covers(leaves, 0, t - 2)  # I_0 … I_{t−2} are folded, exactly once, in order
    else:
        assert leaves == []
    latest = [n for n in g.successors(ROOT) if g.nodes[n]["type"] == "latest"]
    assert [g.nodes[n]["step"] for n in latest] == ([t - 1] if t >= 1 else [])
    # children come in time order, and a parent's range covers its children's
    for node in g:
        r = g.nodes[node]["range"]
        spans = [g.nodes[k]["range"] or (g.nodes[k]["step"],) * 2 for k in g.successors(node)]
        if r is not None and spans:
            assert spans == sorted(spans)
            assert r[0] == spans[0][0] and r[1] == spans[-1][1]
    pos = hierarchy_layout(g)
    for parent, child in g.edges:
        assert pos[child][1] == pos[parent][1] + 1


def test_agentfold_max_depth_and_bare_state():
    trace = fold_trace([None] * 4 + [0, None])
    full = hierarchy_graph(trace, 6)
    shallow = hierarchy_graph(trace, 6, max_depth=1)
    assert max(d for _, d in shallow.nodes(data="depth")) == 1
    assert set(shallow) == {ROOT} | set(full.successors(ROOT))
    # a bare State knows no folding history: blocks hang under the root
    g = hierarchy_graph(trace.state_at(6), mechanism=trace.mechanism)
    assert g.graph["kind"] == "tree" and all(g.nodes[n]["depth"] <= 1 for n in g)
    assert hierarchy_graph(trace.state_at(6)).graph["kind"] == "flat"  # no mechanism: nothing declared
    with pytest.raises(ValueError, match="max_depth"):
        hierarchy_graph(trace, 1, max_depth=-1)


def test_agentfold_layout_follows_time():
    trace = fold_trace([None] * 6 + [2, None, None])
    g = hierarchy_graph(trace)
    pos = hierarchy_layout(g)
    for node, data in g.nodes(data=True):
        if data["range"] is not None:
            assert pos[node][0] == pytest.approx((data["range"][0] + data["range"][1]) / 2)
        assert pos[node][1] == data["depth"]
    leaves = block_leaves(g)
    xs = [pos[node][0] for _, node in leaves]
    assert xs == sorted(xs) and len(set(xs)) == len(xs)
    # query and tools have no step: they sit left of step 0, in canonical order
    q = next(n for n in g if g.nodes[n]["type"] == "query")
    tools = next(n for n in g if g.nodes[n]["type"] == "tools")
    assert pos[q][0] < pos[tools][0] < 0


# ----------------------------------------------------------------------------- HiAgent


def test_hiagent_tree():
    trace = hiagent_trace()
    g = hierarchy_graph(trace)
    assert g.graph["kind"] == "tree" and nx.is_arborescence(g)
    (task,) = list(g.successors(ROOT))
    assert g.nodes[task]["type"] == "task"
    under_task = {g.nodes[n]["label"]: n for n in g.successors(task)}
    assert set(under_task) == {"Σg0", "Σg1", "g2"}
    # finished subgoals are collapsed to their summary, except the retrieved one, which is expanded
    assert g.out_degree(under_task["Σg1"]) == 0
    retrieved = [g.nodes[n] for n in g.successors(under_task["Σg0"])]
    assert [d["type"] for d in retrieved] == ["retrieved"] * 3 and [d["step"] for d in retrieved] == [0, 1, 2]
    pairs = [g.nodes[n] for n in g.successors(under_task["g2"])]
    assert [d["type"] for d in pairs] == ["pair"] * 3 and [d["step"] for d in pairs] == [5, 6, 7]
    assert {g.nodes[n]["element"] for n in g if n != ROOT} == set(trace.final.elements)


def test_hiagent_earlier_state():
    g = hierarchy_graph(hiagent_trace(), t=2)
    (task,) = list(g.successors(ROOT))
    (sub,) = list(g.successors(task))
    assert g.nodes[sub]["type"] == "subgoal" and g.nodes[sub]["label"] == "g0"
    assert [g.nodes[n]["step"] for n in g.successors(sub)] == [0, 1]


def test_hiagent_orphans_attach_to_the_task():
    omega = State(
        [
            Element("task", {"t": 0, "type": "task"}),
            Element("a pair of a subgoal not in ω", {"t": 1, "type": "pair", "subgoal": 9, "step": 1}),
            Element("other", {"t": 2, "type": "note"}),
        ]
    )
    g = hierarchy_graph(omega, mechanism=MiniHiAgent(StateSpace(sizes.chars, 100)))
    task = next(n for n in g if g.nodes[n]["type"] == "task")
    assert [g.nodes[n]["type"] for n in g.successors(task)] == ["pair"]
    assert "note" in [g.nodes[n]["type"] for n in g.successors(ROOT)]


# ----------------------------------------------------------------------------- flat traces, figure


def test_flat_graph_for_other_traces():
    trace = flat_trace(5)
    g = hierarchy_graph(trace, 3)
    assert g.graph["kind"] == "flat" and hierarchy_kind(trace) == "flat"
    assert list(g.successors(ROOT)) == [e.id for e in trace.state_at(3)]
    assert g.nodes[ROOT]["size"] == trace.size_at(3)
    assert g.nodes[ROOT]["label"] == "ω_3"


def test_figure_sizes_colors_and_hover():
    trace = fold_trace([None] * 5 + [1, None], payload=PAYLOAD)
    g = hierarchy_graph(trace)
    fig = hierarchy_figure(g)
    edges, nodes = fig.data[0], fig.data[1]
    order = list(g.nodes)
    assert len(nodes.x) == len(order) and len(edges.x) == 3 * g.number_of_edges()
    for node, color in zip(order, nodes.marker.color):
        assert color == (ROOT_COLOR if node == ROOT else TYPE_COLORS[g.nodes[node]["type"]])
    # bigger μ → bigger marker
    pairs = sorted((g.nodes[n]["size"], s) for n, s in zip(order, nodes.marker.size) if n != ROOT)
    assert [s for _, s in pairs] == sorted(s for _, s in pairs)
    assert pairs[0][1] < pairs[-1][1]
    # the layout puts the root on top (depth 0) and the axis reversed
    assert nodes.y[order.index(ROOT)] == 0 and fig.layout.yaxis.autorange == "reversed"
    # legend traces, one per AgentFold type
    assert [tr.name for tr in fig.data[2:]] == ["query", "tools", "block", "latest"]


@pytest.mark.parametrize("make", [lambda: fold_trace([None, None, 0], payload=PAYLOAD), lambda: hiagent_trace(PAYLOAD), lambda: flat_trace(3, PAYLOAD)])
def test_payloads_are_escaped(make):
    trace = make()
    g = hierarchy_graph(trace)
    assert all("<" not in (d["content"] or "") for _, d in g.nodes(data=True))
    fig = hierarchy_figure(trace)
    blob = fig.to_json()
    assert "<script>" not in blob and "<img" not in blob and 'onerror="' not in blob
    assert any("&lt;script&gt;" in h for h in fig.data[1].hovertext)


def test_figure_accepts_trace_state_and_graph():
    trace = fold_trace([None, None, None])
    a = hierarchy_figure(trace, 2)
    b = hierarchy_figure(hierarchy_graph(trace, 2))
    assert list(a.data[1].x) == list(b.data[1].x)
    assert "ω_2" in a.layout.title.text
    assert hierarchy_figure(trace.final).data[1].x  # a State
    many = hierarchy_figure(flat_trace(250))
    assert many.data[1].mode == "markers"  # too many nodes for labels
    assert hierarchy_figure(flat_trace(3)).data[1].mode == "markers+text"


def test_bad_inputs():
    trace = fold_trace([None, None])
    with pytest.raises(IndexError, match="ω_0 … ω_2"):
        hierarchy_graph(trace, 7)
    with pytest.raises(TypeError, match="whole number"):
        hierarchy_graph(trace, 1.5)
    with pytest.raises(TypeError, match=r"hierarchy_figure: graph_or_trace must be a graph from hierarchy_graph, a Trace or a State, got list \[1, 2, 3\]"):
        hierarchy_figure([1, 2, 3])
    with pytest.raises(TypeError, match="Trace, a State"):
        hierarchy_graph(42)
    with pytest.raises(ValueError, match="no root node"):
        hierarchy_figure(nx.DiGraph([(1, 2)]))
    broken = nx.DiGraph()
    broken.add_node(ROOT, type="state", size=1)
    with pytest.raises(ValueError, match="'depth'"):
        hierarchy_layout(broken)
    assert hierarchy_graph(trace, -1).graph["t"] == 2  # negative t counts from the end


def test_index_is_rebuilt_for_a_new_trace():
    a = fold_trace([None, None, None, 0])
    b = fold_trace([None, None, None, None])
    assert nx.dag_longest_path_length(hierarchy_graph(a)) == 2
    assert nx.dag_longest_path_length(hierarchy_graph(b)) == 1


# ----------------------------------------------------------------------------- the real mechanisms


def _real(module: str, cls: str):
    return getattr(importlib.import_module(f"stmviz.mechanisms.{module}"), cls)


def _sample(n=40):
    from stmviz.contract import sample_steps

    return sample_steps(n)


def test_real_agentfold_is_a_tree():
    AgentFold = _real("agentfold", "AgentFold")
    trace = run(AgentFold(StateSpace(sizes.words, 5000)), _sample(), query="q", tools=("search",))
    for t in (0, len(trace) // 2, len(trace)):
        g = hierarchy_graph(trace, t)
        assert g.graph["kind"] == "tree"
        assert nx.is_arborescence(g)
        if t >= 2:
            assert_covers(block_leaves(g), 0, t - 2)
    hierarchy_figure(trace)


def test_real_hiagent_is_a_tree():
    HiAgent = _real("hiagent", "HiAgent")
    trace = run(HiAgent(StateSpace(sizes.words, 5000)), _sample(), query="q")
    g = hierarchy_graph(trace)
    assert g.graph["kind"] == "tree"
    assert nx.is_arborescence(g)
    assert {g.nodes[n]["element"] for n in g if n != ROOT} == set(trace.final.elements)
    hierarchy_figure(trace)


# --------------------------------------------------------------------------- labels that never collide

from stmviz.viz import hierarchy as _hierarchy_module  # noqa: E402


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 40, allow_nan=False), st.integers(0, 3),
            st.sampled_from(["s[3,7]", "I[12]", "query", "tools", "latest", "g1", "s[10,22]", ""]), st.booleans(),
        ),
        min_size=1, max_size=60,
    )
)
def test_label_layout_never_overlaps_two_labels_of_one_depth_or_of_neighbouring_depths(nodes):
    xs, depths, labels, first = (list(column) for column in zip(*nodes))
    texts, where = _hierarchy_module.label_layout(xs, depths, labels, first)
    span = max(xs) - min(xs)
    px = _hierarchy_module.LABEL_PLOT_PX / span if span > 0 else 1.0
    placed: dict[int, list[tuple[float, float]]] = {}  # the gap below level d → labels drawn in it
    for x, depth, label, text, side in zip(xs, depths, labels, texts, where):
        if not text:
            continue
        assert text == _hierarchy_module.math_label(label)
        half = _hierarchy_module._label_px(label) / 2
        interval = (x * px - half, x * px + half)
        gap = depth - 1 if side == "top center" else depth  # above level d and below level d − 1 share a gap
        for other in placed.setdefault(gap, []):
            assert interval[1] <= other[0] + 1e-9 or interval[0] >= other[1] - 1e-9, (interval, other)
        placed[gap].append(interval)
    # the leftmost label among the preferred nodes (the elements of ω_t) is always drawn
    preferred = [i for i in range(len(xs)) if first[i] and labels[i]]
    if preferred:
        assert texts[min(preferred, key=lambda i: xs[i])]


def test_fold_tree_writes_indices_as_subscripts():
    trace = fixtures_fold_trace()
    fig = hierarchy_figure(trace)
    texts = [t for t in fig.data[1].text if t]
    assert texts and not any("[" in t for t in texts)
    assert any("<sub>" in t for t in texts)
    assert all("<sub>" in h.split("</b>")[0] for h, t in zip(fig.data[1].hovertext, fig.data[1].text) if t and "<sub>" in t)


def fixtures_fold_trace():
    from stmviz import load_scenario

    scenario = load_scenario("web_research")
    return run(AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)


def test_a_short_run_has_whole_step_ticks_and_room_at_the_ends():
    """00's hierarchy at t = 0 had ticks 0, 0.2, … 1 and its end nodes half outside the plot."""
    from stmviz import AgentFold, StateSpace, load_scenario, run, sizes
    from stmviz.viz import hierarchy_figure
    from stmviz.widgets import TracePlayer

    scenario = load_scenario("web_research")
    trace = run(AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    axis = hierarchy_figure(trace, 0).layout.xaxis
    xs = [x for x in hierarchy_figure(trace, 0).data[1].x]
    assert axis.dtick == 1 and axis.range[0] < min(xs) - 0.5 and axis.range[1] > max(xs) + 0.5, axis
    player = TracePlayer(trace)
    player.t = len(trace)  # a long history: plotly's own ticks again, and the whole of it in view
    assert player.hierarchy.layout.xaxis.autorange is True and player.hierarchy.layout.xaxis.dtick is None
    player.t = 0
    assert player.hierarchy.layout.xaxis.dtick == 1


def test_hiagent_at_omega_17_labels_every_node_of_the_state():
    """05's hierarchy at ω_17 drew node "a/o 8" without a label (no room between "↺ a/o 7" and "↺ a/o 9");
    a label with no room is now shortened to its step and marks, never dropped when that fits."""
    from stmviz import HiAgent, StateSpace, load_scenario, run, sizes
    from stmviz.viz.hierarchy import hierarchy_graph, node_arrays

    scenario = load_scenario("household")
    trace = run(HiAgent(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    arrays = node_arrays(hierarchy_graph(trace, 17))
    assert all(arrays["text"]), arrays["text"]
    assert any(text.endswith(" 8") or text == "8" for text in arrays["text"]), arrays["text"]


def test_agentfold_fold_tree_circles_do_not_overlap():
    """AgentFold's fold tree drew big blocks' circles over their neighbours (and their labels): at each depth two
    neighbouring circles now fit in the gap between their nodes (on the axis width labels are laid out for)."""
    from stmviz import AgentFold, StateSpace, load_scenario, run, sizes
    from stmviz.viz.hierarchy import LABEL_PLOT_PX, hierarchy_graph, node_arrays

    scenario = load_scenario("web_research")
    trace = run(AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
    for t in (len(trace) // 2, len(trace)):
        graph = hierarchy_graph(trace, t)
        arrays = node_arrays(graph)
        xs, ys, size = arrays["x"], arrays["y"], arrays["size"]
        px = LABEL_PLOT_PX / (max(xs) - min(xs))
        for i in range(len(xs)):
            for j in range(i + 1, len(xs)):
                if ys[i] == ys[j] and size[i] > 9 and size[j] > 9:
                    assert abs(xs[i] - xs[j]) * px >= (size[i] + size[j]) / 2, (t, i, j, xs[i], xs[j], size[i], size[j])
