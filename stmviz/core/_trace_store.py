"""How a :class:`~stmviz.core.trace.Trace` stores a run: each step as a diff ω_t → ω_{t+1}, whole states at checkpoints.

Not the paper: the loop of Figure 1 yields ω_0, ω_1, …, ω_n. Keeping each of them
whole would cost |ω| per step, so a trace keeps what each step added and removed
(with μ of each new element, Σμ carried from step to step, and why each element
left) and a whole state every ``checkpoint_every`` steps; ω_t is rebuilt from the
nearest checkpoint. A reader of the loop can skip this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .element import Element, order_key
from .mechanism import Mechanism, Transition
from .operation import Operation


class Recorder:
    """Σμ carried through a run, and each step's diff: what ω_{t+1} added to and removed from ω_t, and why."""

    def __init__(self, sizes: dict[Element, float], space: Any, size: float) -> None:
        self.sizes = sizes  # the trace's μ of every element ever seen, in order of first appearance
        self.space = space
        self.size = size  # Σμ(ω_t)

    def diff(
        self, before: frozenset[Element], after: frozenset[Element], reasons: dict[Element, str]
    ) -> tuple[tuple[Element, ...], tuple[Element, ...], tuple[str, ...], float, float]:
        """(added, removed, why each was removed, Σμ(ω_t), Σμ(ω_{t+1})) for ω_t = ``before`` → ω_{t+1} = ``after``."""
        size_before = self.size
        if after is before:
            return (), (), (), size_before, size_before
        added = tuple(sorted(after - before, key=order_key))
        removed = tuple(sorted(before - after, key=order_key))
        sizes = self.sizes
        for element in added:  # in canonical order, so trace.sizes is ordered the same in every process
            if element not in sizes:
                sizes[element] = self.space.measure(element)
        why = tuple([reasons.get(e, "removed") for e in removed])
        if removed:
            size_after = size_before - sum(map(sizes.__getitem__, removed)) + sum(map(sizes.__getitem__, added))
        else:
            size_after = size_before + sum(map(sizes.__getitem__, added))
        self.size = size_after
        return added, removed, why, size_before, size_after


def rebuild(checkpoints: Sequence[frozenset[Element]], steps: Sequence[Any], every: int, t: int) -> frozenset[Element]:
    """The elements of ω_t (t < n): the checkpoint at or before t, with the diffs of the steps between applied."""
    k = t // every
    elements = checkpoints[k]
    for i in range(k * every, t):
        step = steps[i]
        if step.removed:
            elements = elements.difference(step.removed)
        if step.added:
            elements = elements.union(step.added)
    return elements


def explain(
    mechanism: Mechanism,
    gone: Iterable[Element],
    transition: Transition,
    operation: Operation,
    reasons: dict[Element, str],
) -> None:
    """Record why each element in ``gone`` left: the transition's reason, else the operation's."""
    default = None
    for element in gone:
        why = transition.reasons.get(element)
        if why is None:
            if default is None:
                default = mechanism.removal_reason(operation)
            why = default
        reasons[element] = why
