"""The checks behind :mod:`stmviz.core.space`: V_max ∈ ℝ⁺, the values μ returns, what a state may hold; deprecations.

Not the paper: Definition 1 says what V_max, μ and ω are; this module says what stmviz
refuses, and how. A reader of Definition 1 can skip it. It imports nothing from
:mod:`stmviz.core.space` (which imports it).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from .element import Element
from .errors import InvalidArgumentError, ContractError
from .guards import brief, is_finite


def check_elements(items: frozenset) -> None:
    """Every item of a state ω ⊆ E is an Element, or an InvalidArgumentError names the first that is not."""
    for item in items:
        if not isinstance(item, Element):
            raise InvalidArgumentError(
                f"a state ω ⊆ E holds only Element objects; got a {type(item).__name__} "
                f"{brief(item)}: wrap it as Element(...)"
            )


def check_v_max(v_max: Any) -> float:
    """V_max as a number in ℝ⁺ (a whole number stays an int), or an :class:`InvalidArgumentError`."""
    if isinstance(v_max, bool) or not isinstance(v_max, numbers.Real):
        raise InvalidArgumentError(
            f"V_max must be a positive finite number, got {type(v_max).__name__} {brief(v_max)}; "
            f"e.g. StateSpace(tokens(), v_max=4096)"
        )
    if not isinstance(v_max, int):
        v_max = float(v_max)
    if not is_finite(v_max):
        raise InvalidArgumentError(
            f"V_max must be finite, got {brief(v_max)}; the paper bounds Σμ(e) by a real V_max ∈ ℝ⁺ — pick a number such as 4096"
        )
    if v_max <= 0:
        raise InvalidArgumentError(
            f"V_max must be > 0 (V_max ∈ ℝ⁺), got {v_max}; only the empty state would fit. Use e.g. v_max=4096"
        )
    return v_max


def checked_size(value: Any, element: Element) -> float:
    """μ(e) as a number in ℝ⁺, or an :class:`ContractError` saying what μ returned."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ContractError(
            f"μ({element.label()}) = {brief(value)} is a {type(value).__name__}, not a number; "
            f"μ : E → ℝ⁺ must return a positive number"
        )
    if not isinstance(value, (int, float)):
        value = float(value)  # numpy scalars and other real numbers
    if not is_finite(value) or value <= 0:
        hint = (
            "an empty text has no tokens: give the element content, or use tokens(overhead=4)"
            if value == 0
            else "μ : E → ℝ⁺ must return a positive finite number"
        )
        raise ContractError(f"μ({element.label()}) = {brief(value)} is not in ℝ⁺ (> 0, finite); {hint}")
    return value


def deprecated(old: str, new: str) -> None:
    """Warn that ``old`` is deprecated for one release in favour of ``new`` (issue 24: one way to do a thing)."""
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}", DeprecationWarning, stacklevel=3)
