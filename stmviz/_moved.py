"""Old import paths that still work for one release: a module that moved leaves a forwarding stub behind.

A stub's ``__getattr__`` gives the name from the module's new home, with a
``DeprecationWarning`` that names where to import it from now::

    # stmviz/mechanisms/fit.py, after fit_text moved to stmviz.text.fit
    from .._moved import moved_to
    __getattr__ = moved_to("stmviz.text.fit", __name__)
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["moved_to"]


def moved_to(new: str, old: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` of a stub left at ``old``: each name read from ``new``, with a DeprecationWarning."""

    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        module = importlib.import_module(new)
        try:
            value = getattr(module, name)
        except AttributeError:
            raise AttributeError(f"module {old!r} has no attribute {name!r} (it moved to {new})") from None
        warnings.warn(
            f"{old} is deprecated and will be removed in the next release; import {name} from {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__
