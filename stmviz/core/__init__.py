"""The core of stmviz: Definitions 1 and 2 of the paper, standard library (and tiktoken) only.

One module per symbol of the paper:

=====================  ==============================================================
paper                  module
=====================  ==============================================================
e = (i, d) ∈ E = I × D  :mod:`~stmviz.core.element` (``Element``, ``Meta``, parts)
μ : E → ℝ⁺             :mod:`~stmviz.core.sizes` (``tokens``, ``chars``, ``words``, ...)
ω, Ω_STM, V_max        :mod:`~stmviz.core.space` (``State``, ``StateSpace``)
O = ⋃_{a ∈ τ} O_a      :mod:`~stmviz.core.operation` (``Operation``, ``OperationSet``)
c ∈ C                  :mod:`~stmviz.core.context` (``Context``, ``AgentStep``, ``History``)
x ∈ X                  :mod:`~stmviz.core.model_input` (``ModelInput``, ``Message``)
(O, E, Ω, C, U, X, π)  :mod:`~stmviz.core.mechanism` (``Mechanism``, ``make_mechanism``)
what it declares       :mod:`~stmviz.core.protocol` (``ElementType``, ``Hierarchy``)
the contract           :mod:`~stmviz.core.check` (``check_mechanism``)
Figure 1's loop        :mod:`~stmviz.core.trace` (``run``, ``Step``, ``Trace``)
its JSON form          :mod:`~stmviz.core.serialize`
errors                 :mod:`~stmviz.core.errors`
=====================  ==============================================================
"""

from . import sizes
from .check import CheckReport, CheckResult, check_mechanism
from .context import AgentStep, Context, History
from .element import AudioPart, Element, ImagePart, Meta
from .errors import (
    CapacityError,
    ControllerError,
    ElementNotFoundError,
    EncodingUnavailableError,
    InvalidArgumentError,
    InvalidCapacityError,
    InvalidElementError,
    InvalidIndexError,
    IndexTypeError,
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
from .mechanism import Mechanism, Transition, make_mechanism
from .model_input import Message, ModelInput
from .operation import Operation, OperationSet, OperationType
from .protocol import ElementType, Hierarchy
from .space import State, StateSpace
from .trace import Step, Trace, run

__all__ = [
    "sizes",
    "Element", "ImagePart", "AudioPart", "Meta",
    "State", "StateSpace",
    "Operation", "OperationType", "OperationSet",
    "AgentStep", "History", "Context",
    "Message", "ModelInput",
    "Mechanism", "Transition", "make_mechanism", "ElementType", "Hierarchy",
    "check_mechanism", "CheckReport", "CheckResult",
    "Step", "Trace", "run",
    "STMError", "CapacityError", "InvalidCapacityError", "InvalidSizeError", "InvalidElementError",
    "InvalidStateError", "InvalidOperationError", "InvalidUpdateError", "UnsupportedOperationError",
    "UpdateFailedError", "ControllerError", "MechanismContractError", "EncodingUnavailableError",
    "TraceFormatError", "ScenarioFormatError", "InvalidArgumentError", "InvalidIndexError", "IndexTypeError",
    "ElementNotFoundError",
]
