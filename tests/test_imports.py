"""The layering rule: `import stmviz` loads no plotting, graph, widget or notebook library.

Only ``stmviz.viz`` imports plotly and networkx, only ``stmviz.widgets``
imports ipywidgets. Each check runs in a fresh interpreter, because this test
process has long imported them all.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("plotly", "ipywidgets", "networkx", "IPython", "numpy", "pandas", "anywidget", "matplotlib")


def loaded_after(code: str) -> list[str]:
    """The top-level modules of HEAVY present in sys.modules after running ``code`` in a new interpreter."""
    probe = (
        f"{code}\n"
        "import json, sys\n"
        f"heavy = {HEAVY!r}\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy})))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_probe_sees_heavy_imports():
    # the check itself can fail: importing plotly directly is seen
    assert "plotly" in loaded_after("import plotly.graph_objects")


@pytest.mark.parametrize(
    "code",
    [
        "import stmviz",
        "import stmviz; stmviz.Element('x', {'t': 0}); stmviz.State()",
        "from stmviz import *",
        "import stmviz.core, stmviz.text",
    ],
)
def test_import_stmviz_loads_no_plotting_widget_or_notebook_library(code):
    assert loaded_after(code) == []


def test_import_stmviz_mechanisms_stays_light():
    assert loaded_after("import stmviz.mechanisms") == []


def test_import_stmviz_viz_works_and_loads_plotly_but_not_widgets():
    loaded = loaded_after(
        "import stmviz.viz as v\n"
        "assert callable(v.occupancy_figure) and callable(v.state_figure) and callable(v.loop_figure)\n"
        "assert callable(v.tokens_html) and callable(v.export_html)\n"
        "assert set(v.__all__) <= set(dir(v))"
    )
    assert "plotly" in loaded
    assert "ipywidgets" not in loaded and "IPython" not in loaded and "anywidget" not in loaded
    assert "numpy" not in loaded  # no plotly.express


def test_viz_common_is_standard_library_only():
    # imported through the package stmviz.viz it comes with plotly; on its own it needs nothing heavy
    code = (
        "import importlib.util, sys\n"
        "spec = importlib.util.spec_from_file_location('c', __import__('stmviz').__path__[0] + '/viz/_common.py')\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "assert m.color_for('user') == m.TYPE_COLORS['user']"
    )
    assert loaded_after(code) == []
