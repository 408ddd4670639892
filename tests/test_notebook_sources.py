"""One text source per notebook: each ``notebooks/NAME.md`` (a jupytext MyST Markdown notebook) builds its
``NAME.ipynb``, jupytext pairs the two, and every exercise in a source is written by the convention that
``stmviz course`` reads (stmviz/course.py's docstring, notebooks/README.md).

A notebook edited without its source (or a source edited without a rebuild) fails here; rebuild with
``python scripts/build_notebooks.py NN``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext", reason="the notebooks' sources are read with jupytext (pip install -e '.[test]')")

from stmviz import course  # noqa: E402
from stmviz.core.errors import FormatError  # noqa: E402
from stmviz.exercise_solutions import SOLUTIONS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.md")) + [NOTEBOOKS / "start.md"] + sorted(NOTEBOOKS.glob("*/[0-9][0-9]_*.md"))
NAMES = [str(p.relative_to(NOTEBOOKS).with_suffix("")) for p in SOURCES]
TUTORIALS = [name for name in NAMES if name != "start"]  # start.md is the start page: links, no code


def test_every_source_has_its_notebook_and_every_notebook_its_source():
    notebooks = (sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + [NOTEBOOKS / "start.ipynb"]
                 + sorted(NOTEBOOKS.glob("*/[0-9][0-9]_*.ipynb")))
    assert [p.with_suffix("") for p in notebooks] == [p.with_suffix("") for p in SOURCES]
    assert len(SOURCES) >= 12


@pytest.mark.parametrize("name", NAMES)
def test_the_notebook_is_what_its_source_builds(name):
    """Same cells — type, source, id, metadata — and kernel; the outputs are nbval's to check."""
    source = NOTEBOOKS / f"{name}.md"
    assert course.source_differences(source, source.with_suffix(".ipynb")) == [], (
        f"notebooks/{name}.ipynb and its source disagree: edit the .md, then rebuild: "
        f"python scripts/build_notebooks.py {Path(name).name[:2]}")


def _pair(tmp_path: Path, name: str = "01_definition1_state_space") -> tuple[Path, Path]:
    for suffix in (".md", ".ipynb"):
        shutil.copy(NOTEBOOKS / f"{name}{suffix}", tmp_path / f"{name}{suffix}")
    shutil.copy(NOTEBOOKS / "jupytext.toml", tmp_path / "jupytext.toml")
    return tmp_path / f"{name}.md", tmp_path / f"{name}.ipynb"


def test_a_notebook_edited_without_its_source_is_caught(tmp_path):
    source, notebook = _pair(tmp_path)
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    nb["cells"][3]["source"] = ["allergy = None"]
    nb["cells"][5]["metadata"] = {"tags": ["hide-input"]}
    notebook.write_text(json.dumps(nb), encoding="utf-8")
    found = course.source_differences(source, notebook)
    assert len(found) == 2
    assert "cell 3 (01-03): its source differs" in found[0] and "cell 5 (01-05): its metadata differs" in found[1]


def test_a_source_edited_without_a_rebuild_is_caught(tmp_path):
    source, notebook = _pair(tmp_path)
    source.write_text(source.read_text(encoding="utf-8") + "\n```{code-cell} ipython3\n1 + 1\n```\n", encoding="utf-8")
    assert course.source_differences(source, notebook) == [f"{notebook.name}: 31 cells, its source 32"]


def test_the_build_script_checks_without_a_kernel():
    result = subprocess.run([sys.executable, "scripts/build_notebooks.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(SOURCES)} notebooks agree with their sources" in result.stdout


def test_jupytext_pairs_each_source_with_its_notebook():
    """Both files declare the pair in their metadata, so jupytext (in JupyterLab, or its CLI) keeps them in step."""
    from jupytext.paired_paths import paired_paths

    for source in SOURCES:
        notebook = source.with_suffix(".ipynb")
        formats = jupytext.read(source).metadata["jupytext"]["formats"]
        assert formats == json.loads(notebook.read_text(encoding="utf-8"))["metadata"]["jupytext"]["formats"]
        assert {path for path, _ in paired_paths(str(notebook), "ipynb", formats)} == {str(source), str(notebook)}


def test_a_notebook_made_beside_the_sources_is_left_unpaired(tmp_path):
    """The pairing is each pair's own, not the folder's: a scratch notebook saved in notebooks/ gets no .md twin
    (and a notebook sent with its cells' text as lists of lines, as the contents API accepts, saves as usual;
    jupytext's Markdown writer failed on those when the folder paired every notebook)."""
    pytest.importorskip("jupyter_server")
    nbformat = pytest.importorskip("nbformat")
    from jupyter_server.services.contents.filemanager import FileContentsManager
    from jupytext.sync_contentsmanager import build_sync_jupytext_contents_manager_class

    _pair(tmp_path)
    manager = build_sync_jupytext_contents_manager_class(FileContentsManager)(root_dir=str(tmp_path))
    scratch = json.loads(nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("a = 1\nb = 2")])))
    assert isinstance(scratch["cells"][0]["source"], list)
    manager.save({"type": "notebook", "format": "json", "content": scratch}, "scratch.ipynb")
    assert (tmp_path / "scratch.ipynb").is_file() and not (tmp_path / "scratch.md").exists()


@pytest.mark.parametrize("name", NAMES)
def test_a_source_is_a_myst_notebook_whose_header_names_no_jupytext_version(name):
    """The header says the format and the kernel; no version stamp that changes with each jupytext release."""
    text = (NOTEBOOKS / f"{name}.md").read_text(encoding="utf-8")
    header = text.split("\n---\n", 1)[0]
    assert text.startswith("---\njupytext:\n") and "format_name: myst" in header and "name: python3" in header
    assert "jupytext_version" not in header


def test_jupyterlab_opens_either_file_as_the_pair_and_a_save_changes_neither(tmp_path):
    """What JupyterLab does with jupytext installed: the .md and the .ipynb open as one notebook, with the
    outputs stored in the .ipynb, also when the notebook was built after its source was written (jupytext
    refused such a pair by default: "more recent than its text file"); saving it (from either file) leaves
    both byte for byte as built."""
    pytest.importorskip("jupyter_server")
    from jupyter_server.services.contents.filemanager import FileContentsManager
    from jupytext.sync_contentsmanager import build_sync_jupytext_contents_manager_class

    source, notebook = _pair(tmp_path)
    before = source.read_bytes(), notebook.read_bytes()
    manager = build_sync_jupytext_contents_manager_class(FileContentsManager)(root_dir=str(tmp_path))
    for path in (notebook, source):
        built = time.time() - 60
        os.utime(source, (built - 600, built - 600))  # the build reads the source, then writes the notebook
        os.utime(notebook, (built, built))
        model = manager.get(path.name)
        assert model["type"] == "notebook"
        cells = model["content"]["cells"]
        assert [c["id"] for c in cells[:3]] == ["01-00", "01-01", "01-02"]
        assert any(c.get("outputs") for c in cells), "the outputs come from the .ipynb"
        manager.save(model, path.name)
        assert (source.read_bytes(), notebook.read_bytes()) == before


# ----------------------------------------------------------------- the exercise convention


EXERCISES = {name: course.find_exercises(course.read_source(NOTEBOOKS / f"{name}.md"), Path(name).name)
             for name in TUTORIALS}


@pytest.mark.parametrize("name", TUTORIALS)
def test_each_exercise_is_an_exercise_cell_a_checker_cell_and_its_key(name):
    nb = course.read_source(NOTEBOOKS / f"{name}.md")
    number = Path(name).name[:2]
    found = EXERCISES[name]
    assert bool(found) == (number != "00"), "every notebook but the start page has an exercise"
    for exercise in found:
        assert exercise.key.startswith(number + "-") and exercise.key in SOLUTIONS
        answer = nb.cells[exercise.answer_cell].source
        assert "TODO" in answer and "BEGIN SOLUTION" not in answer
        assert nb.cells[exercise.checker_cell].source == f"{exercise.checker}({exercise.answer})"
        tree = ast.parse(SOLUTIONS[exercise.key])
        defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
            t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        assert exercise.answer in defined, f"SOLUTIONS[{exercise.key!r}] must define {exercise.answer}"
    mentioned = {key for cell in nb.cells if cell.cell_type == "markdown"
                 for key in re.findall(r"""solution\(\s*["']([^"']+)["']""", cell.source)}
    assert mentioned == {e.key for e in found}, "a solution(...) named in the prose without its checker cell"


def test_every_reference_solution_belongs_to_one_exercise():
    keys = [e.key for name in TUTORIALS if "/" not in name for e in EXERCISES[name]]
    assert sorted(keys) == sorted(SOLUTIONS)


@pytest.mark.parametrize("name", [n for n in TUTORIALS if not Path(n).name.startswith("00")])
def test_the_shipped_notebook_shows_no_solution(name):
    """What stmviz lab and Binder open is the student's notebook: every checker reports "not done yet"."""
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    not_done = "ещё не сделано" if name.startswith("ru/") else "not done yet"
    for exercise in EXERCISES[name]:
        shown = "".join("".join(o.get("data", {}).get("text/plain", "")) for o in nb["cells"][exercise.checker_cell]["outputs"])
        assert not_done in shown and "✓" not in shown, shown


@pytest.mark.parametrize("name", [n for n in TUTORIALS if not Path(n).name.startswith("00")])
def test_the_instructors_version_joins_each_solution_to_its_exercise(name):
    nb = course.read_source(NOTEBOOKS / f"{name}.md")
    made = course.instructor_version(nb, Path(name).name)
    exercises = EXERCISES[name]
    assert len(made.cells) == len(nb.cells) + len(exercises)
    for shift, exercise in enumerate(exercises):
        answer = made.cells[exercise.answer_cell + shift]
        assert answer.source.startswith(nb.cells[exercise.answer_cell].source + "\n### BEGIN SOLUTION")
        assert SOLUTIONS[exercise.key].strip("\n") in answer.source and answer.source.endswith("### END SOLUTION")
        assert answer.metadata["nbgrader"]["solution"] is True
        graded = made.cells[exercise.checker_cell + shift + 1]
        assert graded.metadata["nbgrader"]["grade_id"] == exercise.key and graded.metadata["nbgrader"]["locked"]
        assert graded.metadata["nbgrader"]["points"] == course.max_points(exercise.checker) >= 3
        assert graded.source.endswith(f"points({exercise.checker}, {exercise.answer})")


def _cells(*sources: tuple[str, str]):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(s) if kind == "md" else nbformat.v4.new_code_cell(s) for kind, s in sources]
    return nb


EXERCISE = "from stmviz.exercises import check_membership\n\ndef in_omega(e, mu, v):\n    raise NotImplementedError('TODO')"


@pytest.mark.parametrize("cells, fault", [
    ([("code", "x = 1"), ("code", "check_membership(in_omega)"), ("md", 'solution("01-membership")')],
     "must follow the exercise cell"),
    ([("code", EXERCISE.replace("TODO", "later")), ("code", "check_membership(in_omega)"), ("md", 'solution("01-a")')],
     "has no TODO"),
    ([("code", EXERCISE), ("code", "check_membership(in_omega)"), ("md", "Now try it.")],
     "names its key once"),
    ([("code", EXERCISE), ("code", "check_membership(in_omega)"), ("md", 'solution("02-keep-first")')],
     "must start with the notebook's number"),
])
def test_a_source_that_breaks_the_convention_is_named(cells, fault):
    with pytest.raises(FormatError, match=fault):
        course.find_exercises(_cells(*cells), "01_definition1_state_space")


def test_a_checker_called_inside_other_code_is_not_an_exercise():
    """08's first attempt prints check_priority_memory(FirstAttempt) in a cell of its own: not graded."""
    nb = _cells(("code", "print(check_membership(lambda *a: True))"), ("code", "check_mechanism(m)"))
    assert course.find_exercises(nb, "01_x") == []
