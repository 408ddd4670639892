"""Voila pages log no error and no version warning (issue 34, item 10).

Notebook 11 shows static figures and no player: it never imported stmviz.widgets, so jupyterlab-plotly's renderer
drew its figures and logged ``r.setData is not a function`` once per figure. Every Voila page logged 13
"Unsatisfied version 4.2.5 … (required ^4.6.2)" warnings: Voila 0.5 bundles JupyterLab 4.2 and loaded every
installed labextension (nbgrader, jupytext, notebook's, built against 4.6); stmviz's template no longer loads those
a page never uses (40 warnings on 11's page → 13). The widget manager, anywidget and jupyterlab-plotly, which a page
needs, are built against JupyterLab 4.5/4.6 as installed: their warnings remain until Voila bundles a JupyterLab that
new (test_no_version_warning is expected to fail until then).
"""

from __future__ import annotations

import pytest
from jlab import player_root, wait_player_at


def _console(page) -> list[str]:
    messages: list[str] = []
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    return messages


def _load(voila_server, page, name) -> list[str]:
    messages = _console(page)
    page.goto(f"{voila_server}/voila/render/{name}", wait_until="domcontentloaded", timeout=180_000)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 2", timeout=180_000)
    if name.startswith("03"):
        wait_player_at(player_root(page, timeout=180_000), 0, timeout=120_000)
    page.wait_for_timeout(2500)  # a renderer's PNG snapshot follows the drawing
    return messages


def _version_warnings(messages: list[str]) -> list[str]:
    return [m for m in messages if "Unsatisfied version" in m or "No satisfying version" in m or "does not satisfy" in m]


@pytest.mark.parametrize("name", ["11_managers_you_use.ipynb", "03_fifo_context_window.ipynb"])
def test_a_voila_page_logs_no_error(voila_server, page, name):
    messages = _load(voila_server, page, name)
    assert page.page_errors == [], page.page_errors
    errors = [m for m in messages if m.startswith("error")]
    assert errors == [], errors[:5]
    assert len(_version_warnings(messages)) <= 13, _version_warnings(messages)  # unused labextensions are not loaded


@pytest.mark.xfail(reason="the widget manager, anywidget and jupyterlab-plotly are built against JupyterLab 4.5/4.6; "
                          "Voila 0.5 bundles 4.2", strict=False)
def test_no_version_warning(voila_server, page):
    messages = _load(voila_server, page, "11_managers_you_use.ipynb")
    assert _version_warnings(messages) == [], _version_warnings(messages)[:5]
