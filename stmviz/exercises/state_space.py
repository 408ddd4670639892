"""Notebook 01's exercise — Definition 1: is a set of elements a state of Ω_STM?."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..core.element import Element
from ..core.sizes import words
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_membership"]


def check_membership(in_omega: Callable[[Iterable[Element], Callable[[Element], float], float], Any]) -> ExerciseReport:
    """Notebook 01: ``in_omega(elements, mu, v_max)`` decides ω ∈ Ω_STM without ``StateSpace``.

    >>> def in_omega(elements, mu, v_max):
    ...     return sum(mu(e) for e in set(elements)) <= v_max
    >>> check_membership(in_omega).ok
    True
    >>> check_membership(lambda elements, mu, v_max: sum(mu(e) for e in elements) < v_max).failed("boundary")
    True
    """
    c = Checks("01 · ω ∈ Ω_STM", {
        "empty state": ("the empty set is a state (Σμ = 0 ≤ V_max)", "a sum over no elements is 0"),
        "boundary": ("a state with Σμ = V_max is in Ω_STM", "Definition 1 says Σμ(e) ≤ V_max: equality is allowed"),
        "over capacity": ("a set with Σμ > V_max is not in Ω_STM", "compare the total size Σμ(e) with V_max"),
        "sizes, not counts": ("a few large elements can overflow, many small ones can fit",
                              "add up μ(e) for each element; the number of elements is not its size"),
        "a set": ("an element listed twice is counted once", "ω ∈ 2^E is a set: build set(elements) first"),
    })
    a = Element("one two three four")            # 4 words
    b = Element("five six seven eight nine ten")  # 6 words
    many = [Element(f"w{i}") for i in range(8)]   # 8 elements of 1 word
    cases = [  # (criterion, elements, v_max, expected)
        ("empty state", [], 5, True),
        ("boundary", [a, b], 10, True),
        ("over capacity", [a, b], 9, False),
        ("sizes, not counts", [a, b], 3 * 2 + 1, False),
        ("sizes, not counts", many, 8, True),
        ("a set", [a, a, b], 10, True),
        ("a set", [a, a], 5, True),
    ]
    try:
        for name, elements, v_max, expected in cases:
            called, answer = call_answer(in_omega, list(elements), words, v_max)
            if not called:
                c.fail(name, error_text(answer))
            elif answer is None or bool(answer) != expected:
                total = sum(words(e) for e in set(elements))
                c.fail(name, f"{len(elements)} element(s), Σμ = {total} (as a set), V_max = {v_max}: "
                             f"expected {expected}, got {answer!r}")
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
