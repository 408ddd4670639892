"""Math as MathML, converted when the site is built: no MathJax, no script, nothing fetched by the reader.

The notebooks write the paper's symbols in LaTeX (``$\\Omega_{STM}$``, ``$$(O, E, \\Omega_{STM}, C, U,
X, \\pi)$$``). Sphinx's default renderer, MathJax, loads its script from a CDN; imgmath needs a LaTeX
installation. Here ``latex2mathml`` (pure Python) turns each formula into MathML, which every current
browser draws natively (MathML Core: Chromium from 109, Firefox, Safari). A formula it cannot
convert is a build warning (an error under ``-W``) naming the formula, never a silent gap.
"""

from __future__ import annotations

import html

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)


def mathml(latex: str, node: nodes.Node, display: str) -> str:
    """The MathML of a formula, or a warning (with the source location) and the formula as code."""
    try:
        return convert(latex.strip(), display=display)
    except Exception as exc:
        logger.warning("cannot convert the formula %r to MathML (%s: %s)", latex, type(exc).__name__, exc,
                       location=node, type="stmviz", subtype="math")
        return f"<code>{html.escape(latex)}</code>"


def visit_math(self, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math"))
    self.body.append(mathml(node.astext(), node, "inline"))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math"))
    if node.get("number"):
        self.body.append(f'<span class="eqno">({get_node_equation_number(self, node)})')
        self.add_permalink_ref(node, "Link to this equation")
        self.body.append("</span>")
    for part in (p for p in node.astext().split("\n\n") if p.strip()):
        self.body.append(mathml(part, node, "block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Sphinx) -> None:
    app.add_html_math_renderer("mathml", inline_renderers=(visit_math, None), block_renderers=(visit_displaymath, None))
