"""Moved: SCM's offline stand-ins for the model (``RecallHeuristic``, ``OverlapJudge``, ``always_needs_memory``,
``content_words``, ``RECALL_CUES``, ``VERDICTS``) to :mod:`stmviz.text.scm_judges`, and SCM's own released rule
``retrieves_as_released`` to :mod:`stmviz.mechanisms.scm`; this path works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to({"retrieves_as_released": "stmviz.mechanisms.scm", "*": "stmviz.text.scm_judges"}, __name__)
