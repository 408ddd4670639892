"""The synthetic scenario generator: planted facts, questions at chosen distances, distractors, a seed."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import FIFOWindow, StateSpace, run
from stmviz.core.errors import InvalidArgumentError
from stmviz.scenarios import Scenario, generate_agent, generate_dialogue

GENERATORS = [generate_dialogue, generate_agent]


def check_planted(s: Scenario, distances=None, per_fact=None):
    """Every property the generator promises, checked on one scenario."""
    assert Scenario.from_dict(s.to_dict()) == s  # a valid scenario file
    texts = [step.text.casefold() for step in s.steps]
    questions = [p.question.casefold() for p in s.probes]
    assert list(s.meta["distances"]) == [p.t - 1 - p.evidence_step for p in s.probes]
    if distances is not None:
        assert sorted(s.meta["distances"]) == sorted(distances)
    for i, p in enumerate(s.probes):
        k = p.t - 1
        asked = s.steps[k]
        # the question is the input of step k, answered from π(ω_{k+1})
        assert asked.observation == p.question and asked.meta["planted"] == "question" and asked.meta["fact"] == i
        assert s.steps[p.evidence_step].meta["planted"] == "fact" and s.steps[p.evidence_step].meta["fact"] == i
        # the answer is in the evidence's input, in no other step and in no question
        assert p.answer in s.steps[p.evidence_step].observation
        assert [t for t, text in enumerate(texts) if p.answer.casefold() in text] == [p.evidence_step]
        assert not any(p.answer.casefold() in q for q in questions)
        # distractors: before the question, the same kind of fact, never the answer
        spots = list(s.meta["distractor_steps"][i])
        if per_fact is not None:
            assert len(spots) == per_fact
        for spot in spots:
            assert spot < k and s.steps[spot].meta["planted"] == "distractor" and s.steps[spot].meta["fact"] == i
    planted = [t for t, step in enumerate(s.steps) if "planted" in step.meta]
    assert len(planted) == len(s.probes) * 2 + sum(len(x) for x in s.meta["distractor_steps"])


@pytest.mark.parametrize("generate", GENERATORS)
def test_a_long_scenario_with_the_defaults(generate):
    s = generate(2000, seed=1)
    assert len(s) == 2000 and len(s.probes) == 16
    check_planted(s, per_fact=2)
    assert min(s.meta["distances"]) <= 3 and max(s.meta["distances"]) >= 1000  # near and far


@pytest.mark.parametrize("generate", GENERATORS)
def test_the_same_seed_gives_the_same_scenario_and_another_seed_another(generate):
    a, b, c = generate(300, seed=7), generate(300, seed=7), generate(300, seed=8)
    assert a == b and a.to_dict() == b.to_dict()
    assert a.to_dict()["steps"] != c.to_dict()["steps"]
    assert [p.answer for p in a.probes] != [p.answer for p in c.probes]


def test_the_dialogue_follows_the_order_of_a_conversation():
    s = generate_dialogue(50, facts=2, distances=[3, 20], seed=2)
    assert s.steps[0].thought == "" and s.steps[0].observation  # the user speaks first
    assert all(step.thought and step.observation for step in s.steps[1:])  # a reply, then the user's next message
    assert {step.meta["role"] for step in s.steps} == {"user"}
    for p in s.probes:  # the reply to a question, or to a fact, does not repeat the answer
        assert p.t == len(s) or p.answer not in s.steps[p.t].thought


def test_a_distractor_is_the_same_attribute_of_someone_else():
    s = generate_dialogue(120, facts=1, distances=[30], distractors=3, seed=5)
    p = s.probes[0]
    attribute = p.question.split(" what is ")[1].rstrip("?").split("'s ")[-1].removeprefix("my ")
    for spot in s.meta["distractor_steps"][0]:
        assert f"{attribute} is " in s.steps[spot].observation


def test_the_agent_asks_about_records_with_look_alike_distractors():
    s = generate_agent(200, facts=2, distances=[10, 60], distractors=2, seed=3)
    for i, p in enumerate(s.probes):
        evidence = s.steps[p.evidence_step]
        shipment = evidence.action.split('"')[1]
        assert evidence.action.startswith("lookup(") and shipment in p.question
        assert s.steps[p.t - 1].thought == "" and s.steps[p.t - 1].meta["role"] == "user"  # an input-only question
        for spot in s.meta["distractor_steps"][i]:
            other = s.steps[spot].action.split('"')[1]
            assert other != shipment and len(other) == len(shipment)
            assert sum(a != b for a, b in zip(other, shipment)) <= 2  # one digit changed or two swapped
    assert len(s.subgoals) == 10 and all(s.steps[t].directives.get("subgoal") for t in range(0, 200, 20)
                                         if s.steps[t].has_output)


def test_a_generated_scenario_runs_and_its_probes_read_the_model_input():
    s = generate_dialogue(120, facts=3, distances=[1, 10, 100], distractors=1, seed=4)
    trace = run(FIFOWindow(StateSpace("tokens", 400)), s)
    kept = [p.retained_in(trace.project(p.t).text()) for p in s.probes]
    assert kept[0] is True and kept[2] is False  # one step back is in the window, a hundred are not


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_steps": 1}, "n_steps"),
        ({"n_steps": 10, "distances": [10]}, "distance"),
        ({"n_steps": 10, "distances": [0]}, "distance"),
        ({"n_steps": 10, "distances": []}, "distances"),
        ({"n_steps": 10, "distances": "3"}, "distances"),
        ({"n_steps": 10, "facts": 2, "distances": [1, 2, 3]}, "one distance per fact"),
        ({"n_steps": 10, "facts": 3, "distractors": 2}, "need 12 steps"),
        ({"n_steps": 10, "facts": 0}, "facts"),
        ({"n_steps": 10, "distractors": -1}, "distractors"),
        ({"n_steps": 10, "seed": 1.5}, "seed"),
        ({"n_steps": 4, "distances": [3, 3], "distractors": 0}, "no free pair"),
    ],
)
@pytest.mark.parametrize("generate", GENERATORS)
def test_bad_parameters_are_refused_with_a_reason(generate, kwargs, match):
    kwargs = dict(kwargs)
    with pytest.raises(InvalidArgumentError, match=match):
        generate(kwargs.pop("n_steps"), **kwargs)


@pytest.mark.parametrize("generate", GENERATORS)
def test_tiny_scenarios_still_work(generate):
    check_planted(generate(2))
    check_planted(generate(6, distances=1))


@st.composite
def parameters(draw):
    n = draw(st.integers(100, 400))
    facts = draw(st.integers(1, 4))
    distances = draw(st.lists(st.integers(1, n // 2), min_size=facts, max_size=facts))
    return n, distances, draw(st.integers(0, 3)), draw(st.integers(0, 2**32))


@settings(max_examples=40, deadline=None)
@given(parameters(), st.sampled_from(GENERATORS))
def test_property_every_generated_scenario_keeps_its_promises(params, generate):
    n, distances, per_fact, seed = params
    s = generate(n, distances=distances, distractors=per_fact, seed=seed)
    assert len(s) == n
    check_planted(s, distances=distances, per_fact=per_fact)


def test_an_agent_question_is_followed_by_a_step_that_answers_it():
    s = generate_agent(60, facts=12, distances=1, distractors=0, seed=9)
    asked = [p.t - 1 for p in s.probes]
    assert len(asked) == 12 and s.meta["distances"] == (1,) * 12
    for k in asked:
        assert k + 1 == len(s) or s.steps[k + 1].has_output  # the answer is the next step's output
        assert k - 1 not in asked


def test_one_distance_applies_to_the_default_number_of_facts():
    assert len(generate_dialogue(500, distances=20, seed=0).probes) == 10
