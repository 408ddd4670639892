"""Driving JupyterLab from Playwright: open a notebook, run all cells, wait for the kernel, read errors."""

from __future__ import annotations

import time
import uuid

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
    """Open a notebook in a fresh JupyterLab workspace and wait for its kernel.

    A new workspace each time: the default one would restore every notebook
    opened before (each starting a kernel again) and hide this one behind them.
    """
    workspace = f"test-{uuid.uuid4().hex[:12]}"
    page.goto(f"{base}/lab/workspaces/{workspace}/tree/{relpath}", wait_until="domcontentloaded")
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


# -- the TracePlayer in the browser (used by test_lab_player, test_voila, test_security) -------------

#: The output area holding a TracePlayer (its Play widget); works in JupyterLab and in Voila.
PLAYER = ".jp-OutputArea-output:has(.widget-play)"

#: What the browser shows of a TracePlayer, read from its DOM and its plotly elements.
PLAYER_STATE = """(root) => {
  const plots = root.querySelectorAll('.js-plotly-plot');
  const occ = plots[0], state = plots[1];
  const shape = occ && occ.layout ? (occ.layout.shapes || []).find(s => s.name === 'step') : null;
  const marker = occ && occ.data ? occ.data.find(d => d.meta && d.meta.role === 'marker') : null;
  const readout = root.querySelector('.widget-slider .widget-readout');
  const info = root.querySelector('.stmviz-step');
  const tokens = root.querySelectorAll('.stmviz-token');
  const title = state && state.layout && state.layout.title ? state.layout.title.text : null;
  return {
    plots: plots.length,
    readout: readout ? parseInt(readout.textContent.trim(), 10) : null,
    shape_x: shape ? Number(shape.x0) : null,
    marker_x: marker ? Number(Array.from(marker.x)[0]) : null,
    marker_y: marker ? Number(Array.from(marker.y)[0]) : null,
    info: info ? info.innerText : null,
    tokens: tokens.length,
    tokens_text: Array.from(tokens, s => s.textContent).join(''),
    state_title: title,
  };
}"""


def player_root(page, timeout: float = 90_000):
    """The (first) rendered TracePlayer's output area, scrolled into view, once its figures are drawn."""
    root = page.locator(PLAYER).first
    root.wait_for(state="attached", timeout=timeout)
    root.scroll_into_view_if_needed(timeout=timeout)
    root.locator(".js-plotly-plot").nth(1).wait_for(state="attached", timeout=timeout)
    page.wait_for_function(
        "(r) => { const p = r.querySelectorAll('.js-plotly-plot');"
        " return p.length >= 2 && !!p[0].data && !!p[1].data && !!r.querySelector('.widget-readout'); }",
        arg=root.element_handle(),
        timeout=timeout,
    )
    return root


def player_state(root) -> dict:
    """The player's readout t, occupancy marker (shape x0, marker trace x, y), step label, tokens, state title."""
    return root.evaluate(PLAYER_STATE)


def wait_player_at(root, t: int | None = None, timeout: float = 60_000, tokens: int | None = None) -> dict:
    """Wait until readout, step marker, step label and state-bar title all show the same t (``t`` if given); returns the state.

    With ``tokens`` also wait for the token view to hold that many tokens.
    """
    condition = (
        "([root, [t, tokens]]) => {"
        " const r = root.querySelector('.widget-slider .widget-readout');"
        " const occ = root.querySelector('.js-plotly-plot');"
        " if (!r || !occ || !occ.layout) return false;"
        " const v = parseInt(r.textContent.trim(), 10);"
        " const shape = (occ.layout.shapes || []).find(s => s.name === 'step');"
        " const marker = occ.data.find(d => d.meta && d.meta.role === 'marker');"
        " const info = root.querySelector('.stmviz-step');"
        " const bar = root.querySelectorAll('.js-plotly-plot')[1];"
        " const title = bar && bar.layout && bar.layout.title ? String(bar.layout.title.text || '') : '';"
        " if (!shape || !marker || !info) return false;"
        " if (t !== null && v !== t) return false;"
        " if (tokens !== null && root.querySelectorAll('.stmviz-token').length !== tokens) return false;"
        " return Number(shape.x0) === v && Number(Array.from(marker.x)[0]) === v"
        "   && info.innerText.startsWith('ω' + v + ' ') && title.startsWith('ω_' + v + ':');"
        "}"
    )
    handle = root.element_handle()
    root.page.wait_for_function(condition, arg=[handle, [t, tokens]], timeout=timeout)
    return player_state(root)


def put_notebook(base: str, relpath: str, notebook: dict) -> None:
    """Write a notebook into the served folder through the server's contents API (``PUT /api/contents/…``)."""
    import json
    import urllib.request

    body = json.dumps({"type": "notebook", "format": "json", "content": notebook}).encode("utf-8")
    request = urllib.request.Request(
        f"{base}/api/contents/{relpath}", data=body, method="PUT", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        if response.status not in (200, 201):
            raise RuntimeError(f"PUT {relpath}: HTTP {response.status}")


# -- the exported HTML page (stmviz.export_html), opened from disk with the network blocked -------

#: The current frame of an exported page as it shows it: the cursor line's t, the slider's active step, the title.
EXPORT_FRAME = """() => {
  const gd = document.getElementById('stmviz-trace');
  const cursor = gd.data.find(d => d.meta && d.meta.role === 'cursor');
  const slider = gd._fullLayout.sliders[0];
  return {
    cursor: Number(Array.from(cursor.x)[0]),
    active: slider.active,
    label: slider.steps[slider.active].label,
    title: gd.layout.title.text,
    frames: gd._transitionData._frames.length,
  };
}"""


def block_outside(context, allowed: tuple[str, ...]) -> list[str]:
    """Abort every request of ``context`` whose URL starts with none of ``allowed``; returns the list they are recorded in."""
    blocked: list[str] = []

    def guard(route):
        if route.request.url.startswith(allowed):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    context.route("**/*", guard)
    return blocked


def open_offline(browser, path):
    """Open an exported page from disk with the network blocked (only file:// loads).

    Returns ``(context, page, blocked)``: close the context when done; ``blocked`` lists every
    non-file request the page attempted; ``page.dialogs`` / ``page.page_errors`` record dialogs and errors.
    """
    context = browser.new_context(viewport={"width": 1300, "height": 950})
    blocked = block_outside(context, ("file://",))
    page = context.new_page()
    page.dialogs, page.page_errors = [], []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.page_errors.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(("file://", "data:", "blob:")) else blocked.append(r.url))
    page.goto(path.resolve().as_uri(), wait_until="load")
    page.wait_for_function(
        "() => { const gd = document.getElementById('stmviz-trace');"
        " return gd && gd._fullLayout && gd._fullLayout.sliders && gd._transitionData"
        " && gd._transitionData._frames.length > 0; }",
        timeout=60_000,
    )
    return context, page, blocked


#: The state bar (the player's second figure) as drawn: every visible block (start, width in Σμ units of its
#: x axis, row as a share of the y axis, fill colour), the row labels, the legend's names and colours, and the
#: dashed V_max line's position; read from the SVG plotly drew, not from the figure's data. A hatched fill is a
#: url() of a <pattern> whose id plotly draws at random: it is read as the pattern's own colours.
STATE_BAR_DRAWN = """(root) => {
  const gd = root.querySelectorAll('.js-plotly-plot')[1];
  const paint = (el) => {
    const fill = getComputedStyle(el).fill;
    const id = /^url\\("?#([^")]+)"?\\)$/.exec(fill);
    if (!id) return fill;
    const pattern = document.getElementById(id[1]);
    if (!pattern) return 'pattern (missing)';
    const colours = Array.from(pattern.querySelectorAll('rect, path'), (p) => {
      const s = getComputedStyle(p);
      return p.tagName + ' ' + s.fill + ' ' + s.stroke;
    });
    return 'pattern: ' + colours.join('; ');
  };
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  const span = xa.range[1] - xa.range[0];
  const unit = (px) => Math.round((px / xa._length) * span + xa.range[0]);
  const blocks = Array.from(gd.querySelectorAll('.barlayer .point path')).map((p) => {
    const b = p.getBBox();
    return {start: unit(b.x), width: Math.round((b.width / xa._length) * span),
            row: Math.round(((b.y + b.height / 2) / ya._length) * 100), fill: paint(p)};
  }).filter((b) => b.width > 0);
  const rows = Array.from(gd.querySelectorAll('.ytick text'), (t) => t.textContent);
  const legend = Array.from(gd.querySelectorAll('.legend .traces'), (t) => {
    const mark = t.querySelector('.legendpoints path');
    return [t.textContent, mark ? paint(mark) : null];
  });
  // a shape is drawn in the figure's own pixels (the axis starts at xa._offset), a bar in the plot area's
  const line = Array.from(gd.querySelectorAll('.shapelayer path'), (p) => unit(p.getBBox().x - xa._offset));
  return {blocks, rows, legend, lines: line, title: String(gd.layout.title.text || '')};
}"""


def state_bar_drawn(root) -> dict:
    """The state bar as the browser drew it (:data:`STATE_BAR_DRAWN`)."""
    return root.evaluate(STATE_BAR_DRAWN)


def go_to_step(page, root, t: int) -> dict:
    """Step a player from t = 0 to ``t`` with its slider's keyboard, as a user does; returns its state once there."""
    handle = root.locator(".widget-slider .noUi-handle").first
    handle.focus()
    for _ in range(t):
        handle.press("ArrowRight")
    state = wait_player_at(root, t, timeout=120_000)
    page.wait_for_timeout(600)
    return state
