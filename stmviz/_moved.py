"""Old import paths that still work for one release: a module that moved leaves a forwarding stub behind.

A stub's ``__getattr__`` gives the name from the module's new home, with a
``DeprecationWarning`` that names where to import it from now::

    # stmviz/mechanisms/fit.py, after fit_text moved to stmviz.text.fit
    from .._moved import moved_to
    __getattr__ = moved_to("stmviz.text.fit", __name__)

A stub whose names went to several homes maps each name to its module (``"*"``: every other name)::

    __getattr__ = moved_to({"retrieves_as_released": "stmviz.mechanisms.scm", "*": "stmviz.text.scm_judges"}, __name__)
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["moved_to"]


def moved_to(new: str | Mapping[str, str], old: str) -> Callable[[str], Any]:
    """The module ``__getattr__`` of a stub left at ``old``: each name read from its new module, with a DeprecationWarning.

    ``new`` is the module every name moved to, or a mapping of names to their modules (``"*"``: every other
    name). The warning points at the line that reads the name, so Python's default filters show it in a
    user's script or notebook.
    """
    homes = {"*": new} if isinstance(new, str) else dict(new)

    def __getattr__(name: str) -> Any:
        home = homes.get(name, homes.get("*"))
        if name.startswith("__") or home is None:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        try:
            value = getattr(importlib.import_module(home), name)
        except AttributeError:
            raise AttributeError(f"module {old!r} has no attribute {name!r} (it moved to {home})") from None
        warnings.warn(
            f"{old} is deprecated and will be removed in the next release; import {name} from {home}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value

    return __getattr__
