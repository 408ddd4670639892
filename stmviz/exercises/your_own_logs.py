"""Notebook 09's exercise — your own logs: a chat cut into steps of the loop."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_chat_steps"]


def _reference_chat_steps(messages: Sequence[dict[str, str]]) -> list[tuple[str | None, str | None]]:
    steps: list[tuple[str | None, str | None]] = []
    output: str | None = None
    for m in messages:
        if m["role"] == "assistant":
            if output is not None:
                steps.append((output, None))
            output = m["content"]
        else:
            steps.append((output, m["content"]))
            output = None
    if output is not None:
        steps.append((output, None))
    return steps


def check_chat_steps(chat_steps: Callable[[list[dict[str, str]]], Any]) -> ExerciseReport:
    """Notebook 09: ``chat_steps(messages)`` cuts a plain chat into steps ``(output, input)`` of the loop.

    A step holds the model's output, then the input that arrives after it: step
    0 = (None, u_0), step k = (a_{k−1}, u_k), and a last reply with nothing after
    it is a step (a_n, None).
    """
    c = Checks("09 · a chat as steps", {
        "step 0": ("step 0 is (None, the user's first message): no model call yet",
                   "the user speaks first; the model has produced nothing yet"),
        "reply then message": ("step k is (reply a_{k−1}, the user's next message u_k)",
                               "a reply is produced from π(ω_k), which holds the message it answers: "
                               "it opens a step, and the user's next message closes it"),
        "last reply": ("a chat that ends on a reply ends with the step (reply, None)",
                       "the last reply has no input after it, but it is still a step"),
        "no extra step": ("a chat that ends on a user message has no step after it", "do not add an empty step"),
    })
    u = [f"user says {i}" for i in range(3)]
    a = [f"assistant says {i}" for i in range(3)]
    ends_on_reply = [m for i in range(3) for m in ({"role": "user", "content": u[i]}, {"role": "assistant", "content": a[i]})]
    ends_on_user = ends_on_reply[:-1]
    try:
        for messages in (ends_on_reply, ends_on_user):
            ok, got = call_answer(chat_steps, [dict(m) for m in messages])
            if got is None:
                raise NotImplementedError("chat_steps returned None")
            if not ok:
                c.fail("step 0", error_text(got))
                continue
            got = [tuple(s) for s in got]
            expected = _reference_chat_steps(messages)
            shown = f"got {got}"
            c.check("step 0", got[:1] == expected[:1], shown)
            c.check("reply then message", [s for s in got if s[0] and s[1]] == [s for s in expected if s[0] and s[1]],
                    shown)
            if messages[-1]["role"] == "assistant":
                c.check("last reply", got[-1:] == expected[-1:], shown)
            else:
                c.check("no extra step", len(got) == len(expected), shown)
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
