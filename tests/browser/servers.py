"""Starting and stopping the servers the browser tests drive (JupyterLab, Voila) on loopback ports.

Plain functions, imported by tests/browser/conftest.py and by the tests that start a server of their own.
(They live here, not in conftest.py: tests that import ``conftest`` by name clash with tests/conftest.py.)
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, seconds: float, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"server not ready at {url} after {seconds} s:\n{log.read_text()[-3000:]}")


def stop(process: subprocess.Popen) -> None:
    """Stop a server we started, by its own pid."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def jupyter_env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        path = tmp / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    # this checkout's share/jupyter (the stmviz Voila template, as an install puts it in the prefix), then the
    # venv's (the kernel, the labextensions of ipywidgets and plotly)
    env["JUPYTER_PATH"] = os.pathsep.join([str(ROOT / "share" / "jupyter"), str(Path(sys.prefix) / "share" / "jupyter")])
    env.pop("JUPYTER_TOKEN", None)
    return env


def served_copy(tmp: Path) -> Path:
    """A copy of the notebooks to serve, so that autosave never rewrites the committed ones."""
    served = tmp / "served"
    shutil.copytree(ROOT / "notebooks", served / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return served


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
