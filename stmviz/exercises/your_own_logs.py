"""Notebook 09's exercises — your own logs: a chat cut into steps of the loop, and a prediction of the cut."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.formatting import shorten
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["LISBON_CHAT", "check_chat_steps", "check_steps_prediction"]

#: Notebook 09's travel chat (OpenAI-style messages): a system prompt, Ada's request, a tool call and its
#: result, a reply, Ada's next message and the last reply.
LISBON_CHAT: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a travel assistant."},
    {"role": "user", "content": "I'm Ada. I need a hotel in Lisbon for May 3-6, under 150 EUR a night."},
    {"role": "assistant", "content": "Let me search.", "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "search_hotels", "arguments": "{\"city\": \"Lisbon\", \"max_price\": 150}"}}]},
    {"role": "tool", "tool_call_id": "call_1",
     "content": "Casa Azul 120 EUR (Alfama, 4.6 stars); Hotel Tejo 145 EUR (Baixa, 4.4 stars)"},
    {"role": "assistant", "content": "Casa Azul in Alfama is 120 EUR a night and rated 4.6."},
    {"role": "user", "content": "Book Casa Azul, and remember I'm vegetarian for the dinner tips."},
    {"role": "assistant", "content": "Booked Casa Azul for May 3-6. Noted: vegetarian."},
]

# Every sentence a student reads from these checkers, in one place (issue 35 translates them whole).
TEXT = {
    "steps": N_("09 · a chat as steps"),
    "roles met": N_("every output is a reply (or None) and every input a user message (or None)"),
    "roles hint": N_("the output of a step is the model's reply; the input is the user's message that arrives after it"),
    "roles swapped": N_("output and input are swapped: a step is (the model's reply, the user's message after it)"),
    "step 0 met": N_("step 0 is (None, the user's first message): no model call yet"),
    "step 0 hint": N_("the user speaks first and the model has produced nothing yet: step 0 is (None, u_0)"),
    "step 0 missing": N_("the user's first message has no step: it is step 0 of its own, (None, u_0), "
                         "before the first reply"),
    "pairs met": N_("step k is (reply a_{k−1}, the user's next message u_k), at its place k"),
    "pairs hint": N_("a reply is produced from π(ω_k), which holds the message it answers: "
                     "it opens step k, and the user's next message closes it"),
    "last met": N_("a chat that ends on a reply ends with the step (reply, None)"),
    "last hint": N_("the last reply has no input after it, but it is still a step: (a_n, None)"),
    "last paired": N_("the last reply came after every user message, so nothing arrived after it: "
                      "its step is (a_n, None), not (a_n, {got})"),
    "extra met": N_("a chat that ends on a user message ends with the step that holds that message"),
    "extra hint": N_("the chat ended on the user's message: do not add an empty step after it"),
    "untouched met": N_("the messages passed in are left as they were (the log is read, not consumed)"),
    "untouched hint": N_("chat_steps changed the list it was given (pop, remove or an edited dict): read the messages "
                         "with a loop and build a new list of steps, leaving the log as it is"),
    "untouched detail": N_("{chat}: after chat_steps the messages were {after}"),
    "got": N_("{chat}: got {got}"),
    "ending on a reply": N_("a chat ending on a reply"),
    "ending on a user message": N_("a chat ending on a user message"),
    "returned None": N_("chat_steps returned None"),
    "no list": N_("{chat}: chat_steps returned {kind}, not a list of (output, input) pairs"),
    # the prediction
    "predict": N_("09 · predict the steps"),
    "count met": N_("the number of steps the importer makes of the travel chat"),
    "count hint": N_("a step is a reply and what arrives after it; the system message is the query Q, not a step"),
    "count messages": N_("{got} is a count of messages; a step is a reply together with what arrives after it "
                         "(and step 0 is the first user message alone)"),
    "booking met": N_("the step whose input is Ada's \"Book Casa Azul\" message"),
    "booking hint": N_("the user's message closes the step the reply before it opened"),
    "booking index": N_("{got} is the message's place in the list; count steps, not messages"),
    "booking early": N_("the message closes the step its reply opened: step {got}, whose output is the reply about "
                        "Casa Azul, not the step of the reply after it"),
    "booking detail": N_("predicted step {got}; the message is the input of step {want}"),
    "tool met": N_("the step whose input is the tool's result"),
    "tool hint": N_("a tool's result is the input of the step whose output called the tool"),
    "tool detail": N_("predicted step {got}; the result is the input of step {want}"),
    "a tuple": N_("answer a tuple of three whole numbers: (steps, step of the booking message, step of the tool result)"),
    "not a tuple": N_("got {got!r}"),
}


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
    it is a step (a_n, None). Two chats are cut, one ending on a reply and one on
    a user message. Each criterion looks at one property: which half holds
    what ("roles"), the first step, each later step at its place, the end of
    either chat; the places are judged only once step 0 is right (a missing
    step 0 shifts every step, which is step 0's fault, not the pairs').

    >>> check_chat_steps(lambda messages: []).failed("step 0")
    True
    """
    criteria: dict[str, tuple[Any, ...]] = {  # (met, hint[, the criteria it needs])
        N_("roles"): (TEXT["roles met"], TEXT["roles hint"]),
        N_("step 0"): (TEXT["step 0 met"], TEXT["step 0 hint"], ("roles",)),
        N_("reply then message"): (TEXT["pairs met"], TEXT["pairs hint"], ("roles", "step 0")),
        N_("last reply"): (TEXT["last met"], TEXT["last hint"], ("roles",)),
        N_("no extra step"): (TEXT["extra met"], TEXT["extra hint"], ("roles",)),
        N_("messages untouched"): (TEXT["untouched met"], TEXT["untouched hint"]),
    }
    c = Checks(TEXT["steps"], criteria)
    u = [f"user says {i}" for i in range(3)]
    a = [f"assistant says {i}" for i in range(3)]
    ends_on_reply = [m for i in range(3) for m in ({"role": "user", "content": u[i]}, {"role": "assistant", "content": a[i]})]
    ends_on_user = ends_on_reply[:-1]
    try:
        for chat_text, messages in ((TEXT["ending on a reply"], ends_on_reply),
                                    (TEXT["ending on a user message"], ends_on_user)):
            chat = _(chat_text)
            given = [dict(m) for m in messages]
            ok, got = call_answer(chat_steps, given)
            c.check("messages untouched", given == messages,
                    _(TEXT["untouched detail"]).format(chat=chat, after=shorten(str(given), 100)))
            if got is None:
                raise NotImplementedError(_(TEXT["returned None"]))
            if not ok:
                c.fail("roles", f"{chat}: {error_text(got)}")
                continue
            if not isinstance(got, (list, tuple)) or not all(isinstance(s, (list, tuple)) and len(s) == 2 for s in got):
                c.fail("roles", _(TEXT["no list"]).format(chat=chat, kind=type(got).__name__))
                continue
            got = [tuple(s) for s in got]
            expected = _reference_chat_steps(messages)
            shown = _(TEXT["got"]).format(chat=chat, got=got)
            outputs_ok = all(s[0] is None or s[0] in a for s in got)
            inputs_ok = all(s[1] is None or s[1] in u for s in got)
            if not (outputs_ok and inputs_ok):
                swapped = all(s[0] is None or s[0] in u for s in got) and all(s[1] is None or s[1] in a for s in got)
                c.fail("roles", shown, hint=_(TEXT["roles swapped"]) if swapped else None)
                continue
            if got[:1] != expected[:1]:
                missing = bool(got) and got[0][1] != u[0] and all(s[1] != u[0] for s in got)
                c.fail("step 0", shown, hint=_(TEXT["step 0 missing"]) if missing else None)
            c.check("reply then message", got[1:len(expected)] == expected[1:len(got)] and len(got) >= len(expected) - 1,
                    shown)
            if messages[-1]["role"] == "assistant":
                paired = bool(got) and got[-1][0] == a[-1] and got[-1][1] is not None
                c.check("last reply", got[-1:] == expected[-1:], shown,
                        hint=_(TEXT["last paired"]).format(got=repr(got[-1][1])) if paired else None)
            else:
                c.check("no extra step", bool(got) and got[-1][1] == messages[-1]["content"], shown)
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()


def check_steps_prediction(prediction: Any) -> ExerciseReport:
    """Notebook 09: predict how the importer cuts :data:`LISBON_CHAT`, before running it.

    ``prediction`` is ``(number of steps, the step whose input is Ada's "Book Casa Azul" message,
    the step whose input is the tool's result)``; each is compared with what
    :func:`stmviz.scenarios.from_openai_messages` makes of the chat, and a wrong
    number that is a count of messages is named as such.

    >>> check_steps_prediction((4, 2, 1)).ok
    True
    """
    from ..scenarios import from_openai_messages  # late: keeps this module light

    criteria: dict[str, tuple[Any, ...]] = {
        N_("a tuple"): (TEXT["a tuple"], TEXT["a tuple"]),
        N_("how many steps"): (TEXT["count met"], TEXT["count hint"], ("a tuple",)),
        N_("the tool's result"): (TEXT["tool met"], TEXT["tool hint"], ("a tuple",)),
        N_("the booking message"): (TEXT["booking met"], TEXT["booking hint"], ("a tuple",)),
    }
    c = Checks(TEXT["predict"], criteria)
    if prediction is None or prediction is ...:
        return c.not_done(NotImplementedError("prediction is None"))
    if (not isinstance(prediction, (tuple, list)) or len(prediction) != 3
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in prediction)):
        c.fail("a tuple", _(TEXT["not a tuple"]).format(got=prediction))
        return c.report()
    steps = from_openai_messages([dict(m) for m in LISBON_CHAT]).steps
    count, booking, tool = prediction
    want_booking = next(t for t, s in enumerate(steps) if "Book Casa Azul" in (s.observation or ""))
    want_tool = next(t for t, s in enumerate(steps) if "Hotel Tejo" in (s.observation or ""))
    messages_at = {k: m for k, m in enumerate(LISBON_CHAT)}
    c.check("how many steps", count == len(steps),
            ngettext("predicted: {got}; the importer makes {want} steps",
                     "predicted: {got}; the importer makes {want} steps", len(steps)).format(got=count, want=len(steps)),
            hint=_(TEXT["count messages"]).format(got=count) if count in (len(LISBON_CHAT), len(LISBON_CHAT) - 1) else None)
    c.check("the tool's result", tool == want_tool, _(TEXT["tool detail"]).format(got=tool, want=want_tool),
            hint=_(TEXT["booking index"]).format(got=tool)
            if tool in messages_at and messages_at[tool].get("role") == "tool" else None)
    hint = None
    if booking in messages_at and "Book Casa Azul" in str(messages_at[booking].get("content")):
        hint = _(TEXT["booking index"]).format(got=booking)
    elif booking == want_booking + 1:
        hint = _(TEXT["booking early"]).format(got=want_booking)
    c.check("the booking message", booking == want_booking, _(TEXT["booking detail"]).format(got=booking, want=want_booking),
            hint=hint)
    return c.report()
