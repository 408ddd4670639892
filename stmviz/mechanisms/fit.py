"""Moved to :mod:`stmviz.text.fit` (``fit_text``, ``ELLIPSIS``); this path works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.text.fit", __name__)
