"""The optional LLM reader and judge, with fake OpenAI-compatible clients (nothing is sent anywhere)."""

from types import SimpleNamespace

import pytest

from stmviz import FIFOWindow, StateSpace, run
from stmviz.core.errors import InvalidArgumentError, STMError
from stmviz.scenarios import Probe, generate_dialogue
from stmviz.text import Judgement, ReadAnswer, judge_answers, read_answers


class FakeChat:
    """A fake OpenAI-compatible client: answers with ``respond(prompt)``, records every call."""

    def __init__(self, respond):
        self.respond = respond
        self.calls = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, model, messages, **options):
        self.calls.append((model, messages, options))
        content = self.respond(messages[0]["content"])
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=content))])


def reader_that_looks(prompt):
    """A 'model' that answers with the key string when the context holds it (it knows the probes' answers)."""
    context = prompt.split("Context:\n", 1)[1].split("\n\nQuestion:", 1)[0]
    for answer in ANSWERS:
        if answer in context:
            return f"It is {answer}."
    return "I do not know."


SCENARIO = generate_dialogue(120, facts=3, distances=[1, 10, 100], distractors=1, seed=4)
ANSWERS = [p.answer for p in SCENARIO.probes]
TRACE = run(FIFOWindow(StateSpace("tokens", 400)), SCENARIO)


def test_the_reader_answers_each_probe_from_its_model_input():
    client = FakeChat(reader_that_looks)
    records = read_answers(TRACE, SCENARIO.probes, client, model="reader-1", temperature=0)
    assert [r.t for r in records] == [p.t for p in SCENARIO.probes]
    assert all(isinstance(r, ReadAnswer) and r.model == "reader-1" for r in records)
    # the prompt holds exactly the text of x_t = π(ω_t) and the question
    for (model, messages, options), p in zip(client.calls, SCENARIO.probes):
        assert model == "reader-1" and options == {"temperature": 0}
        assert TRACE.project(p.t).text() in messages[0]["content"] and p.question in messages[0]["content"]
    # a far fact fell out of the window: the reader cannot find it, and the key string is gone too
    assert records[0].answer == f"It is {ANSWERS[0]}." and records[0].retained is True
    assert records[2].answer == "I do not know." and records[2].retained is False
    assert records[0].to_dict()["reference"] == SCENARIO.probes[0].reference_answer


def test_the_judge_grades_each_answer_against_its_reference():
    read = read_answers(TRACE, SCENARIO.probes, FakeChat(reader_that_looks), model="r")

    def judge(prompt):
        reference = prompt.split("Reference answer: ", 1)[1].split("\n", 1)[0]
        answer = prompt.split("\nAnswer: ", 1)[1].split("\n", 1)[0]
        return "CORRECT\nSame value." if reference in answer else "**Incorrect** - the value is missing."

    client = FakeChat(judge)
    verdicts = judge_answers(read, client, model="judge-1")
    assert [v.correct for v in verdicts] == [True, True, False]
    assert verdicts[0].reason == "Same value." and verdicts[2].reason == "the value is missing."
    assert all(isinstance(v, Judgement) and v.model == "judge-1" for v in verdicts)
    assert [v.t for v in verdicts] == [p.t for p in SCENARIO.probes]
    assert "Reference answer: " + SCENARIO.probes[0].reference_answer in client.calls[0][1][0]["content"]


@pytest.mark.parametrize(
    "reply, correct",
    [("correct", True), ("INCORRECT.", False), ("Yes, it matches.", True), ("No: wrong city", False),
     ("  Right", True), ("Wrong answer", False)],
)
def test_verdict_words_are_read(reply, correct):
    [v] = judge_answers([{"question": "q", "reference": "r", "answer": "a"}], FakeChat(lambda _: reply), model="m")
    assert v.correct is correct and v.t is None


@pytest.mark.parametrize("reply", ["Maybe.", "The answer is partly right", ""])
def test_a_reply_without_a_verdict_is_an_error(reply):
    with pytest.raises(STMError, match="must start with CORRECT or INCORRECT"):
        judge_answers([{"question": "q", "reference": "r", "answer": "a"}], FakeChat(lambda _: reply), model="m")


def test_a_malformed_response_object_is_an_error():
    broken = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=lambda **kw: {"choices": []})))
    with pytest.raises(STMError, match="no choices"):
        read_answers(TRACE, SCENARIO.probes, broken, model="m")
    with pytest.raises(STMError, match="no text"):
        read_answers(TRACE, SCENARIO.probes, FakeChat(lambda _: None), model="m")


@pytest.mark.parametrize("client, match", [(None, "nothing is sent without one"), (object(), "OpenAI-compatible")])
def test_no_client_no_call(client, match):
    with pytest.raises(InvalidArgumentError, match=match):
        read_answers(TRACE, SCENARIO.probes, client, model="m")
    with pytest.raises(InvalidArgumentError, match=match):
        judge_answers([], client, model="m")


def test_bad_arguments_are_refused_before_anything_is_sent():
    client = FakeChat(lambda _: "x")
    with pytest.raises(InvalidArgumentError, match="model"):
        read_answers(TRACE, SCENARIO.probes, client, model="")
    with pytest.raises(InvalidArgumentError, match="recorded run"):
        read_answers("not a trace", SCENARIO.probes, client, model="m")
    with pytest.raises(InvalidArgumentError, match=r"read_answers: probes\[0\] must be a Probe .*got str 'What\?'"):
        read_answers(TRACE, ["What?"], client, model="m")
    with pytest.raises(InvalidArgumentError, match=r"probes\[0\] 'Name\?' is asked at t = 500, but the trace has states"):
        read_answers(TRACE, [Probe(500, "Name?", "Ada", 0)], client, model="m")
    with pytest.raises(InvalidArgumentError, match=r"answers\[0\]\.reference must be text .*got NoneType None"):
        judge_answers([{"question": "q", "answer": "a"}], client, model="m")
    with pytest.raises(InvalidArgumentError, match="t must be"):
        judge_answers([{"question": "q", "reference": "r", "answer": "a", "t": "3"}], client, model="m")
    assert client.calls == []


def test_a_prompt_that_cannot_be_filled_is_refused_before_anything_is_sent():
    client = FakeChat(lambda _: "CORRECT")
    # "{txt}" raised a raw KeyError at the first call
    with pytest.raises(InvalidArgumentError, match=r"read_answers: prompt is not a prompt template stmviz can fill \(KeyError: 'txt'\)"):
        read_answers(TRACE, SCENARIO.probes, client, model="m", prompt="Read {txt}")
    with pytest.raises(InvalidArgumentError, match=r"judge_answers: prompt is not a prompt template .*\{question\}, \{reference\}, \{answer\}"):
        judge_answers([{"question": "q", "reference": "r", "answer": "a"}], client, model="m", prompt="{0}")
    with pytest.raises(InvalidArgumentError, match=r"judge_answers: answers must be a list"):
        judge_answers(7, client, model="m")
    assert client.calls == []
