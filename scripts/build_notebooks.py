"""Write the tutorial notebooks from their cell sources and execute them, storing outputs.

    python scripts/build_notebooks.py            # all notebooks
    python scripts/build_notebooks.py 03 06      # only those whose names start so

The notebooks in ``notebooks/`` are what users open and what nbval checks; this
script is how the project keeps them consistent and their outputs fresh. Each
notebook runs in a fresh kernel; widget state is not stored (it would add
megabytes of JavaScript), so files stay small. It prints each notebook's run time.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "notebooks"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from notebook_sources import NOTEBOOKS  # noqa: E402


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


def build(name: str, cells: list[tuple[str, str]]) -> float:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = kernelspec()
    nb.metadata["language_info"] = {"name": "python"}
    for kind, source in cells:
        source = source.strip("\n")
        if kind == "md":
            nb.cells.append(nbformat.v4.new_markdown_cell(source))
        else:
            cell = nbformat.v4.new_code_cell(source)
            nb.cells.append(cell)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{name[:2]}-{i:02d}"
    start = time.perf_counter()
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(OUT)}}, store_widget_state=False
    )
    client.execute()
    elapsed = time.perf_counter() - start
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, OUT / f"{name}.ipynb")
    return elapsed


def main(argv: list[str]) -> None:
    OUT.mkdir(exist_ok=True)
    wanted = [n for n in NOTEBOOKS if not argv or any(n.startswith(a) for a in argv)]
    for name in wanted:
        seconds = build(name, NOTEBOOKS[name])
        size = (OUT / f"{name}.ipynb").stat().st_size
        print(f"{name:32} {seconds:6.1f} s  {size / 1024:7.1f} KiB")


if __name__ == "__main__":
    main(sys.argv[1:])
