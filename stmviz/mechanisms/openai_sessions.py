"""Moved to :mod:`stmviz.managers.openai_sessions`: this old path still works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.managers.openai_sessions", __name__)
