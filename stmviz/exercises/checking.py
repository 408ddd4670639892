"""How a checker reports: one criterion per property of the answer, each with a hint that names its fault.

A checker runs the student's answer on cases chosen to tell faults apart and
records, for each criterion, whether the answer has the property it names.
A criterion may *need* others (``needs=``): when one of those fails, it is not
judged — shown as "·" with the criterion it waits for, and worth no point —
so a student is never told about a fault their answer does not have because
an earlier one hides it. A checker never raises on a student's mistake: what
went wrong is a ✗ line with the value that showed it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..contract import check_mechanism
from ..core import guards
from ..core.context import AgentStep
from ..core.formatting import shorten
from ..core.i18n import gettext as _
from ..core.i18n import ngettext
from ..core.mechanism import Mechanism
from ..core.space import StateSpace
from ..core.trace import Trace, run

__all__ = ["Criterion", "ExerciseReport", "Checks", "call_answer", "checked_run", "error_text"]


@dataclass(frozen=True)
class Criterion:
    """One criterion of an exercise: whether the answer met it (``None``: not judged), what showed it, and a hint.

    >>> print(Criterion("boundary", False, "Σμ = V_max was rejected", "Definition 1 says ≤, not <"))
    ✗ boundary: Σμ = V_max was rejected
        hint: Definition 1 says ≤, not <
    >>> print(Criterion("a set", None, "not judged until 'boundary' is met"))
    · a set: not judged until 'boundary' is met
    """

    name: str
    passed: bool | None
    detail: str
    hint: str = ""

    def __str__(self) -> str:
        mark = "·" if self.passed is None else "✓" if self.passed else "✗"
        line = f"{mark} {_(self.name)}: {self.detail}"
        if self.passed is False and self.hint:
            return line + "\n    " + _("hint: {hint}").format(hint=self.hint)
        return line


class ExerciseReport:
    """What a checker found: one :class:`Criterion` per line; ``done`` is False while the TODO is left as is."""

    def __init__(self, exercise: str, criteria: list[Criterion], done: bool = True, todo: str = "") -> None:
        self.exercise = exercise
        self.criteria = criteria
        self.done = guards.flag(done, "done", where="ExerciseReport")
        self.todo = todo  # what the untouched exercise said (its NotImplementedError), while not done

    @property
    def ok(self) -> bool:
        """Whether every criterion was met."""
        return self.done and all(c.passed is True for c in self.criteria)

    @property
    def failures(self) -> list[Criterion]:
        """The criteria judged and not met (a criterion waiting for another is not among them)."""
        return [c for c in self.criteria if c.passed is False]

    @property
    def not_judged(self) -> list[Criterion]:
        """The criteria not judged, because a criterion they need was not met."""
        return [c for c in self.criteria if c.passed is None]

    def failed(self, name: str) -> bool:
        """Whether the criterion ``name`` was judged and not met (an unknown name raises, so a test cannot pass by a typo)."""
        guards.choice(name, "name", [c.name for c in self.criteria], f"the criteria of exercise {self.exercise!r}",
                      where="ExerciseReport.failed")
        return next(c.passed for c in self.criteria if c.name == name) is False

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        exercise = _(self.exercise)
        if not self.done:
            head = _("{exercise}: not done yet ({todo}) — replace the TODO in the exercise cell, "
                     "then run this cell again").format(exercise=exercise, todo=self.todo)
        elif self.ok:
            head = _("{exercise}: every criterion is met ✓").format(exercise=exercise)
        else:
            n, m = len(self.failures), len(self.criteria)
            head = ngettext("{exercise}: {n} of {m} criteria not met", "{exercise}: {n} of {m} criteria not met",
                            m).format(exercise=exercise, n=n, m=m)
            if self.not_judged:
                head += ngettext(", {k} not judged until those are met", ", {k} not judged until those are met",
                                 len(self.not_judged)).format(k=len(self.not_judged))
        return "\n".join([head] + ["  " + str(c).replace("\n", "\n  ") for c in self.criteria])

    __repr__ = __str__


class Checks:
    """Collects a checker's findings; the first failure of a criterion is the one reported.

    ``criteria`` maps each name to ``(what it means when met, the hint when not)``, or to
    ``(met, hint, needs)`` where ``needs`` names the criteria it is judged after: a criterion
    whose needed criterion failed is reported as not judged, whatever was found for it.
    """

    def __init__(self, exercise: str, criteria: Mapping[str, tuple[str, ...]]) -> None:
        self.exercise = exercise
        self.spec = {name: (spec[0], spec[1]) for name, spec in criteria.items()}  # name -> (met, hint)
        self.needs = {name: tuple(spec[2]) if len(spec) > 2 else () for name, spec in criteria.items()}
        unknown = {n for needed in self.needs.values() for n in needed} - set(self.spec)
        if unknown:  # a programming error in a checker
            raise KeyError(f"criteria needed but not defined: {sorted(unknown)}")
        self.failures: dict[str, str] = {}
        self.hints: dict[str, str] = {}  # a hint naming the fault found, where it differs from the criterion's own

    def fail(self, name: str, detail: str, hint: str | None = None) -> None:
        if name not in self.spec:  # a programming error in this module
            raise KeyError(name)
        if name not in self.failures:
            self.failures[name] = detail
            if hint is not None:
                self.hints[name] = hint

    def check(self, name: str, condition: bool, detail: str, hint: str | None = None) -> bool:
        if not condition:
            self.fail(name, detail, hint)
        return condition

    def blocked_by(self, name: str) -> list[str]:
        """The criteria ``name`` needs (directly or through another) that failed."""
        blocked, todo, seen = [], list(self.needs[name]), set()
        while todo:
            needed = todo.pop(0)
            if needed in seen:
                continue
            seen.add(needed)
            if needed in self.failures:
                blocked.append(needed)
            todo.extend(self.needs[needed])
        return blocked

    def report(self) -> ExerciseReport:
        criteria = []
        for name, (met, hint) in self.spec.items():
            blocked = self.blocked_by(name)
            if blocked:
                waits = _(" and ").join(repr(_(b)) for b in blocked)
                criteria.append(Criterion(name, None, _("not judged until {criteria} is met").format(criteria=waits)))
            else:
                criteria.append(Criterion(name, name not in self.failures, self.failures.get(name, _(met)),
                                          self.hints.get(name, _(hint) if hint else hint)))
        return ExerciseReport(self.exercise, criteria)

    def not_done(self, exc: BaseException) -> ExerciseReport:
        """Every criterion ✗ with what it will check, and no hint: the hints come once there is an answer."""
        return ExerciseReport(self.exercise, [
            Criterion(name, False, _("not checked yet — {criterion}").format(criterion=_(met)))
            for name, (met, _hint) in self.spec.items()
        ], done=False, todo=shorten(str(exc) or "TODO", 100))


def call_answer(fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """Call the student's code: (True, result), or (False, the exception) — NotImplementedError is re-raised."""
    try:
        return True, fn(*args)
    except NotImplementedError:
        raise
    except Exception as exc:  # a student's bug becomes a ✗ line, not a traceback
        return False, exc


def checked_run(
    c: Checks, make: Any, space: StateSpace, steps: Sequence[AgentStep], *,
    check_steps: Sequence[AgentStep] | None = None, todo: str,
) -> tuple[Mechanism, Trace] | ExerciseReport:
    """Build the student's mechanism, check its contract (criterion "contract") and run it on ``steps``.

    Returns the mechanism and its trace, or the report to give back at once: "not done yet" while
    the mechanism still raises its TODO, a ✗ when it cannot be built or run.
    """
    try:
        ok, mechanism = call_answer(make, space)
        if not ok:
            c.fail("contract", _("could not build the mechanism: {error}").format(error=error_text(mechanism)))
            return c.report()
        contract = check_mechanism(mechanism, check_steps) if check_steps is not None else check_mechanism(mechanism)
        if not contract.ok and any("TODO" in r.detail or "NotImplementedError" in r.detail for r in contract.failures):
            raise NotImplementedError(todo)
        c.check("contract", contract.ok,
                _("check_mechanism fails: {failures}").format(failures="; ".join(r.detail for r in contract.failures)))
        ok, trace = call_answer(run, mechanism, steps)
    except NotImplementedError as exc:
        return c.not_done(exc)
    if not ok:
        c.fail("contract", _("run() failed: {error}").format(error=error_text(trace)))
        return c.report()
    return mechanism, trace


def error_text(exc: BaseException) -> str:
    """What a student's code raised, in one line."""
    return _("it raised {error}: {message}").format(error=type(exc).__name__, message=shorten(str(exc), 120))
