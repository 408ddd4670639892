"""Notebook 11's exercise: π of tool-result clearing, checked with a ✗ and a hint naming each fault."""

from __future__ import annotations

from stmviz.exercise_solutions import SOLUTIONS
from stmviz.exercises import check_clear_tool_results


def solved():
    namespace: dict = {}
    exec(SOLUTIONS["11-clear-results"], namespace)
    return namespace["project"]


def test_the_solution_meets_every_criterion():
    report = check_clear_tool_results(solved())
    assert report.ok, str(report)


def test_todo_is_not_done_yet():
    def project(messages, keep, placeholder):
        raise NotImplementedError("TODO: write π")

    report = check_clear_tool_results(project)
    assert not report.done and "not done yet (TODO: write π)" in str(report)


def test_changing_the_history_in_place_is_us_work():
    def project(messages, keep, placeholder):
        results = [m for m in messages if m["role"] == "tool"]
        for m in results[: max(len(results) - keep, 0)]:
            m["content"] = placeholder  # edits ω itself
        return messages

    report = check_clear_tool_results(project)
    assert report.failed("ω untouched") and not report.failed("older cleared") and "U's work" in str(report)


def test_off_by_one_keeps_too_many():
    def project(messages, keep, placeholder):
        results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
        cleared = set(results[: max(len(results) - keep - 1, 0)])
        return [{**m, "content": placeholder} if k in cleared else dict(m) for k, m in enumerate(messages)]

    report = check_clear_tool_results(project)
    assert report.failed("older cleared") and not report.failed("recent kept")


def test_dropping_the_cleared_results_breaks_the_pairs():
    def project(messages, keep, placeholder):
        results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
        cleared = set(results[: max(len(results) - keep, 0)])
        return [dict(m) for k, m in enumerate(messages) if k not in cleared]

    report = check_clear_tool_results(project)
    assert report.failed("nothing else changes") and "dropped" in str(report)


def test_keep_zero_edge_case():
    def project(messages, keep, placeholder):
        results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
        cleared = set(results[:-keep])  # results[:-0] is empty: keep = 0 clears nothing
        return [{**m, "content": placeholder} if k in cleared else dict(m) for k, m in enumerate(messages)]

    report = check_clear_tool_results(project)
    assert report.failed("edge cases") and not report.failed("older cleared") and not report.failed("recent kept")


def test_a_crash_is_a_cross_not_a_traceback():
    report = check_clear_tool_results(lambda messages, keep, placeholder: 1 / 0)
    assert not report.ok and "ZeroDivisionError" in str(report)
