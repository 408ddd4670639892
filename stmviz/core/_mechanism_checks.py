"""The checks of :mod:`stmviz.core.mechanism`: its space, what the controller, U and π return, the arguments of ``make_mechanism``.

Functions called where a Mechanism is built or run (Definition 2 says what U, π and the
controller are; these say what stmviz refuses when a mechanism's code returns something
else, and what the default controller picks). It imports nothing from
:mod:`stmviz.core.mechanism`, which imports it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from . import guards
from .errors import CapacityError, ContractError, InvalidArgumentError, STMError
from .formatting import format_number, shorten
from .guards import brief
from .model_input import ModelInput
from .operation import Operation, OperationSet
from .space import State, StateSpace


def a_space(mechanism: Any, space: object) -> StateSpace:
    """The state space Ω_STM a mechanism is built over, or an InvalidArgumentError with an example."""
    if not isinstance(space, StateSpace):
        raise InvalidArgumentError(
            f"space: a mechanism needs a StateSpace (Ω_STM), got {type(space).__name__}; "
            f"e.g. {type(mechanism).__name__}(StateSpace(tokens(), v_max=4096))"
        )
    return space


def the_only_operation(mechanism: Any) -> Operation:
    """The default controller's choice: the one operation type of O, or a ContractError asking for a controller."""
    types = mechanism.operations.types
    if len(types) == 1:
        return _only_operation(types[0])
    raise ContractError(
        f"{mechanism} declares {len(types)} operation types ({', '.join(types) or 'none'}), so it must "
        f"define controller(state, context) to choose one per step"
    )


@lru_cache(maxsize=256)
def _only_operation(type_name: str) -> Operation:
    """The parameterless operation of a single-type mechanism (operations are immutable, so shared)."""
    return Operation(type_name)


def chosen_operations(mechanism: Any, chosen: object) -> tuple[Operation, ...]:
    """The controller's choice as a tuple of operations of declared types a ∈ τ, or a ContractError."""
    if isinstance(chosen, Operation):
        ops: tuple[Operation, ...] = (chosen,)
    elif isinstance(chosen, (list, tuple)) and all(isinstance(o, Operation) for o in chosen):
        ops = tuple(chosen)
    else:
        raise ContractError(
            f"{mechanism}.controller returned {type(chosen).__name__} {brief(chosen)}; it must return "
            f"an Operation or a list of Operations"
        )
    for op in ops:
        mechanism.operations.require(op, owner=str(mechanism))
    return ops


def a_state(mechanism: Any, operation: Operation, result: object) -> State:
    """What U returned, if it is a State; else an ContractError (a Transition is handled by the caller)."""
    if isinstance(result, State):
        return result
    raise ContractError(
        f"{mechanism}.update(ω, {operation}, c) returned {type(result).__name__} "
        f"{brief(result)}; U must return a State (e.g. `state | {{element}}`) or a Transition"
    )


def check_in_space(mechanism: Any, operation: Operation, state: object) -> None:
    """The state U returned is a State in Ω_STM (Σμ ≤ V_max), or an error saying by how much it is not."""
    if not isinstance(state, State):
        raise ContractError(
            f"{mechanism}.update(ω, {operation}, c) returned a Transition whose state is a "
            f"{type(state).__name__}; it must be a State"
        )
    space = mechanism.space
    total = space.size(state)
    if total > space.v_max:
        raise CapacityError(
            f"{mechanism}.update(ω, {operation}, c) left Ω_STM: Σμ = {format_number(total)} > V_max = "
            f"{format_number(space.v_max)} (over by {format_number(total - space.v_max)}); U must evict, "
            f"summarize or refuse so that its result fits"
        )


def model_input(mechanism: Any, x: object) -> ModelInput:
    """What π returned as a ModelInput, or an ContractError saying what π must return."""
    try:
        return ModelInput.coerce(x)
    except InvalidArgumentError as exc:
        raise ContractError(
            f"{mechanism}.project(ω) returned {type(x).__name__}; π must return a ModelInput, a string, "
            f"or a list of strings or messages ({exc})"
        ) from None


def spec_class(spec: object) -> Any:
    """What the ``"module:QualName"`` of a trace's spec names, if the module is stmviz's own and loaded; else ``None``.

    Nothing is imported and no foreign code runs: a spec naming another package's
    class (``"os:system"``) names nothing here.
    """
    path = spec.get("class") if isinstance(spec, Mapping) else None
    module_name, _, qualname = path.partition(":") if isinstance(path, str) else ("", "", "")
    if not qualname or (module_name != "stmviz" and not module_name.startswith("stmviz.")):
        return None
    found: Any = sys.modules.get(module_name)
    try:
        for part in qualname.split("."):
            found = getattr(found, part)
    except Exception:  # a name that is not there (or a module not loaded): nothing
        return None
    return found


def declared_operations(
    space: object,
    operations: object,
    update: object,
    functions: Mapping[str, tuple[object, str]],
    name: object,
) -> OperationSet:
    """The arguments of ``make_mechanism`` checked, in the order the docstring names them; O as an OperationSet."""
    if not isinstance(space, StateSpace):
        raise InvalidArgumentError(
            f"space must be a StateSpace (Ω_STM), got {type(space).__name__}; e.g. StateSpace(tokens(), v_max=4096)"
        )
    if isinstance(operations, (str, bytes)) or not isinstance(operations, (Mapping, Iterable)):
        raise InvalidArgumentError(
            f"operations must be a dict {{name: description}} or a list of operation names, got "
            f"{type(operations).__name__} {shorten(repr(operations), 60)}; e.g. operations={{'add': 'add the step'}}"
        )
    try:
        declared = OperationSet(operations)
    except STMError as exc:
        raise InvalidArgumentError(f"operations: {exc}") from None
    if not declared:
        raise InvalidArgumentError(
            "operations declares no operation type: τ needs at least one, e.g. operations={'add': 'add the step'}"
        )
    if not callable(update):
        raise InvalidArgumentError(
            f"update must be a callable update(m, state, operation, context) -> State, got {type(update).__name__}"
        )
    for argument, (function, signature) in functions.items():
        guards.function(function, argument, signature)
    guards.text(name, "name", example="greedy")
    return declared

