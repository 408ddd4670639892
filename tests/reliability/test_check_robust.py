"""check_mechanism on odd mechanisms: it reports, never crashes, and never passes a clause it did not check."""

from __future__ import annotations

from collections import Counter, OrderedDict, defaultdict

import pytest

from stmviz import Element, Mechanism, State, StateSpace, check_mechanism, sizes
from stmviz.errors import InvalidArgumentError
from stmviz.core.operation import OperationSet


class _Keeper(Mechanism):
    """Keeps each step's observation while it fits; ``extra`` is any attribute a student might hold."""

    operations = OperationSet({"add": "add the observation if it fits"})

    def __init__(self, space: StateSpace, extra: object = None) -> None:
        super().__init__(space)
        self.extra = extra

    def update(self, state, operation, context):
        element = Element(context.step.observation or "(empty)", {"t": context.t})
        new = state | {element}
        return new if new in self.space else state


class _Unequal:
    """An attribute whose == raises, like a numpy array's truth value."""

    def __eq__(self, other):
        raise ValueError("the truth value is ambiguous")

    __hash__ = object.__hash__


class _NeedsArgs(list):
    """A list subclass whose constructor wants more than an iterable."""

    def __init__(self, first, second):
        super().__init__([first, second])


def _space() -> StateSpace:
    return StateSpace(sizes.words, v_max=200)


ODD_ATTRIBUTES = {
    "defaultdict": defaultdict(list, {"a": [1]}),
    "defaultdict-no-factory": defaultdict(None),
    "counter": Counter("abc"),
    "ordered": OrderedDict(a=1),
    "list-subclass-with-args": _NeedsArgs(1, 2),
    "list-of-unequal": [_Unequal()],
    "dict-of-unequal": {"x": _Unequal()},
    "set-of-frozensets": {frozenset({1})},
    "unequal": _Unequal(),
    "lambda": lambda x: x,
    "generator": (i for i in range(3)),
}


@pytest.mark.parametrize("extra", ODD_ATTRIBUTES.values(), ids=list(ODD_ATTRIBUTES))
def test_a_mechanism_holding_an_odd_attribute_is_checked(extra):
    report = check_mechanism(_Keeper(_space(), extra), steps=["one two", "three", "four five six"])
    assert report.ok, str(report)
    assert {r.name for r in report.results if r.passed} >= {"closure", "purity", "deterministic π"}


def test_a_defaultdict_that_U_fills_is_a_purity_failure_not_a_crash():
    class Counting(_Keeper):
        def update(self, state, operation, context):
            self.extra[context.t] += 1  # a defaultdict grows on every read of a new key
            return super().update(state, operation, context)

    report = check_mechanism(Counting(_space(), defaultdict(int)), steps=["a", "b"])
    purity = next(r for r in report.results if r.name == "purity")
    assert not purity.passed and purity.checked and "extra" in purity.detail


def test_a_mechanism_with_slots_only_is_checked():
    class Slotted(_Keeper):
        __slots__ = ("memo",)

        def __init__(self, space):
            super().__init__(space)
            self.memo = {}

        def update(self, state, operation, context):
            self.memo[context.t] = True  # mutates a slot attribute: purity must see it
            return super().update(state, operation, context)

    report = check_mechanism(Slotted(_space()), steps=["a", "b"])
    purity = next(r for r in report.results if r.name == "purity")
    assert not purity.passed and "memo" in purity.detail


class _FailsAtOnce(_Keeper):
    def update(self, state, operation, context):
        raise RuntimeError("U is not written yet")


def test_purity_is_not_passed_when_U_failed_at_the_first_step():
    report = check_mechanism(_FailsAtOnce(_space()), steps=["a", "b"])
    by_name = {r.name: r for r in report.results}
    assert not by_name["closure"].passed
    purity = by_name["purity"]
    assert not purity.passed and not purity.checked
    assert "not checked" in purity.detail and "step 0" in purity.detail
    assert purity in report.unchecked and purity not in report.failures
    assert "? purity: not checked" in str(report)


def test_no_steps_checks_nothing_and_says_so():
    report = check_mechanism(_Keeper(_space()), steps=[])
    by_name = {r.name: r for r in report.results}
    for clause in ("closure", "purity", "deterministic π"):
        assert not by_name[clause].passed and not by_name[clause].checked
        assert "no steps were given" in by_name[clause].detail
    assert "could not be checked" in str(report).splitlines()[0]


def test_a_purity_checked_on_one_step_before_U_failed_holds():
    """U worked at step 0 and failed at step 1: purity was checked once, so it held (closure is what failed)."""

    class FailsLater(_Keeper):
        def update(self, state, operation, context):
            if context.t == 1:
                raise RuntimeError("not for step 1")
            return super().update(state, operation, context)

    by_name = {r.name: r for r in check_mechanism(FailsLater(_space()), steps=["a", "b"]).results}
    assert by_name["purity"].passed and by_name["purity"].checked and not by_name["closure"].passed


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"tools": "search"}, "tools"),
        ({"tools": [1, 2]}, "tools"),
        ({"query": 123}, "query"),
        ({"steps": "one step"}, "steps"),
        ({"steps": 5}, "steps"),
        ({"raise_on_failure": "yes"}, "raise_on_failure"),
    ],
)
def test_junk_arguments_of_check_mechanism(kwargs, says):
    with pytest.raises(InvalidArgumentError, match=says):
        check_mechanism(_Keeper(_space()), **kwargs)


def test_a_failing_state_is_still_reported():
    """An initial state over capacity: reported, nothing else run."""

    class TooBig(_Keeper):
        def initial_state(self, context):
            return State([Element("word " * 300, {"t": -1})])

    report = check_mechanism(TooBig(_space()))
    assert not report.ok and "initial state" in {r.name for r in report.failures}


class _ReprFails:
    """An argument whose repr raises: an error message must not call it."""

    def __repr__(self):
        raise RuntimeError("repr fails")


@pytest.mark.parametrize("argument", ["query", "tools", "steps", "raise_on_failure"])
def test_an_argument_whose_repr_fails_gets_an_invalid_argument_error(argument):
    from stmviz import StateSpace, check_mechanism, sizes
    from stmviz.core.errors import InvalidArgumentError
    from stmviz.core.mechanism import ExampleMechanism

    with pytest.raises(InvalidArgumentError, match="its repr fails"):
        check_mechanism(ExampleMechanism(StateSpace(sizes.words, 50)), **{argument: _ReprFails()})
