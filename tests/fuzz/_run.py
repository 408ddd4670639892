"""One parametrized hypothesis test per list of entry points (not a test module)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings

from _harness import RECORD, Entry, arguments, assert_ok, check_call
from _known import KNOWN_FAILURES


def valid_call(entry: Entry) -> None:
    """The valid arguments alone give a result (so the junk cases test something): not a fuzz case, not recorded."""
    verdict = check_call(entry, {name: make() for name, make in entry.valid.items()}, record=False)
    assert verdict.kind == ("STMError" if entry.valid_raises else "returned"), f"{entry.name}: {verdict.kind}: {verdict.detail}"


def fuzz(entry: Entry) -> None:
    """Try ``entry.max_examples`` cases of junk arguments on one entry point (deterministic)."""
    if not RECORD:
        valid_call(entry)
    for case in entry.cases:  # the known hostile inputs, every time
        kwargs = {name: make() for name, make in entry.valid.items()}
        kwargs.update({name: make() for name, make in case.items()})
        assert_ok(entry, kwargs)

    @settings(settings.get_profile("stmviz-fuzz"), max_examples=entry.max_examples)
    @given(kwargs=arguments(entry))
    def case(kwargs: dict) -> None:
        assert_ok(entry, kwargs)

    case()


def ids(entries: Sequence[Entry]) -> list[str]:
    return [e.name for e in entries]


def params(entries: Sequence[Entry]) -> list[Any]:
    """The entries as pytest parameters, each one listed in ``_known.KNOWN_FAILURES`` marked ``xfail(strict=True)``."""
    return [
        pytest.param(e, id=e.name, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[e.name])]
                     if e.name in KNOWN_FAILURES else [])
        for e in entries
    ]
