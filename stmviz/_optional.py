"""Optional dependencies, imported on first use with an error that says how to install them."""

from __future__ import annotations

import importlib
from types import ModuleType

from .core.errors import OptionalDependencyError  # defined with every error class; importable from here too

__all__ = ["OptionalDependencyError", "require"]


def require(module: str, *, package: str, extra: str | None, why: str) -> ModuleType:
    """Import ``module``, or raise :class:`OptionalDependencyError` naming the package and the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        how = f"pip install 'stmviz[{extra}]' (or pip install {package})" if extra else f"pip install {package}"
        raise OptionalDependencyError(f"{why} needs {package}, which is not installed; {how}") from None
