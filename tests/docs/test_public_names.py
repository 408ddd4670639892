"""Every public module's ``__all__`` names what the module has, so ``from m import *`` works and the API
reference (docs/_ext/stmviz_docs/api.py) can document each name. Needs no Sphinx."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import stmviz


def public_modules() -> list[str]:
    names = ["stmviz"]
    for info in pkgutil.walk_packages(stmviz.__path__, "stmviz."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", public_modules())
def test_every_name_in_all_exists(name):
    module = importlib.import_module(name)
    missing = [n for n in vars(module).get("__all__", []) if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names {missing}, which {name} does not have: `from {name} import *` raises"


def test_star_import_of_metrics():
    namespace: dict = {}
    exec("from stmviz.metrics import *", namespace)
    assert "evidence_recall" in namespace
