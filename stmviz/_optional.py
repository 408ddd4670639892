"""Optional dependencies, imported on first use with an error that says how to install them."""

from __future__ import annotations

import importlib
from types import ModuleType

from .core.errors import STMError

__all__ = ["OptionalDependencyError", "require"]


class OptionalDependencyError(STMError, ImportError):
    """A feature needs a package that is not installed (an optional extra of stmviz)."""


def require(module: str, *, package: str, extra: str | None, why: str) -> ModuleType:
    """Import ``module``, or raise :class:`OptionalDependencyError` naming the package and the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        how = f"pip install 'stmviz[{extra}]' (or pip install {package})" if extra else f"pip install {package}"
        raise OptionalDependencyError(f"{why} needs {package}, which is not installed; {how}") from None
