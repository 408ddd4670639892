"""Driving JupyterLab from Playwright: open a notebook, run all cells, wait for the kernel, read errors."""

from __future__ import annotations

import time

KERNEL_IDLE = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!w || !w.sessionContext || !w.sessionContext.session || !w.sessionContext.session.kernel) return false;
  return w.sessionContext.session.kernel.status === 'idle' && !w.sessionContext.isRestarting;
}"""

CELL_REPORT = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const cells = w.content.model.cells;
  const report = {code: 0, executed: 0, errors: []};
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    report.code += 1;
    if (c.executionCount) report.executed += 1;
    for (let j = 0; j < c.outputs.length; j++) {
      const o = c.outputs.get(j).toJSON();
      if (o.output_type === 'error') report.errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
    }
  }
  return report;
}"""


def open_notebook(page, base: str, relpath: str, timeout: float = 90_000) -> None:
    page.goto(f"{base}/lab/tree/{relpath}", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook", timeout=timeout)
    page.wait_for_function(KERNEL_IDLE, timeout=timeout)
    dismiss_toasts(page)


def dismiss_toasts(page) -> None:
    for button in page.query_selector_all(".jp-toast-button, .Toastify__close-button"):
        try:
            button.click(timeout=1000)
        except Exception:
            pass


def run_all(page, timeout: float = 180_000) -> dict:
    """Run all cells and wait until every code cell has run and the kernel is idle again."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    deadline = time.monotonic() + timeout / 1000
    report = page.evaluate(CELL_REPORT)
    while time.monotonic() < deadline:
        page.wait_for_timeout(500)
        report = page.evaluate(CELL_REPORT)
        if report["executed"] == report["code"] and page.evaluate(KERNEL_IDLE):
            break
    page.wait_for_function(KERNEL_IDLE, timeout=timeout)
    return page.evaluate(CELL_REPORT)


def close_all(page) -> None:
    """Shut the kernel down so the next notebook starts fresh."""
    page.evaluate(
        "() => { const w = window.jupyterapp.shell.currentWidget;"
        " return w && w.sessionContext ? w.sessionContext.shutdown() : null; }"
    )
