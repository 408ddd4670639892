"""`stmviz lab` really starts JupyterLab on the notebooks and opens the start page, which links both languages."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request


import jupyterlab  # noqa: F401  (in the [test] extra: a missing one is a failure, not a skip)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_stmviz_lab_serves_the_start_notebook(tmp_path):
    port = free_port()
    env = dict(os.environ)
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(tmp_path / name.lower())
    env["JUPYTER_PATH"] = os.path.join(sys.prefix, "share", "jupyter")
    target = tmp_path / "my-notebooks"
    log = tmp_path / "lab.log"
    command = [sys.executable, "-m", "stmviz", "lab", "--dir", str(target), "--no-browser", "--port", str(port),
               "--ServerApp.ip=127.0.0.1", "--ServerApp.token=", "--ServerApp.password="]
    with open(log, "w") as handle:
        process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=2):
                    break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/start.ipynb", timeout=10) as r:
            model = json.load(r)
        assert model["type"] == "notebook" and model["name"] == "start.ipynb"
        page = "".join(cell["source"] for cell in model["content"]["cells"])
        assert "(00_start_here.ipynb)" in page and "(ru/00_start_here.ipynb)" in page  # it links both languages
        for name in ("00_start_here.ipynb", "ru/00_start_here.ipynb"):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents/{name}?content=0", timeout=10) as r:
                assert json.load(r)["type"] == "notebook"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab/tree/start.ipynb", timeout=10) as r:
            assert r.status == 200 and b"JupyterLab" in r.read()
        assert (target / "07_compare.ipynb").exists()  # all notebooks were copied to the folder asked for
        assert (target / "ru" / "07_compare.ipynb").exists()  # the Russian ones too
        text = log.read_text()
        assert "start.ipynb" in text  # the start page is what it opens
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
