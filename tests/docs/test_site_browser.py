"""The built site in a real browser (Debian's chromium through Playwright, as tests/browser launches it),
served from a loopback port with every other request refused (the browser is the session's one, tests/conftest.py): a notebook's plotly figures are drawn by
the bundled plotly.js, its math is MathML, and an API page shows a class's entry with numpydoc's sections."""

from __future__ import annotations

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytestmark = pytest.mark.browser

class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture(scope="module")
def served(built):
    """The site on http://127.0.0.1:<free port>/, served from its folder."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(built)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def page(browser, served):
    """A page that may load only from the site: every other request is refused and recorded."""
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    context.outside = []  # type: ignore[attr-defined]
    context.errors = []  # type: ignore[attr-defined]

    def guard(route):
        if route.request.url.startswith(served) or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            context.outside.append(route.request.url)  # type: ignore[attr-defined]
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.on("pageerror", lambda e: context.errors.append(str(e)))  # type: ignore[attr-defined]
    yield page
    assert context.outside == [], f"the page asked for {context.outside}"  # type: ignore[attr-defined]
    assert context.errors == [], context.errors  # type: ignore[attr-defined]
    context.close()


def test_a_notebook_page_draws_its_plotly_figures(page, served, built):
    html = (built / "notebooks" / "03_fifo_context_window.html").read_text(encoding="utf-8")
    figures = html.count('class="stmviz-plotly-spec"')
    assert figures >= 2
    page.goto(f"{served}/notebooks/03_fifo_context_window.html")
    page.wait_for_function(
        f"() => document.querySelectorAll('.stmviz-plotly.stmviz-plotly-drawn .main-svg').length >= {figures}",
        timeout=60_000,
    )
    drawn = page.evaluate(
        "() => Array.from(document.querySelectorAll('.stmviz-plotly'), gd => ({"
        " traces: gd.data.length, width: gd.getBoundingClientRect().width,"
        " title: (gd._fullLayout.title && gd._fullLayout.title.text) || ''}))"
    )
    assert all(d["traces"] > 0 and d["width"] > 300 for d in drawn), drawn
    assert any("at t = 0 of 25" in d["title"] for d in drawn), "the player's static figure is drawn"
    assert page.locator(".stmviz-static h4", has_text="FIFOWindow at t = 0 of 25").count() == 1
    assert page.evaluate("() => typeof window.Plotly") == "object"
    assert page.locator("math").first.bounding_box()["width"] > 0, "MathML is laid out"


def test_an_api_page_shows_a_class_entry(page, served):
    page.goto(f"{served}/api/stmviz.mechanisms.html#stmviz.mechanisms.SCM")
    entry = page.locator("dl.py.class").filter(has=page.locator('dt[id="stmviz.mechanisms.SCM"]'))
    assert entry.count() == 1
    signature = entry.locator('dt[id="stmviz.mechanisms.SCM"]').inner_text()
    assert "stmviz.mechanisms.SCM" in signature and "variant" in signature
    assert "parameters" in entry.locator("dd").first.inner_text().lower()  # furo shows field names in capitals
    assert page.evaluate("() => document.querySelector(':target').id") == "stmviz.mechanisms.SCM", "the link's anchor is the entry"
    page.get_by_role("link", name="FIFOWindow").first.click()
    page.wait_for_url("**/stmviz.mechanisms.html#stmviz.mechanisms.FIFOWindow")
