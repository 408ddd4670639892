"""Moved to :mod:`stmviz.managers.adk_compaction`: this old path still works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.managers.adk_compaction", __name__)
