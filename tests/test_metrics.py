"""stmviz.metrics on hand-built traces, compare(), and every mechanism on every bundled scenario."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import Element, Mechanism, State, StateSpace, Transition, run, sizes
from stmviz import metrics
from stmviz.scenarios import Probe, Scenario, bundled_names, load_scenario


class Window(Mechanism):
    """Keep the newest observations that fit (μ = words); π joins them with spaces."""

    name = "window"
    operations = {"append": "add the observation, dropping the oldest on overflow"}

    def update(self, state, operation, context):
        state = state | {Element(context.observation, {"t": context.t, "type": "user"})}
        reasons = {}
        while state not in self.space:
            oldest = state.ordered()[0]
            reasons[oldest] = "evict_oldest: Σμ > V_max"
            state = state - {oldest}
        return Transition(state, reasons)

    def project(self, state):
        return " ".join(e.text for e in state)


class Summarizing(Mechanism):
    """Keeps one summary element: every 2nd step it re-summarizes (new text), otherwise it re-flags it."""

    name = "summarizing"
    operations = {"fold": "replace everything by a summary of the first word of each observation"}

    def update(self, state, operation, context):
        old = state.where(type="summary")
        words = [s.observation.split()[0] for s in context.history] + [context.observation.split()[0]]
        if context.t % 2 == 0:
            new = Element(" ".join(words), {"t": context.t, "type": "summary", "flag": False})
        else:  # same text, new metadata: no new summarizer call
            new = old[0].with_meta(flag=True) if old else Element("x", {"t": context.t, "type": "summary"})
        return State([new])

    def project(self, state):
        return " | ".join(e.text for e in state)


def words_space(v_max):
    return StateSpace(sizes.words, v_max)


# ---------------------------------------------------------------- hand-built traces


@pytest.fixture
def window_trace():
    # sizes (words): 2, 2, 3, 1; V_max = 4
    return run(Window(words_space(4)), ["alpha beta", "gamma delta", "eps zeta eta", "theta"])


def test_occupancy(window_trace):
    # after each step: {ab}=2, {ab,gd}=4, {eze}=3 (both older evicted), {eze,theta}=4
    assert metrics.occupancy(window_trace) == [0.5, 1.0, 0.75, 1.0]


def test_prompt_tokens(window_trace):
    count = sizes.count_tokens
    expected = [0, count("alpha beta"), count("alpha beta gamma delta"), count("eps zeta eta")]
    result = metrics.prompt_tokens(window_trace)
    assert result.per_step == tuple(expected)
    assert result.cumulative == (expected[0], sum(expected[:2]), sum(expected[:3]), sum(expected))
    assert result.total == sum(expected)
    assert result.final == count("eps zeta eta theta")


def test_evictions(window_trace):
    ev = metrics.evictions(window_trace)
    assert ev.count == 2 and ev.per_step == (0, 0, 2, 0)
    assert ev.by_reason == {"evict_oldest: Σμ > V_max": 2}


def test_retention(window_trace):
    probes = [
        Probe(2, "first?", "ALPHA", 0),  # π(ω_2) = "alpha beta gamma delta": retained, case ignored
        Probe(3, "first again?", "alpha", 0),  # π(ω_3) = "eps zeta eta": lost
        Probe(4, "third?", "zeta", 2),  # final state: retained
    ]
    results = metrics.retention(window_trace, probes)
    assert [r.retained for r in results] == [True, False, True]
    assert [r.t for r in results] == [2, 3, 4] and results[0].probe is probes[0]
    assert "lost" in repr(results[1])
    with pytest.raises(ValueError, match="ω_0 … ω_4"):
        metrics.retention(window_trace, [Probe(5, "q", "a", 0)])


def test_summarizer_calls_counts_new_summaries_only():
    trace = run(Summarizing(words_space(50)), ["a x", "b x", "c x", "d x", "e x"])
    calls = metrics.summarizer_calls(trace)
    # steps 0, 2, 4 write a new text; steps 1, 3 re-add the same text with a new flag
    assert calls.steps == (0, 2, 4) and calls.count == 3
    assert metrics.evictions(trace).count == 4


def test_is_summary_rule():
    assert metrics.is_summary(Element("s", {"type": "summary"}))
    assert metrics.is_summary(Element("s", {"type": "block", "range": (0, 3)}))
    assert metrics.is_summary(Element("s", {"type": "activation", "form": "summary"}))
    assert not metrics.is_summary(Element("s", {"type": "activation", "form": "full"}))
    assert not metrics.is_summary(Element("s", {"type": "latest"}))


def test_summary_record(window_trace):
    probes = [Probe(2, "q", "alpha", 0), Probe(3, "q", "alpha", 0)]
    record = metrics.summary(window_trace, probes)
    assert record["mechanism"] == "window" and record["steps"] == 4 and record["v_max"] == 4
    assert record["mean_occupancy"] == pytest.approx((0.5 + 1.0 + 0.75 + 1.0) / 4)
    assert record["max_occupancy"] == 1.0
    assert record["total_prompt_tokens"] == metrics.prompt_tokens(window_trace).total
    assert record["evictions"] == 2 and record["summarizer_calls"] == 0
    assert (record["probes"], record["retained"], record["retention"]) == (2, 1, 0.5)
    assert metrics.summary(window_trace)["retention"] is None


def test_empty_trace():
    trace = run(Window(words_space(4)), [])
    assert metrics.occupancy(trace) == [] and metrics.prompt_tokens(trace).total == 0
    record = metrics.summary(trace)
    assert record["steps"] == 0 and record["mean_occupancy"] == 0.0 and record["max_prompt_tokens"] == 0


def test_not_a_trace():
    with pytest.raises(TypeError, match="Trace"):
        metrics.occupancy([1, 2])


# ---------------------------------------------------------------- compare


@pytest.fixture
def tiny():
    return Scenario.from_dict({
        "name": "tiny", "v_max": 6,
        "steps": [{"observation": "my name is Ada"}, {"observation": "one two three"}, {"observation": "four five"},
                  {"observation": "six seven eight"}],
        "probes": [{"t": 2, "question": "name?", "answer": "Ada", "evidence_step": 0},
                   {"t": 4, "question": "name?", "answer": "Ada", "evidence_step": 0}],
    })


def test_compare_records(tiny):
    window, summarizing = Window(words_space(6)), Summarizing(words_space(50))
    records = metrics.compare([window, summarizing], tiny)
    assert [r["mechanism"] for r in records] == ["window", "summarizing"]
    assert all(r["scenario"] == "tiny" and r["steps"] == 4 for r in records)
    # each record is the summary of that mechanism's own run
    for mechanism, record in zip((window, summarizing), records):
        expected = metrics.summary(run(mechanism, tiny), tiny.probes)
        expected.update(mechanism=str(mechanism), scenario="tiny")
        assert record == expected
    # the window forgets the name by step 2 (ω_2 = {"one two three"}); the summary keeps "my" not "Ada"
    assert records[0]["retained"] == 0 and records[0]["evictions"] > 0
    assert records[1]["summarizer_calls"] == 2


def test_compare_with_mapping_and_classes(tiny):
    records = metrics.compare({"big window": Window(words_space(100)), "class": Window}, tiny)
    assert [r["mechanism"] for r in records] == ["big window", "class"]
    assert records[0]["retention"] == 1.0 and records[0]["evictions"] == 0
    # the class is built at the scenario's V_max = 6 tokens
    assert records[1]["v_max"] == 6


def test_compare_errors(tiny):
    with pytest.raises(TypeError, match="Mechanism"):
        metrics.compare(["window"], tiny)
    no_vmax = Scenario("n", steps=("a b",))
    with pytest.raises(ValueError, match="without v_max"):
        metrics.compare([Window], no_vmax)


def test_compare_by_scenario_name():
    records = metrics.compare([Window(words_space(300))], "tool_chat")
    assert records[0]["scenario"] == "tool_chat" and records[0]["probes"] == len(load_scenario("tool_chat").probes)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 6), max_size=15), st.integers(6, 12))
def test_metric_invariants(lengths, v_max):
    steps = [" ".join(f"w{t}_{k}" for k in range(n)) for t, n in enumerate(lengths)]
    trace = run(Window(words_space(v_max)), steps)
    occ = metrics.occupancy(trace)
    assert all(0 < o <= 1 for o in occ)
    tokens = metrics.prompt_tokens(trace)
    assert list(tokens.cumulative) == sorted(tokens.cumulative) and tokens.total == sum(tokens.per_step)
    ev = metrics.evictions(trace)
    assert ev.count == sum(len(s.removed) for s in trace) == sum(ev.by_reason.values())
    # a window of whole observations: everything added is either still there or was evicted
    assert len(trace.final) + ev.count == len(steps)


# ---------------------------------------------------------------- the real mechanisms

MECHANISMS = [("fifo", "FIFOWindow"), ("scm", "SCM"), ("hiagent", "HiAgent"), ("agentfold", "AgentFold")]


def _mechanism_class(module: str, name: str):
    return getattr(importlib.import_module(f"stmviz.mechanisms.{module}"), name)


@pytest.mark.parametrize("scenario_name", ["household", "long_dialogue", "tool_chat", "web_research"])
@pytest.mark.parametrize("module, name", MECHANISMS)
def test_every_mechanism_on_every_bundled_scenario(module, name, scenario_name):
    assert scenario_name in bundled_names()
    cls = _mechanism_class(module, name)
    scenario = load_scenario(scenario_name)
    mechanism = cls(scenario.space())
    trace = run(mechanism, scenario)
    assert len(trace) == len(scenario.steps)
    record = metrics.compare([mechanism], scenario)[0]
    assert record["steps"] == len(scenario.steps)
    assert 0 < record["max_occupancy"] <= 1.0
    assert record["total_prompt_tokens"] == metrics.prompt_tokens(trace).total > 0
    assert record["probes"] == len(scenario.probes) and 0 <= record["retention"] <= 1
    # capacity matters: something had to leave ω
    assert record["evictions"] > 0


class _HostileRepr:
    def __repr__(self) -> str:
        raise RuntimeError("hostile repr")


def test_a_value_whose_repr_fails_is_named_by_its_type():
    """The messages formatted {probe!r} and {item!r}: a hostile repr escaped as a raw RuntimeError."""
    from stmviz.errors import InvalidArgumentError

    trace = run(Window(StateSpace(sizes.words, v_max=4)), ["a b", "c d"])

    class Bare(_HostileRepr):
        t = 1  # no evidence_steps: not a probe the evidence measures can read

    with pytest.raises(InvalidArgumentError, match=r"evidence_text: probe must be a Probe \(t: int, evidence_steps\), got a Bare \(its repr fails\)"):
        metrics.evidence_text(trace, Bare())
    with pytest.raises(InvalidArgumentError, match=r"compare: mechanisms\[0\] must be a Mechanism instance or subclass, got a _HostileRepr"):
        metrics.compare([_HostileRepr()], "tool_chat")


def test_every_evidence_measure_checks_its_probe_once_with_its_own_name():
    from stmviz.errors import InvalidArgumentError

    trace = run(Window(StateSpace(sizes.words, v_max=4)), ["a b", "c d"])
    late = Probe(1, "q?", "a", 0)
    object.__setattr__(late, "t", 5)
    for measure in (metrics.evidence_recall, metrics.evidence_word_overlap, metrics.whole_turns, metrics.answer_recall):
        with pytest.raises(InvalidArgumentError, match=rf"^{measure.__name__}: probe 'q\?' is asked at t = 5, but the trace has states ω_0 … ω_2"):
            measure(trace, late)
    with pytest.raises(InvalidArgumentError, match=r"probe_metrics: probes\[0\] 'q\?' is asked at t = 5"):
        metrics.probe_metrics(trace, [late])
    with pytest.raises(InvalidArgumentError, match=r"probe_metrics: probes must be a list"):
        metrics.probe_metrics(trace, 3)
