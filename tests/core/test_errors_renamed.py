"""stmviz.errors: one root and eight kinds; the earlier, finer names warn for one release and name their successor."""

from __future__ import annotations

import math
import warnings

import pytest

import stmviz
from stmviz import Element, Operation, State, StateSpace, errors
from stmviz.errors import (
    CapacityError,
    ContractError,
    ElementNotFoundError,
    FormatError,
    InvalidArgumentError,
    InvalidIndexError,
    STMError,
    UnsupportedOperationError,
    UpdateFailedError,
)

KINDS = [
    InvalidArgumentError, InvalidIndexError, ElementNotFoundError, CapacityError,
    UnsupportedOperationError, ContractError, UpdateFailedError, FormatError,
]


#: narrower errors that name a case of their own, defined in stmviz.errors with the kinds
NARROWER = {"UnknownScenarioError": FormatError, "OptionalDependencyError": STMError}


def test_the_errors_module_has_one_root_and_eight_kinds():
    classes = {name for name in dir(errors) if isinstance(getattr(errors, name), type)}
    classes = {name for name in classes if issubclass(getattr(errors, name), Exception)}
    assert classes == set(errors.__all__) == {"STMError"} | {k.__name__ for k in KINDS} | set(NARROWER)
    assert all(issubclass(kind, STMError) for kind in KINDS)
    assert all(issubclass(getattr(errors, name), parent) for name, parent in NARROWER.items())


def test_every_error_class_of_stmviz_is_defined_in_stmviz_errors():
    """An error class defined anywhere else would be a second place to look; the old homes still give the same class."""
    import ast
    from pathlib import Path

    from stmviz._optional import OptionalDependencyError
    from stmviz.scenarios import UnknownScenarioError
    from stmviz.scenarios.scenario import UnknownScenarioError as from_module

    assert UnknownScenarioError is from_module is errors.UnknownScenarioError
    assert OptionalDependencyError is errors.OptionalDependencyError
    package = Path(stmviz.__file__).parent
    elsewhere = []
    for path in package.rglob("*.py"):
        if path == package / "core" / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(base, ast.Name) and (base.id.endswith("Error") or base.id == "Exception") for base in node.bases
            ):
                elsewhere.append(f"{path.relative_to(package)}: {node.name}")
    assert not elsewhere, elsewhere


@pytest.mark.parametrize("old", sorted(errors.RENAMED))
def test_an_earlier_name_warns_and_is_its_successor(old):
    with pytest.warns(DeprecationWarning, match=f"stmviz.errors.{old} is deprecated.*use stmviz.errors.{errors.RENAMED[old]}"):
        cls = getattr(errors, old)
    assert cls is getattr(errors, errors.RENAMED[old])
    with pytest.warns(DeprecationWarning, match=f"stmviz.{old} is deprecated"):
        assert getattr(stmviz, old) is cls


def test_the_current_names_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kind in KINDS:
            assert getattr(errors, kind.__name__) is kind
    with pytest.raises(AttributeError, match="NoSuchError"):
        errors.NoSuchError  # noqa: B018


@pytest.mark.parametrize(
    "make, old, kind",
    [
        (lambda: StateSpace("tokens", v_max=math.inf), "InvalidCapacityError", InvalidArgumentError),
        (lambda: Element(object()), "InvalidElementError", InvalidArgumentError),
        (lambda: StateSpace("chars", 10).measure(Element("")), "InvalidSizeError", ContractError),
        (lambda: Operation(""), "InvalidOperationError", InvalidArgumentError),
        (lambda: stmviz.sizes.get_encoding("no-such-encoding"), "EncodingUnavailableError", InvalidArgumentError),
        (lambda: State({Element("a")}).by_id("nope"), None, ElementNotFoundError),
    ],
)
def test_what_the_earlier_names_caught_the_successor_catches(make, old, kind):
    """Code written as ``except InvalidElementError`` keeps catching what it caught (the name is the successor)."""
    if old is not None:
        with pytest.warns(DeprecationWarning):
            caught = getattr(errors, old)
    else:
        caught = kind
    with pytest.raises(caught) as info:
        make()
    assert isinstance(info.value, kind)


def test_an_index_error_is_also_an_argument_error_and_the_builtin_kinds_it_was():
    mechanism = stmviz.make_mechanism(StateSpace("chars", 100), operations=["noop"], update=lambda m, w, o, c: w)
    trace = stmviz.run(mechanism, ["hello"])
    for bad in (5, 1.5, True):
        with pytest.raises(InvalidIndexError) as info:
            trace.state_at(bad)
        assert isinstance(info.value, (IndexError, InvalidArgumentError, TypeError, ValueError))
