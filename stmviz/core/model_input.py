"""The model input space X and its points x = π(ω) (Definition 2).

X ⊆ (M_1 ∪ … ∪ M_l)* is the model input space: words over the alphabets of the model's l
modalities. The projection π : Ω_STM → X turns the whole current state into the model's
input format. π is not retrieval: it uses the whole state, and decides the order and form
in which text, images, etc. are fed to the model.

A reader may skip the side modules: ``_model_input_checks`` (what π may return, and how it
is read as x) and ``_model_input_views`` (equality, repr, the OpenAI chat format).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._model_input_checks import checked_messages, message_parts, not_a_model_input
from ._model_input_views import _MessageViews, _ModelInputViews
from .element import content_text

__all__ = ["Message", "ModelInput"]


@dataclass(frozen=True)
class Message(_MessageViews):
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


class ModelInput(_ModelInputViews, Sequence[Message]):
    """A model input x ∈ X ⊆ (M_1 ∪ … ∪ M_l)*: the sequence of messages π hands to the model.

    >>> ModelInput.coerce([{"role": "system", "content": "Be brief."}, "Hi"]).text()
    'Be brief.\\n\\nHi'
    """

    __slots__ = ("_messages",)

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._messages = checked_messages(messages, Message)

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


def _message(item: Any) -> Message:
    """One message of x: a Message as it is, else built from the role, content and name read from ``item``."""
    return item if isinstance(item, Message) else Message(*message_parts(item))
