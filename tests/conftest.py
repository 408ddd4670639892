"""Fixtures every test folder shares: Debian's chromium, launched once per session through Playwright, and
English (the language stmviz writes in) back after each test.

Playwright's sync API runs its own event loop in the main thread while it is open, and refuses to start a
second one inside it: so the session has ONE browser, used by the JupyterLab and Voila tests
(tests/browser) and the documentation site's tests (tests/docs) alike. Chromium comes from Debian
(`apt-get install chromium chromium-driver`); Playwright's own browser download is never used. Without
chromium these tests skip and say how to install it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("STMVIZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
# --doctest-modules would import every conftest.py as a module named "conftest"; tests/conftest.py and
# tests/<folder>/conftest.py share that name, and the second import fails with "import file mismatch".
# They hold fixtures, not doctests: pytest loads them as plugins all the same.
collect_ignore_glob = ["conftest.py", "*/conftest.py"]

INSTALL_HINT = "install Debian's chromium: apt-get update && apt-get install -y chromium chromium-driver"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not (Path(CHROMIUM).exists() and os.access(CHROMIUM, os.X_OK)):
        pytest.skip(f"no chromium at {CHROMIUM}: {INSTALL_HINT}")
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium_path):
    playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    with playwright_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A test that turns Russian on (stmviz.set_language("ru")) cannot leave it on for the tests after it:
    every English output they compare would change."""
    yield
    from stmviz.core import i18n

    if i18n.get_language() != "en":
        i18n.set_language("en")
