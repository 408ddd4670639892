"""Fixtures for real-browser tests: JupyterLab (and Voila) on a loopback port, Debian's chromium through Playwright.

The browser itself (``browser``, ``chromium_path``) is the session's one instance, in tests/conftest.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from servers import free_port, jupyter_env, served_copy, stop, wait_for


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.dialogs = []  # type: ignore[attr-defined]
    page.page_errors = []  # type: ignore[attr-defined]
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: page.page_errors.append(str(e)))
    yield page
    context.close()


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory, chromium_path):
    """A JupyterLab server on the repository, on a free loopback port; yields its base URL."""
    pytest.importorskip("jupyterlab")
    tmp = tmp_path_factory.mktemp("jupyter")
    served = served_copy(tmp)
    port = free_port()
    log = tmp / "lab.log"
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ip", "127.0.0.1", f"--port={port}",
        "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.disable_check_xsrf=True",
        "--LabApp.expose_app_in_browser=True", f"--ServerApp.root_dir={served}",
        "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    with open(log, "w") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=jupyter_env(tmp), cwd=served)
    try:
        wait_for(f"http://127.0.0.1:{port}/api/status", 60, process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


@pytest.fixture(scope="session")
def voila_server(tmp_path_factory, chromium_path):
    """Voila serving the notebooks folder on a free loopback port; yields its base URL."""
    if shutil.which("voila") is None and not _importable("voila"):
        pytest.skip("voila is not installed: pip install voila")
    tmp = tmp_path_factory.mktemp("voila")
    served = served_copy(tmp)
    port = free_port()
    log = tmp / "voila.log"
    command = [sys.executable, "-m", "voila", "--template=stmviz", "--no-browser", f"--port={port}",
               "--Voila.ip=127.0.0.1", "--ServerApp.token=", str(served / "notebooks")]
    with open(log, "w") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=jupyter_env(tmp), cwd=served)
    try:
        wait_for(f"http://127.0.0.1:{port}/", 60, process, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("screenshots")
