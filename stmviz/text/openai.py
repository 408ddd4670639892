"""Adapters from an OpenAI-compatible client object to stmviz's summarizer and embedder signatures.

stmviz never imports ``openai``: pass any object with
``client.chat.completions.create(model=..., messages=...)`` (and
``client.embeddings.create(model=..., input=...)``), e.g. ``openai.OpenAI()``,
or a local server's client. Nothing here runs unless you call it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.errors import InvalidArgumentError, STMError
from .summarize import truncate_to_tokens

__all__ = ["OpenAISummarizer", "OpenAIEmbedder"]

PROMPT = (
    "Summarize the following agent memory in at most {budget} tokens. Keep every fact, number, name "
    "and decision that a later step may need; drop filler.\n\n{text}"
)


class OpenAISummarizer:
    """``summarize(texts, budget) -> str`` backed by a chat-completions call.

    The reply is cut to ``budget`` tokens if the model overruns it, so the
    mechanism's capacity bound holds whatever the model says.
    """

    def __init__(self, client: Any, model: str, *, prompt: str = PROMPT, encoding: str = "cl100k_base", **options: Any):
        if not hasattr(client, "chat"):
            raise InvalidArgumentError(
                "client must be OpenAI-compatible: it needs client.chat.completions.create(...); "
                f"got {type(client).__name__}"
            )
        self.client = client
        self.model = model
        self.prompt = prompt
        self.encoding = encoding
        self.options = options

    def __repr__(self) -> str:
        return f"OpenAISummarizer(model={self.model!r})"

    def __call__(self, texts: Sequence[str] | str, budget: int) -> str:
        if isinstance(texts, str):
            texts = [texts]
        message = self.prompt.format(budget=budget, text="\n\n".join(texts))
        response = self.client.chat.completions.create(
            model=self.model, messages=[{"role": "user", "content": message}], **self.options
        )
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            raise STMError(f"the chat client's response has no choices[0].message.content ({exc})") from None
        if not isinstance(content, str):
            raise STMError(f"the model {self.model!r} returned no text (content = {content!r})")
        return truncate_to_tokens(content.strip(), budget, self.encoding)


class OpenAIEmbedder:
    """``embed(text) -> tuple[float, ...]`` backed by an embeddings call."""

    def __init__(self, client: Any, model: str, **options: Any):
        if not hasattr(client, "embeddings"):
            raise InvalidArgumentError(
                "client must be OpenAI-compatible: it needs client.embeddings.create(...); "
                f"got {type(client).__name__}"
            )
        self.client = client
        self.model = model
        self.options = options

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r})"

    def __call__(self, text: str) -> tuple[float, ...]:
        response = self.client.embeddings.create(model=self.model, input=text, **self.options)
        try:
            vector = response.data[0].embedding
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            raise STMError(f"the embeddings response has no data[0].embedding ({exc})") from None
        return tuple(float(v) for v in vector)
