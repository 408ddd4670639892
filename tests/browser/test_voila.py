"""Notebooks served by Voila (the app view, no code cells): its TracePlayer renders and responds, from a folder and
as the single-notebook app the README tells how to start."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from servers import ROOT, free_port, jupyter_env, served_copy, stop, wait_for
from jlab import block_outside, close_all, open_notebook, player_root, player_state, run_all, state_bar_drawn, wait_player_at

#: A short notebook whose last output is a TracePlayer of an AgentFold run (occupancy, state, hierarchy).
NOTEBOOK = "00_start_here.ipynb"


def test_player_renders_and_steps_in_voila(voila_server, page, screenshots):
    # Voila serving a folder renders a notebook at /voila/render/<path>
    page.goto(f"{voila_server}/voila/render/{NOTEBOOK}", wait_until="domcontentloaded", timeout=120_000)
    root = player_root(page, timeout=180_000)
    assert "load_scenario(" not in page.inner_text("body")  # Voila shows outputs, not the code
    start = wait_player_at(root, 0)
    assert start["plots"] == 3, start  # occupancy, state bar, hierarchy (AgentFold)
    assert start["tokens"] > 0, start

    root.get_by_role("button", name="step ▶").click()
    one = wait_player_at(root, 1)
    assert one["info"] != start["info"] and one["state_title"] != start["state_title"], (start, one)
    assert one["marker_y"] != start["marker_y"]
    page.wait_for_function(
        "([root, before]) => Array.from(root.querySelectorAll('.stmviz-token'), s => s.textContent).join('')"
        " !== before",
        arg=[root.element_handle(), start["tokens_text"]],
        timeout=60_000,
    )
    page.wait_for_timeout(800)
    assert player_state(root)["readout"] == 1  # exactly one step

    handle = root.locator(".widget-slider .noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    wait_player_at(root, 2)
    assert page.dialogs == [], page.dialogs
    assert page.page_errors == [], page.page_errors
    root.screenshot(path=str(screenshots / "voila_player.png"))


def readme_voila_command() -> tuple[dict[str, str], list[str]]:
    """The command the README gives for serving one notebook as an app (between its voila-command markers).

    Returns the variables it sets (``NAME=value`` before ``voila``; paths as seen from the repository's
    folder, where the README's commands run) and the command itself.
    """
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- voila-command -->\n```bash\n(.*?)\n```\n<!-- /voila-command -->", readme, re.S)
    assert found, "README.md lost its Voila section (the voila-command markers)"
    command = shlex.split(found.group(1).strip())
    variables = {}
    while command and re.fullmatch(r"[A-Z_]+=.*", command[0]):
        name, value = command.pop(0).split("=", 1)
        variables[name] = os.pathsep.join(str(ROOT / part) for part in value.split(os.pathsep))
    assert command[0] == "voila" and command[-1].endswith(".ipynb"), command
    assert (ROOT / command[-1]).is_file(), f"the README serves {command[-1]}, which does not exist"
    return variables, command


@pytest.fixture(scope="module")
def voila_app(tmp_path_factory, chromium_path):
    """The README's `voila notebooks/<name>.ipynb`, run as written (plus a free port and no browser)."""
    if shutil.which("voila") is None and importlib.util.find_spec("voila") is None:
        pytest.skip("voila is not installed: pip install -e '.[lab]'")
    variables, command = readme_voila_command()
    tmp = tmp_path_factory.mktemp("voila-app")
    served = served_copy(tmp)
    port = free_port()
    log = tmp / "voila.log"
    argv = [sys.executable, "-m", "voila", *command[1:-1], "--no-browser", f"--port={port}",
            "--Voila.ip=127.0.0.1", command[-1]]
    with open(log, "w") as handle:
        # the README's own JUPYTER_PATH, not the suite's: an editable install must find the template by it
        env = {**jupyter_env(tmp), "JUPYTER_PATH": variables.get("JUPYTER_PATH", "")}
        process = subprocess.Popen(argv, stdout=handle, stderr=subprocess.STDOUT, env=env, cwd=served)
    try:
        wait_for(f"http://127.0.0.1:{port}/", 120, process, log)
        yield f"http://127.0.0.1:{port}", command[-1]
    finally:
        stop(process)


def test_the_readme_command_serves_a_notebook_as_an_app(voila_app, page, screenshots):
    url, notebook = voila_app
    page.goto(url + "/", wait_until="domcontentloaded", timeout=180_000)  # a single notebook is served at /
    root = player_root(page, timeout=180_000)
    body = page.inner_text("body")
    assert "TracePlayer(" not in body and "from stmviz" not in body  # outputs only, no code cells
    start = wait_player_at(root, 0)
    assert start["plots"] >= 2 and start["tokens"] > 0, start
    root.get_by_role("button", name="step ▶").click()
    # the app's kernel answers: the slider and the step panel move to ω_1 (whether every figure follows
    # is test_player_renders_and_steps_in_voila's and the JupyterLab player tests' concern)
    page.wait_for_function(
        "root => { const r = root.querySelector('.widget-slider .widget-readout');"
        " const info = root.querySelector('.stmviz-step');"
        " return !!r && !!info && r.textContent.trim() === '1' && info.innerText.startsWith('ω1 '); }",
        arg=root.element_handle(), timeout=120_000, polling=500,
    )
    assert player_state(root)["info"] != start["info"]
    # the static occupancy figure above the player is drawn, and nothing failed on the page: jupyterlab-plotly's
    # renderer once tried to cache a PNG on Voila's plain output object ("r.setData is not a function")
    page.wait_for_function(
        "n => document.querySelectorAll('.js-plotly-plot').length > n",
        arg=start["plots"], timeout=60_000,
    )
    page.wait_for_timeout(1500)  # the renderer's PNG snapshot follows the drawing
    assert page.page_errors == [], page.page_errors
    assert page.dialogs == [], page.dialogs
    root.screenshot(path=str(screenshots / f"voila_app_{Path(notebook).stem}.png"))


#: A request that leaves the machine (the app must need none: it runs offline, and no visitor's browser asks a third party).
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "http://localhost", "ws://localhost", "data:", "blob:", "about:")


def test_the_readme_app_asks_nothing_from_outside(voila_app, browser):
    """With every request off the machine blocked, the README's app loads, draws its player and steps, and tried none.

    Voila's `lab` template links Font Awesome from a CDN; the README's command uses stmviz's template, which drops it.
    """
    url, _notebook = voila_app
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    outside = block_outside(context, LOCAL)
    failed: list[str] = []
    page = context.new_page()
    page.on("requestfailed", lambda r: failed.append(r.url))
    try:
        page.goto(url + "/", wait_until="domcontentloaded", timeout=180_000)
        root = player_root(page, timeout=180_000)
        wait_player_at(root, 0, timeout=120_000)
        root.get_by_role("button", name="step ▶").click()
        page.wait_for_function(
            "root => { const r = root.querySelector('.widget-slider .widget-readout'); return !!r && r.textContent.trim() === '1'; }",
            arg=root.element_handle(), timeout=120_000, polling=500,
        )
        page.wait_for_load_state("networkidle", timeout=60_000)
    finally:
        context.close()
    assert outside == [], f"the app asked hosts outside the machine: {outside}"
    assert failed == [], f"requests failed: {failed}"


#: The plain-text outputs of the page as drawn: white-space, text lines, line boxes, scroll and client width.
PRE_LINES = """() => Array.from(document.querySelectorAll('.jp-OutputArea-output pre'), (pre) => {
  const style = getComputedStyle(pre);
  const range = document.createRange();
  range.selectNodeContents(pre);
  const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
  return {text: pre.textContent, whiteSpace: style.whiteSpace, overflowX: style.overflowX,
          lines: pre.textContent.replace(/\\n$/, '').split('\\n').length, boxes: tops.size,
          scrollWidth: pre.scrollWidth, clientWidth: pre.clientWidth};
})"""


def test_the_trace_table_keeps_its_lines_in_voila(voila_app, page):
    """A Trace's plain-text table is drawn one line per row and scrolls sideways, as in JupyterLab (no wrapping)."""
    url, _notebook = voila_app
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(url + "/", wait_until="domcontentloaded", timeout=180_000)
    page.wait_for_selector(".jp-OutputArea-output pre", timeout=180_000)
    outputs = page.evaluate(PRE_LINES)
    tables = [o for o in outputs if o["text"].lstrip().startswith("t ") and "operation" in o["text"].splitlines()[0]]
    assert tables and max(t["lines"] for t in tables) >= 10, [o["text"][:80] for o in outputs]
    for table in tables:  # every trace table of 03 (the small window's, the support chat's)
        assert table["boxes"] == table["lines"], {k: v for k, v in table.items() if k != "text"}  # no row wraps
        assert table["whiteSpace"] == "pre" and table["overflowX"] == "auto", table["whiteSpace"]
        # a trace table with a width (one element a line, the why column wrapped) fits the page
        assert table["scrollWidth"] <= table["clientWidth"], {k: v for k, v in table.items() if k != "text"}


def _step_once_and_read(page, root) -> dict:
    """Step once (the step ▶ button), wait until every panel shows ω_1, and read the state bar as drawn."""
    wait_player_at(root, 0, timeout=120_000)
    root.get_by_role("button", name="step ▶").click()
    wait_player_at(root, 1, timeout=60_000)
    page.wait_for_timeout(500)  # plotly redraws after the update message; the SVG settles
    return state_bar_drawn(root)


def test_voila_draws_the_state_bar_as_jupyterlab_does(voila_app, jupyter_lab, browser, screenshots):
    """After one step the README's Voila app draws the state bar block for block as JupyterLab does.

    Voila asks the kernel for the widgets' state once the notebook has run: a figure whose widget state was
    still the one first built drew the first step's update into the wrong traces (a stray "ω_0" row, the
    V_max line moved, legend colours shifted, a reply drawn as free space).

    Under load (two pages at once, a slowed CPU) see test_voila_redraws_every_step_under_load.
    """
    url, notebook = voila_app
    drawn = {}
    for where in ("voila", "lab"):
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            if where == "voila":
                page.goto(url + "/", wait_until="domcontentloaded", timeout=180_000)
            else:
                open_notebook(page, jupyter_lab, notebook)
                report = run_all(page)
                assert report["errors"] == [], report
            root = player_root(page, timeout=180_000)
            drawn[where] = _step_once_and_read(page, root)
            root.screenshot(path=str(screenshots / f"state_bar_step1_{where}.png"))
            if where == "lab":
                close_all(page)
        finally:
            context.close()
    voila, lab = drawn["voila"], drawn["lab"]
    assert voila["title"] == lab["title"] and voila["title"].startswith("ω_1:"), (voila["title"], lab["title"])
    assert voila["rows"] == lab["rows"] == ["ω_t"], (voila["rows"], lab["rows"])
    assert voila["legend"] == lab["legend"], (voila["legend"], lab["legend"])
    assert voila["lines"] == lab["lines"], (voila["lines"], lab["lines"])
    assert voila["blocks"] == lab["blocks"], (voila["blocks"], lab["blocks"])
    assert len(lab["blocks"]) >= 3, lab["blocks"]  # system prompt, the user's message, free space


def _notebook_trace(notebook: str):
    """The ``trace`` the notebook builds, built here by running its code cells up to the one that defines it."""
    import contextlib
    import io
    import json

    cells = json.loads((ROOT / notebook).read_text(encoding="utf-8"))["cells"]
    namespace: dict = {}
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            exec("".join(cell["source"]), namespace)  # noqa: S102 - the repository's own notebook
        if "trace" in namespace:
            return namespace["trace"]
    raise AssertionError(f"{notebook} defines no `trace`")


#: The occupancy chart's step marker as drawn: the SVG point of the marker trace, in data units of its axes.
MARKER_DRAWN = """(root) => {
  const gd = root.querySelectorAll('.js-plotly-plot')[0];
  const index = gd.data.findIndex((d) => d.meta && d.meta.role === 'marker');
  const trace = gd.querySelectorAll('.scatterlayer .trace')[index];
  const point = trace ? trace.querySelector('.point') : null;
  if (!point) return null;
  const move = /translate\\(([-\\d.e]+),\\s*([-\\d.e]+)\\)/.exec(point.getAttribute('transform'));
  const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  return {x: Math.round(xa.p2d(Number(move[1])) * 10) / 10, y: Math.round(ya.p2d(Number(move[2])))};
}"""


def _check_steps(page, root, trace, totals, steps) -> None:
    """Step the player ``steps`` times; after each step its drawn state bar and occupancy marker must be Python's."""
    from stmviz.viz.state import state_bar
    from stmviz.widgets.player import TraceView

    for t in range(1, steps + 1):
        root.get_by_role("button", name="step ▶").click()
        # the kernel answered: the slider and the step text show ω_t (they are plain ipywidgets)
        page.wait_for_function(
            "([root, t]) => { const r = root.querySelector('.widget-slider .widget-readout');"
            " const info = root.querySelector('.stmviz-step');"
            " return !!r && !!info && r.textContent.trim() === String(t) && info.innerText.startsWith('ω' + t + ' '); }",
            arg=[root.element_handle(), t], timeout=120_000, polling=250,
        )
        expected_title = TraceView(trace, t, tokens=False, hierarchy=False).state.layout.title.text
        bar = state_bar(trace, t)
        expected = [(round(b.start), round(b.size)) for b in bar.blocks if round(b.size) > 0]
        if bar.free:
            expected.append((round(bar.used), round(bar.free)))
        try:  # the figures follow within seconds: their update rides on the same round of messages
            page.wait_for_function(
                "([root, title]) => { const gd = root.querySelectorAll('.js-plotly-plot')[1];"
                " return !!gd && !!gd.layout && String(gd.layout.title.text || '') === title; }",
                arg=[root.element_handle(), expected_title], timeout=30_000, polling=250,
            )
        except Exception:
            pass  # the assertions below say what is drawn instead
        page.wait_for_timeout(1000)  # the SVG settles (a redraw may be under way)
        drawn = state_bar_drawn(root)
        marker = root.evaluate(MARKER_DRAWN)
        assert drawn["title"] == expected_title, (t, drawn["title"], expected_title)
        blocks = sorted((b["start"], b["width"]) for b in drawn["blocks"])
        assert len(blocks) == len(expected) and all(
            abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1 for a, b in zip(blocks, sorted(expected))
        ), (t, blocks, sorted(expected))
        assert marker == {"x": t, "y": round(totals[t])}, (t, marker, totals[t])


def test_voila_redraws_every_step_under_load(voila_app, browser):
    """Two app pages load at once with the CPU slowed four times; in each, the figures follow every step: the state
    bar and the occupancy marker, as drawn (SVG), are what Python holds for that step.

    plotly's own FigureWidget imported a 5 MB module per figure; anywidget 0.11 gives a model 2 s to import and
    initialize its module, and a model that misses that drops every later message from the kernel: under load a
    figure kept its first drawing. stmviz's LiveFigure loads a small module and draws the state it holds.
    """
    from stmviz.viz.occupancy import occupancy_data

    url, notebook = voila_app
    trace = _notebook_trace(notebook)
    totals = occupancy_data(trace).total
    errors: list[str] = []
    contexts, pages = [], []
    try:
        for _ in range(2):
            context = browser.new_context(viewport={"width": 1280, "height": 1000})
            contexts.append(context)
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
            pages.append(page)
        for page in pages:  # both load at once: goto returns once the page's HTML has arrived
            page.goto(url + "/", wait_until="commit", timeout=240_000)
        roots = [player_root(page, timeout=300_000) for page in pages]
        for page, root in zip(pages, roots):
            wait_player_at(root, 0, timeout=120_000)
        for page, root in zip(pages, roots):
            _check_steps(page, root, trace, totals, steps=3)
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors
