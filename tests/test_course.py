"""Hand out and grade (issue 35, part 3): `stmviz course student` writes the student version of a notebook
from its source, and `stmviz course grade` scores a submission through nbgrader, one point per criterion
its stmviz checker reports met.

The grading runs nbgrader's own autograder (a fresh kernel per submission), so each submission below
costs one run of notebook 01, a few seconds.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("jupytext", reason="the notebooks' sources are read with jupytext (pip install -e '.[test]')")
nbformat = pytest.importorskip("nbformat")

from stmviz import cli, course  # noqa: E402
from stmviz.core.errors import FormatError, InvalidArgumentError, STMError  # noqa: E402
from stmviz.exercise_solutions import SOLUTIONS  # noqa: E402

needs_nbgrader = pytest.mark.skipif(importlib.util.find_spec("nbgrader") is None,
                                    reason="the course commands grade through nbgrader (pip install -e '.[test]')")

ROOT = Path(__file__).resolve().parents[1]
NAME = "01_definition1_state_space"
TODO = 'raise NotImplementedError("TODO: write in_omega")'


@pytest.fixture(scope="module")
def course_dir(tmp_path_factory):
    """The course of notebook 01, made by the command an instructor types."""
    outdir = tmp_path_factory.mktemp("course")
    assert cli.main(["course", "student", str(outdir), "--notebook", "01"]) == 0
    return outdir


def _student_version(course_dir: Path):
    return nbformat.read(course_dir / "release" / NAME / f"{NAME}.ipynb", as_version=4)


def _answer_cell(nb, key: str = "01-membership"):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"{key}-answer")


PREDICTION_TODO = 'fits = None  # TODO'  # notebook 01's first exercise, a prediction (01-which-fit)


def _predict(nb) -> None:
    """Answer notebook 01's prediction rightly, so that a submission's total is about in_omega alone."""
    answer = _answer_cell(nb, "01-which-fit")
    answer.source = answer.source.replace(PREDICTION_TODO, 'fits = {"B", "C", "E"}  # TODO')


def _submit(nb, tmp_path: Path, filename: str = f"{NAME}.ipynb") -> Path:
    path = tmp_path / filename
    nbformat.write(nb, path)
    return path


@needs_nbgrader
def test_the_student_version_keeps_the_todo_and_the_checker_and_holds_no_solution(course_dir):
    student = _student_version(course_dir)
    shipped = course.read_source(ROOT / "notebooks" / f"{NAME}.md")
    text = json.dumps(student.cells)
    assert "BEGIN SOLUTION" not in text and "omega = set(elements)" not in text  # the reference's body
    answer = _answer_cell(student)
    exercise = next(e for e in course.find_exercises(shipped, NAME) if e.key == "01-membership")
    # the exercise cell as the tutorial notebook has it (nbgrader leaves an empty line where the region was)
    assert answer.source == shipped.cells[exercise.answer_cell].source + "\n" and TODO in answer.source
    # every cell of the tutorial notebook, in order, then a locked grade cell after the checker
    kept = [c for c in student.cells if c.id not in ("01-which-fit-grade", "01-membership-grade")]
    assert [c.id for c in kept] == [c.id for c in shipped.cells]
    assert [c.source.rstrip("\n") for c in kept] == [c.source for c in shipped.cells]
    at = next(k for k, c in enumerate(student.cells) if c.id == "01-membership-grade")
    graded = student.cells[at]
    assert student.cells[at - 1].source.strip() == shipped.cells[exercise.checker_cell].source.strip()
    assert graded.metadata.nbgrader["grade_id"] == "01-membership" and graded.metadata.nbgrader["points"] == 5
    assert graded.metadata.nbgrader["locked"] and graded.metadata.get("editable") is False
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
    assert "jupytext" not in student.metadata  # not paired with a source: jupytext leaves it alone


@needs_nbgrader
def test_the_instructors_version_holds_the_reference_solution(course_dir):
    source = nbformat.read(course_dir / "source" / NAME / f"{NAME}.ipynb", as_version=4)
    answer = _answer_cell(source)
    assert SOLUTIONS["01-membership"].strip("\n") in answer.source and "### BEGIN SOLUTION" in answer.source
    assert (course_dir / "gradebook.db").is_file() and (course_dir / "nbgrader_config.py").is_file()


@needs_nbgrader
def test_a_solved_submission_gets_every_point(course_dir, tmp_path, capsys):
    nb = _student_version(course_dir)
    answer = _answer_cell(nb)
    answer.source = answer.source.replace(TODO, "return sum(mu(e) for e in set(elements)) <= v_max")
    _predict(nb)
    path = _submit(nb, tmp_path, "ada-01.ipynb")  # renamed on the way back: recognised by its cells
    assert cli.main(["course", "grade", str(path), "--course", str(course_dir), "--student", "ada"]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"01-membership\s+5 of 5", shown) and re.search(r"total\s+10 of 10", shown), shown
    assert (course_dir / "autograded" / "ada" / NAME / f"{NAME}.ipynb").is_file()  # in the course's gradebook


@needs_nbgrader
def test_a_wrong_submission_scores_the_criteria_it_meets_even_with_its_grade_cell_changed(course_dir, tmp_path):
    nb = _student_version(course_dir)
    answer = _answer_cell(nb)
    # counts duplicates and forgets the boundary: fails "boundary" and "a set" only
    answer.source = answer.source.replace(TODO, "return sum(mu(e) for e in elements) < v_max")
    graded = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "01-membership")
    graded.source = "5  # full marks, please"  # the course's grade cell is restored before grading
    grades = course.grade(_submit(nb, tmp_path), course_dir, student="bob")
    assert [(g.key, g.score, g.max_score) for g in grades] == [("01-which-fit", 0.0, 5.0), ("01-membership", 3.0, 5.0)]
    failed = [line.split(":")[0].strip() for line in grades[1].report.splitlines() if line.strip().startswith("✗")]
    assert failed == ["✗ boundary", "✗ a set"]
    assert "3 of 5" in course.summary(grades) and "✗ a set" in course.summary(grades)


@needs_nbgrader
def test_an_untouched_student_version_scores_nothing_in_a_temporary_course(course_dir, tmp_path):
    """Without --course the grading builds its own course from the sources: the same grade cells."""
    grades = course.grade(_submit(_student_version(course_dir), tmp_path))
    assert [(g.key, g.score, g.max_score) for g in grades] == [("01-which-fit", 0.0, 5.0), ("01-membership", 0.0, 5.0)]
    assert all("not done yet" in g.report for g in grades)


@pytest.fixture(scope="module")
def russian_course_dir(tmp_path_factory):
    """The Russian course of notebook 01 (notebooks/ru/), made as an instructor makes it."""
    outdir = tmp_path_factory.mktemp("курс")
    assert cli.main(["course", "student", str(outdir), "--notebook", "01", "--lang", "ru"]) == 0
    return outdir


@needs_nbgrader
def test_the_russian_student_version_is_the_english_one_in_russian(course_dir, russian_course_dir):
    """The same code cells (and the language cell), the same exercises and grade cells; the prose is Russian."""
    russian, english = _student_version(russian_course_dir), _student_version(course_dir)
    code = [c.source for c in russian.cells if c.cell_type == "code" and c.id != f"01-{course.LANGUAGE_TAG}"]
    assert code == [c.source for c in english.cells if c.cell_type == "code"]
    assert next(c for c in russian.cells if c.cell_type == "code").source.strip().endswith('stmviz.set_language("ru")')
    grades = [(c.id, c.metadata.get("nbgrader", {}).get("points")) for c in russian.cells if c.id.endswith("-grade")]
    assert grades == [(c.id, c.metadata.get("nbgrader", {}).get("points")) for c in english.cells if c.id.endswith("-grade")]
    assert "Упражнение" in " ".join(c.source for c in russian.cells if c.cell_type == "markdown")


@needs_nbgrader
def test_a_russian_submission_is_graded_as_its_english_twin_and_reported_in_russian(russian_course_dir, tmp_path):
    """Solved, it scores 10 of 10; with the English test's wrong answer, the same 3 of 5 on the same criteria,
    named in Russian: the scores come from the code, the words from the language the notebook turns on."""
    nb = _student_version(russian_course_dir)
    answer = _answer_cell(nb)
    answer.source = answer.source.replace(TODO, "return sum(mu(e) for e in set(elements)) <= v_max")
    _predict(nb)
    grades = course.grade(_submit(nb, tmp_path), russian_course_dir, student="ada", lang="ru")
    assert [(g.key, g.score, g.max_score) for g in grades] == [("01-which-fit", 5.0, 5.0), ("01-membership", 5.0, 5.0)]
    assert "все критерии выполнены" in grades[1].report

    (tmp_path / "wrong").mkdir()
    nb = _student_version(russian_course_dir)
    _answer_cell(nb).source = _answer_cell(nb).source.replace(TODO, "return sum(mu(e) for e in elements) < v_max")
    grades = course.grade(_submit(nb, tmp_path / "wrong"), russian_course_dir, student="bob", lang="ru")
    assert [(g.key, g.score, g.max_score) for g in grades] == [("01-which-fit", 0.0, 5.0), ("01-membership", 3.0, 5.0)]
    from stmviz.core.i18n import gettext, language

    with language("ru"):
        names = [gettext("boundary"), gettext("a set")]
    failed = [line.split(":")[0].strip() for line in grades[1].report.splitlines() if line.strip().startswith("✗")]
    assert failed == [f"✗ {name}" for name in names] and names != ["boundary", "a set"]
    assert "не выполнено 2 из 5" in grades[1].report


@needs_nbgrader
def test_grading_a_copy_of_the_tutorial_notebook_says_what_to_hand_out(tmp_path, capsys):
    copy = tmp_path / f"{NAME}.ipynb"
    shutil.copy(ROOT / "notebooks" / f"{NAME}.ipynb", copy)
    with pytest.raises(FormatError, match="has no nbgrader cells"):
        course.grade(copy)
    assert cli.main(["course", "grade", str(copy)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "stmviz course student" in err


@needs_nbgrader
@pytest.mark.parametrize("args, fault", [
    (["course", "student", "OUT", "--notebook", "42"], "no notebook named '42'"),
    (["course", "student", "OUT", "--lang", "ru", "--notebook", "42"], "no notebook named '42'"),
])
def test_a_course_command_with_a_wrong_argument_says_what_to_give(args, fault, tmp_path, capsys):
    args = [str(tmp_path / "out") if a == "OUT" else a for a in args]
    assert cli.main(args) == 2
    assert fault in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # nothing written before the sources were found


@needs_nbgrader
def test_a_course_folder_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "out").write_text("not a folder")
    with pytest.raises(InvalidArgumentError, match="is a file, not a folder"):
        course.make_course(tmp_path / "out", names=["01"])


def test_points_needs_a_checker_and_gives_nothing_for_a_todo():
    from stmviz.exercises import check_membership

    def todo(elements, mu, v_max):
        raise NotImplementedError("TODO")

    assert course.points(check_membership, todo) == 0
    with pytest.raises(STMError, match="not an ExerciseReport"):
        course.points(lambda answer: 3, todo)


def test_without_nbgrader_the_commands_say_how_to_install_it_and_write_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "nbgrader.apps", None)  # import nbgrader.apps now raises ImportError
    assert cli.main(["course", "student", str(tmp_path / "out"), "--notebook", "01"]) == 2
    assert "pip install 'stmviz[course]'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert cli.main(["course", "grade", str(ROOT / "notebooks" / f"{NAME}.ipynb")]) == 2
    assert "needs nbgrader" in capsys.readouterr().err


def test_an_installed_stmviz_reads_the_sources_a_wheel_installs(tmp_path, monkeypatch):
    """From a wheel there is no checkout: the sources are in share/stmviz/sources (pyproject's data-files)."""
    import tomllib

    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["data-files"]
    assert data_files["share/stmviz/sources"] == ["notebooks/[0-9][0-9]_*.md"]
    assert "notebooks/*.md" not in data_files["share/stmviz/notebooks"]  # stmviz lab copies only the notebooks
    installed = tmp_path / "share" / "stmviz" / "sources"
    installed.mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / f"{NAME}.md", installed / f"{NAME}.md")
    monkeypatch.setattr(course, "__file__", str(tmp_path / "site-packages" / "stmviz" / "course.py"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    assert course.sources_folder() == installed
    assert [p.name for p in course.source_paths()] == [f"{NAME}.md"]
