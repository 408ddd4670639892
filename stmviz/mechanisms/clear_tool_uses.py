"""Moved to :mod:`stmviz.managers.clear_tool_uses`: this old path still works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.managers.clear_tool_uses", __name__)
