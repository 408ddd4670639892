"""The core of stmviz: Definitions 1 and 2 of the paper and the loop of Figure 1, standard library (and tiktoken) only.

One module per symbol of the paper, read in this order:

=======================  ==============================================================
paper                    module
=======================  ==============================================================
e = (i, d) ∈ E = I × D   :mod:`~stmviz.core.element` (``Element``, ``Meta``, parts)
μ : E → ℝ⁺               :mod:`~stmviz.core.sizes` (``tokens``, ``chars``, ``words``, ...)
ω, Ω_STM, V_max          :mod:`~stmviz.core.space` (``State``, ``StateSpace``)
O = ⋃_{a ∈ τ} O_a        :mod:`~stmviz.core.operation` (``Operation``, ``OperationSet``)
c ∈ C                    :mod:`~stmviz.core.context` (``Context``, ``AgentStep``, ``History``)
x ∈ X                    :mod:`~stmviz.core.model_input` (``ModelInput``, ``Message``)
(O, E, Ω, C, U, X, π)    :mod:`~stmviz.core.mechanism` (``Mechanism``, ``make_mechanism``)
Figure 1's loop          :mod:`~stmviz.core.trace` (``run``, ``Step``, ``Trace``)
argument checks          :mod:`~stmviz.core.guards` (one vocabulary, used by every layer)
errors                   :mod:`~stmviz.core.errors` (also ``stmviz.errors``)
=======================  ==============================================================

Each paper module names the side modules a reader may skip (an underscore name:
``_space_checks``, ``_space_views``, ``_space_carry``, ``_trace_views``, …): the
checks at its entry points, what its classes offer beyond the paper (repr, JSON,
tables), the speed-ups (Σμ carried from state to state, token counts cached,
each held equal to the plain definition by a test) and a trace's storage
(diffs and checkpoints). The paper's eight modules are about 1,240 lines.

Beside the core, not in it: :mod:`stmviz.contract` (``check_mechanism``),
:mod:`stmviz.io` (files and the trace's JSON form), :mod:`stmviz.protocol`
(the element types and hierarchy a mechanism declares for the figures).
Importing the core loads no other stmviz module and builds nothing.
"""

from . import errors, guards, sizes
from .context import AgentStep, Context, History
from .element import AudioPart, Element, ImagePart, Meta
from .mechanism import Mechanism, Transition, make_mechanism
from .model_input import Message, ModelInput
from .operation import Operation, OperationSet, OperationType
from .space import State, StateSpace
from .trace import Step, Trace, run

__all__ = [
    "sizes",
    "Element", "ImagePart", "AudioPart", "Meta",
    "State", "StateSpace",
    "Operation", "OperationType", "OperationSet",
    "AgentStep", "History", "Context",
    "Message", "ModelInput",
    "Mechanism", "Transition", "make_mechanism",
    "Step", "Trace", "run",
]
