"""stmviz's own Sphinx extension: the API reference from ``__all__``, the notebooks as pages, math as MathML.

- :mod:`.api` writes the reference's pages from ``conf.py``'s table ``stmviz_api_groups``;
- :mod:`.notebooks` shows the notebooks' stored outputs: plotly figures interactive (plotly.js
  from the installed package), each player as its static copy;
- :mod:`.mathml` renders ``$…$`` as MathML at build time, so no page loads a script for math;
- :mod:`.refs` keeps the docstrings' notation (``|π(ω)|``) as written and links every import path of an object to its page.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

from . import api, mathml, notebooks, refs


def setup(app: Sphinx) -> dict[str, Any]:
    api.setup(app)
    notebooks.setup(app)
    mathml.setup(app)
    refs.setup(app)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
