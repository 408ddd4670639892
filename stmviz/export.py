"""``stmviz.export_html`` without loading plotly at ``import stmviz``: the import happens on the call."""

from __future__ import annotations

import os
from typing import Any


def export_html(trace: Any, path: str | os.PathLike, *, title: str | None = None, max_frames: int = 300):
    """Write a trace as one self-contained, offline, animated HTML file (see :func:`stmviz.viz.export_html`)."""
    from .viz.export import export_html as _export

    return _export(trace, path, title=title, max_frames=max_frames)
