"""What the trace, the figures and the token meter read from a :class:`~stmviz.core.mechanism.Mechanism`, beyond U, π and the controller.

Not the paper: Definition 2 names (O, E, Ω_STM, C, U, X, π); this module holds a
mechanism's name and parameters as a trace records them, the reason recorded for
what an operation removes, |π(ω)| in tokens, and the structure (hierarchy, folds)
a mechanism may declare for the figures. A reader of Definition 2 can skip it. It
imports nothing from :mod:`stmviz.core.mechanism` at run time (which imports it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .element import Element, content_text
from .errors import STMError
from .operation import Operation, OperationSet
from .sizes import count_tokens, part_tokens
from .space import State, StateSpace

if TYPE_CHECKING:
    from .model_input import ModelInput


class MechanismExtras:
    """A mechanism's record, its reasons, its token meter and its declared structure (mixed into ``Mechanism``)."""

    if TYPE_CHECKING:
        operations: OperationSet
        name: str
        space: StateSpace

        def input(self, state: State) -> ModelInput: ...

        def params(self) -> dict[str, Any]: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ops = cls.__dict__.get("operations")
        if ops is not None and not isinstance(ops, OperationSet):
            cls.operations = OperationSet(ops)

    def __str__(self) -> str:
        return self.name or type(self).__name__

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{self}({self.space!r}{', ' + params if params else ''})"

    def hierarchy(self, state: State) -> Any:
        """The hierarchy of ω: its elements as nodes and parent → child edges (``None``: ω is flat).

        Override it when ω has a structure (HiAgent: task → subgoals → pairs);
        return a :class:`stmviz.protocol.Hierarchy`.
        """
        return None

    def folds(self, added: Sequence[Element], removed: Sequence[Element]) -> Mapping[Element, Sequence[Element]]:
        """For one step: which elements it adds are the parents of which elements it removes (folding).

        A folding mechanism (AgentFold) overrides it so the fold tree, with the
        folded-away elements, can be drawn from a trace. Default: no folds.
        """
        return {}

    @property
    def encoding(self) -> str:
        """The tiktoken encoding used to measure π(ω) (μ's, if μ counts tokens)."""
        return getattr(self.space.mu, "encoding", None) or "cl100k_base"

    def count_tokens(self, text: str) -> int:
        """Tokens of a string, with :attr:`encoding`."""
        return count_tokens(text, self.encoding)

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: the size of the model input, as a model would be billed for it.

        The default projects ω and counts each message's tokens (text with
        tiktoken, images by the tile formula). Mechanisms whose π is the
        identity may return Σμ directly.
        """
        count = self.count_tokens
        total = 0
        for message in self.input(state):
            content = message.content
            if isinstance(content, str):
                total += count(content)
            elif isinstance(content, tuple):
                total += sum(part_tokens(p, count) for p in content)
            else:
                try:
                    total += part_tokens(content, count)
                except STMError:
                    total += count(content_text(content))
        return total

    def removal_reason(self, operation: Operation) -> str:
        """The default reason recorded for the elements e ∈ ω that an operation o removes."""
        if operation.reason:
            return f"{operation.type}: {operation.reason}"
        declared = self.operations.get(operation.type)
        if declared is not None and declared.doc:
            return f"{operation.type}: {declared.doc}"
        return operation.type

    def spec(self) -> dict[str, Any]:
        """The mechanism (O, E, Ω_STM, C, U, X, π) described for a trace file: class path, name and parameters."""
        cls = type(self)
        return {"class": f"{cls.__module__}:{cls.__qualname__}", "name": str(self), "params": self.params()}
