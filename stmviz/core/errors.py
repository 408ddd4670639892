"""Errors of stmviz: one root, one subclass per kind of defect.

Every message says what was wrong in the paper's notation, the actual value,
and how to fix it. Elements are named by id and a shortened content, never by
their whole text.
"""

from __future__ import annotations

__all__ = [
    "STMError",
    "CapacityError",
    "InvalidCapacityError",
    "InvalidSizeError",
    "InvalidElementError",
    "InvalidStateError",
    "UnsupportedOperationError",
    "InvalidOperationError",
    "InvalidUpdateError",
    "UpdateFailedError",
    "ControllerError",
    "MechanismContractError",
    "EncodingUnavailableError",
    "TraceFormatError",
    "ScenarioFormatError",
    "InvalidArgumentError",
    "InvalidIndexError",
    "IndexTypeError",
    "ElementNotFoundError",
]


class STMError(Exception):
    """Root of every error stmviz raises on purpose.

    An error raised while :func:`~stmviz.run` runs a step also says where:
    ``step`` is the step t, ``trace`` the trace recorded up to it.
    """

    step: int | None = None
    trace: object = None


class CapacityError(STMError, ValueError):
    """A state, or a single element, does not fit: Σ μ(e) > V_max."""


class InvalidCapacityError(STMError, ValueError):
    """V_max is not a finite positive number."""


class InvalidSizeError(STMError, ValueError):
    """The size function μ returned something that is not a positive finite number."""


class InvalidElementError(STMError, TypeError):
    """An element e = (i, d) has content or metadata stmviz cannot hold."""


class InvalidStateError(STMError, TypeError):
    """Something given as a state ω is not a set of elements."""


class UnsupportedOperationError(STMError, ValueError):
    """An operation whose type a ∉ τ is not declared by the mechanism."""


class InvalidOperationError(STMError, TypeError):
    """An operation o ∈ O is malformed (bad type name or parameters)."""


class InvalidUpdateError(STMError, TypeError):
    """The update U returned something that is not a State."""


class UpdateFailedError(STMError, RuntimeError):
    """The update U (or a helper it calls, e.g. a summarizer) raised during a step.

    The state is left as it was before the step; ``step`` names the step and
    ``trace`` holds the trace recorded up to it.
    """

    def __init__(self, message: str, *, step: int | None = None, trace: object = None):
        super().__init__(message)
        self.step = step
        self.trace = trace


class ControllerError(STMError, TypeError):
    """The controller did not return an operation (or a sequence of operations)."""


class MechanismContractError(STMError, AssertionError):
    """``check_mechanism`` found that a mechanism breaks the contract of Definition 2."""


class EncodingUnavailableError(STMError, ValueError):
    """A tiktoken encoding was asked for that cannot be loaded without a network."""


class TraceFormatError(STMError, ValueError):
    """A trace file is truncated, malformed, foreign, or of an unknown version."""


class InvalidArgumentError(STMError, ValueError, TypeError):
    """An argument of a public function is of the wrong kind or out of range; the message says which and how to fix it.

    It is both a ``ValueError`` and a ``TypeError``, so code that caught either
    from the plain errors stmviz raised before keeps working.
    """


class InvalidIndexError(STMError, IndexError):
    """A time index t names no state ω_t or step of a trace."""


class IndexTypeError(InvalidIndexError, InvalidArgumentError):
    """A time index t that is not a whole number (``1.5``, ``True``, ``"3"``): it names no state ω_t.

    It is an :class:`InvalidIndexError` like an index out of range, and
    also an :class:`InvalidArgumentError` (so a ``TypeError``), which
    code written for the earlier error keeps catching.
    """


class ElementNotFoundError(STMError, KeyError):
    """No element e ∈ ω (or more than one) answers to the id asked for.

    It is a ``KeyError``, as the plain error ``State.by_id`` raised before.
    """

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


class ScenarioFormatError(STMError, ValueError):
    """A scenario or chat log is malformed: which file, which step, which field."""
