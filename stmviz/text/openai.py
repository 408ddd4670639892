"""Adapters from an OpenAI-compatible client object to stmviz's summarizer, embedder and memory-controller signatures.

stmviz never imports ``openai``: pass any object with
``client.chat.completions.create(model=..., messages=...)`` (and
``client.embeddings.create(model=..., input=...)``), e.g. ``openai.OpenAI()``,
or a local server's client. Nothing here runs unless you call it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..core.errors import InvalidArgumentError, STMError
from ..core import guards
from ..core.sizes import encoding_name
from .summarize import truncate_to_tokens

__all__ = ["OpenAISummarizer", "OpenAIEmbedder", "OpenAIMemoryController", "OpenAIMemoryJudge", "OpenAISubgoalSummarizer"]

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
        _check_chat(client)
        self.client = client
        self.model = guards.text(model, "model", where=type(self).__name__, example="gpt-4o-mini")
        self.prompt = guards.prompt(prompt, f"{type(self).__name__}: prompt", {"budget": 1, "text": ""})
        self.encoding = encoding_name(encoding, f"{type(self).__name__}: encoding")
        self.options = options

    def __repr__(self) -> str:
        return f"OpenAISummarizer(model={self.model!r})"

    def __call__(self, texts: Sequence[str] | str, budget: int) -> str:
        if isinstance(texts, str):
            texts = [texts]
        message = self.prompt.format(budget=budget, text="\n\n".join(texts))
        return truncate_to_tokens(_ask(self.client, self.model, message, self.options), budget, self.encoding)


class OpenAIEmbedder:
    """``embed(text) -> tuple[float, ...]`` backed by an embeddings call."""

    def __init__(self, client: Any, model: str, **options: Any):
        if not hasattr(client, "embeddings"):  # OpenAI's client shape, read by its methods: no guard's type
            raise InvalidArgumentError(
                "client must be OpenAI-compatible: it needs client.embeddings.create(...); "
                f"got {type(client).__name__}"
            )
        self.client = client
        self.model = guards.text(model, "model", where=type(self).__name__, example="text-embedding-3-small")
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


def _check_chat(client: Any) -> None:
    if not hasattr(client, "chat"):  # the same rule for a chat client
        raise InvalidArgumentError(
            "client must be OpenAI-compatible: it needs client.chat.completions.create(...); "
            f"got {type(client).__name__}"
        )


def _ask(client: Any, model: str, content: str, options: dict[str, Any]) -> str:
    """The text of the model's reply to one user message."""
    response = client.chat.completions.create(model=model, messages=[{"role": "user", "content": content}], **options)
    try:
        text = response.choices[0].message.content
    except (AttributeError, IndexError, KeyError, TypeError) as exc:
        raise STMError(f"the chat client's response has no choices[0].message.content ({exc})") from None
    if not isinstance(text, str):
        raise STMError(f"the model {model!r} returned no text (content = {text!r})")
    return text.strip()


def _yes(reply: str) -> bool:
    """A yes/no reply read as the SCM code reads it: "no" when it picks (B) or starts with "no"."""
    head = reply.strip().lower()
    return not ("(b)" in head or head.startswith("no") or head.startswith("b)") or head == "b")


NEED_PROMPT = (
    "You are the memory controller of a chat assistant. Decide whether answering the user's new message needs "
    "anything from earlier in the conversation (facts the user gave, things said before), or whether it can be "
    "answered on its own. Reply with (A) if earlier conversation is needed, (B) if not, then one short sentence "
    "saying why.\n\nNew message:\n{message}"
)

ANSWERABLE_PROMPT = (
    "Can the user's question be answered from the text below? Reply with (A) for yes or (B) for no, then one "
    "short sentence saying why.\n\nText:\n{content}\n\nQuestion:\n{message}"
)


class OpenAIMemoryController:
    """``needs_memory(message, memories) -> (bool, reason)`` backed by a chat-completions call.

    Asks the model whether the message needs earlier conversation ((A) yes,
    (B) no), as SCM's controller does; the reason is the model's reply. The
    earlier memories are not sent (the original asks about the message
    alone); ``prompt`` may use ``{message}`` and ``{count}`` (how many
    earlier interactions there are).
    """

    def __init__(self, client: Any, model: str, *, prompt: str = NEED_PROMPT, **options: Any):
        _check_chat(client)
        self.client = client
        self.model = guards.text(model, "model", where=type(self).__name__, example="gpt-4o-mini")
        self.prompt = guards.prompt(prompt, f"{type(self).__name__}: prompt", {"message": "", "count": 0})
        self.options = options

    def __repr__(self) -> str:
        return f"OpenAIMemoryController(model={self.model!r})"

    def __call__(self, message: str, memories: Sequence[str]) -> tuple[bool, str]:
        reply = _ask(self.client, self.model, self.prompt.format(message=message, count=len(memories)), self.options)
        return _yes(reply), f"{self.model}: {reply}"


class OpenAIMemoryJudge:
    """``judge(memory_text, summary_text, message) -> ("drop" | "summary" | "full", reason)`` backed by chat calls.

    As SCM's judgement: first asks whether the memory's full text can answer
    the message — if not, ``"drop"``; then whether its summary can — if so,
    ``"summary"``, else ``"full"``. The reason quotes the model's replies.
    """

    def __init__(self, client: Any, model: str, *, prompt: str = ANSWERABLE_PROMPT, **options: Any):
        _check_chat(client)
        self.client = client
        self.model = guards.text(model, "model", where=type(self).__name__, example="gpt-4o-mini")
        self.prompt = guards.prompt(prompt, f"{type(self).__name__}: prompt", {"content": "", "message": ""})
        self.options = options

    def __repr__(self) -> str:
        return f"OpenAIMemoryJudge(model={self.model!r})"

    def __call__(self, memory_text: str, summary_text: str, message: str) -> tuple[str, str]:
        full = _ask(self.client, self.model, self.prompt.format(content=memory_text, message=message), self.options)
        if not _yes(full):
            return "drop", f"full text cannot answer ({self.model}: {full})"
        short = _ask(self.client, self.model, self.prompt.format(content=summary_text, message=message), self.options)
        if _yes(short):
            return "summary", f"the summary can answer ({self.model}: {short})"
        return "full", f"only the full text can answer ({self.model}: {short})"


SUBGOAL_PROMPT = (
    "An agent worked on one subgoal. Below are the actions it took and what it observed after each.\n"
    "In at most {budget} tokens, say what was observed that bears on the subgoal (objects, places, states, "
    "numbers, failures). Then, on a last line of its own, write 'Achieved: yes', 'Achieved: no' or "
    "'Achieved: unclear'.\n\nSubgoal: {subgoal}\n\nTrajectory:\n{trajectory}"
)

_ACHIEVED_LINE = re.compile(
    r"^\s*\**\s*achieved\s*\**\s*:\s*\**\s*(yes|no|unclear|unknown)\b.*$", re.IGNORECASE | re.MULTILINE
)


class OpenAISubgoalSummarizer:
    """HiAgent's summarized observation by a chat model: ``summarize_subgoal(subgoal, pairs, budget) -> (text, achieved)``.

    The model reads the subgoal and its action–observation pairs (any objects
    with ``action`` and ``observation`` attributes, e.g.
    :class:`stmviz.text.subgoal_summary.SubgoalPair`), says what was observed
    and ends with a verdict line ``Achieved: yes / no / unclear``, read as
    ``True`` / ``False`` / ``None`` (no such line: ``None``). The text, without
    the verdict line, is cut to ``budget`` tokens. The prompt is stmviz's own
    wording of the task the HiAgent paper gives its summarizer.
    """

    def __init__(
        self, client: Any, model: str, *, prompt: str = SUBGOAL_PROMPT, encoding: str = "cl100k_base", **options: Any
    ):
        _check_chat(client)
        self.client = client
        self.model = guards.text(model, "model", where=type(self).__name__, example="gpt-4o-mini")
        self.prompt = guards.prompt(prompt, f"{type(self).__name__}: prompt", {"budget": 1, "subgoal": "", "trajectory": ""})
        self.encoding = encoding_name(encoding, f"{type(self).__name__}: encoding")
        self.options = options

    def __repr__(self) -> str:
        return f"OpenAISubgoalSummarizer(model={self.model!r})"

    def __call__(self, subgoal: str, pairs: Sequence[Any], budget: int) -> tuple[str, bool | None]:
        lines = []
        for pair in pairs:
            if getattr(pair, "action", ""):
                lines.append(f"Action: {pair.action}")
            if getattr(pair, "observation", ""):
                lines.append(f"Observation: {pair.observation}")
        message = self.prompt.format(budget=budget, subgoal=subgoal, trajectory="\n".join(lines) or "(no actions)")
        content = _ask(self.client, self.model, message, self.options)
        verdicts = list(_ACHIEVED_LINE.finditer(content))
        achieved: bool | None = None
        if verdicts:
            word = verdicts[-1].group(1).lower()
            achieved = True if word == "yes" else False if word == "no" else None
            content = _ACHIEVED_LINE.sub("", content)
        text = " ".join(content.split())
        return truncate_to_tokens(text, budget, self.encoding), achieved
