"""``python -m stmviz``: the command-line entry point (see :mod:`stmviz.cli`)."""

from .cli import main

if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
