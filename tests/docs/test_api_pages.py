"""How docs/_ext/stmviz_docs/api.py places each public name: one entry per object, where a reader looks for it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the docs extra is not installed: pip install -e '.[docs]'")

from stmviz_docs import api  # noqa: E402 - docs/_ext is on sys.path (tests/docs/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def table():
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    node = next(n.value for n in tree.body if isinstance(n, ast.Assign)
                and any(getattr(t, "id", None) == "stmviz_api_groups" for t in n.targets))
    return ast.literal_eval(node)


@pytest.fixture(scope="module")
def collected():
    groups, entries = api.collect(table())
    canonical = {(e.module, e.name): e.canonical for row in entries.values() for e in row}
    return groups, entries, canonical


def test_each_object_is_described_where_its_package_offers_it(collected):
    _, _, canonical = collected
    assert canonical["stmviz", "FIFOWindow"] == canonical["stmviz.mechanisms", "FIFOWindow"] == "stmviz.mechanisms.FIFOWindow"
    assert canonical["stmviz", "Element"] == canonical["stmviz.core.element", "Element"] == "stmviz.core.Element"
    assert canonical["stmviz", "run"] == "stmviz.core.run"
    assert canonical["stmviz.viz.occupancy", "occupancy_figure"] == "stmviz.viz.occupancy_figure"


def test_a_constant_is_described_where_it_is_defined(collected):
    _, _, canonical = collected
    assert canonical["stmviz.text", "DIMENSIONS"] == "stmviz.text.embed.DIMENSIONS"


def test_a_function_named_like_a_module_is_described_in_its_module(collected):
    """stmviz.text.summarize is both the function and the module: the function's entry is in the module."""
    _, _, canonical = collected
    assert canonical["stmviz.text", "summarize"] == "stmviz.text.summarize.summarize"


def test_a_module_reached_under_two_names_has_one_page(collected):
    groups, _, canonical = collected
    modules = [m for g in groups for m in g.modules]
    assert "stmviz.errors" in modules and "stmviz.core.errors" not in modules
    assert "stmviz.sizes" in modules and "stmviz.core.sizes" not in modules
    assert canonical["stmviz", "errors"] == "stmviz.errors"
    assert canonical["stmviz.core", "sizes"] == canonical["stmviz", "sizes"] == "stmviz.sizes"
    assert len(modules) == len(set(modules))


def test_a_module_goes_to_the_most_specific_entry_of_the_table(collected):
    groups, _, _ = collected
    where = {m: g.title for g in groups for m in g.modules}
    assert where["stmviz.mechanisms.fifo"] == "mechanisms"
    import stmviz

    assert where[stmviz.Compaction.__module__] == "managers", "(stmviz.mechanisms.compaction, or stmviz.managers.compaction)"
    assert where["stmviz.scenarios.transcripts"] == "scenarios and transcripts"


def test_a_table_entry_that_names_nothing_is_a_warning(caplog):
    with caplog.at_level("WARNING"):
        groups, _ = api.collect([("core", "x", ["stmviz.core", "stmviz.no_such_module", "stmviz.mechanisms.fit"])])
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "stmviz.no_such_module does not import" in messages
    assert "stmviz.mechanisms.fit has no __all__" in messages
