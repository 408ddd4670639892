"""Opening a notebook in JupyterLab does not mark it as changed.

JupyterLab rewrites ``metadata.kernelspec`` from the kernel it starts; a stored
kernelspec that differs (it used to say "Python 3" where ipykernel's says
"Python 3 (ipykernel)") showed every notebook with unsaved changes before the
user touched it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from jlab import close_all, open_notebook

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = [p.relative_to(ROOT / "notebooks").as_posix()
             for p in sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "notebooks").glob("ru/*.ipynb"))]

#: The opened notebook's panel, found by its path (the current widget may be another panel by then).
PANEL = (
    "name => { for (const w of window.jupyterapp.shell.widgets('main')) {"
    " if (w.context && w.context.path.endsWith(name)) return w; } return null; }"
)
DIRTY = f"name => ({PANEL})(name).context.model.dirty"
KERNEL_NAME = (
    f"name => {{ const w = ({PANEL})(name);"
    " return w && w.sessionContext && w.sessionContext.session ? w.sessionContext.kernelDisplayName : null; }"
)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_opening_a_notebook_leaves_it_unchanged(jupyter_lab, page, name):
    open_notebook(page, jupyter_lab, f"notebooks/{name}")
    try:
        page.wait_for_timeout(1500)  # the kernel's info reply updates the metadata after it is idle
        assert page.evaluate(KERNEL_NAME, name), "no kernel started"
        assert page.evaluate(DIRTY, name) is False, f"{name} shows unsaved changes right after opening"
    finally:
        close_all(page)
