"""Nothing under docs/ is a test: conf.py and the extension need Sphinx, and docs/notebooks, docs/api and
docs/_build are written by the site's build (the notebooks are checked by nbval in notebooks/). The site is
built and checked by tests/docs."""

collect_ignore_glob = ["*"]
