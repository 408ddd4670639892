"""The documentation site, built once per test session by the exact command a person runs.

The build needs the ``docs`` extra (Sphinx, myst-nb, numpydoc, furo, latex2mathml), which the ``test``
extra includes; where it is not installed the site's tests skip and say so. The build writes its HTML
into a temporary folder; like any build of the site it also refreshes docs/api and docs/notebooks (the
generated reference pages and the notebooks' copy, ignored by git).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: the build command of README.md and docs/conf.py, with the output folder as its last word
BUILD = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "docs"]
DOCS_TOOLS = ("sphinx", "myst_nb", "numpydoc", "furo", "latex2mathml")

# the site's extension, for the tests that call its functions (the name stmviz_docs is the only one there)
sys.path.insert(0, str(DOCS / "_ext"))


def script(name: str) -> ModuleType:
    """A module of scripts/ (``check_site``, ``make_images``), loaded from its file."""
    spec = importlib.util.spec_from_file_location(f"scripts_{name}", ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def missing_tools() -> list[str]:
    return [name for name in DOCS_TOOLS if importlib.util.find_spec(name) is None]


@pytest.fixture(scope="session")
def docs_tools() -> None:
    missing = missing_tools()
    if missing:
        pytest.skip(f"the docs extra is not installed ({', '.join(missing)}): pip install -e '.[docs]'")


@dataclass
class Site:
    html: Path
    returncode: int
    log: str
    seconds: float


@pytest.fixture(scope="session")
def site(docs_tools, tmp_path_factory) -> Site:
    """The site built by ``python -m sphinx -W --keep-going -b html docs <tmp>/html`` from the repository."""
    out = tmp_path_factory.mktemp("site") / "html"
    env = dict(os.environ)
    # this checkout's stmviz, whatever the environment has installed (conf.py puts it first too)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    start = time.monotonic()
    done = subprocess.run([*BUILD, str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800, check=False)
    return Site(out, done.returncode, done.stdout + done.stderr, time.monotonic() - start)


@pytest.fixture(scope="session")
def built(site) -> Path:
    """The site's HTML folder, once the build has passed (the tests that read pages need one)."""
    if site.returncode != 0:
        pytest.fail(f"the site's build failed (exit {site.returncode}); see test_site.py::test_the_site_builds_with_warnings_as_errors")
    return site.html


@pytest.fixture(scope="session")
def check_site() -> ModuleType:
    """scripts/check_site.py: the site's link and offline checks."""
    return script("check_site")


@pytest.fixture(scope="session")
def make_images() -> ModuleType:
    """scripts/make_images.py: the README's and the site's images and their manifest."""
    return script("make_images")


@pytest.fixture(scope="session")
def build_command() -> list[str]:
    """The command the site is built with, without its output folder."""
    return list(BUILD)
