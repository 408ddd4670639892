"""Notebook 11's exercise — the managers you use: π of tool-result clearing."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ..core.formatting import shorten
from ..core.i18n import N_
from ..core.i18n import gettext as _
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_clear_prediction", "check_clear_tool_results"]


def _history() -> list[dict[str, Any]]:
    """A stored history ω of six messages, three of them tool results (each after the call it answers)."""
    return [
        {"role": "user", "content": "Fix the failing test.", "call": None},
        {"role": "assistant", "content": "Read(totals.py)", "call": "c1"},
        {"role": "tool", "content": "def invoice_total(lines): ...", "call": "c1"},
        {"role": "assistant", "content": "Bash(pytest -q)", "call": "c2"},
        {"role": "tool", "content": "1 failed, 15 passed", "call": "c2"},
        {"role": "assistant", "content": "Read(docs/billing.md)", "call": "c3"},
        {"role": "tool", "content": "A discount applies before tax.", "call": "c3"},
    ]


def _reference_clear(messages: Sequence[dict[str, Any]], keep: int, placeholder: str) -> list[dict[str, Any]]:
    results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
    cleared = set(results[: max(len(results) - keep, 0)])
    return [{**m, "content": placeholder} if k in cleared else dict(m) for k, m in enumerate(messages)]


def check_clear_tool_results(project: Callable[..., Any]) -> ExerciseReport:
    """Notebook 11: ``project(messages, keep, placeholder)`` is π of tool-result clearing; ω stays as it is.

    Every tool result except the ``keep`` most recent shows ``placeholder``; every
    other message is shown as it is, in order; and the stored messages (the
    state ω) are left unchanged — clearing is π's work, not U's.
    """
    criteria: dict[str, tuple[Any, ...]] = {
        N_("recent kept"): (N_("the `keep` most recent tool results are shown as they are"),
                            N_("count the tool results from the end: the newest `keep` of them keep their content")),
        N_("older cleared"): (N_("every older tool result shows the placeholder"),
                              N_("all but the `keep` newest tool results (role 'tool') show `placeholder` instead of "
                                 "their content")),
        N_("nothing else changes"): (N_("user and assistant messages (the calls) are shown as they are, every message "
                                        "once, in order"),
                                     N_("replace only the content of role 'tool' messages; a cleared result keeps its "
                                        "place after its call, and no message is dropped or moved")),
        N_("ω untouched"): (N_("the stored messages are unchanged after π (π builds a copy for each model call)"),
                            N_("you changed the messages in place: π must build new dicts (e.g. {**m, 'content': "
                               "placeholder}) and leave ω — the history the client keeps — as it was; changing it "
                               "would be U's work")),
        # judged once the rule holds for an ordinary keep: an off-by-one shows at keep = 0 too
        N_("edge cases"): (N_("keep ≥ the number of results clears nothing; keep = 0 clears every result"),
                           N_("with keep = 0 nothing is kept; with more `keep` than results there is nothing to clear"),
                           ("recent kept", "older cleared")),
    }
    c = Checks(N_("11 · tool-result clearing as π"), criteria)
    try:
        for keep, placeholder in ((1, "[cleared]"), (2, "[result cleared to save context]"), (0, "[x]"), (5, "[x]")):
            history = _history()
            before = [dict(m) for m in history]
            ok, got = call_answer(project, history, keep, placeholder)
            if got is None:
                raise NotImplementedError(_("project returned None"))
            if not ok:
                c.fail("recent kept", error_text(got))
                continue
            c.check("ω untouched", history == before, _("keep={keep}: the messages after π were {messages}").format(
                keep=keep, messages=shorten(str(history), 100)))
            if not isinstance(got, list) or not all(isinstance(m, dict) for m in got):
                c.fail("nothing else changes", _("π returned {kind}, not a list of message dicts").format(
                    kind=type(got).__name__))
                continue
            expected = _reference_clear(before, keep, placeholder)
            if len(got) != len(expected) or [m.get("role") for m in got] != [m["role"] for m in expected]:
                c.fail("nothing else changes", _("keep={keep}: roles in order {got}, expected {want}").format(
                    keep=keep, got=[m.get("role") for m in got], want=[m["role"] for m in expected]))
                continue
            others = [k for k, m in enumerate(expected) if m["role"] != "tool"]
            c.check("nothing else changes", all(got[k].get("content") == expected[k]["content"] for k in others),
                    _("keep={keep}: a user or assistant message changed").format(keep=keep))
            results = [k for k, m in enumerate(expected) if m["role"] == "tool"]
            kept = results[len(results) - min(keep, len(results)):] if keep else []
            older = [k for k in results if k not in kept]
            name = "edge cases" if keep in (0, 5) else None
            if not all(got[k].get("content") == expected[k]["content"] for k in kept):
                c.fail(name or "recent kept", _("keep={keep}: the newest results show {shown}").format(
                    keep=keep, shown=[shorten(str(got[k].get("content")), 30) for k in kept]))
            if not all(got[k].get("content") == placeholder for k in older):
                c.fail(name or "older cleared", _("keep={keep}: the older results show {shown}").format(
                    keep=keep, shown=[shorten(str(got[k].get("content")), 30) for k in older]))
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()


# Every sentence a student reads from the prediction's checker, in one place (issue 35 translates them whole).
PREDICT_TEXT = {
    "title": N_("11 · predict where the tax rate is"),
    "pair met": N_("a pair of booleans: (the rate's file read is in ω_11, the rate is in π(ω_11))"),
    "pair hint": N_("answer (True or False, True or False): first for the state ω_11, then for the model input π(ω_11)"),
    "pair detail": N_("got {got!r}"),
    "omega met": N_("whether ClearToolUses still stores the file read of step 3 in ω_11"),
    "omega hint": N_("ClearToolUses is a π-manager: its U only adds, so ω keeps every message, old tool results included"),
    "pi met": N_("whether the tax rate reaches the model in π(ω_11)"),
    "pi hint": (N_("past its trigger, π shows every tool result but the keep = 3 newest as a placeholder: "
                   "the read of step 3 is older than three")),
    "detail": N_("predicted {got}; ClearToolUses gives {want}"),
}


def check_clear_prediction(prediction: Any) -> ExerciseReport:
    """Notebook 11: predict whether ClearToolUses keeps the tax rate (read at step 3) in ω_11 and in π(ω_11).

    Checked against notebook 11's ClearToolUses (V_max = 2,400 tokens, trigger at 850
    tokens, the 3 newest tool results kept) on the bundled Claude Code session.

    >>> check_clear_prediction((True, False)).ok
    True
    """
    from ..core import sizes
    from ..core.space import StateSpace
    from ..core.trace import run
    from ..managers import ClearToolUses
    from ..scenarios import TranscriptWarning, example_transcript, load_transcript

    criteria: dict[str, tuple[Any, ...]] = {
        N_("a pair"): (PREDICT_TEXT["pair met"], PREDICT_TEXT["pair hint"]),
        N_("in ω"): (PREDICT_TEXT["omega met"], PREDICT_TEXT["omega hint"], ("a pair",)),
        N_("in π"): (PREDICT_TEXT["pi met"], PREDICT_TEXT["pi hint"], ("a pair",)),
    }
    c = Checks(PREDICT_TEXT["title"], criteria)
    if prediction is None or prediction is ...:
        return c.not_done(NotImplementedError("prediction is None"))
    if not isinstance(prediction, (tuple, list)) or len(prediction) != 2 or not all(isinstance(b, bool) for b in prediction):
        c.fail("a pair", _(PREDICT_TEXT["pair detail"]).format(got=prediction))
        return c.report()
    with warnings.catch_warnings():  # the notebook has shown the session's report; the checker's output is its own
        warnings.simplefilter("ignore", TranscriptWarning)
        session = load_transcript(example_transcript("claude_code_session"))
    trace = run(ClearToolUses(StateSpace(sizes.tokens(), 2400), trigger=850, keep=3), session)
    rate = "0.0725"
    in_omega = any(rate in e.text for e in trace.state_at(11))
    in_pi = rate in trace.project(11).text()
    c.check("in ω", prediction[0] == in_omega, _(PREDICT_TEXT["detail"]).format(got=prediction[0], want=in_omega))
    c.check("in π", prediction[1] == in_pi, _(PREDICT_TEXT["detail"]).format(got=prediction[1], want=in_pi))
    return c.report()
