"""One text source per notebook: each ``notebooks/NAME.md`` (a jupytext MyST Markdown notebook) builds its
``NAME.ipynb``, and jupytext pairs the two.

A notebook edited without its source (or a source edited without a rebuild) fails here; rebuild with
``python scripts/build_notebooks.py NN``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext", reason="the notebooks' sources are read with jupytext (pip install -e '.[test]')")

from stmviz import course  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.md")) + sorted(NOTEBOOKS.glob("*/[0-9][0-9]_*.md"))
NAMES = [str(p.relative_to(NOTEBOOKS).with_suffix("")) for p in SOURCES]


def test_every_source_has_its_notebook_and_every_notebook_its_source():
    notebooks = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")) + sorted(NOTEBOOKS.glob("*/[0-9][0-9]_*.ipynb"))
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
    assert course.source_differences(source, notebook) == [f"{notebook.name}: 26 cells, its source 27"]


def test_the_build_script_checks_without_a_kernel():
    result = subprocess.run([sys.executable, "scripts/build_notebooks.py", "--check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(SOURCES)} notebooks agree with their sources" in result.stdout


def test_jupytext_pairs_each_source_with_its_notebook():
    """notebooks/jupytext.toml declares the pair, so jupytext (in JupyterLab, or its CLI) keeps both in step."""
    from jupytext.config import load_jupytext_config
    from jupytext.paired_paths import paired_paths

    config = load_jupytext_config(str(NOTEBOOKS))
    for source in SOURCES:
        formats = config.default_formats(str(source.with_suffix(".ipynb")))
        assert formats == "ipynb,md:myst"
        pairs = {path for path, _ in paired_paths(str(source.with_suffix(".ipynb")), "ipynb", formats)}
        assert pairs == {str(source), str(source.with_suffix(".ipynb"))}


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
