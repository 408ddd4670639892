"""What every catalogue of wrong answers asserts (imported by the tests beside it, as ``catalogue``)."""

from __future__ import annotations

from collections.abc import Mapping

from stmviz.exercise_solutions import SOLUTIONS


def solved(key: str, name: str):
    """The name ``name`` defined by the reference solution of exercise ``key`` (what a solved cell defines)."""
    namespace: dict = {}
    exec(compile(SOLUTIONS[key], key, "exec"), namespace)  # noqa: S102 - the package's own reference solutions
    return namespace[name]


def assert_fails(report, faults: Mapping[str, str], not_judged: tuple[str, ...] = ()) -> None:
    """Exactly the criteria in ``faults`` fail, each hint holds its phrase, exactly ``not_judged`` wait, and the
    answer does not pass (the criteria's dependencies named by the test, not read from the checker)."""
    assert report.done and not report.ok, str(report)
    assert sorted(c.name for c in report.failures) == sorted(faults), str(report)
    for c in report.failures:
        assert faults[c.name] in c.hint, f"the hint of ✗ {c.name} should name {faults[c.name]!r}:\n{report}"
    assert sorted(c.name for c in report.not_judged) == sorted(not_judged), str(report)


def assert_exactly(report, faults: Mapping[str, str], criteria: Mapping[str, tuple]) -> None:
    """The report fails exactly ``faults`` (criterion → a phrase its hint must hold); the criteria needing a failed
    one are not judged; everything else is met; and the answer does not pass."""
    assert report.done, str(report)
    assert not report.ok, str(report)
    failed = {c.name for c in report.failures}
    assert failed == set(faults), f"expected ✗ exactly {sorted(faults)}:\n{report}"
    for c in report.failures:
        assert faults[c.name] in c.hint, f"the hint of ✗ {c.name} should name its fault ({faults[c.name]!r}):\n{report}"
    needs = {name: set(spec[2]) if len(spec) > 2 else set() for name, spec in criteria.items()}

    def waits(name: str) -> bool:
        return any(n in failed or waits(n) for n in needs[name])

    for c in report.criteria:
        if c.name in failed:
            continue
        if waits(c.name):
            assert c.passed is None, f"{c.name} needs a failed criterion, yet was judged:\n{report}"
        else:
            assert c.passed is True, f"{c.name} should be met:\n{report}"
