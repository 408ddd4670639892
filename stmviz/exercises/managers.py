"""Notebook 11's exercise — the managers you use: π of tool-result clearing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.formatting import shorten
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_clear_tool_results"]


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
    c = Checks("11 · tool-result clearing as π", {
        "recent kept": ("the `keep` most recent tool results are shown as they are",
                        "count the tool results from the end: the newest `keep` of them keep their content"),
        "older cleared": ("every older tool result shows the placeholder",
                          "all but the `keep` newest tool results (role 'tool') show `placeholder` instead of their content"),
        "nothing else changes": ("user and assistant messages (the calls) are shown as they are, every message once, in order",
                                 "replace only the content of role 'tool' messages; a cleared result keeps its place after "
                                 "its call, and no message is dropped or moved"),
        "ω untouched": ("the stored messages are unchanged after π (π builds a copy for each model call)",
                        "you changed the messages in place: π must build new dicts (e.g. {**m, 'content': placeholder}) "
                        "and leave ω — the history the client keeps — as it was; changing it would be U's work"),
        "edge cases": ("keep ≥ the number of results clears nothing; keep = 0 clears every result",
                       "with keep = 0 nothing is kept; with more `keep` than results there is nothing to clear"),
    })
    try:
        for keep, placeholder in ((1, "[cleared]"), (2, "[result cleared to save context]"), (0, "[x]"), (5, "[x]")):
            history = _history()
            before = [dict(m) for m in history]
            ok, got = call_answer(project, history, keep, placeholder)
            if got is None:
                raise NotImplementedError("project returned None")
            if not ok:
                c.fail("recent kept", error_text(got))
                continue
            c.check("ω untouched", history == before, f"keep={keep}: the messages after π were {shorten(str(history), 100)}")
            if not isinstance(got, list) or not all(isinstance(m, dict) for m in got):
                c.fail("nothing else changes", f"π returned {type(got).__name__}, not a list of message dicts")
                continue
            expected = _reference_clear(before, keep, placeholder)
            if len(got) != len(expected) or [m.get("role") for m in got] != [m["role"] for m in expected]:
                c.fail("nothing else changes", f"keep={keep}: roles in order {[m.get('role') for m in got]}, "
                                               f"expected {[m['role'] for m in expected]}")
                continue
            others = [k for k, m in enumerate(expected) if m["role"] != "tool"]
            c.check("nothing else changes", all(got[k].get("content") == expected[k]["content"] for k in others),
                    f"keep={keep}: a user or assistant message changed")
            results = [k for k, m in enumerate(expected) if m["role"] == "tool"]
            kept = results[len(results) - min(keep, len(results)):] if keep else []
            older = [k for k in results if k not in kept]
            name = "edge cases" if keep in (0, 5) else None
            if not all(got[k].get("content") == expected[k]["content"] for k in kept):
                c.fail(name or "recent kept", f"keep={keep}: the newest results show "
                                              f"{[shorten(str(got[k].get('content')), 30) for k in kept]}")
            if not all(got[k].get("content") == placeholder for k in older):
                c.fail(name or "older cleared", f"keep={keep}: the older results show "
                                                f"{[shorten(str(got[k].get('content')), 30) for k in older]}")
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
