"""How a checker reports (stmviz.exercises.checking): a criterion that needs a failed one is not judged."""

from __future__ import annotations

import pytest

from stmviz.exercises.checking import Checks, Criterion


def _checks() -> Checks:
    return Checks("demo", {
        "boundary": ("Σμ = V_max is a state", "≤, not <"),
        "a set": ("a duplicate counts once", "build set(elements)", ("boundary",)),
        "sizes": ("sizes add up", "add μ(e)"),
        "deep": ("needs a set", "…", ("a set",)),
    })


def test_a_criterion_whose_needed_criterion_failed_is_not_judged_and_shows_why():
    c = _checks()
    c.fail("boundary", "Σμ = 10 = V_max was rejected")
    c.fail("a set", "a duplicate was counted twice")  # found, but hidden by the boundary fault
    report = c.report()
    assert [x.name for x in report.failures] == ["boundary"]
    assert [x.name for x in report.not_judged] == ["a set", "deep"]  # "deep" waits through "a set"
    assert report.failed("boundary") and not report.failed("a set") and not report.ok
    text = str(report)
    assert "· a set: not judged until 'boundary' is met" in text
    assert "build set(elements)" not in text  # no hint blames a fault the answer was not judged on
    assert "1 of 4 criteria not met, 2 not judged until those are met" in text


def test_when_the_needed_criterion_passes_the_dependent_one_is_judged():
    c = _checks()
    c.fail("a set", "a duplicate was counted twice")
    report = c.report()
    assert report.failed("a set") and [x.name for x in report.not_judged] == ["deep"]
    assert "hint: build set(elements)" in str(report)


def test_a_report_without_dependencies_reads_as_before():
    c = Checks("demo", {"one": ("met", "hint one"), "two": ("met too", "hint two")})
    c.fail("two", "wrong")
    assert str(c.report()) == "demo: 1 of 2 criteria not met\n  ✓ one: met\n  ✗ two: wrong\n      hint: hint two"


def test_a_need_that_names_no_criterion_is_a_programming_error():
    with pytest.raises(KeyError, match="nope"):
        Checks("demo", {"one": ("met", "hint", ("nope",))})


def test_a_criterion_not_judged_is_worth_no_point_in_a_grade():
    assert not Criterion("x", None, "not judged").passed
