"""The model input space X and its points x = π(ω) (Definition 2).

The paper: X ⊆ (M_1 ∪ … ∪ M_l)* is the model input space — words over the
alphabets of the model's l modalities — and π : Ω_STM → X turns the whole
current state into the model's input format. π is not retrieval: it uses the
whole state, and decides the order and form in which text, images, etc. are
fed to the model.

- A :class:`Message` is one message of x: a role and its content.
- A :class:`ModelInput` x ∈ X is the sequence of messages π hands to the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .element import Element, content_text, freeze
from .guards import brief
from . import guards
from .errors import InvalidArgumentError
from .formatting import shorten

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
        return self.content if isinstance(self.content, str) else content_text(self.content)

    def to_dict(self) -> dict[str, Any]:
        """The OpenAI chat format ``{"role": ..., "content": ...}``."""
        data = {"role": self.role, "content": self.text}
        if self.name:
            data["name"] = self.name
        return data


class ModelInput(Sequence[Message]):
    """A model input x ∈ X ⊆ (M_1 ∪ … ∪ M_l)*: a sequence of messages.

    The projection π returns one; a plain string or a list of strings or
    ``{"role", "content"}`` dicts is accepted and turned into one.

    >>> x = ModelInput.coerce("Hello")
    >>> x.text()
    'Hello'
    >>> ModelInput.coerce([{"role": "system", "content": "Be brief."}, "Hi"]).to_messages()
    [{'role': 'system', 'content': 'Be brief.'}, {'role': 'user', 'content': 'Hi'}]
    """

    __slots__ = ("_messages",)

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._messages = tuple(guards.items(messages, "messages", where="ModelInput", what="Message"))
        for message in self._messages:
            if not isinstance(message, Message):
                raise InvalidArgumentError(
                    f"ModelInput holds Message objects, got {brief(message)}; "
                    "for strings or {'role', 'content'} dicts use ModelInput.coerce"
                )

    @classmethod
    def coerce(cls, value: Any) -> "ModelInput":
        """x ∈ X from what a projection π returned: a ModelInput, a string, a message, or a sequence of them.

        Raises
        ------
        InvalidArgumentError
            if ``value`` (or one of its items) cannot be read as a message.
        """
        if isinstance(value, ModelInput):
            return value
        if isinstance(value, (str, Message, Mapping)):
            return cls((_message(value),))
        if isinstance(value, Iterable):
            return cls(_message(item) for item in value)
        raise InvalidArgumentError(
            f"cannot turn {type(value).__name__} into a model input x ∈ X; give a string, a Message, "
            f"a {{'role', 'content'}} dict, or a list of them"
        )

    def __len__(self) -> int:
        return len(self._messages)

    def __getitem__(self, index: Any) -> Any:
        return self._messages[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ModelInput):
            return self._messages == other._messages
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._messages)

    def text(self, separator: str = "\n\n") -> str:
        """The model input x rendered as one text."""
        return separator.join(m.text for m in self._messages)

    def to_messages(self) -> list[dict[str, Any]]:
        """The model input x in the OpenAI chat format."""
        return [m.to_dict() for m in self._messages]

    def __repr__(self) -> str:
        shown = ", ".join(f"{m.role}: {shorten(m.text, 30)!r}" for m in self._messages[:4])
        more = f", … (+{len(self) - 4})" if len(self) > 4 else ""
        return f"ModelInput([{shown}{more}])"


def _message(item: Any) -> Message:
    """One message of x from a Message, a string (a user message), a dict, or an element (its ``role``)."""
    if isinstance(item, Message):
        return item
    if isinstance(item, str):
        return Message("user", item)
    if isinstance(item, Mapping):
        content = item.get("content")
        if content is None:
            content = ""
        return Message(str(item.get("role", "user")), content if isinstance(content, str) else freeze(content), item.get("name"))
    if isinstance(item, Element):
        return Message(str(item.meta.get("role", "user")), item.content)
    raise InvalidArgumentError(
        f"cannot turn {type(item).__name__} {brief(item)} into a message of a model input; "
        f"give a string, a Message, a {{'role', 'content'}} dict or an Element"
    )
