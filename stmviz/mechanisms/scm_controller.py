"""Moved: SCM's offline stand-ins for the model (``RecallHeuristic``, ``OverlapJudge``, ``always_needs_memory``,
``content_words``, ``RECALL_CUES``, ``VERDICTS``) to :mod:`stmviz.text.scm_judges`, and SCM's own released rule
``retrieves_as_released`` to :mod:`stmviz.mechanisms.scm`; this path works for one release, with a DeprecationWarning."""

from typing import Any

from .._moved import moved_to

_to_judges = moved_to("stmviz.text.scm_judges", __name__)
_to_scm = moved_to("stmviz.mechanisms.scm", __name__)


def __getattr__(name: str) -> Any:
    return (_to_scm if name == "retrieves_as_released" else _to_judges)(name)
