"""The core of stmviz: Definitions 1 and 2 of the paper and the loop of Figure 1, on the standard library and tiktoken.

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

Each class is whole in its module: the paper's definition and methods first, then
what the class offers beyond the paper (repr, equality, lookups, its JSON form). The
argument checks are functions of one checks module per concept (``_element_checks``,
``_sizes_checks``, ``_space_checks``, ``_operation_checks``, ``_context_checks``,
``_model_input_checks``, ``_mechanism_checks``, ``_run_checks``), which never import
their class's module; :mod:`~stmviz.core.guards` is the vocabulary they share. Beside
the paper's modules:
:mod:`~stmviz.core.tokenizer` (tiktoken's encodings, loaded offline) and
:mod:`~stmviz.core.formatting` (texts, numbers and tables for people, a trace's too) and
:mod:`~stmviz.core.i18n` (the language of those texts: ``set_language("ru")``).
The speed-ups (Σμ carried from state to state, token counts cached) live in
:mod:`stmviz._fast`, each held equal to the plain definition by a test.

Beside the core, not in it: :mod:`stmviz.contract` (``check_mechanism``),
:mod:`stmviz.io` (files, the trace's JSON form, a mechanism rebuilt from a trace
file), :mod:`stmviz.protocol` (the element types and hierarchy a mechanism declares
for the figures). Importing the core loads no other stmviz module but the
standard-library speed-ups of :mod:`stmviz._fast`, and builds nothing.
"""

from . import errors, guards, sizes
from .context import AgentStep, Context, History
from .element import AudioPart, Element, ImagePart, Meta
from .i18n import get_language, language, set_language
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
    "set_language", "get_language", "language",
]
