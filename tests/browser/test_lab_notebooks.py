"""Every notebook runs in JupyterLab in headless Chromium, without errors, with its figures and widgets rendered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jlab import close_all, open_notebook, run_all

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = [p.relative_to(ROOT / "notebooks").as_posix()
             for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + sorted((ROOT / "notebooks").glob("ru/*.ipynb"))]


def displays(name: str) -> tuple[bool, bool]:
    """Whether the stored notebook displays plotly figures and widgets (what the browser must render)."""
    nb = json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))
    kinds = {key for cell in nb["cells"] for out in cell.get("outputs", []) for key in out.get("data", {})}
    return "application/vnd.plotly.v1+json" in kinds, "application/vnd.jupyter.widget-view+json" in kinds


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_in_jupyterlab(jupyter_lab, page, screenshots, name):
    open_notebook(page, jupyter_lab, f"notebooks/{name}")
    report = run_all(page)
    try:
        assert report["code"] > 0 and report["executed"] == report["code"], report
        assert report["errors"] == [], report["errors"]
        has_plotly, has_widgets = displays(name)
        if has_plotly:
            page.wait_for_selector(".js-plotly-plot", state="attached", timeout=60_000)
            assert page.locator(".js-plotly-plot").count() >= 1
        if has_widgets:
            page.wait_for_selector(".jupyter-widgets", state="attached", timeout=60_000)
            widget = page.locator(".jupyter-widgets").first
            widget.scroll_into_view_if_needed()
            assert widget.is_visible()
        assert page.dialogs == [], page.dialogs
        page.screenshot(path=str(screenshots / f"{name.replace('/', '_').removesuffix('.ipynb')}.png"))
    finally:
        close_all(page)
