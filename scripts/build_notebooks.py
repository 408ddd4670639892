"""Build the tutorial notebooks from their sources and execute them, storing the outputs.

    python scripts/build_notebooks.py            # every notebook
    python scripts/build_notebooks.py 03 06      # only those whose names start so (English and Russian)
    python scripts/build_notebooks.py ru/03      # only the Russian 03 (notebooks/ru/03_*.md)
    python scripts/build_notebooks.py --check    # only list the notebooks that differ from their sources

Each notebook ``notebooks/NAME.ipynb`` (and ``notebooks/ru/NAME.ipynb``) is built from its source
``NAME.md`` beside it, a jupytext MyST Markdown notebook: the cells are read with
:func:`stmviz.course.read_source` (ids ``NN-kk``) and run in a fresh kernel. The notebooks are what
users open and what nbval checks; this script is how the project keeps them equal to their sources
and their outputs fresh. Widget state is not stored (it would add megabytes of JavaScript), so files
stay small. It prints each notebook's run time. ``--check`` reads no kernel and changes nothing; it
exits with status 1 when a notebook differs from its source (tests/test_notebook_sources.py checks
the same).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "notebooks"
sys.path.insert(0, str(ROOT))  # this checkout's stmviz, whichever one is installed

from stmviz.course import read_source, source_differences  # noqa: E402


def kernelspec(name: str = "python3") -> dict[str, str]:
    """The notebook's kernelspec as JupyterLab writes it for the installed kernel.

    JupyterLab replaces ``metadata.kernelspec`` by the running kernel's spec when
    a notebook opens; a stored ``display_name`` that differs ("Python 3" against
    ipykernel's "Python 3 (ipykernel)") marks every notebook as changed before
    the user has touched it. ``language_info`` is filled from the kernel itself
    while the notebook executes.
    """
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(name)
    return {"display_name": spec.display_name, "language": spec.language, "name": name}


#: the start page JupyterLab opens (``stmviz lab``): links to the course in each language, no code
START = "start.md"


def sources() -> list[Path]:
    """Every notebook source: ``notebooks/NN_name.md``, the start page and the translations' (``notebooks/ru/``)."""
    found = sorted(OUT.glob("[0-9][0-9]_*.md")) + [OUT / START]
    for folder in sorted(p for p in OUT.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        found += sorted(folder.glob("[0-9][0-9]_*.md"))
    return found


def build(source: Path) -> float:
    """Write ``source``'s notebook beside it, executed; return the seconds it ran."""
    nb = read_source(source)
    nb.metadata["kernelspec"] = kernelspec()
    nb.metadata["language_info"] = {"name": "python"}
    start = time.perf_counter()
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(source.parent)}},
        store_widget_state=False,
    )
    client.execute()
    elapsed = time.perf_counter() - start
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = joined_streams(cell.outputs)
    nbformat.write(nb, source.with_suffix(".ipynb"))
    return elapsed


def joined_streams(outputs: list) -> list:
    """The outputs with each run of stdout (or stderr) chunks joined into one output.

    How a kernel cuts what a cell prints into messages depends on when its buffer is flushed, so
    one run can store a line as two chunks where another stored one: joined, the file depends only
    on what was printed.
    """
    joined: list = []
    for output in outputs:
        last = joined[-1] if joined else None
        if (output.get("output_type") == "stream" and last is not None and last.get("output_type") == "stream"
                and last.get("name") == output.get("name")):
            last["text"] = last["text"] + output["text"]
        else:
            joined.append(output)
    return joined


def main(argv: list[str]) -> int:
    check = "--check" in argv
    wanted = [a for a in argv if a != "--check"]
    chosen = [s for s in sources() if not wanted or any(
        s.stem.startswith(a) or s.relative_to(OUT).as_posix().startswith(a) for a in wanted)]
    if check:
        lines = [line for s in chosen for line in (
            source_differences(s, s.with_suffix(".ipynb")) if s.with_suffix(".ipynb").exists()
            else [f"{s.with_suffix('.ipynb').name}: missing; build it"])]
        print("\n".join(lines) if lines else f"{len(chosen)} notebooks agree with their sources")
        return 1 if lines else 0
    for source in chosen:
        seconds = build(source)
        size = source.with_suffix(".ipynb").stat().st_size
        print(f"{str(source.relative_to(OUT).with_suffix('')):32} {seconds:6.1f} s  {size / 1024:7.1f} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
