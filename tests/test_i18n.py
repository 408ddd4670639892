"""The course in Russian: one language setting, gettext catalogs that translate every marked sentence, and twelve
Russian notebooks with their English twins' code cells and no English sentence in what a student reads.

The catalogs are checked against the code (``scripts/i18n.py``: extract, compile); the notebooks against their
English twins (``notebooks/ru/NN_name.md`` ↔ ``notebooks/NN_name.md``) and against ``tests/russian_text.py``,
which finds English sentences in prose.
"""

from __future__ import annotations

import importlib.util
import json
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

import stmviz
from stmviz.core import i18n
from stmviz.core.errors import InvalidArgumentError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from russian_text import english_sentences  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
ENGLISH = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.md"))


def _script():
    spec = importlib.util.spec_from_file_location("stmviz_i18n_script", ROOT / "scripts" / "i18n.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


babel = pytest.importorskip("babel", reason="the catalogs are extracted and compiled with Babel (pip install -e '.[test]')")
script = _script()


# -- the setting -----------------------------------------------------------------------------------------------------

def test_english_is_the_default_and_returns_the_code_s_own_words():
    assert stmviz.get_language() == "en"
    assert i18n.gettext("hint: {hint}") == "hint: {hint}"
    assert i18n.ngettext("{n} element", "{n} elements", 1) == "{n} element"
    assert i18n.ngettext("{n} element", "{n} elements", 2) == "{n} elements"


def test_set_language_switches_every_later_text_and_language_restores():
    stmviz.set_language("ru")
    assert i18n.gettext("hint: {hint}") == "подсказка: {hint}"
    with stmviz.language("en"):
        assert i18n.gettext("hint: {hint}") == "hint: {hint}"
    assert stmviz.get_language() == "ru"
    with pytest.raises(ZeroDivisionError), stmviz.language("en"):
        1 / 0
    assert stmviz.get_language() == "ru"


def test_an_unknown_language_is_refused_and_changes_nothing():
    stmviz.set_language("ru")
    with pytest.raises(InvalidArgumentError, match="'en', 'ru'"):
        stmviz.set_language("fr")
    with pytest.raises(InvalidArgumentError):
        stmviz.set_language(None)
    assert stmviz.get_language() == "ru"


def test_a_sentence_the_catalog_does_not_know_stays_english():
    with stmviz.language("ru"):
        assert i18n.gettext("a sentence nobody marked") == "a sentence nobody marked"


def test_russian_plurals_have_three_forms():
    """A head line that counts criteria agrees with its number (1 критерия … 5 критериев, as gettext's Plural-Forms)."""
    with stmviz.language("ru"):
        forms = {n: i18n.ngettext("{exercise}: {n} of {m} criteria not met", "{exercise}: {n} of {m} criteria not met",
                                  n) for n in (1, 3, 5, 21)}
    assert forms[1] == forms[21] != forms[5]
    assert "критерия" in forms[1] and "критериев" in forms[5]


def test_importing_stmviz_reads_no_catalog():
    code = "import stmviz; print(stmviz.core.i18n._catalog.cache_info().currsize)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"


# -- the catalogs ----------------------------------------------------------------------------------------------------

def test_the_compiled_catalog_is_what_its_po_files_compile_to():
    committed = script.mo_path("ru").read_bytes()
    assert committed == script.compiled("ru"), "stale stmviz.mo: run python scripts/i18n.py compile"


@pytest.mark.parametrize("area", list(script.AREAS))
def test_every_sentence_marked_in_the_code_has_its_russian_translation(area):
    missing = [f"{where}: {sentence!r}" for a, where, sentence in script.missing("ru") if a == area]
    assert missing == [], (f"{len(missing)} sentences of the area {area!r} have no Russian translation "
                           "(python scripts/i18n.py update, then translate them in "
                           f"stmviz/locale/ru/LC_MESSAGES/{area}.po):\n" + "\n".join(missing))


def _fields(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


@pytest.mark.parametrize("area", list(script.AREAS))
def test_a_translation_keeps_every_placeholder_of_its_sentence(area):
    wrong = []
    for message in script.read_catalog(script.po_path("ru", area), "ru"):
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        want = _fields(ids[-1])
        for translated in strings:
            if translated and _fields(translated) != want and _fields(translated) != _fields(ids[0]):
                wrong.append(f"{ids[0]!r} → {translated!r}")
    assert wrong == []


# -- the Russian notebooks -------------------------------------------------------------------------------------------

jupytext = pytest.importorskip("jupytext", reason="the notebooks' sources are read with jupytext (pip install -e '.[test]')")
from stmviz import course  # noqa: E402


def _russian(english: Path) -> Path:
    return NOTEBOOKS / "ru" / english.name


@pytest.mark.parametrize("english", ENGLISH, ids=[p.stem[:2] for p in ENGLISH])
def test_every_notebook_has_its_russian_twin_with_the_same_cells(english):
    russian = _russian(english)
    assert russian.exists(), f"notebooks/ru/{english.name} is missing: translate notebooks/{english.name}"
    en, ru = course.read_source(english), course.read_source(russian)
    ru_cells = [c for c in ru.cells if c.id != f"{english.stem[:2]}-{course.LANGUAGE_TAG}"]
    assert [(c.id, c.cell_type) for c in ru_cells] == [(c.id, c.cell_type) for c in en.cells], (
        "a Russian notebook has its twin's cells in the same order: one Russian Markdown cell for each English one, "
        "each code cell as it is")
    for en_cell, ru_cell in zip(en.cells, ru_cells):
        if en_cell.cell_type == "code":
            assert ru_cell.source == en_cell.source, f"{ru_cell.id}: a code cell differs from its English twin's"
            assert ru_cell.metadata == en_cell.metadata, f"{ru_cell.id}: a code cell's metadata differs"


@pytest.mark.parametrize("english", ENGLISH, ids=[p.stem[:2] for p in ENGLISH])
def test_a_russian_notebook_turns_russian_on_in_its_first_code_cell(english):
    ru = course.read_source(_russian(english))
    first = next(c for c in ru.cells if c.cell_type == "code")
    assert course.LANGUAGE_TAG in first.metadata.get("tags", [])
    assert first.source.strip() == 'import stmviz\nstmviz.set_language("ru")'


@pytest.mark.parametrize("english", ENGLISH, ids=[p.stem[:2] for p in ENGLISH])
def test_a_russian_notebook_s_prose_has_no_english_sentence(english):
    ru = course.read_source(_russian(english))
    found = [f"{c.id}: {s}" for c in ru.cells if c.cell_type == "markdown" for s in english_sentences(c.source)]
    assert found == [], "English left in the prose:\n" + "\n".join(found)


def _shown(english: Path) -> list[tuple[str, str, str]]:
    """(cell id, what, text) for every text a stored output shows a student: checker reports, figure labels."""
    notebook = _russian(english).with_suffix(".ipynb")
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    shown = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain") or ""
            text = "".join(text) if isinstance(text, list) else text
            if re.search(r"^[ \t]+[✓✗·] ", text, re.M):
                shown += [(cell["id"], "checker", line) for line in text.splitlines()]
            figure = output.get("data", {}).get("application/vnd.plotly.v1+json")
            if figure:
                shown += [(cell["id"], "figure", label) for label in _labels(figure)]
    return shown


def _labels(figure: dict) -> list[str]:
    layout = figure.get("layout", {})
    labels = [_text(layout.get("title"))]
    labels += [_text(axis.get("title")) for key, axis in layout.items() if key.startswith(("xaxis", "yaxis"))
               and isinstance(axis, dict)]
    labels += [a.get("text", "") for a in layout.get("annotations", [])]
    labels += [t.get("name", "") for t in figure.get("data", []) if t.get("showlegend", True)]
    return [re.sub(r"<[^>]+>", " ", label) for label in labels if label]


def _text(title) -> str:
    return title.get("text", "") if isinstance(title, dict) else (title or "")


@pytest.mark.parametrize("english", ENGLISH, ids=[p.stem[:2] for p in ENGLISH])
def test_what_a_russian_notebook_shows_a_student_is_russian(english):
    """The checkers' reports and the figures' titles, axes and legends in the stored outputs."""
    found = [f"{cell} ({what}): {text.strip()}" for cell, what, text in _shown(english) if english_sentences(text)]
    assert found == [], "English in what the notebook shows:\n" + "\n".join(found)
