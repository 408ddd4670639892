"""Notebook 09's exercises: each wrong answer a student writes fails exactly its faults, each hint names its fault."""

from __future__ import annotations

import pytest
from wrong_answers import assert_fails, solved

from stmviz.exercises import check_chat_steps, check_steps_prediction

# -- chat_steps -------------------------------------------------------------------------------------------

def same_index(messages):  # (a_k, u_k): the reply put before the message it answers
    users = [m["content"] for m in messages if m["role"] == "user"]
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    return [(replies[k] if k < len(replies) else None, u) for k, u in enumerate(users)]


def drops_last_reply(messages):
    steps, output = [], None
    for m in messages:
        if m["role"] == "assistant":
            output = m["content"]
        else:
            steps.append((output, m["content"]))
            output = None
    return steps


def extra_empty_step(messages):  # always appends (output, None), even after a user message
    return drops_last_reply(messages) + [(messages[-1]["content"] if messages[-1]["role"] == "assistant" else None, None)]


def user_as_output(messages):  # (u_k, a_k): the user's message as the output
    return [(m["content"], n["content"]) for m, n in zip(messages[::2], messages[1::2])]


def missing_step_0(messages):  # starts at the first reply: every step shifted by one (the case)
    steps = []
    for k, m in enumerate(messages):
        if m["role"] == "assistant":
            after = messages[k + 1]["content"] if k + 1 < len(messages) else None
            steps.append((m["content"], after))
    return steps


def one_step_per_message(messages):  # each message a step of its own
    return [(m["content"], None) if m["role"] == "assistant" else (None, m["content"]) for m in messages]


def consumes_the_log(messages):  # pops each message off the list it was given
    steps, output = [], None
    while messages:
        m = messages.pop(0)
        if m["role"] == "assistant":
            output = m["content"]
        else:
            steps.append((output, m["content"]))
            output = None
    return steps + ([(output, None)] if output is not None else [])


CHAT_CATALOGUE = [
    # answer, {criterion: a phrase its hint must hold}, the criteria not judged
    (same_index, {"step 0": "the model has produced nothing yet", "last reply": "nothing arrived after it"},
     ("reply then message",)),
    (drops_last_reply, {"last reply": "still a step"}, ()),
    (extra_empty_step, {"no extra step": "do not add an empty step"}, ()),
    (user_as_output, {"roles": "swapped"}, ("step 0", "reply then message", "last reply", "no extra step")),
    (missing_step_0, {"step 0": "step 0 of its own"}, ("reply then message",)),
    (one_step_per_message, {"reply then message": "opens step k"}, ()),
    (consumes_the_log, {"messages untouched": "changed the list it was given"}, ()),
]


@pytest.mark.parametrize("wrong, faults, not_judged", CHAT_CATALOGUE, ids=[w.__name__ for w, _, _ in CHAT_CATALOGUE])
def test_chat_steps_catalogue(wrong, faults, not_judged):
    assert_fails(check_chat_steps(wrong), faults, not_judged)


def test_a_missing_step_0_is_not_told_about_an_empty_step():
    report = check_chat_steps(missing_step_0)
    assert not report.failed("no extra step") and "empty step" not in str(report)


def test_the_reference_meets_every_chat_criterion():
    assert check_chat_steps(solved("09-chat-steps", "chat_steps")).ok


# -- the prediction ---------------------------------------------------------------------------------------

PREDICTION_CATALOGUE = [
    ((7, 5, 3), {"how many steps": "count of messages", "the booking message": "place in the list",
                 "the tool's result": "place in the list"}),
    ((6, 2, 1), {"how many steps": "count of messages"}),
    ((3, 2, 1), {"how many steps": "the system message is the query"}),
    ((4, 3, 1), {"the booking message": "not the step of the reply after it"}),
    ((4, 2, 2), {"the tool's result": "the step whose output called the tool"}),
    ("4, 2, 1", {"a tuple": "three whole numbers"}),
]


@pytest.mark.parametrize("wrong, faults", PREDICTION_CATALOGUE, ids=[str(w) for w, _ in PREDICTION_CATALOGUE])
def test_steps_prediction_catalogue(wrong, faults):
    not_judged = ("how many steps", "the tool's result", "the booking message") if "a tuple" in faults else ()
    assert_fails(check_steps_prediction(wrong), faults, not_judged)


def test_the_prediction_follows_the_importer():
    from stmviz.exercises import LISBON_CHAT
    from stmviz.scenarios import from_openai_messages

    assert len(from_openai_messages(LISBON_CHAT).steps) == solved("09-predict-steps", "prediction")[0]
    assert check_steps_prediction(solved("09-predict-steps", "prediction")).ok
    assert not check_steps_prediction(None).done
