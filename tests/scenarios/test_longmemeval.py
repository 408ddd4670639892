"""LongMemEval-style files: one scenario per question, user turns as inputs, assistant turns as outputs."""

import json
import warnings
from pathlib import Path

import pytest

from stmviz import FIFOWindow, StateSpace, run
from stmviz.core.errors import InvalidArgumentError, FormatError
from stmviz.scenarios import BenchmarkFileWarning, Scenario, from_longmemeval, load_longmemeval

FIXTURES = Path(__file__).parent / "fixtures"
SMALL = FIXTURES / "longmemeval_small.json"


def small():
    return json.loads(SMALL.read_text(encoding="utf-8"))


def test_one_scenario_per_question_in_the_order_of_a_chat():
    a, b, c = load_longmemeval(SMALL)
    assert [s.name for s in (a, b, c)] == ["longmemeval_a1b2c3d4", "longmemeval_e5f6a7b8", "longmemeval_c9d0e1f2_abs"]
    # 10 turns and the question: step 0 the first user turn, then (reply, next user turn) pairs
    assert len(a) == 6 and a.steps[0].thought == "" and a.steps[0].observation.startswith("[2023/05/20 (Sat) 02:21] Can you")
    assert a.steps[1].thought.startswith("Try garlic") and a.steps[1].observation == "Thanks, I will try it tonight."
    assert a.steps[2].observation.startswith("[2023/05/22 (Mon) 14:02] I graduated")  # a session's first turn: its date
    assert [step.meta.get("session") for step in a.steps] == [
        "sharegpt_x1_0", "sharegpt_x1_0", "answer_aa11_1", "answer_aa11_1", "ultrachat_55", None
    ]
    assert a.steps[-1].observation == "[2023/05/30 (Tue) 23:40] What degree did I graduate with?"
    assert a.steps[-1].meta["question"] is True


def test_the_probe_is_at_the_question_with_evidence_from_has_answer():
    a, b, _ = load_longmemeval(SMALL)
    p = a.probes[0]
    assert (p.t, p.evidence_steps) == (len(a), (2,))  # the question is the input of the last step
    assert p.answer == p.reference == "Business Administration" and p.answer in a.steps[2].observation
    assert a.meta["evidence_from"] == "has_answer" and a.meta["question_type"] == "single-session-user"
    # several marked turns, one of them an assistant's reply (the output of step 2)
    q = b.probes[0]
    assert q.evidence_steps == (0, 2) and q.reference == "3"  # a number becomes text


def test_without_marked_turns_the_answer_sessions_are_the_evidence():
    c = load_longmemeval(SMALL)[2]
    assert c.meta["evidence_from"] == "answer_session_ids" and c.meta["abstention"] is True
    assert c.probes[0].evidence_steps == (0, 1)  # the session's user turn (step 0) and its reply (step 1's output)


def test_sessions_can_be_sorted_by_date():
    [c] = load_longmemeval(SMALL, question_ids=["c9d0e1f2_abs"], sort_sessions=True)
    assert c.steps[0].meta["session"] == "noise_9" and c.probes[0].evidence_steps == (1, 2)


def test_limit_and_question_ids_choose_entries():
    assert [s.meta["question_id"] for s in load_longmemeval(SMALL, limit=2)] == ["a1b2c3d4", "e5f6a7b8"]
    assert [s.meta["question_id"] for s in load_longmemeval(SMALL, question_ids={"c9d0e1f2_abs", "a1b2c3d4"})] == [
        "a1b2c3d4", "c9d0e1f2_abs"
    ]
    assert load_longmemeval(SMALL, limit=0) == []


def test_a_loaded_scenario_runs_and_round_trips():
    a = load_longmemeval(SMALL)[0]
    assert Scenario.from_dict(a.to_dict()) == a
    p = a.probes[0]
    assert p.retained_in(run(FIFOWindow(StateSpace("tokens", 400)), a).project(p.t).text())
    assert not p.retained_in(run(FIFOWindow(StateSpace("tokens", 60)), a).project(p.t).text())


def test_a_single_entry_object_is_read_too():
    [s] = from_longmemeval(small()[1])
    assert s.meta["question_id"] == "e5f6a7b8"


def set_at(*path_and_value):
    *path, value = path_and_value

    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return change


def delete_at(*path):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return change


@pytest.mark.parametrize(
    "change, where, what",
    [
        (delete_at(0, "question"), "[0]", "missing the field 'question'"),
        (set_at(0, "answer", {"text": "x"}), "[0].answer", "expected the answer as text"),
        (set_at(0, "answer", True), "[0].answer", "expected the answer as text"),
        (set_at(0, "question_id", 12), "[0].question_id", "expected text"),
        (set_at(0, "haystack_sessions", 1, []), "[0].haystack_sessions[1]", "empty"),
        (set_at(0, "haystack_sessions", []), "[0].haystack_sessions", "empty"),
        (set_at(0, "haystack_sessions", 1, 0, "role", "system"), "[0].haystack_sessions[1][0].role", "'user' or 'assistant'"),
        (delete_at(0, "haystack_sessions", 1, 0, "content"), "[0].haystack_sessions[1][0]", "missing the field 'content'"),
        (set_at(0, "haystack_sessions", 1, 0, "content", ""), "[0].haystack_sessions[1][0].content", "evidence turn"),
        (set_at(0, "haystack_sessions", 1, 0, "content", 5), "[0].haystack_sessions[1][0].content", "expected text"),
        (set_at(0, "haystack_sessions", 1, 0, "has_answer", "yes"), "[0].haystack_sessions[1][0].has_answer", "true or false"),
        (set_at(0, "haystack_sessions", 2, [{"role": "user", "content": " "}]), "[0].haystack_sessions[2]", "every turn"),
        (set_at(0, "haystack_session_ids", ["a", "b"]), "[0].haystack_session_ids", "holds 2 item(s) for 3 session(s)"),
        (set_at(0, "haystack_session_ids", ["a", "b", "a"]), "[0].haystack_session_ids", "occurs twice"),
        (set_at(0, "haystack_dates", ["d"]), "[0].haystack_dates", "holds 1 item(s)"),
        (set_at(0, "haystack_dates", 1, None), "[0].haystack_dates[1]", "expected text"),
        (set_at(0, "answer_session_ids", ["nope"]), "[0].answer_session_ids[0]", "not one of haystack_session_ids"),
        (set_at(1, "haystack_sessions", 0, "turns"), "[1].haystack_sessions[0]", "expected a list"),
        (set_at(2, "answer_session_ids", []), "[2]", "no evidence"),
    ],
)
def test_each_malformed_field_is_named_with_its_json_path(change, where, what):
    data = small()
    change(data)
    with pytest.raises(FormatError) as caught:
        from_longmemeval(data, source="longmemeval_s.json", strict=True)
    message = str(caught.value)
    assert message.startswith(f"longmemeval_s.json: {where}: ") and what in message


def test_by_default_an_entry_without_evidence_is_skipped_with_one_warning():
    data = small()
    data[2]["answer_session_ids"] = []
    with pytest.warns(BenchmarkFileWarning, match="1 questions without an evidence turn"):
        assert [s.meta["question_id"] for s in from_longmemeval(data)] == ["a1b2c3d4", "e5f6a7b8"]


def test_every_anomaly_is_listed_in_meta_and_summed_up_in_one_warning():
    data = small()
    data[0]["haystack_sessions"][2] = []  # an empty session (not the evidence)
    data[1]["answer_session_ids"].append("gone")  # an evidence session that does not exist
    data[2]["haystack_sessions"][1] = [{"role": "user", "content": " "}]  # a session of empty turns
    del data[2]["answer"]  # a question without an answer: the entry is skipped
    with pytest.warns(BenchmarkFileWarning) as caught:
        a, b = from_longmemeval(data, source="longmemeval_s_cleaned.json")
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith("longmemeval_s_cleaned.json: read with 3 anomalies")
    for words in ("1 empty sessions", "1 answer_session_ids that name no session", "1 questions without an answer"):
        assert words in message
    assert [dict(x) for x in a.meta["anomalies"]] == [
        {"where": "[0].haystack_sessions[2]", "problem": "the session holds no turn (skipped)"}]
    assert [dict(x) for x in b.meta["anomalies"]] == [
        {"where": "[1].answer_session_ids[2]", "problem": "'gone' is not one of haystack_session_ids (dropped)"}]
    assert a.meta["sessions"] == 3 and len(a.probes) == 1 and len(b.probes[0].evidence_steps) > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(load_longmemeval(SMALL)) == 3  # the clean fixture loads without a warning


def test_a_fixture_with_an_unknown_role_is_refused_with_its_place():
    with pytest.raises(FormatError, match=r"longmemeval_bad_role.json: \[0\]\.haystack_sessions\[0\]\[1\]\.role"):
        load_longmemeval(FIXTURES / "longmemeval_bad_role.json")


@pytest.mark.parametrize(
    "kwargs, match",
    [({"limit": -1}, "limit"), ({"limit": True}, "limit"), ({"question_ids": "a1b2c3d4"}, "question_ids"),
     ({"question_ids": ["zzz"]}, "no entry")],
)
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(InvalidArgumentError, match=match):
        load_longmemeval(SMALL, **kwargs)


def test_a_file_of_the_wrong_kind_is_refused(tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"messages": []}')
    with pytest.raises(FormatError, match="other.json: top level: expected a list"):
        load_longmemeval(other)
    with pytest.raises(FormatError, match="max_bytes"):
        load_longmemeval(SMALL, max_bytes=10)


def test_a_locomo_file_is_recognised_and_named():
    with pytest.raises(FormatError, match="looks like a LoCoMo file.*load_locomo"):
        load_longmemeval(FIXTURES / "locomo_small.json")


# ----------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def entries(draw):
    """A random valid entry: 1–4 sessions of 1–5 turns, roles drawn freely, some turns marked has_answer."""
    sessions, ids, dates = [], [], []
    for n in range(draw(st.integers(1, 4))):
        turns = [
            {"role": draw(st.sampled_from(["user", "assistant"])), "content": f"turn {n}-{j}",
             **({"has_answer": True} if draw(st.booleans()) else {})}
            for j in range(draw(st.integers(1, 5)))
        ]
        sessions.append(turns)
        ids.append(f"s{n}")
        dates.append(f"2023/05/{10 + n} (Wed) 10:00")
    return {"question_id": "p", "question_type": "multi-session", "question": "What?", "answer": "this",
            "question_date": "2023/06/01 (Thu) 10:00", "haystack_sessions": sessions, "haystack_session_ids": ids,
            "haystack_dates": dates, "answer_session_ids": [ids[0]]}


@settings(max_examples=40, deadline=None)
@given(entries())
def test_property_marked_turns_are_the_evidence_and_the_question_is_last(entry):
    [s] = from_longmemeval(entry)
    p = s.probes[0]
    assert p.t == len(s) and s.steps[-1].observation.endswith("What?")
    marked = [t["content"] for session in entry["haystack_sessions"] for t in session if t.get("has_answer")]
    evidence_text = "\n".join(s.steps[k].text for k in p.evidence_steps)
    if marked:
        assert all(m in evidence_text for m in marked) and s.meta["evidence_from"] == "has_answer"
        for k in p.evidence_steps:  # no step without a marked turn is evidence
            assert any(m in s.steps[k].text for m in marked)
    else:
        assert all(t["content"] in evidence_text for t in entry["haystack_sessions"][0])
    # the chat's order: every turn appears once, user turns as inputs and assistant turns as outputs
    for session in entry["haystack_sessions"]:
        for t in session:
            where = [step.observation if t["role"] == "user" else step.thought for step in s.steps]
            assert sum(t["content"] in w for w in where) == 1
    assert Scenario.from_dict(s.to_dict()) == s


def test_the_options_are_flags_and_whole_numbers():
    # strict="no" and sort_sessions="no" were read as true
    with pytest.raises(InvalidArgumentError, match="load_longmemeval: strict must be True or False, got str 'no'"):
        load_longmemeval(SMALL, strict="no")
    with pytest.raises(InvalidArgumentError, match="from_longmemeval: sort_sessions must be True or False, got str 'no'"):
        from_longmemeval(small(), sort_sessions="no")
    with pytest.raises(InvalidArgumentError, match=r"from_longmemeval: question_ids\[0\] must be a question id \(str\)"):
        from_longmemeval(small(), question_ids=[7])
    with pytest.raises(InvalidArgumentError, match="from_longmemeval: limit must be a whole number ≥ 0 or None, got float 1.0"):
        from_longmemeval(small(), limit=1.0)
