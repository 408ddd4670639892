"""In a Voila app's kernel, a plotly Figure shown as a cell's value is drawn by stmviz's LiveFigure; elsewhere by plotly's mimetype."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("IPython")

#: In a fresh IPython shell: import stmviz.widgets, then say who would display a go.Figure and what it puts out.
PROBE = """
import json
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
import plotly.graph_objects as go
import stmviz.widgets
shown = []
import IPython.display
IPython.display.display = lambda *objs, **kw: shown.extend(type(o).__name__ for o in objs)
printer = shell.display_formatter.ipython_display_formatter.lookup_by_type(go.Figure) if \\
    go.Figure in shell.display_formatter.ipython_display_formatter.type_printers else None
if printer is not None:
    printer(go.Figure(go.Bar(x=[1, 2])))
print(json.dumps({"printer": getattr(printer, "__name__", None), "shown": shown}))
"""


def probe(server_software: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "SERVER_SOFTWARE"}
    if server_software is not None:
        env["SERVER_SOFTWARE"] = server_software
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_in_a_voila_kernel_a_static_figure_is_shown_as_a_live_figure():
    found = probe("voila/0.5.13")
    assert found == {"printer": "_display_live", "shown": ["LiveFigure"]}, found


@pytest.mark.parametrize("server_software", [None, "TornadoServer/6.4"])
def test_elsewhere_plotly_shows_its_figures_itself(server_software):
    assert probe(server_software) == {"printer": None, "shown": []}
