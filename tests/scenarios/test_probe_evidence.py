"""Probes with evidence spread over several steps and a full reference answer (issue 19's contract)."""

import pytest

from stmviz.core.errors import FormatError
from stmviz.scenarios import Probe, Scenario

STEPS = [{"observation": "My name is Ada."}, {"observation": "I live in Oslo."}, {"observation": "Hi."}]


def test_evidence_steps_default_to_the_evidence_step_and_include_it():
    assert Probe(3, "Name?", "Ada", 0).evidence_steps == (0,)
    assert Probe(3, "Who and where?", "Ada", 0, evidence_steps=(1, 1)).evidence_steps == (0, 1)


@pytest.mark.parametrize("bad", [(3,), (-1,), ("1",), (True,), "01", 5])
def test_evidence_steps_outside_0_to_t_minus_1_are_refused(bad):
    with pytest.raises(FormatError, match="evidence"):
        Probe(3, "Name?", "Ada", 0, evidence_steps=bad)


def test_reference_must_be_text():
    with pytest.raises(FormatError, match="reference"):
        Probe(3, "Name?", "Ada", 0, reference="  ")
    assert Probe(3, "Name?", "Ada", 0).reference_answer == "Ada"
    assert Probe(3, "Name?", "Ada", 0, reference="Ada Lovelace").reference_answer == "Ada Lovelace"


def test_a_scenario_round_trips_the_new_fields():
    probe = {"t": 3, "question": "Who and where?", "answer": "Ada", "evidence_step": 0,
             "evidence_steps": [0, 1], "reference": "Ada, who lives in Oslo"}
    s = Scenario.from_dict({"name": "tiny", "steps": STEPS, "probes": [probe]})
    assert s.probes[0].evidence_steps == (0, 1)
    assert s.to_dict()["probes"] == [probe]
    assert Scenario.from_dict(s.to_dict()) == s
    assert "evidence_steps" not in Probe(3, "Name?", "Ada", 0).to_dict()


def test_a_reference_answer_need_not_occur_verbatim_but_a_key_string_must():
    free = {"t": 3, "question": "Where?", "answer": "the capital of Norway", "evidence_step": 1,
            "reference": "the capital of Norway"}
    Scenario.from_dict({"name": "tiny", "steps": STEPS, "probes": [free]})
    key = dict(free)
    del key["reference"]
    with pytest.raises(FormatError, match="does not occur"):
        Scenario.from_dict({"name": "tiny", "steps": STEPS, "probes": [key]})


def test_an_evidence_step_after_the_question_is_refused_in_a_file():
    probe = {"t": 2, "question": "Name?", "answer": "Ada", "evidence_step": 0, "evidence_steps": [2]}
    with pytest.raises(FormatError, match="evidence"):
        Scenario.from_dict({"name": "tiny", "steps": STEPS, "probes": [probe]})
