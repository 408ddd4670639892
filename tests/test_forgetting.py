"""Tests of stmviz.forgetting: why each probe's evidence is (or is not) in π(ω_t)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, Element, StateSpace, Transition, run, sizes
from stmviz.core.mechanism import make_mechanism
from stmviz.core.errors import InvalidArgumentError
from stmviz.core.model_input import ModelInput
from stmviz.forgetting import KINDS, Forgetting, records_step, why_forgotten, why_forgotten_all
from stmviz.mechanisms.agentfold import AgentFold
from stmviz.mechanisms.fifo import FIFOWindow
from stmviz.mechanisms.hiagent import HiAgent
from stmviz.mechanisms.scm import SCM
from stmviz.metrics import retention
from stmviz.scenarios import Probe, list_scenarios, load_scenario

MECHANISMS = (FIFOWindow, SCM, HiAgent, AgentFold)
LOST = ("evicted", "summarized", "cut", "not activated")


def _names() -> list[str]:
    return [getattr(info, "name", info) for info in list_scenarios()]


# -- every mechanism × every bundled scenario -------------------------------------------


@pytest.mark.parametrize("name", _names())
@pytest.mark.parametrize("cls", MECHANISMS, ids=lambda c: c.__name__)
def test_every_probe_of_every_bundled_scenario_is_explained(cls, name):
    scenario = load_scenario(name)
    trace = run(cls(StateSpace("tokens", scenario.v_max)), scenario)
    probes = [p for p in scenario.probes if p.t <= len(trace)]
    answers = why_forgotten_all(trace, probes)
    assert [a.retained for a in answers] == [r.retained for r in retention(trace, probes)]
    for probe, answer in zip(probes, answers):
        assert answer.probe is probe
        assert answer.kind in KINDS
        assert answer.explanation.strip()
        if answer.retained:
            assert answer.kind == "retained" and answer.kept_as in ("raw", "summary", "framing")
            continue
        assert answer.kind != "retained"
        if answer.kind in LOST:
            # a step, an operation recorded at that step, and a rule
            assert answer.step is not None and 0 <= answer.step < probe.t
            assert answer.operation in [o.type for o in trace[answer.step].operations]
            assert answer.rule
            assert f"step {answer.step}" in answer.explanation
        if answer.kind in ("evicted", "summarized", "cut"):
            gone = {e.id: why for e, why in trace[answer.step].why.items()}
            assert answer.removed and set(answer.removed) <= set(gone)
            assert answer.rule == gone[answer.removed[0]]
            assert all(probe.answer.casefold() in _element(trace, i).text.casefold() for i in answer.removed)
        if answer.kind == "not activated":
            assert answer.step == probe.t - 1
        if answer.kind == "never entered":
            assert "never entered" in answer.explanation
        json.dumps(answer.to_record())  # a record is JSON-ready


def _element(trace, element_id):
    return next(e for e in trace.elements() if e.id == element_id)


# -- hand-made traces, one per path ------------------------------------------------------


def _dialogue(*turns: str) -> list[AgentStep]:
    steps = [AgentStep(observation=turns[0])]
    steps += [AgentStep(thought=f"ok {k}", observation=turn) for k, turn in enumerate(turns[1:], 1)]
    return steps + [AgentStep(thought="done")]


def test_evicted_names_the_step_the_operation_and_the_rule():
    trace = run(FIFOWindow(StateSpace(sizes.words, v_max=8)), _dialogue("My name is Ada.", "one two", "three four", "five"))
    f = why_forgotten(trace, Probe(4, "Name?", "Ada", 0))
    assert (f.retained, f.kind, f.operation) == (False, "evicted", "append")
    assert f.step == next(k for k, s in enumerate(trace) if any("Ada" in e.text for e in s.removed))
    assert f.rule.startswith("oldest message; Σμ = ") and "V_max = 8" in f.rule
    assert "entered ω_1" in f.explanation and "'Ada' is not in π(ω_4)" in f.explanation
    assert f.kept_as is None


def test_retained_says_where_the_evidence_is():
    trace = run(FIFOWindow(StateSpace(sizes.words, v_max=100)), _dialogue("My name is Ada.", "hello"))
    f = why_forgotten(trace, Probe(2, "Name?", "ada", 0))  # case is ignored, as retention ignores it
    assert (f.retained, f.kind, f.kept_as, f.step) == (True, "retained", "raw", None)
    assert "the user element of step 0" in f.explanation and "since ω_1" in f.explanation


def _summarizing(summary_keeps_key: bool):
    """A mechanism that keeps each step as a 'note' and, at step 2, folds notes into one 'digest' (summary=True)."""

    def update(m, state, op, c):
        note = Element(c.step.text, {"t": c.t, "type": "note", "step": c.t})
        if c.t == 2:
            old = [e for e in state if e.type == "note"]
            text = " ".join(e.text for e in old) if summary_keeps_key else "the user introduced themselves"
            digest = Element(text, {"t": 0, "type": "digest", "range": (0, c.t - 1), "form": "summary"})
            return Transition(state.replace(old, [digest, note]), {e: "fold: notes become a digest" for e in old})
        return state | {note}

    return make_mechanism(
        StateSpace(sizes.words, 100), operations={"fold": "fold old notes into a digest"}, update=update, name="folder"
    )


def test_summarized_names_the_summary_that_lost_the_key_string():
    trace = run(_summarizing(False), ["My name is Ada.", "hi", "bye", "end"])
    f = why_forgotten(trace, Probe(4, "Name?", "Ada", 0))
    assert (f.kind, f.step, f.operation, f.kept_as) == ("summarized", 2, "fold", "summary")
    assert f.rule == "fold: notes become a digest"
    assert "the digest of steps 0–1" in f.explanation and "which lost 'Ada'" in f.explanation


def test_retained_inside_a_summary():
    trace = run(_summarizing(True), ["My name is Ada.", "hi", "bye", "end"])
    f = why_forgotten(trace, Probe(4, "Name?", "Ada", 0))
    assert (f.retained, f.kept_as) == (True, "summary")
    assert "inside the digest of steps 0–1" in f.explanation


def _cutting():
    def update(m, state, op, c):
        note = Element(c.step.text, {"t": c.t, "type": "note", "step": c.t})
        if c.t == 2:
            first = next(e for e in state if e.meta["step"] == 0)
            cut = Element(first.text[:5], {**first.meta, "truncated": True})
            return Transition(state.replace([first], [cut, note]), {first: "cut to fit"})
        return state | {note}

    return make_mechanism(StateSpace(sizes.chars, 100), operations=["note"], update=update, name="cutter")


def test_cut_to_fit_is_its_own_kind():
    trace = run(_cutting(), ["My name is Ada.", "hi", "bye"])
    f = why_forgotten(trace, Probe(3, "Name?", "Ada", 0))
    assert (f.kind, f.step, f.operation, f.rule, f.kept_as) == ("cut", 2, "note", "cut to fit", "cut")


def test_never_entered_when_the_message_was_too_large():
    steps = _dialogue("My name is Ada and this message is far too long for the window.", "hi", "bye")
    trace = run(FIFOWindow(StateSpace(sizes.words, v_max=6), oversize="skip"), steps)
    f = why_forgotten(trace, Probe(2, "Name?", "Ada", 0))
    assert (f.kind, f.step, f.operation) == ("never entered", 0, "append")
    assert "skipped the user message of step 0" in f.rule
    assert "never entered ω" in f.explanation


def test_never_entered_when_nothing_recorded_the_step():
    def update(m, state, op, c):
        return state if c.t == 0 else state | {Element(c.step.text, {"t": c.t, "step": c.t})}

    m = make_mechanism(StateSpace(sizes.words, 100), operations=["keep"], update=update, name="deaf")
    f = why_forgotten(run(m, ["My name is Ada.", "hi"]), Probe(2, "Name?", "Ada", 0))
    assert (f.kind, f.step, f.operation, f.kept_as) == ("never entered", None, None, None)
    assert "no element of ω_0 … ω_2" in f.explanation


def test_never_entered_with_the_key_when_stored_only_as_a_summary():
    def update(m, state, op, c):
        return state | {Element(f"step {c.t} summarized", {"t": c.t, "step": c.t, "form": "summary"})}

    m = make_mechanism(StateSpace(sizes.words, 100), operations=["digest"], update=update, name="digester")
    f = why_forgotten(run(m, ["My name is Ada.", "hi"]), Probe(2, "Name?", "Ada", 0))
    assert (f.kind, f.kept_as) == ("never entered", "summary")
    assert "only as a summary" in f.explanation


def test_not_projected_when_pi_leaves_the_element_out():
    def update(m, state, op, c):
        return state | {Element(c.step.text, {"t": c.t, "step": c.t, "type": "hidden" if c.t == 0 else "note"})}

    def project(m, state):
        return ModelInput.coerce([e.text for e in state.ordered() if e.type != "hidden"])

    m = make_mechanism(StateSpace(sizes.words, 100), operations=["keep"], update=update, project=project, name="veil")
    f = why_forgotten(run(m, ["My name is Ada.", "hi"]), Probe(2, "Name?", "Ada", 0))
    assert (f.retained, f.kind, f.step) == (False, "not projected", None)
    assert "π(ω_2) leaves it out" in f.explanation


def _locker(k: int) -> tuple:
    steps = [
        AgentStep(observation="My locker code is 7391."),
        AgentStep(thought="Noted.", observation="My bike is red and fast."),
        AgentStep(thought="Nice.", observation="What is for dinner tonight?"),
        AgentStep(thought="Pasta.", observation="Remember my bike? What color is my bike?"),
        AgentStep(thought="Red."),
    ]
    return run(SCM(StateSpace(sizes.tokens(), v_max=300), k=k), steps), Probe(4, "Locker code?", "7391", 0)


def test_not_activated_reports_the_recorded_scores():
    trace, probe = _locker(k=1)
    f = why_forgotten(trace, probe)
    assert (f.kind, f.step, f.operation) == ("not activated", 3, "activate_memory")
    scores = trace[3].operations[-1].get("scores")
    assert f.rule.startswith("not among the top k = 1") and str(scores[0][1]) in f.rule
    assert "memory stream (interaction 1)" in f.explanation


def test_not_activated_when_no_memory_is_activated():
    trace, probe = _locker(k=0)
    f = why_forgotten(trace, probe)
    assert (f.kind, f.step, f.operation) == ("not activated", 3, "add_interaction")
    assert "activated no memory" in f.explanation


def test_the_operation_is_replayed_when_a_step_has_several():
    steps = [
        {"subgoal": "find the key", "action": "look()", "observation": "A mat lies here, code 4417."},
        {"action": "lift('mat')", "observation": "A brass key!"},
        {"subgoal": "open the door", "action": "use('key')", "observation": "Open."},
        {"action": "go()", "observation": "Out."},
    ]
    forgetful = HiAgent(StateSpace(sizes.tokens(), v_max=400), summarize_subgoal=lambda goal, pairs, budget: ("found it", True))
    trace = run(forgetful, steps, query="Leave the room")
    assert [o.type for o in trace[2].operations] == ["summarize", "subgoal", "observe"]
    f = why_forgotten(trace, Probe(4, "Code?", "4417", 0))
    assert (f.kind, f.step, f.operation, f.kept_as) == ("summarized", 2, "summarize", "summary")
    assert "no retrieve operation asked for it before step 4" in f.explanation


def test_trajectory_retrieval_brings_the_evidence_back():
    steps = [
        {"subgoal": "find the key", "action": "look()", "observation": "A mat lies here, code 4417."},
        {"action": "lift('mat')", "observation": "A brass key!"},
        {"subgoal": "open the door", "action": "use('key')", "observation": "Open."},
        {"action": "retrieve(1)", "observation": "Out."},
        {"action": "go()", "observation": "Out."},
    ]
    forgetful = HiAgent(StateSpace(sizes.tokens(), v_max=400), summarize_subgoal=lambda goal, pairs, budget: ("found it", True))
    trace = run(forgetful, steps, query="Leave the room")
    assert why_forgotten(trace, Probe(5, "Code?", "4417", 0)).retained  # retrieved at step 3: back in ω_4, ω_5
    f = why_forgotten(trace, Probe(3, "Code?", "4417", 0))
    assert f.kind == "summarized" and "no retrieve operation asked for it before step 3" in f.explanation


def test_a_free_text_answer_that_the_evidence_never_quoted():
    trace = run(FIFOWindow(StateSpace(sizes.words, v_max=100)), _dialogue("I was born in 1815 in London.", "hi"))
    probe = Probe(2, "When was she born?", "the year 1815", 0, reference="In 1815, in London.")
    f = why_forgotten(trace, probe)
    assert (f.retained, f.kind, f.kept_as) == (False, "never entered", "raw")
    assert "does not occur verbatim" in f.explanation and "In 1815, in London." in f.explanation


# -- records, HTML, validation ------------------------------------------------------------


def test_record_and_escaped_html():
    trace = run(FIFOWindow(StateSpace(sizes.words, v_max=100)), _dialogue("<b>Ada</b> & co", "hi"))
    f = why_forgotten(trace, Probe(2, "<script>x</script>?", "<b>Ada", 0))
    record = f.to_record()
    assert record["retained"] is True and record["evidence_steps"] == [0] and record["kind"] == "retained"
    page = f._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page and "&lt;b&gt;Ada" in page
    assert isinstance(f, Forgetting) and "retained" in repr(f)


def test_bad_arguments_raise_errors_that_say_what_to_pass():
    trace = run(FIFOWindow(StateSpace(sizes.words, v_max=100)), ["a", "b"])
    with pytest.raises(InvalidArgumentError, match="needs a Trace"):
        why_forgotten("trace", Probe(1, "q", "a", 0))
    with pytest.raises(InvalidArgumentError, match=r"why_forgotten: probe must be a Probe .*got str 'a probe'"):
        why_forgotten(trace, "a probe")
    with pytest.raises(InvalidArgumentError, match="ω_0 … ω_2"):
        why_forgotten(trace, Probe(5, "q", "a", 0))
    with pytest.raises(InvalidArgumentError, match=r"probes must be a list \(or another iterable\) of probes.*got 3"):
        why_forgotten_all(trace, 3)


def test_records_step_reads_ranges_indices_and_steps():
    assert records_step(Element("x", {"range": (2, 4), "step": 9}), [3])
    assert not records_step(Element("x", {"range": (2, 4), "step": 3}), [5])  # a range wins over the creation step
    assert records_step(Element("x", {"index": 3}), [2]) and records_step(Element("x", {"index": 3}), [3])
    assert not records_step(Element("x", {}), [0])


# -- random agent streams ------------------------------------------------------------------

WORDS = st.sampled_from("alpha beta gamma delta omega kappa sigma zeta".split())


@settings(max_examples=40, deadline=None)
@given(
    turns=st.lists(st.lists(WORDS, min_size=1, max_size=6).map(" ".join), min_size=2, max_size=14),
    v_max=st.integers(8, 40),
    data=st.data(),
)
def test_random_streams_every_lost_probe_gets_a_cause(turns, v_max, data):
    steps = [AgentStep(observation="code XQ1 " + turns[0])] + [AgentStep(thought="ok", observation=t) for t in turns[1:]]
    t = data.draw(st.integers(1, len(steps)))
    probe = Probe(t, "code?", "XQ1", 0)
    for mechanism in (
        FIFOWindow(StateSpace(sizes.tokens(), v_max=max(v_max, 30)), oversize="truncate"),
        AgentFold(StateSpace(sizes.tokens(), v_max=v_max * 10)),
        HiAgent(StateSpace(sizes.tokens(), v_max=v_max * 10)),
        SCM(StateSpace(sizes.tokens(), v_max=v_max * 10), k=1),
    ):
        trace = run(mechanism, steps)
        f = why_forgotten(trace, probe)
        assert f.retained == retention(trace, [probe])[0].retained
        assert f.kind in KINDS and f.explanation
        if f.kind in LOST:
            assert f.step is not None and f.step < t and f.operation and f.rule


def test_a_probe_whose_evidence_steps_are_no_list_is_named():
    trace = run(FIFOWindow(StateSpace(sizes.words, v_max=100)), ["a", "b", "c"])
    odd = type("Asked", (), {"t": 2, "question": "q", "answer": "a", "evidence_steps": 5})()
    # tuple(5) raised a raw TypeError
    with pytest.raises(InvalidArgumentError, match=r"why_forgotten: probe.evidence_steps must be a list \(or another iterable\) of step numbers, got 5"):
        why_forgotten(trace, odd)
    blank = type("Asked", (), {"t": 2, "question": "q", "answer": " ", "evidence_steps": (0,)})()
    with pytest.raises(InvalidArgumentError, match=r"why_forgotten_all: probes\[0\].answer must be a non-empty text"):
        why_forgotten_all(trace, [blank])
