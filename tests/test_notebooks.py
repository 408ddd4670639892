"""The notebooks are the product's face: all present, small, without stored widget state, and all under nbval."""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
EXPECTED = [
    "00_start_here",
    "01_definition1_state_space",
    "02_definition2_mechanism",
    "03_fifo_context_window",
    "04_scm",
    "05_hiagent",
    "06_agentfold",
    "07_compare",
    "08_build_your_own",
    "09_your_own_logs",
    "10_measuring_memory",
    "11_managers_you_use",
]


def pyproject_pytest_options() -> str:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    options = data["tool"]["pytest"]["ini_options"]
    return " ".join([options.get("addopts", "")] + list(options.get("testpaths", [])))


def test_every_notebook_is_present_and_no_stray_one():
    found = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    assert found == EXPECTED + ["start"]  # start.ipynb: the page `stmviz lab` opens, linking both languages


def test_every_notebook_has_its_russian_twin_and_no_stray_one():
    assert sorted(p.stem for p in (NOTEBOOKS / "ru").glob("*.ipynb")) == EXPECTED


def test_every_notebook_is_built_from_its_source():
    """Each notebook has its jupytext source beside it (tests/test_notebook_sources.py holds them equal)."""
    assert sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.md")) == EXPECTED


def test_the_test_command_runs_nbval_on_the_notebooks_folder():
    options = pyproject_pytest_options()
    assert "--nbval" in options and "notebooks" in options and "nbval_sanitize.cfg" in options


@pytest.mark.parametrize("name", EXPECTED + [f"ru/{name}" for name in EXPECTED])
def test_notebook_is_small_executed_and_skips_nothing(name):
    path = NOTEBOOKS / f"{name}.ipynb"
    assert path.stat().st_size <= 1_000_000, "notebook over 1 MB: stored widget state?"
    nb = json.loads(path.read_text(encoding="utf-8"))
    assert "widgets" not in nb.get("metadata", {}), "widget state is stored; execute with store_widget_state=False"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(c.get("execution_count") for c in code), "every code cell has been executed"
    for cell in code:
        source = "".join(cell["source"])
        assert "NBVAL_SKIP" not in source and "nbval-skip" not in cell.get("metadata", {}).get("tags", [])
        assert not any(o.get("output_type") == "error" for o in cell.get("outputs", []))
    first = nb["cells"][0]
    assert first["cell_type"] == "markdown", "a notebook opens with the idea in prose"


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_kernelspec_is_what_jupyterlab_writes_on_opening(name):
    """JupyterLab rewrites metadata.kernelspec from the installed kernel on opening; a different display_name
    (the old "Python 3" against ipykernel's "Python 3 (ipykernel)") showed every notebook as changed."""
    kernelspecs = pytest.importorskip("jupyter_client.kernelspec")
    try:
        spec = kernelspecs.KernelSpecManager().get_kernel_spec("python3")
    except kernelspecs.NoSuchKernel:
        pytest.skip("no python3 kernel installed")
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))
    assert nb["metadata"]["kernelspec"] == {"display_name": spec.display_name, "language": spec.language,
                                            "name": "python3"}
    assert nb["metadata"]["language_info"]["name"] == "python"
