"""docs/architecture.md is true: each row of its layer table is held to the code.

The table (between the ``<!-- layers -->`` markers) names, for each layer, its package(s) and what it
imports: other layers by their name in the first column, stmviz modules outside every layer by their
name (``_moved``, ``_optional``, ``exercise_solutions``), third-party libraries by their import name. A
name in brackets may be imported only inside a function (on demand), never when the module loads;
``everything`` lifts the rule for the command line. Imports are read from the source — also those
inside functions and under ``if TYPE_CHECKING`` — so the table cannot hide a dependency.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "stmviz"
DOC = ROOT / "docs" / "architecture.md"


def _rows() -> list[tuple[str, list[str], set[str], set[str]]]:
    """(layer, its modules' prefixes, what it may import, what it may import only on demand) per table row.

    A layer is named, in the other rows, by its first package's last part (``stmviz._fast`` is ``_fast``).
    """
    text = DOC.read_text(encoding="utf-8")
    table = text.split("<!-- layers -->", 1)[1].split("<!-- /layers -->", 1)[0]
    rows = []
    for line in table.strip().splitlines()[2:]:
        _, packages, imports = (cell.strip() for cell in line.strip("|").split("|")[:3])
        prefixes = re.findall(r"`(stmviz[\w.]*)`", packages)
        layer = prefixes[0].rpartition(".")[2]  # the name other rows use for it: core, _fast, metrics, …
        always, on_demand = set(), set()
        for token in (t.strip() for t in imports.split(",")):
            for name in re.findall(r"[\w.]+", token):
                (on_demand if token.startswith("[") else always).add(name)
        rows.append((layer, prefixes, always, on_demand))
    return rows


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(the module or name imported, whether at module level) for every import of a file."""
    name = _module(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(n) for n in tree.body} | {
        id(inner) for n in tree.body if isinstance(n, ast.If) for inner in ast.walk(n)  # TYPE_CHECKING counts
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found += [(f"{target}.{alias.name}", id(node) in top) for alias in node.names]
    return found


def _owner(target: str, rows) -> str | None:
    """The layer (or the module outside every layer) a stmviz import reaches."""
    best, length = None, 0
    for layer, prefixes, _, _ in rows:
        for prefix in prefixes:
            if (target == prefix or target.startswith(prefix + ".")) and len(prefix) > length and prefix != "stmviz":
                best, length = layer, len(prefix)
    if best is None:
        parts = target.split(".")
        return parts[1] if len(parts) > 1 else None  # stmviz._moved, stmviz._optional, stmviz.exercise_solutions
    return best


def _violations() -> list[str]:
    rows = _rows()
    wrong = []
    for layer, prefixes, always, on_demand in rows:
        if "everything" in always:
            continue
        files = [p for prefix in prefixes for p in (
            sorted((PACKAGE / prefix.split(".", 1)[1]).rglob("*.py")) if (PACKAGE / prefix.split(".", 1)[1]).is_dir()
            else [PACKAGE / (prefix.split(".", 1)[1] + ".py")]
        )]
        for path in files:
            for target, at_load in _imports(path):
                if target.startswith("stmviz"):
                    reached = _owner(target, rows)
                    if reached in (None, layer):
                        continue
                else:
                    reached = target.split(".")[0]
                    if reached in sys.stdlib_module_names or reached == "__future__":
                        continue
                if reached in always or (reached in on_demand and not at_load):
                    continue
                where = "when it loads" if at_load else "inside a function"
                wrong.append(f"{_module(path)} imports {target} ({reached}) {where}: not in the {layer!r} row")
    return wrong


def test_every_layer_imports_only_what_its_row_says():
    assert _violations() == []


def test_every_module_of_stmviz_belongs_to_a_row_or_is_named_outside_them():
    rows = _rows()
    outside = {"stmviz", "stmviz.__main__", "stmviz._moved", "stmviz._optional", "stmviz.exercise_solutions"}
    homeless = [m for m in map(_module, PACKAGE.rglob("*.py")) if m not in outside and _owner(m, rows) is None]
    assert homeless == []


def test_the_check_sees_an_import_the_table_does_not_allow(monkeypatch):
    """The rule can fail: a row that forgets one of its imports is caught."""
    rows = _rows()
    shrunk = [(layer, prefixes, always - {"plotly"}, on_demand) for layer, prefixes, always, on_demand in rows]
    monkeypatch.setattr(sys.modules[__name__], "_rows", lambda: shrunk)
    assert any("plotly" in v and "'viz' row" in v for v in _violations())


@pytest.mark.parametrize("library, layers", [("plotly", {"viz", "widgets"}), ("ipywidgets", {"widgets"}),
                                             ("networkx", {"viz", "widgets"}), ("numpy", {"_fast"})])
def test_a_heavy_library_is_named_only_where_the_table_says(library, layers):
    assert {layer for layer, _, always, demand in _rows() if library in always | demand} == layers
