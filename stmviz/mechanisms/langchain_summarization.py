"""Moved to :mod:`stmviz.managers.langchain_summarization`: this old path still works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.managers.langchain_summarization", __name__)
