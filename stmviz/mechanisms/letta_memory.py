"""Moved to :mod:`stmviz.managers.letta_memory`: this old path still works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.managers.letta_memory", __name__)
