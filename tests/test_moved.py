"""Modules that moved leave a stub at their old path: it gives the same object, with a DeprecationWarning."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "old, new, name",
    [
        ("stmviz.mechanisms.fit", "stmviz.text.fit", "fit_text"),
        ("stmviz.mechanisms.fit", "stmviz.text.fit", "ELLIPSIS"),
    ],
)
def test_an_old_path_gives_the_new_object_and_warns(old, new, name):
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated .* import {name} from {new}"):
        value = getattr(importlib.import_module(old), name)
    assert value is getattr(importlib.import_module(new), name)


def test_an_unknown_name_at_an_old_path_is_an_attribute_error():
    stub = importlib.import_module("stmviz.mechanisms.fit")
    with pytest.raises(AttributeError, match="moved to stmviz.text.fit"):
        stub.no_such_name
