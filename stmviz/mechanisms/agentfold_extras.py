"""Moved into :mod:`stmviz.mechanisms.agentfold`: AgentFold is whole in its module (``block_label`` is there); this path works for one release, with a DeprecationWarning."""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.mechanisms.agentfold", __name__)
