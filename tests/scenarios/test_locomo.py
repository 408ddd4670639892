"""LoCoMo-style files: turns become steps, questions become probes with evidence steps and references."""

import copy
import json
import warnings
import zipfile
from pathlib import Path

import pytest

from stmviz import FIFOWindow, StateSpace, run
from stmviz.core.errors import InvalidArgumentError, FormatError
from stmviz.scenarios import BenchmarkFileWarning, Scenario, from_locomo, load_locomo

FIXTURES = Path(__file__).parent / "fixtures"
SMALL = FIXTURES / "locomo_small.json"


def small():
    return json.loads(SMALL.read_text(encoding="utf-8"))


def test_one_scenario_per_sample_every_turn_an_input_of_its_own():
    a, b = load_locomo(SMALL)
    assert (a.name, b.name) == ("locomo_conv-a", "locomo_conv-b")
    conversation = a.steps[:10]
    assert all(not step.has_output and step.input_role == "user" for step in a.steps)  # the model listens
    assert [step.meta["dia_ids"] for step in conversation][:3] == [("D1:1",), ("D1:2",), ("D1:3",)]
    assert conversation[0].observation.startswith("[1:56 pm on 8 May, 2023] Noor: Hi Tomas!")
    assert conversation[4].observation.startswith("[7:10 pm on 20 May, 2023] Tomas:")  # each session's date
    assert conversation[1].observation.startswith("Tomas: ")  # later turns: the speaker only
    assert [step.meta["session"] for step in conversation] == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3]
    assert conversation[5].meta["date"] == "7:10 pm on 20 May, 2023"
    assert "[shares a photo: a pair of orange running shoes on a wooden floor]" in conversation[4].observation


def test_questions_are_appended_as_inputs_and_answered_at_the_next_step():
    s = load_locomo(SMALL, sample="conv-a")[0]
    assert len(s) == 10 + 6 and len(s.probes) == 6
    for k, p in enumerate(s.probes):
        assert s.steps[p.t - 1].observation == p.question  # asked in the input of step t − 1
        assert s.steps[p.t - 1].meta["qa"] == s.meta["qa"][k]
        assert p.answer == p.reference == p.reference_answer
    by_question = {p.question: p for p in s.probes}
    assert by_question["Where is Tomas running his half marathon?"].evidence_steps == (3,)
    assert by_question["Where is Tomas running his half marathon?"].answer in s.steps[3].observation
    # "D2:4; D2:3" in one evidence item, and an id written "D3:02"
    assert by_question["How long does Noor's pottery class last and when does it meet?"].evidence_steps == (6, 7)
    assert by_question["How far did Tomas run on Sunday?"].evidence_steps == (9,)
    assert by_question["How far did Tomas run on Sunday?"].reference == "18"  # a number becomes text
    assert by_question["What did Noor make that cracked and what did she glaze later?"].evidence_steps == (5, 8)
    assert list(s.meta["categories"]) == [1, 2, 1, 4, 1, 3]


def test_an_adversarial_question_without_an_answer_is_skipped_and_listed():
    s = load_locomo(SMALL, sample=0)[0]
    assert [dict(x) for x in s.meta["skipped"]] == [{"qa": 6, "reason": "adversarial: no answer (only an adversarial_answer)"}]
    assert "Where does Noor's sister live?" not in [p.question for p in s.probes]


def test_categories_filter_the_questions():
    s = load_locomo(SMALL, sample=0, categories={2, 4})[0]
    assert [p.question for p in s.probes] == [
        "When did Noor start her pottery class?", "How long does Noor's pottery class last and when does it meet?"
    ]


def test_final_mode_probes_after_the_conversation_and_each_mode_gives_a_scenario_per_question():
    final = load_locomo(SMALL, sample=0, questions="final")[0]
    assert len(final) == 10 and {p.t for p in final.probes} == {10}
    each = load_locomo(SMALL, sample="conv-b", questions="each")
    assert [s.name for s in each] == ["locomo_conv-b_q0", "locomo_conv-b_q1"]
    assert all(len(s) == 5 and s.probes[0].t == 5 for s in each)


def test_one_speaker_as_the_model_keeps_the_order_of_a_conversation():
    s = load_locomo(SMALL, sample="conv-a", assistant="speaker_a")[0]
    assert s.meta["assistant"] == "Noor"
    assert s.steps[0].thought.startswith("[1:56 pm on 8 May, 2023] Noor: Hi Tomas!")  # Noor's turn is an output
    assert s.steps[0].observation.startswith("Tomas: ")  # then Tomas's reply, the input after it
    # Tomas's two turns in a row (D1:4, D2:1) share one step's input
    assert s.steps[1].meta["dia_ids"] == ("D1:3", "D1:4", "D2:1")
    p = next(p for p in s.probes if p.question.startswith("What color"))
    assert p.evidence_steps == (1,)
    assert load_locomo(SMALL, sample="conv-a", assistant="Tomas")[0].steps[0].thought == ""  # Noor speaks first


def test_a_loaded_scenario_runs_and_round_trips():
    s = load_locomo(SMALL, sample=0)[0]
    assert Scenario.from_dict(s.to_dict()) == s
    trace = run(FIFOWindow(StateSpace("tokens", 60)), s)
    last = s.probes[-1]
    assert len(trace) == len(s) and not last.retained_in(trace.project(last.t).text())


def test_a_single_sample_object_is_read_too():
    [s] = from_locomo(small()[1], source="one.json")
    assert s.name == "locomo_conv-b" and len(s.probes) == 2


# ----------------------------------------------------------------- malformed files


def mutated(change):
    data = small()
    change(data)
    return data


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
        (set_at(0, "conversation", "session_2", []), "[0].conversation.session_2", "empty"),
        (delete_at(0, "conversation"), "[0]", "missing the field 'conversation'"),
        (delete_at(0, "conversation", "speaker_b"), "[0].conversation", "missing the field 'speaker_b'"),
        (set_at(0, "conversation", "session_1", 0, "speaker", "Nora"), "[0].conversation.session_1[0].speaker", "neither"),
        (set_at(0, "conversation", "session_1", 1, "dia_id", "D1:1"), "[0].conversation.session_1[1].dia_id", "also the id"),
        (set_at(0, "conversation", "session_1", 1, "dia_id", 7), "[0].conversation.session_1[1].dia_id", "expected text"),
        (set_at(0, "conversation", "session_1", 2, "text", ""), "[0].conversation.session_1[2].text", "no text"),
        (set_at(0, "conversation", "session_1", 2, "text", ["a"]), "[0].conversation.session_1[2].text", "expected text"),
        (set_at(0, "conversation", "session_1_date_time", 5), "[0].conversation.session_1_date_time", "expected text"),
        (set_at(0, "conversation", "session_2", {"speaker": "Noor"}), "[0].conversation.session_2", "expected a list"),
        (set_at(0, "conversation", "session_2", 0, "nonsense"), "[0].conversation.session_2[0]", "expected an object"),
        (set_at(0, "qa", 0, "evidence", ["D9:1"]), "[0].qa[0].evidence[0]", "'D9:1' is the id of no turn"),
        (set_at(0, "qa", 0, "evidence", "D1:4"), "[0].qa[0].evidence", "expected a list"),
        (set_at(0, "qa", 0, "evidence", [14]), "[0].qa[0].evidence[0]", "expected text"),
        (delete_at(0, "qa", 1, "answer"), "[0].qa[1]", "missing the field 'answer'"),
        (set_at(0, "qa", 1, "answer", None), "[0].qa[1].answer", "expected the answer as text"),
        (set_at(0, "qa", 1, "answer", "  "), "[0].qa[1].answer", "empty"),
        (set_at(0, "qa", 1, "question", ""), "[0].qa[1].question", "empty"),
        (set_at(0, "qa", 1, "category", "two"), "[0].qa[1].category", "whole number"),
        (delete_at(0, "qa"), "[0]", "missing the field 'qa'"),
        (set_at(0, "sample_id", ["x"]), "[0].sample_id", "expected text or a number"),
        (set_at(1, "conversation", "speaker_b", "Ruth"), "[1].conversation.speaker_b", "different names"),
    ],
)
def test_each_malformed_field_is_named_with_its_json_path(change, where, what):
    with pytest.raises(FormatError) as caught:
        from_locomo(mutated(change), source="locomo10.json", strict=True)
    message = str(caught.value)
    assert message.startswith(f"locomo10.json: {where}: ") and what in message


def test_a_conversation_without_sessions_and_a_top_level_of_the_wrong_kind_are_refused():
    with pytest.raises(FormatError, match="no session_N"):
        from_locomo(mutated(lambda d: d[0].update(conversation={"speaker_a": "A", "speaker_b": "B"})), source="x.json")
    with pytest.raises(FormatError, match="x.json: top level: expected a list"):
        from_locomo({"samples": []}, source="x.json")


def test_strict_true_refuses_what_the_default_drops_and_lists():
    with pytest.raises(FormatError, match=r"\[0\]\.qa\[1\]\.evidence\[0\].*strict=False"):
        load_locomo(FIXTURES / "locomo_bad_evidence.json", strict=True)
    with pytest.warns(BenchmarkFileWarning):
        [s] = load_locomo(FIXTURES / "locomo_bad_evidence.json")
    assert len(s.probes) == 1 and [dict(x) for x in s.meta["skipped"]] == [{"qa": 1, "reason": "no evidence turn"}]
    data = mutated(set_at(0, "conversation", "session_1", 2, "text", ""))
    with pytest.warns(BenchmarkFileWarning, match="1 empty turns"):
        s = from_locomo(data, sample=0)[0]
    assert "D1:3" not in [i for step in s.steps for i in step.meta.get("dia_ids", ())]


def test_every_anomaly_is_listed_in_meta_and_summed_up_in_one_warning():
    data = small()
    data[0]["qa"][0]["evidence"] = ["D1:1", "D10:19"]  # an id of no turn, beside a good one
    data[0]["qa"][2]["evidence"] = ["D7:7"]  # the only id names no turn
    data[0]["qa"][3]["evidence"] = []  # no evidence at all
    del data[1]["qa"][0]["answer"]  # no answer, and not adversarial
    with pytest.warns(BenchmarkFileWarning) as caught:
        a, b = from_locomo(data, source="locomo10.json")
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith("locomo10.json: read with 5 anomalies")
    for words in ("2 evidence ids that name no turn", "2 questions without an evidence turn",
                  "1 questions without an answer", "strict=True"):
        assert words in message
    assert [dict(x) for x in a.meta["anomalies"]] == [
        {"where": "[0].qa[0].evidence[1]", "problem": "'D10:19' is the id of no turn (dropped)"},
        {"where": "[0].qa[2].evidence[0]", "problem": "'D7:7' is the id of no turn (dropped)"},
        {"where": "[0].qa[2]", "problem": "the question has no evidence turn: every evidence id names no turn (skipped)"},
        {"where": "[0].qa[3]", "problem": "the question has no evidence turn: its evidence list is empty (skipped)"},
    ]
    assert [dict(x) for x in b.meta["anomalies"]] == [{"where": "[1].qa[0]", "problem": "the question has no answer (skipped)"}]
    assert a.probes[0].evidence_steps == (0,)  # the good id is kept
    assert [q for q in a.meta["qa"]] == [0, 1, 4, 5]


def test_a_clean_file_loads_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(load_locomo(SMALL)) == 2


def test_the_per_conversation_files_of_the_published_archive_are_read(tmp_path):
    # locomo10.zip holds 26.json, 30.json, …: one conversation each, its keys at the top beside qa
    folder = tmp_path / "locomo10_v2"
    folder.mkdir()
    for number, sample in ((30, small()[1]), (4, small()[0])):
        flat = {**sample["conversation"], "qa": sample["qa"], "session_1_summary": "not a session"}
        (folder / f"{number}.json").write_text(json.dumps(flat), encoding="utf-8")
    archive = tmp_path / "locomo10.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(folder.iterdir()):
            z.write(path, f"data/locomo10_v2/{path.name}")
    expected = load_locomo(SMALL)
    for source in (folder, archive):
        found = load_locomo(source)
        assert [s.name for s in found] == ["locomo_conv-4", "locomo_conv-30"]  # natural order: 4 before 30
        assert [s.steps for s in found] == [s.steps for s in expected]
        assert [s.probes for s in found] == [s.probes for s in expected]
    assert [s.name for s in load_locomo(archive, sample="conv-30")] == ["locomo_conv-30"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(FormatError, match="no .json file"):
        load_locomo(tmp_path / "empty")
    (tmp_path / "broken.zip").write_bytes(b"not a zip")
    with pytest.raises(FormatError, match="not a readable .zip"):
        load_locomo(tmp_path / "broken.zip")


def test_files_that_are_missing_truncated_or_too_large_are_refused(tmp_path):
    with pytest.raises(FormatError, match="no such file"):
        load_locomo(tmp_path / "missing.json")
    with pytest.raises(FormatError, match="truncated"):
        load_locomo(FIXTURES / "locomo_truncated.json")
    with pytest.raises(FormatError, match="max_bytes"):
        load_locomo(SMALL, max_bytes=100)
    with pytest.raises(FormatError, match="folder"):
        load_locomo(tmp_path)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(FormatError, match="nested too deeply"):
        load_locomo(deep)
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(FormatError, match="empty"):
        load_locomo(empty)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"sample": 5}, "holds 2 sample"),
        ({"sample": "conv-z"}, "no sample has sample_id 'conv-z'"),
        ({"sample": 1.0}, "position or a sample_id"),
        ({"assistant": "Zed"}, "assistant must be"),
        ({"questions": "later"}, "questions must be one of"),
        ({"categories": "12"}, "categories"),
    ],
)
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(InvalidArgumentError, match=match):
        load_locomo(SMALL, **kwargs)


def test_the_input_file_is_not_changed():
    data = small()
    before = copy.deepcopy(data)
    from_locomo(data)
    assert data == before


def test_a_longmemeval_file_is_recognised_and_named():
    with pytest.raises(FormatError, match="looks like a LongMemEval file.*load_longmemeval"):
        load_locomo(FIXTURES / "longmemeval_small.json")


def test_quirks_of_the_published_file_are_read():
    # locomo10.json writes some ids "D:11:26", holds bare "D" items and several ids in one item
    s = load_locomo(SMALL, sample=0)[0]
    assert next(p for p in s.probes if p.question.startswith("What color")).evidence_steps == (4,)
    data = mutated(set_at(0, "qa", 0, "evidence", ["D", "D1:4", "D1:4", ""]))
    assert from_locomo(data, sample=0)[0].probes[0].evidence_steps == (3,)


def test_messages_stay_short_whatever_the_file_holds():
    huge = "D" + "9" * 5000 + ":1"
    with pytest.raises(FormatError) as caught:
        from_locomo(mutated(set_at(0, "qa", 0, "evidence", [huge])), source="x.json", strict=True)
    assert len(str(caught.value)) < 400
    with pytest.warns(BenchmarkFileWarning) as warned:
        [s] = from_locomo(mutated(set_at(0, "qa", 0, "evidence", [huge])), source="x.json", sample=0)
    assert len(str(warned[0].message)) < 400 and all(len(x["problem"]) < 200 for x in s.meta["anomalies"])
    data = mutated(lambda d: d[0]["conversation"].update({"k" * 10_000: 1}))
    data[0]["conversation"].pop("speaker_a")
    with pytest.raises(FormatError) as caught:
        from_locomo(data, source="x.json")
    assert len(str(caught.value)) < 600
    with pytest.raises(FormatError, match="session number is too large"):
        from_locomo(mutated(lambda d: d[0]["conversation"].update({"session_" + "1" * 5000: []})), source="x.json")


# ----------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def locomo_samples(draw):
    """A random valid sample: 1–4 sessions of 1–6 turns by either speaker, questions on random turns."""
    conversation = {"speaker_a": "Ana", "speaker_b": "Ben"}
    ids = []
    for n in range(1, draw(st.integers(1, 4)) + 1):
        conversation[f"session_{n}_date_time"] = f"{n}:00 pm on {n} May, 2023"
        turns = []
        for j in range(1, draw(st.integers(1, 6)) + 1):
            speaker = draw(st.sampled_from(["Ana", "Ben"]))
            turns.append({"speaker": speaker, "dia_id": f"D{n}:{j}", "text": f"turn {n}-{j} by {speaker}"})
            ids.append(f"D{n}:{j}")
        conversation[f"session_{n}"] = turns
    qa = [
        {"question": f"question {q}?", "answer": f"answer {q}", "category": draw(st.integers(1, 4)),
         "evidence": draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3))}
        for q in range(draw(st.integers(1, 5)))
    ]
    return {"sample_id": "p", "conversation": conversation, "qa": qa}


@settings(max_examples=40, deadline=None)
@given(locomo_samples(), st.sampled_from([None, "speaker_a", "speaker_b"]), st.sampled_from(["appended", "final"]))
def test_property_every_evidence_turn_is_in_an_evidence_step_before_t(sample, assistant, questions):
    [s] = from_locomo([sample], assistant=assistant, questions=questions)
    held = {i: k for k, step in enumerate(s.steps) for i in step.meta.get("dia_ids", ())}
    turns = [t for key in sample["conversation"] if key.startswith("session_") and not key.endswith("time")
             for t in sample["conversation"][key]]
    assert set(held) == {t["dia_id"] for t in turns}  # every turn is in exactly one step
    for t in turns:
        assert t["text"] in s.steps[held[t["dia_id"]]].text
    assert len(s.probes) == len(sample["qa"])
    for p, item in zip(s.probes, sample["qa"]):
        assert p.evidence_steps == tuple(sorted({held[i] for i in item["evidence"]}))
        assert max(p.evidence_steps) < p.t and p.reference == item["answer"]
        if questions == "appended":
            assert s.steps[p.t - 1].observation == item["question"]
        else:
            assert p.t == len(s)
    assert Scenario.from_dict(s.to_dict()) == s


def test_strict_is_a_flag_and_the_path_a_path():
    # strict="no" was read as true: the file's first anomaly raised a FormatError
    with pytest.raises(InvalidArgumentError, match="load_locomo: strict must be True or False, got str 'no'"):
        load_locomo(SMALL, strict="no")
    with pytest.raises(InvalidArgumentError, match="from_locomo: strict must be True or False, got int 1"):
        from_locomo(small(), strict=1)
    # Path(3) raised a raw TypeError
    with pytest.raises(InvalidArgumentError, match="the path of the benchmark file must be a str or a pathlib.Path, got int 3"):
        load_locomo(3)
    # a max_bytes of the wrong kind is an argument error, not a malformed file
    with pytest.raises(InvalidArgumentError, match="load_locomo: max_bytes must be a whole number ≥ 1, got str '1'"):
        load_locomo(SMALL, max_bytes="1")
    with pytest.raises(InvalidArgumentError, match=r"from_locomo: categories\[0\] must be a whole number, got str '1'"):
        from_locomo(small(), categories=["1"])
