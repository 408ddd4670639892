"""What :class:`~stmviz.core.model_input.Message` and :class:`~stmviz.core.model_input.ModelInput` offer beyond Definition 2.

Not the paper: the OpenAI chat format of a message and of a model input, a model input
read as a sequence, its equality, hash and repr. A reader of Definition 2 can skip this
module. It imports nothing from :mod:`stmviz.core.model_input` (which imports it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .formatting import shorten


class _MessageViews:
    """A message in the OpenAI chat format (a mixin of :class:`Message`)."""

    __slots__ = ()

    if TYPE_CHECKING:  # defined by Message
        role: str
        name: str | None

        @property
        def text(self) -> str: ...

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI chat format ``{"role": ..., "content": ...}``."""
        data = {"role": self.role, "content": self.text}
        if self.name:
            data["name"] = self.name
        return data


class _ModelInputViews:
    """A model input read as a sequence, its equality, repr and OpenAI chat format (a mixin of :class:`ModelInput`)."""

    __slots__ = ()
    _messages: tuple[Any, ...]

    def __len__(self) -> int:
        return len(self._messages)

    def __getitem__(self, index: Any) -> Any:
        return self._messages[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _ModelInputViews):
            return self._messages == other._messages
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._messages)

    def to_messages(self) -> list[dict[str, Any]]:
        """The model input x in the OpenAI chat format."""
        return [m.to_dict() for m in self._messages]

    def __repr__(self) -> str:
        shown = ", ".join(f"{m.role}: {shorten(m.text, 30)!r}" for m in self._messages[:4])
        more = f", … (+{len(self) - 4})" if len(self) > 4 else ""
        return f"ModelInput([{shown}{more}])"
