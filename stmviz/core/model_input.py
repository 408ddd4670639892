"""The model input space X and its points x = π(ω) (Definition 2).

X ⊆ (M_1 ∪ … ∪ M_l)* is the model input space: words over the alphabets of the model's l
modalities. The projection π : Ω_STM → X turns the whole current state into the model's
input format. π is not retrieval: it uses the whole state, and decides the order and form
in which text, images, etc. are fed to the model. Which values are read as a point x ∈ X
is decided by :mod:`._model_input_checks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import guards
from ._model_input_checks import message_parts, not_a_message, not_a_model_input
from .formatting import content_text, shorten

__all__ = ["Message", "ModelInput"]


@dataclass(frozen=True)
class Message:
    """One message of a model input x ∈ X: a role and its content (text or parts).

    >>> Message("user", "Hi").to_dict()
    {'role': 'user', 'content': 'Hi'}
    """

    role: str
    content: Any
    name: str | None = None

    @property
    def text(self) -> str:
        """The content as text (non-text parts as placeholders)."""
        return content_text(self.content)

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI chat format ``{"role": ..., "content": ...}``."""
        data = {"role": self.role, "content": self.text}
        if self.name:
            data["name"] = self.name
        return data


class ModelInput(Sequence[Message]):
    """A model input x ∈ X ⊆ (M_1 ∪ … ∪ M_l)*: the sequence of messages π hands to the model.

    >>> ModelInput.coerce([{"role": "system", "content": "Be brief."}, "Hi"]).text()
    'Be brief.\\n\\nHi'
    """

    __slots__ = ("_messages",)

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        found = tuple(guards.items(messages, "messages", where="ModelInput", what="Message"))
        for message in found:
            if not isinstance(message, Message):
                raise not_a_message(message)
        self._messages = found

    def __len__(self) -> int:
        return len(self._messages)

    def __getitem__(self, index: Any) -> Any:
        return self._messages[index]

    @classmethod
    def coerce(cls, value: Any) -> ModelInput:
        """x ∈ X from what π returned: a ModelInput, a string, a message, or a sequence of them."""
        if isinstance(value, ModelInput):
            return value
        if isinstance(value, (str, Message, Mapping)):
            return cls((_message(value),))
        if isinstance(value, Iterable):
            return cls(_message(item) for item in value)
        raise not_a_model_input(value)

    def text(self, separator: str = "\n\n") -> str:
        """The model input x rendered as one text."""
        return separator.join(m.text for m in self._messages)

    # -- beyond the paper: equality, repr, the chat format ----------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, ModelInput):
            return self._messages == other._messages
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._messages)

    def __repr__(self) -> str:
        shown = ", ".join(f"{m.role}: {shorten(m.text, 30)!r}" for m in self._messages[:4])
        more = f", … (+{len(self) - 4})" if len(self) > 4 else ""
        return f"ModelInput([{shown}{more}])"

    def to_messages(self) -> list[dict[str, Any]]:
        """The model input x in the OpenAI chat format."""
        return [m.to_dict() for m in self._messages]


def _message(item: Any) -> Message:
    """One message of x: a Message as it is, else built from the role, content and name read from ``item``."""
    return item if isinstance(item, Message) else Message(*message_parts(item))
