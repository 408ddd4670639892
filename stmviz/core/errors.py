"""Errors of stmviz: one root and eight kinds, one per thing a user fixes.

Every message says what was wrong in the paper's notation, the actual value,
and how to fix it. Elements are named by id and a shortened content, never by
their whole text. The classes are reached as ``stmviz.errors.X``.

==================================  ==================================================
kind                                what to fix
==================================  ==================================================
:class:`InvalidArgumentError`       a value given to stmviz (V_max, an element, a state,
                                    an operation, an encoding name, an option)
:class:`InvalidIndexError`          a time index t that names no ω_t or step
:class:`ElementNotFoundError`       an id that names no element e ∈ ω
:class:`CapacityError`              a state that does not fit: Σ μ(e) > V_max
:class:`UnsupportedOperationError`  an operation whose type a ∉ τ
:class:`ContractError`              a function given to stmviz (U, π, the controller,
                                    μ) that broke its contract; ``check_mechanism``
:class:`UpdateFailedError`          U, or what it calls, raised during a step
:class:`FormatError`                a trace, scenario or chat-log file that is malformed
==================================  ==================================================

Two narrower errors name a case of their own: :class:`UnknownScenarioError` (a
:class:`FormatError`: no bundled scenario has that name) and
:class:`OptionalDependencyError` (a feature needs a package that is not installed).

The names of the earlier, finer classes still work for one release, with a
``DeprecationWarning``, and name the class that took their place (e.g.
``InvalidElementError`` is :class:`InvalidArgumentError`).
"""

from __future__ import annotations

import warnings

__all__ = [
    "STMError",
    "InvalidArgumentError",
    "InvalidIndexError",
    "ElementNotFoundError",
    "CapacityError",
    "UnsupportedOperationError",
    "ContractError",
    "UpdateFailedError",
    "FormatError",
    "UnknownScenarioError",
    "OptionalDependencyError",
]


class STMError(Exception):
    """Root of every error stmviz raises on purpose.

    An error raised while :func:`~stmviz.run` runs a step also says where:
    ``step`` is the step t, ``trace`` the trace recorded up to it.
    """

    step: int | None = None
    trace: object = None


class InvalidArgumentError(STMError, ValueError, TypeError):
    """A value given to stmviz is of the wrong kind or out of range: the message says which and how to fix it.

    V_max that is not a finite positive number, an element e = (i, d) whose content
    or metadata stmviz cannot hold, something given as a state ω that is not a set of
    elements, a malformed operation, an encoding that cannot load without a network.
    Both a ``ValueError`` and a ``TypeError``, as the plain errors it replaced.
    """


class InvalidIndexError(InvalidArgumentError, IndexError):
    """A time index t that names no state ω_t or step of a trace (out of range, or not a whole number)."""


class ElementNotFoundError(STMError, KeyError):
    """No element e ∈ ω (or more than one) answers to the id asked for (a ``KeyError``)."""

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


class CapacityError(STMError, ValueError):
    """A state, or a single element, does not fit: Σ μ(e) > V_max."""


class UnsupportedOperationError(STMError, ValueError):
    """An operation whose type a ∉ τ is not declared by the mechanism."""


class ContractError(STMError, TypeError, ValueError):
    """A function given to stmviz broke its contract in Definition 1 or 2.

    U returned something that is not a state, the controller no operation, μ a
    size that is not in ℝ⁺; or ``check_mechanism`` found a mechanism that
    breaks the contract.
    """


class UpdateFailedError(STMError, RuntimeError):
    """The update U (or a helper it calls, e.g. a summarizer) raised during a step.

    The state is left as it was before the step; ``step`` names the step and
    ``trace`` holds the trace recorded up to it.
    """

    def __init__(self, message: str, *, step: int | None = None, trace: object = None):
        super().__init__(message)
        self.step = step
        self.trace = trace


class FormatError(STMError, ValueError):
    """A trace, scenario or chat-log file is truncated, malformed, foreign, or of an unknown version.

    The message names the file, the step or line, and the field.
    """


class UnknownScenarioError(FormatError, LookupError):
    """No bundled scenario has this name, and it is not a path to an existing file."""


class OptionalDependencyError(STMError, ImportError):
    """A feature needs a package that is not installed (an optional extra of stmviz)."""


#: the earlier names (deprecated for one release) → the class that took their place
RENAMED = {
    "InvalidCapacityError": "InvalidArgumentError",
    "InvalidElementError": "InvalidArgumentError",
    "InvalidStateError": "InvalidArgumentError",
    "InvalidOperationError": "InvalidArgumentError",
    "EncodingUnavailableError": "InvalidArgumentError",
    "IndexTypeError": "InvalidIndexError",
    "InvalidSizeError": "ContractError",
    "InvalidUpdateError": "ContractError",
    "ControllerError": "ContractError",
    "MechanismContractError": "ContractError",
    "TraceFormatError": "FormatError",
    "ScenarioFormatError": "FormatError",
}


def deprecated(old: str, new: str) -> None:
    """Warn that ``old`` is deprecated for one release in favour of ``new`` (issue 24: one way to do a thing).

    Called by the deprecated method or property itself: the warning names the line that called it.
    """
    warnings.warn(f"{old} is deprecated and will be removed in the next release; use {new}", DeprecationWarning, stacklevel=3)


def __getattr__(name: str) -> type[STMError]:
    """An earlier error name: the class that took its place, with a ``DeprecationWarning``."""
    if name in RENAMED:
        warnings.warn(
            f"stmviz.errors.{name} is deprecated and will be removed in the next release; "
            f"use stmviz.errors.{RENAMED[name]}",
            DeprecationWarning,
            stacklevel=2,
        )
        return globals()[RENAMED[name]]
    raise AttributeError(f"module 'stmviz.errors' has no attribute {name!r}")
