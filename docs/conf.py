"""Sphinx configuration of stmviz's documentation site.

Build it (the ``docs`` extra installs the tools; ``pip install -e ".[test]"`` includes it)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Nothing is fetched while building or reading the site: the theme's files, plotly.js and every
script come from installed packages, math is MathML made at build time, notebooks are rendered
from their stored outputs (never executed), and there is no intersphinx.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# the stmviz of this checkout (not another one installed in the environment), and the site's own extension
sys.path[:0] = [str(ROOT), str(DOCS / "_ext")]

import stmviz

project = "stmviz"
author = "stmviz developers"
copyright = "2026, stmviz developers"
version = release = stmviz.__version__
language = "en"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_nb",
    "stmviz_docs",
]

# ---------------------------------------------------------------- the API reference
#: The reference's pages: (title, introduction, modules). A package brings its public submodules that
#: have an ``__all__``; a module goes under the most specific entry that names it or a package above it.
#: A new public package needs one line here (tests/docs/test_site.py fails until every package's
#: ``__all__`` has a page).
stmviz_api_groups = [
    (
        "core",
        ("Definitions 1 and 2 and the loop of Figure 1: elements, size functions, states, operations, "
         "context, model input, the mechanism and ``run()``; the errors, the argument checks, the contract "
         "check, what a mechanism declares for the figures, and the trace's file format."),
        ["stmviz", "stmviz.core", "stmviz.sizes", "stmviz.errors", "stmviz.contract", "stmviz.protocol", "stmviz.io"],
    ),
    (
        "mechanisms",
        ("The paper's architectures of Section 4 — the FIFO window, SCM, HiAgent, AgentFold — and the offline "
         "text helpers they use (summarizer, embedder, judge, adapters for real models)."),
        ["stmviz.mechanisms", "stmviz.text"],
    ),
    (
        "managers",
        ("The context managers practitioners run (Anthropic, Claude Code, LangChain, LlamaIndex, the OpenAI "
         "Agents SDK, Letta, Google ADK) as mechanisms of Definition 2, each doing its work in U or in π, and the "
         "one conversation model they share with the FIFO window."),
        ["stmviz.managers", "stmviz.managers.conversation"],
    ),
    (
        "scenarios and transcripts",
        ("The bundled scenarios, their schema, the benchmark loaders (LoCoMo, LongMemEval), generated "
         "scenarios, and the importers of chat logs and agent transcripts."),
        ["stmviz.scenarios"],
    ),
    (
        "metrics and sweeps",
        ("What a mechanism keeps and what it costs: occupancy, evidence and answer recall, why a fact was "
         "forgotten, sweeps over V_max and parameters, tables, LoCoMo's own scoring."),
        ["stmviz.metrics", "stmviz.forgetting", "stmviz.sweep", "stmviz.tables", "stmviz.locomo_eval"],
    ),
    (
        "figures",
        "The figures: plotly figures and HTML computed from a trace, and the offline HTML export.",
        ["stmviz.viz"],
    ),
    (
        "widgets",
        "The widgets of JupyterLab and Voila: the trace player, the comparison player, the sweep explorer.",
        ["stmviz.widgets"],
    ),
    (
        "exercises",
        "The notebooks' exercises: the checkers that report ✓ or ✗ per criterion, and the reference solutions.",
        ["stmviz.exercises", "stmviz.exercise_solutions"],
    ),
]

autodoc_member_order = "bysource"
autosummary_generate = False  # the object pages are written by stmviz_docs.api, one per object
numpydoc_show_class_members = False  # autodoc's :members: documents the methods, once
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# ---------------------------------------------------------------- notebooks and Markdown (myst-nb)
nb_execution_mode = "off"  # render the stored outputs; the notebooks are run and checked by nbval
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# docs/notebooks and docs/api are written by stmviz_docs when the build starts (ignored by git): a copy
# of the repository's notebooks/*.ipynb and ru/*.ipynb (the .ipynb, which has the outputs, never their
# jupytext twins notebooks/<name>.md), and the reference's pages
exclude_patterns = ["_build", "_ext", "images", "**/.ipynb_checkpoints"]

# ---------------------------------------------------------------- HTML
html_theme = "furo"
html_title = f"stmviz {release}"
html_static_path = ["_static"]
html_css_files = ["stmviz.css"]
html_math_renderer = "mathml"
html_copy_source = False
html_show_sourcelink = False
html_last_updated_fmt = None
