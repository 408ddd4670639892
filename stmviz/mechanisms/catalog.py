"""The element types of the mechanisms stmviz ships, for figures that have no mechanism at hand.

A state ω drawn on its own, or a trace loaded from a file whose mechanism
could not be rebuilt, still gets the colours and meanings its elements' types
have in stmviz's mechanisms. The list is read from the classes themselves,
in a fixed order; nothing registers itself, so a mechanism written in a
notebook never changes how another mechanism's elements are drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from ..core.mechanism import Mechanism
from ..protocol import ElementType, types_of

__all__ = ["declared_types"]


@lru_cache(maxsize=1)
def declared_types() -> Mapping[str, ElementType]:
    """Every element type a mechanism stmviz ships declares, by name (the first declaration of a name wins).

    The paper's four (:mod:`stmviz.mechanisms`) first, then the practitioners'
    managers in the order :mod:`stmviz.managers` lists them.

    >>> declared_types()["block"].summary, declared_types()["user"].meaning
    (True, 'a message of the user')
    """
    from .. import managers, mechanisms

    paper = (mechanisms.AgentFold, mechanisms.FIFOWindow, mechanisms.SCM, mechanisms.HiAgent)
    practice = [getattr(managers, name) for name in managers.__all__]
    out: dict[str, ElementType] = {}
    for cls in (*paper, *(c for c in practice if isinstance(c, type) and issubclass(c, Mechanism))):
        for name, declared in types_of(cls).items():
            out.setdefault(name, declared)
    return MappingProxyType(out)
