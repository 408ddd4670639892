"""The core of stmviz: Definitions 1 and 2 of the paper, standard library (and tiktoken) only."""

from . import sizes
from .element import AudioPart, Element, ImagePart, Meta
from .errors import (
    CapacityError,
    ControllerError,
    EncodingUnavailableError,
    InvalidCapacityError,
    InvalidElementError,
    InvalidOperationError,
    InvalidSizeError,
    InvalidStateError,
    InvalidUpdateError,
    MechanismContractError,
    ScenarioFormatError,
    STMError,
    TraceFormatError,
    UnsupportedOperationError,
    UpdateFailedError,
)
from .mechanism import CheckReport, CheckResult, Mechanism, Transition, check_mechanism, make_mechanism
from .operation import AgentStep, Context, History, Message, ModelInput, Operation, OperationSet, OperationType
from .space import State, StateSpace
from .trace import Step, Trace, run

__all__ = [
    "sizes",
    "Element", "ImagePart", "AudioPart", "Meta",
    "State", "StateSpace",
    "Operation", "OperationType", "OperationSet", "AgentStep", "History", "Context", "Message", "ModelInput",
    "Mechanism", "Transition", "make_mechanism", "check_mechanism", "CheckReport", "CheckResult",
    "Step", "Trace", "run",
    "STMError", "CapacityError", "InvalidCapacityError", "InvalidSizeError", "InvalidElementError",
    "InvalidStateError", "InvalidOperationError", "InvalidUpdateError", "UnsupportedOperationError",
    "UpdateFailedError", "ControllerError", "MechanismContractError", "EncodingUnavailableError",
    "TraceFormatError", "ScenarioFormatError",
]
