"""The errors of stmviz (re-exported from :mod:`stmviz.core.errors`)."""

from .core.errors import *  # noqa: F401,F403
from .core.errors import __all__  # noqa: F401
