"""Moved to :mod:`stmviz.text.subgoal_summary` (``SubgoalPair``, ``ObservationSummarizer``, ``verdict_of``, ``informative_sentences``, ``SubgoalSummarizer``); this path works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.text.subgoal_summary", __name__)
