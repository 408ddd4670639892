"""Teach with the notebooks: their sources, a student version to hand out, and grading through nbgrader.

Every notebook in ``notebooks/`` is built from one jupytext source, ``NAME.md`` (a MyST Markdown
notebook), by ``python scripts/build_notebooks.py``; :func:`read_source` reads a source into the
notebook it describes, with the cell ids the built notebook has. A course is made from the same
sources:

``stmviz course student OUTDIR [--lang en|ru]`` (:func:`make_course`)
    writes an `nbgrader <https://nbgrader.readthedocs.io>`_ course folder. ``source/NAME/NAME.ipynb``
    is the instructor's version: each exercise cell ends with its reference solution in a
    ``### BEGIN SOLUTION`` … ``### END SOLUTION`` region (so the checker below it shows ✓), and a
    locked grade cell follows each checker. ``release/NAME/NAME.ipynb`` is the student version
    nbgrader makes from it: the solution regions removed, the TODOs, checkers and grade cells kept.
``stmviz course grade SUBMISSION.ipynb [--course OUTDIR]`` (:func:`grade`)
    runs a submitted student version through nbgrader's autograder and gives a score per exercise:
    one point for each criterion its stmviz checker reports met (:func:`points`).

How an exercise is written in a source: three cells in a row, recognised by their code, with no
markup a reader of the notebook does not see (:func:`find_exercises` reads them; the tests hold
every source to it):

1. the **exercise cell**: the code the student completes, with a ``TODO``, e.g. a function whose
   body is ``raise NotImplementedError("TODO: write in_omega")`` or a value ``= None  # TODO``;
2. the **checker cell**, right after it: nothing but ``check_…(ANSWER)``, a checker of
   :mod:`stmviz.exercises` called on the name the exercise cell binds;
3. a **Markdown cell** right after that, naming the exercise's key:
   ``stmviz.exercises.solution("NN-what")``, NN being the notebook's number.

The reference solution is ``SOLUTIONS[key]`` in :mod:`stmviz.exercise_solutions`: code that binds
ANSWER so that the checker meets every criterion. It is printed by
``stmviz.exercises.solution(key)`` and joined to the exercise cell only in the instructor's version,
never in a notebook students open. An exercise is worth one point per criterion of its checker.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import io
import os
import re
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._optional import require
from .core.errors import FormatError, InvalidArgumentError
from .core.guards import choice, function, items, text
from .core.i18n import gettext as _
from .exercises import ExerciseReport
from .io.files import as_path, read_bytes, write_text

__all__ = [
    "LANGUAGES",
    "Exercise",
    "ExerciseGrade",
    "sources_folder",
    "source_paths",
    "read_source",
    "source_differences",
    "find_exercises",
    "points",
    "max_points",
    "instructor_version",
    "make_course",
    "grade",
    "summary",
]

#: The languages of the notebooks: ``en`` in ``notebooks/``, ``ru`` in ``notebooks/ru/``.
LANGUAGES = ("en", "ru")

#: The tag of a translated notebook's first code cell, which turns its language on: ``stmviz.set_language("ru")``.
LANGUAGE_TAG = "language"

#: What marks a solution region in the instructor's version (nbgrader's own delimiters).
BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"

#: The grade cell after each checker: its number is the exercise's score (nbgrader's partial credit).
GRADE_CELL = (
    "# graded by nbgrader (locked): one point for each criterion of {checker} that {answer} meets\n"
    "from stmviz.course import points\n"
    "from stmviz.exercises import {checker}\n"
    "points({checker}, {answer})"
)

#: nbgrader's settings for a course made by :func:`make_course` (also written to its nbgrader_config.py).
NBGRADER_SETTINGS: dict[str, dict[str, Any]] = {
    "CourseDirectory": {"course_id": "stmviz"},
    # a solution region is removed whole: the exercise cell keeps the TODO written above the region
    "ClearSolutions": {"code_stub": {"python": ""}},
    # a grade cell a student deleted is put back before grading
    "OverwriteCells": {"add_missing_cells": True},
    # the slowest notebooks run a few scenarios in a cell: room for a slow machine (nbgrader's default is 30 s)
    "Execute": {"timeout": 600},
    # graded copies keep no widget views (megabytes of JavaScript each)
    "ExecutePreprocessor": {"store_widget_state": False},
}

_SOURCE = re.compile(r"^\d\d_\w+\.md$")
_KEY = re.compile(r"""solution\(\s*["']([^"']+)["']\s*\)""")


def _jupytext() -> Any:
    return require("jupytext", package="jupytext", extra="course", why="reading a notebook's source (NAME.md)")


def _nbformat() -> Any:
    return require("nbformat", package="nbformat", extra="course", why="writing notebooks")


# ----------------------------------------------------------------- the sources


def sources_folder(lang: str = "en") -> Path:
    """The folder of the notebooks' sources in language ``lang``: a checkout's ``notebooks/`` (``notebooks/ru/``),
    or the copy a wheel installs in ``share/stmviz/sources``.

    >>> sources_folder().name in ("notebooks", "sources")
    True
    """
    lang = choice(lang, "lang", LANGUAGES, where="course")
    here = Path(__file__).resolve().parent
    places = [here.parent / "notebooks", Path(sys.prefix) / "share" / "stmviz" / "sources"]
    for base in places:
        folder = base if lang == "en" else base / lang
        if folder.is_dir() and any(_SOURCE.match(p.name) for p in folder.iterdir()):
            return folder
    where = " or ".join(str(p if lang == "en" else p / lang) for p in places)
    raise InvalidArgumentError(
        f"course: no notebook sources (NN_name.md) for lang={lang!r} in {where}; "
        "reinstall stmviz, or run from a clone of its repository"
    )


def source_paths(lang: str = "en", names: Iterable[str] = ()) -> list[Path]:
    """The sources ``NN_name.md`` in language ``lang``, in order; with ``names``, those whose name starts with one.

    >>> [p.name for p in source_paths(names=["01"])]
    ['01_definition1_state_space.md']
    """
    folder = sources_folder(lang)
    wanted = [text(n, "a notebook name", where="course", example="01") for n in items(names, "names", what="names")]
    found = sorted(p for p in folder.iterdir() if _SOURCE.match(p.name))
    chosen = [p for p in found if not wanted or any(p.stem.startswith(n) for n in wanted)]
    unknown = [n for n in wanted if not any(p.stem.startswith(n) for p in found)]
    if unknown:
        raise InvalidArgumentError(
            f"course: no notebook named {unknown[0]!r} in {folder}; the notebooks are "
            f"{', '.join(p.stem for p in found)} (give a number such as 01, or a name)"
        )
    return chosen


def read_source(path: str | Path) -> Any:
    """The notebook a source ``NN_name.md`` describes: its cells, with ids ``NN-kk``, and no outputs.

    The ids are the built notebook's (``01-00``, ``01-01``, … for ``01_definition1_state_space``), so
    a notebook and its source can be compared cell by cell, and a Russian twin has the ids of the
    English one: its one extra cell, the code cell tagged ``language`` that turns its language on
    (``stmviz.set_language("ru")``), is ``01-language`` and is not counted. The metadata is what jupytext keeps in a paired ``.ipynb``: the kernelspec and
    jupytext's own, without the text file's ``text_representation``.

    >>> nb = read_source(source_paths(names=["01"])[0])
    >>> nb.cells[0].cell_type, nb.cells[1].id, nb.metadata.kernelspec.name
    ('markdown', '01-01', 'python3')
    """
    path = as_path(path, "notebook source")
    raw = read_bytes(path, what="notebook source (MyST Markdown)", error=FormatError)
    try:
        nb = _jupytext().reads(raw.decode("utf-8"), fmt="md:myst")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{path}: the notebook source is not UTF-8 text (byte {exc.start}); save it as UTF-8") from None
    except Exception as exc:  # jupytext's own errors: a malformed header or directive
        raise FormatError(f"{path}: not a MyST Markdown notebook jupytext can read: {exc}") from None
    prefix, k = path.stem[:2], 0
    for cell in nb.cells:
        if LANGUAGE_TAG in cell.get("metadata", {}).get("tags", []):
            cell["id"] = f"{prefix}-{LANGUAGE_TAG}"  # a translation's own cell: the others keep their twin's ids
            continue
        cell["id"] = f"{prefix}-{k:02d}"
        k += 1
    representation = nb.metadata.get("jupytext", {})
    representation.pop("text_representation", None)
    if not representation:
        nb.metadata.pop("jupytext", None)
    return nb


def source_differences(source: str | Path, notebook: str | Path) -> list[str]:
    """How a notebook differs from what its source builds: one line per difference, none when they agree.

    Compared: the number of cells, each cell's type, source, id and metadata, and the kernel. Not
    compared: the outputs (only running the source makes them) and jupytext's own metadata.

    >>> pair = source_paths(names=["01"])[0]
    >>> source_differences(pair, pair.with_suffix(".ipynb"))
    []
    """
    notebook = as_path(notebook, "notebook")
    built = read_source(source)
    raw = read_bytes(notebook, what="notebook", error=FormatError)
    try:
        found = _nbformat().reads(raw.decode("utf-8"), as_version=4)
    except Exception as exc:
        raise FormatError(f"{notebook}: not a notebook nbformat can read: {_shorten_error(exc)}") from None
    lines = []
    if len(found.cells) != len(built.cells):
        lines.append(f"{notebook.name}: {len(found.cells)} cells, its source {len(built.cells)}")
    for k, (want, got) in enumerate(zip(built.cells, found.cells)):
        for field in ("cell_type", "id", "source", "metadata"):
            if want.get(field) != got.get(field):
                lines.append(f"{notebook.name}: cell {k} ({want.get('id')}): its {field} differs from the source's "
                             f"({_brief_field(got.get(field))} against {_brief_field(want.get(field))})")
    for field in ("name", "language"):
        want_kernel = built.metadata.get("kernelspec", {}).get(field)
        got_kernel = found.metadata.get("kernelspec", {}).get(field)
        if want_kernel != got_kernel:
            lines.append(f"{notebook.name}: kernelspec {field} {got_kernel!r}, its source's {want_kernel!r}")
    return lines


def _brief_field(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


# ----------------------------------------------------------------- exercises


@dataclass(frozen=True)
class Exercise:
    """An exercise of a notebook: where its cells are and what it checks.

    ``answer_cell`` is the index of the exercise cell (the student's code), ``checker_cell`` that of
    the checker cell right after it; ``checker`` names the function of :mod:`stmviz.exercises` the
    checker cell calls, ``answer`` the name it passes; ``key`` is the key of its reference solution.
    """

    key: str
    answer_cell: int
    checker_cell: int
    checker: str
    answer: str


def _checker_call(source: str) -> tuple[str, str] | None:
    """(checker, answer) if ``source`` is nothing but ``check_…(name)`` with a checker of stmviz.exercises."""
    from . import exercises

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id.startswith("check_")):
        return None
    if call.func.id not in exercises.__all__:
        return None
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name):
        return None
    return call.func.id, call.args[0].id


def _binds(source: str, name: str) -> bool:
    """Whether code at the top level of ``source`` binds ``name`` (def, class, assignment or import)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((alias.asname or alias.name.split(".")[0]) == name for alias in node.names):
                return True
        for target in targets:
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                return True
    return False


def find_exercises(nb: Any, name: str = "") -> list[Exercise]:
    """The exercises of a notebook (read with :func:`read_source`), by the convention in this module's docstring.

    Raises :class:`~stmviz.errors.FormatError`, naming the cell, where a checker cell is not
    written as the convention says: no exercise cell binding its answer with a TODO right before
    it, no Markdown cell naming one key right after it, or a key of another notebook.

    >>> [(e.key, e.checker, e.answer) for e in find_exercises(read_source(source_paths(names=["01"])[0]))]
    [('01-which-fit', 'check_which_fit', 'fits'), ('01-membership', 'check_membership', 'in_omega')]
    """
    where = f"notebook {name}" if name else "the notebook"
    cells = list(nb.cells)
    found = []
    for k, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        call = _checker_call(cell.source)
        if call is None:
            continue
        checker, answer = call
        label = f"{where}, cell {k} ({cell.get('id', k)}): the checker cell {checker}({answer})"
        before = cells[k - 1] if k > 0 else None
        if before is None or before.cell_type != "code" or not _binds(before.source, answer):
            raise FormatError(f"{label} must follow the exercise cell, a code cell that defines {answer}; "
                              f"put the checker cell right after it")
        if "TODO" not in before.source:
            raise FormatError(f"{label}: its exercise cell (cell {k - 1}) has no TODO; write what the student does "
                              f"as a `# TODO: ...` comment there")
        after = cells[k + 1] if k + 1 < len(cells) else None
        keys = _KEY.findall(after.source) if after is not None and after.cell_type == "markdown" else []
        if len(keys) != 1:
            raise FormatError(f"{label} must be followed by a Markdown cell that names its key once, as "
                              f'`stmviz.exercises.solution("NN-what")`; found {keys or "none"}')
        key = keys[0]
        if name[:2].isdigit() and not key.startswith(name[:2] + "-"):
            raise FormatError(f"{label}: its key {key!r} must start with the notebook's number, {name[:2]}-")
        found.append(Exercise(key=key, answer_cell=k - 1, checker_cell=k, checker=checker, answer=answer))
    keys = [e.key for e in found]
    twice = sorted({key for key in keys if keys.count(key) > 1})
    if twice:
        raise FormatError(f"{where}: the key {twice[0]!r} names more than one exercise; give each its own key")
    return found


# ----------------------------------------------------------------- scores


def _todo(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("TODO")


def points(checker: Callable[[Any], ExerciseReport], answer: Any) -> int:
    """The score of an answer: the number of criteria of ``checker`` it meets (0 while its TODO is left as is).

    The grade cells of a course call it; nbgrader takes the number the cell shows as the exercise's
    points. What the student's code writes to stderr (a warning, a progress bar) is kept out of the
    cell, since nbgrader gives no points to a cell that writes to stderr.

    >>> from stmviz.exercises import check_membership
    >>> points(check_membership, lambda elements, mu, v_max: sum(mu(e) for e in set(elements)) <= v_max)
    5
    >>> points(check_membership, lambda elements, mu, v_max: sum(mu(e) for e in elements) < v_max)
    3
    """
    checker = function(checker, "checker", "(answer) -> ExerciseReport", where="points", none_ok=False)
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        report = checker(answer)
    if not isinstance(report, ExerciseReport):
        raise InvalidArgumentError(f"points: {checker!r} returned {type(report).__name__}, not an ExerciseReport; "
                                   "pass a checker of stmviz.exercises")
    return sum(1 for c in report.criteria if c.passed) if report.done else 0


def max_points(checker: Callable[[Any], ExerciseReport] | str) -> int:
    """What an exercise is worth: the number of criteria of its checker (a function or its name in stmviz.exercises).

    >>> max_points("check_membership")
    5
    """
    if isinstance(checker, str):
        from . import exercises

        if not checker.startswith("check_") or checker not in exercises.__all__:
            raise InvalidArgumentError(f"max_points: stmviz.exercises has no checker {checker!r}")
        named: Callable[[Any], ExerciseReport] = getattr(exercises, checker)
        return len(named(_todo).criteria)
    given = function(checker, "checker", "(answer) -> ExerciseReport", where="max_points", none_ok=False)
    return len(given(_todo).criteria)


# ----------------------------------------------------------------- the instructor's and the student's versions


def instructor_version(nb: Any, name: str) -> Any:
    """The instructor's version of a notebook (from :func:`read_source`), as nbgrader's ``source/`` holds it.

    Each exercise cell ends with its reference solution (``SOLUTIONS[key]``) in a
    ``### BEGIN SOLUTION`` … ``### END SOLUTION`` region and is an nbgrader solution cell
    (``grade_id`` ``KEY-answer``); after each checker cell comes a locked grade cell
    (``grade_id`` ``KEY``) worth :func:`max_points` of the checker, whose number is :func:`points`.
    nbgrader's ``generate_assignment`` removes the regions: the student version keeps the TODOs.
    """
    from .exercise_solutions import SOLUTIONS

    nb = copy.deepcopy(nb)
    nb.metadata.pop("jupytext", None)  # a course's notebooks are not paired with a source beside them
    exercises = find_exercises(nb, name)
    missing = [e.key for e in exercises if e.key not in SOLUTIONS]
    if missing:
        raise FormatError(f"notebook {name}: no reference solution for the exercise {missing[0]!r}; add it to "
                          f"SOLUTIONS in stmviz/exercise_solutions.py")
    cells = list(nb.cells)
    for exercise in reversed(exercises):  # from the end, so that the indices before stay right
        solution = SOLUTIONS[exercise.key].strip("\n")
        if not _binds(solution, exercise.answer):
            raise FormatError(f"notebook {name}: the reference solution of {exercise.key!r} does not define "
                              f"{exercise.answer}, which the checker cell passes to {exercise.checker}")
        answer = cells[exercise.answer_cell]
        answer.source = "\n".join([
            answer.source,
            f"{BEGIN_SOLUTION} (the reference answer; the student version keeps only the TODO above)",
            solution,
            END_SOLUTION,
        ])
        answer.metadata["nbgrader"] = _nbgrader_metadata(f"{exercise.key}-answer", solution=True)
        graded = _nbformat().v4.new_code_cell(GRADE_CELL.format(checker=exercise.checker, answer=exercise.answer))
        graded["id"] = f"{exercise.key}-grade"
        graded.metadata["nbgrader"] = _nbgrader_metadata(exercise.key, grade=True, points=max_points(exercise.checker))
        cells.insert(exercise.checker_cell + 1, graded)
    nb.cells = cells
    return nb


def _nbgrader_metadata(grade_id: str, *, solution: bool = False, grade: bool = False,
                       points: int | None = None) -> dict[str, Any]:
    """A cell's metadata for nbgrader (its schema version 3)."""
    data: dict[str, Any] = {"grade": grade, "grade_id": grade_id, "locked": grade, "schema_version": 3,
                            "solution": solution, "task": False}
    if points is not None:
        data["points"] = points
    return data


def _settings_file() -> str:
    """NBGRADER_SETTINGS as an nbgrader_config.py."""
    lines = ["# nbgrader's settings for this course, written by `stmviz course student` (see stmviz.course).",
             "c = get_config()  # noqa: F821 - nbgrader defines it"]
    for section, values in NBGRADER_SETTINGS.items():
        for key, value in values.items():
            lines.append(f"c.{section}.{key} = {value!r}")
    return "\n".join(lines) + "\n"


def _nbgrader() -> Any:
    return require("nbgrader.apps", package="nbgrader", extra="course", why="making and grading a course")


def _api(course: Path) -> Any:
    """nbgrader's API on the course folder ``course``, with NBGRADER_SETTINGS over its nbgrader_config.py."""
    api = _nbgrader()
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config = Config()
    if (course / "nbgrader_config.py").is_file():
        config.merge(PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config())
    for section, values in NBGRADER_SETTINGS.items():
        for key, value in values.items():
            config[section][key] = value
    config.CourseDirectory.root = str(course)
    with _nbgrader_running():
        return api.NbGraderAPI(config=config)


def _nbgrader_failed(result: dict[str, Any], what: str) -> None:
    """Raise FormatError with nbgrader's own account if an nbgrader step did not succeed."""
    if result.get("success"):
        return
    text = (result.get("log") or "") + "\n" + (result.get("error") or "")
    causes = re.findall(r"^\s*(?:\[\w+\]\s*)?([\w.]*(?:Error|Exception|Exit)\b:.*)$", text, re.MULTILINE)
    reason = causes[0].strip() if causes else (text.strip().splitlines() or ["no reason given"])[-1]
    raise FormatError(f"course: nbgrader could not {what}: {reason}")


@contextlib.contextmanager
def _nbgrader_running() -> Any:
    """What nbgrader needs while it runs, and quiet about what it need not say.

    This environment's scripts folder is on PATH: nbgrader starts ``alembic`` by name to make a
    gradebook, which fails when stmviz runs from a virtual environment that is not activated. The
    warnings its database layer gives about its own sessions are not shown.
    """
    scripts = str(Path(sys.executable).parent)
    old = os.environ.get("PATH")
    if scripts not in (old or "").split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + old if old else scripts
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        if old is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = old


def make_course(outdir: str | Path, lang: str = "en", names: Iterable[str] = ()) -> list[Path]:
    """Write an nbgrader course folder for the notebooks: the instructor's and the student version of each.

    ``outdir`` gets ``nbgrader_config.py`` (unless it has one), ``source/NAME/NAME.ipynb`` (the
    instructor's version, :func:`instructor_version`), ``release/NAME/NAME.ipynb`` (the student version,
    made by nbgrader's ``generate_assignment``: solution regions removed) and ``gradebook.db``; each
    notebook is an assignment named as the notebook. Run again, it rewrites the versions (a
    submission already graded keeps its grades). Returns the paths of the student versions.
    """
    outdir = as_path(outdir, "course folder")
    if outdir.exists() and not outdir.is_dir():
        raise InvalidArgumentError(f"{outdir}: is a file, not a folder; give a folder for the course")
    _nbgrader()  # before anything is written
    paths = source_paths(lang, names)
    versions = [(p.stem, instructor_version(read_source(p), p.stem)) for p in paths]
    outdir.mkdir(parents=True, exist_ok=True)
    if not (outdir / "nbgrader_config.py").exists():
        write_text(outdir / "nbgrader_config.py", _settings_file(), what="nbgrader configuration")
    nbformat = _nbformat()
    for name, nb in versions:
        folder = outdir / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        write_text(folder / f"{name}.ipynb", nbformat.writes(nb) + "\n", what="notebook")
    api = _api(outdir)
    released = []
    with _nbgrader_running():
        for name, _ in versions:
            _nbgrader_failed(api.generate_assignment(name, force=True, create=True),
                             f"make the student version of {name}")
            released.append(outdir / "release" / name / f"{name}.ipynb")
    return released


# ----------------------------------------------------------------- grading


@dataclass(frozen=True)
class ExerciseGrade:
    """An exercise's grade: ``score`` of ``max_score`` points, and the checker's report in the graded run."""

    key: str
    score: float
    max_score: float
    report: str

    def __str__(self) -> str:
        return _("{key}: {score} of {max_score}").format(key=self.key, score=f"{self.score:g}",
                                                          max_score=f"{self.max_score:g}")


def _assignment(nb: Any, course: Path, submission: Path) -> str:
    """The assignment a submitted notebook belongs to: the one whose cell ids (``NN-kk``) it carries."""
    prefixes = {str(cell.get("id", ""))[:2] for cell in nb.cells if re.match(r"^\d\d-\d\d$", str(cell.get("id", "")))}
    names = sorted(p.name for p in (course / "source").iterdir() if p.is_dir()) if (course / "source").is_dir() else []
    matches = [n for n in names if n[:2] in prefixes]
    if len(matches) == 1 and len(prefixes) == 1:
        return matches[0]
    by_name = [n for n in names if submission.stem.startswith(n)]
    if len(by_name) == 1:
        return by_name[0]
    raise FormatError(
        f"{submission}: cannot tell which notebook of the course this is (its cells' ids start with "
        f"{sorted(prefixes) or 'nothing known'}; the course has {', '.join(names) or 'no notebook'}); "
        "grade a student version made by `stmviz course student`, named as it was handed out"
    )


def grade(submission: str | Path, course: str | Path | None = None, *, student: str = "student",
          lang: str = "en") -> list[ExerciseGrade]:
    """Grade a submitted student version with nbgrader's autograder: a score per exercise, from its checker.

    The submission is copied into the course as ``submitted/STUDENT/NAME/NAME.ipynb`` and run by
    ``nbgrader autograde`` in a fresh kernel; its grade cells (restored from the course if they were
    changed or deleted) show :func:`points`, which nbgrader records in the gradebook. Without
    ``course`` the grading happens in a temporary course made from the ``lang`` sources and
    forgotten afterwards; with it (a folder made by :func:`make_course`, whatever its language), the
    grades stay in its gradebook. Either way the scores come from the checkers alone, so a
    submission is graded the same in both languages.

    As with any autograder that runs a student's code in the kernel that checks it, a determined
    student can fool it (by redefining what the grade cell calls); nbgrader's formgrader shows
    each submission for a look.
    """
    submission = as_path(submission, "submitted notebook")
    _nbgrader()
    lang = choice(lang, "lang", LANGUAGES, where="grade")
    student = text(student, "student", where="grade", example="ada")
    if not re.match(r"^[A-Za-z0-9_.@-]+$", student):
        raise InvalidArgumentError(f"grade: the student id must be letters, digits, '_', '.', '@' or '-', got {student!r}")
    nbformat = _nbformat()
    raw = read_bytes(submission, what="submitted notebook", error=FormatError)
    try:
        nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
    except Exception as exc:
        raise FormatError(f"{submission}: not a notebook nbformat can read: {_shorten_error(exc)}") from None
    if not any("nbgrader" in cell.get("metadata", {}) for cell in nb.cells):
        raise FormatError(f"{submission}: has no nbgrader cells; grade a student version made by "
                          "`stmviz course student`, not a copy of the tutorial notebook")
    with contextlib.ExitStack() as stack:
        if course is None:
            place = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="stmviz-course-")))
            prefixes = sorted({str(c.get("id", ""))[:2] for c in nb.cells if re.match(r"^\d\d-", str(c.get("id", "")))})
            make_course(place, lang, prefixes[:1] or [submission.stem[:2]])
        else:
            place = as_path(course, "course folder")
            if not (place / "source").is_dir():
                raise InvalidArgumentError(f"{place}: not a course folder (no source/ in it); make one with "
                                           "`stmviz course student FOLDER`")
        name = _assignment(nb, place, submission)
        target = place / "submitted" / student / name
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        write_text(target / f"{name}.ipynb", raw.decode("utf-8"), what="submitted notebook")
        api = _api(place)
        with _nbgrader_running():
            _nbgrader_failed(api.autograde(name, student, force=True, create=True), f"grade {submission}")
        graded = nbformat.reads(
            read_bytes(place / "autograded" / student / name / f"{name}.ipynb", what="graded notebook").decode("utf-8"),
            as_version=4)
        reports = _reports(graded)
        with _nbgrader_running(), api.gradebook as gradebook:
            notebook = gradebook.find_submission_notebook(name, name, student)
            scores = {g.name: (float(g.score), float(g.max_score)) for g in notebook.grades}
    order = [str(c.metadata["nbgrader"]["grade_id"]) for c in graded.cells
             if c.metadata.get("nbgrader", {}).get("grade") and c.metadata["nbgrader"].get("grade_id") in scores]
    return [ExerciseGrade(key, scores[key][0], scores[key][1], reports.get(key, "")) for key in order]


def _shorten_error(exc: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    first = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {first[0][:200] if first else ''}"


def _reports(nb: Any) -> dict[str, str]:
    """What each exercise's checker cell printed in the graded run, by the key of the grade cell after it."""
    reports = {}
    cells = list(nb.cells)
    for k, cell in enumerate(cells):
        meta = cell.metadata.get("nbgrader", {})
        if not meta.get("grade") or k == 0:
            continue
        checker = cells[k - 1]
        shown = []
        for output in checker.get("outputs", []):
            if output.get("output_type") == "stream":
                shown.append(output.get("text", ""))
            elif output.get("output_type") in ("execute_result", "display_data"):
                shown.append(output.get("data", {}).get("text/plain", ""))
            elif output.get("output_type") == "error":
                shown.append(f"{output.get('ename')}: {output.get('evalue')}")
        reports[str(meta.get("grade_id"))] = "\n".join(s.rstrip("\n") for s in shown)
    return reports


def summary(grades: Sequence[ExerciseGrade]) -> str:
    """The grades as a table: one line per exercise (score of max), the criteria not met under it, and the total."""
    total_label = _("total")
    width = max([len(g.key) for g in grades] + [len(total_label)])
    row = _("{key}  {score} of {max_score}")  # the key padded to the table's width
    lines = []
    for g in grades:
        lines.append(row.format(key=f"{g.key:{width}}", score=f"{g.score:g}", max_score=f"{g.max_score:g}"))
        lines += ["    " + line.strip() for line in g.report.splitlines() if line.strip().startswith("✗")]
    total, top = sum(g.score for g in grades), sum(g.max_score for g in grades)
    lines.append(row.format(key=f"{total_label:{width}}", score=f"{total:g}", max_score=f"{top:g}"))
    return "\n".join(lines)
