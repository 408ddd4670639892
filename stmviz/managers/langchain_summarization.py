"""LangChain's ``SummarizationMiddleware``: U replaces the oldest messages by one summary message.

Source: langchain-ai/langchain, ``libs/langchain_v1/langchain/agents/middleware/summarization.py``
(LangChain v1 agents middleware; checked against langchain 1.5.2).

Before each model call the middleware looks at the agent's messages (the
system prompt is apart): when a ``trigger`` is met it cuts the list, asks a
model to summarize the part before the cut and *rewrites the state*: the old
messages are removed and a user message "Here is a summary of the
conversation to date:" followed by the summary takes their place. In the
paper's terms that is U's work; π is the identity.

In the terms of Definitions 1 and 2:

- E: chat messages (system prompt, user, assistant with its tool call, tool
  result) and ``summary_message`` messages; μ, V_max: tokens and the model's maximum
  input (a ``("fraction", f)`` trigger or keep is f·V_max);
- O: ``append`` and ``summarize``; C: the incoming step;
- U: append the step's messages; then, when an input arrived (a model call
  follows) and a trigger clause holds, ``summarize``:

  1. **trigger** — one clause or a list (OR) of clauses, each a
     ``("tokens", n)``, ``("messages", n)`` or ``("fraction", f)`` tuple or a
     dict of them (AND): tokens ≥ n, messages ≥ n, tokens ≥ ⌊f·V_max⌋;
     default ``None``, LangChain's default: never summarize;
  2. **cut** — keep the last ``keep`` messages (default ``("messages", 20)``;
     by tokens: the shortest suffix within the budget); if the cut falls on
     a tool result it moves back to the assistant message that made the call
     (so a result never loses its call), else forward past the results;
  3. **summary** — the messages before the cut, trimmed to the last
     ``trim_tokens_to_summarize`` tokens starting on a user message, go to the
     summarizer; its text becomes the message
     ``"Here is a summary of the conversation to date:\\n\\n" + summary``.

- π: the identity: the system prompt, then the messages in order.

The prompt LangChain sends its summary model is :data:`SUMMARY_PROMPT` (its
``DEFAULT_SUMMARY_PROMPT``, MIT licence); :meth:`LangChainSummarization.openai_summarizer`
sends exactly it to an OpenAI-compatible model. LangChain fills the prompt's
``{messages}`` with ``get_buffer_string(messages, format="xml")``: one
``<message type="human|ai|tool|system">`` element per message, its text
XML-escaped, an AI message with tool calls holding ``<content>`` and one
``<tool_call id=… name=…>`` (the arguments as JSON) per call. A summarizer you
pass gets that text (one string, :func:`messages_as_xml`), as LangChain's model
does. The default summarizer, stmviz's offline extractive stand-in, is given the
messages as ``"Human: …"``, ``"AI: …"``, ``"Tool: …"`` lines instead (tags
would end up in its extract).

Departures (docs/fidelity.md): the trigger on tokens the provider reported
(``usage_metadata``) is not reproduced (μ counts); the check runs after each input (LangChain's runs
before each model call: the same moments in an agent loop); the stored history
is bounded by V_max (oldest cut off, a call with its result); the summary is at
most ``summary_tokens`` long (a model's is as long as it writes).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from .._fast.memo import Memo
from ..core import guards
from ..core.context import Context
from ..core.element import Element
from ..core.errors import InvalidArgumentError, UnsupportedOperationError
from ..core.formatting import format_number
from ..core.i18n import N_
from ..core.i18n import gettext as _
from ..core.mechanism import Mechanism, Transition
from ..core.model_input import ModelInput
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ..protocol import element_types_of
from ..text import summarize as default_summarize
from .conversation import CHAT_TYPES, GAP, HISTORY_BOUND, RESULT_WITH_CALL, THINKING_TYPE, appended, as_model_input
from .conversation import check_summary_fits, counts_content_tokens, evict_oldest, pinned_system, step_messages

__all__ = ["LangChainSummarization", "SUMMARY_PREFIX", "SUMMARY_PROMPT", "messages_as_xml"]

#: The text LangChain puts before the summary in the message that replaces the summarized ones.
SUMMARY_PREFIX = "Here is a summary of the conversation to date:\n\n"

#: LangChain's DEFAULT_SUMMARY_PROMPT (langchain v1, summarization.py; MIT licence), sent to its summary model.
SUMMARY_PROMPT = """<role>
Context Extraction Assistant
</role>

<primary_objective>
Your sole objective in this task is to extract the highest quality/most relevant context from the conversation history below.
</primary_objective>

<objective_information>
You're nearing the total number of input tokens you can accept, so you must extract the highest quality/most relevant pieces of information from your conversation history.
This context will then overwrite the conversation history presented below. Because of this, ensure the context you extract is only the most important information to continue working toward your overall goal.
</objective_information>

<instructions>
The conversation history below will be replaced with the context you extract in this step.
You want to ensure that you don't repeat any actions you've already completed, so the context you extract from the conversation history should be focused on the most important information to your overall goal.

You should structure your summary using the following sections. Each section acts as a checklist - you must populate it with relevant information or explicitly state "None" if there is nothing to report for that section:

## SESSION INTENT

What is the user's primary goal or request? What overall task are you trying to accomplish? This should be concise but complete enough to understand the purpose of the entire session.

## SUMMARY

Extract and record all of the most important context from the conversation history. Include important choices, conclusions, or strategies determined during this conversation. Include the reasoning behind key decisions. Document any rejected options and why they were not pursued.

## ARTIFACTS

What artifacts, files, or resources were created, modified, or accessed during this conversation? For file modifications, list specific file paths and briefly describe the changes made to each. This section prevents silent loss of artifact information.

## NEXT STEPS

What specific tasks remain to be completed to achieve the session intent? What should you do next?

</instructions>

The user will message you with the full message history from which you'll extract context to create a replacement. Carefully read through it all and think deeply about what information is most important to your overall goal and should be saved:

With all of this in mind, please carefully read over the entire conversation history, and extract the most important and relevant context to replace it so that you can free up space in the conversation history.
Respond ONLY with the extracted context. Do not include any additional information, or text before or after the extracted context.

<messages>
Messages to summarize:
{messages}
</messages>"""

_KINDS = ("tokens", "messages", "fraction")
#: Why the oldest messages left at a summary, by the kind of ``keep`` (``{why}``: the operation's reason).
_KEPT = {
    "tokens": N_("summarized ({why}); the last {n} tokens are kept"),
    "messages": N_("summarized ({why}); the last {n} messages are kept"),
    "fraction": N_("summarized ({why}); the last {n} fraction are kept"),
}
_LABELS = {"user": "Human", "summary_message": "Human", "assistant": "AI", "tool": "Tool", "system": "System"}


class LangChainSummarization(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of LangChain's SummarizationMiddleware: U summarizes, π = id.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ and V_max (the model's maximum input tokens, for fractions).
    system : str, optional
        The system prompt (pinned; not counted by the trigger, as in LangChain).
    trigger : tuple, dict, list of them, or None
        When to summarize (see the module's text); ``None`` never does.
    keep : tuple
        What the cut keeps: ``("messages", 20)`` (default), ``("tokens", n)``
        or ``("fraction", f)``.
    trim_tokens_to_summarize : int or None
        The most tokens of the summarized messages the summarizer sees (4,000; ``None``: all).
    summarizer : callable, optional
        ``summarize(texts, budget) -> str``; it gets one text, the messages as LangChain's
        XML (:func:`messages_as_xml`); default: stmviz's offline extractive one (given lines).
    summary_tokens : int, optional
        The summary's budget (default ⌊V_max / 10⌋, at least 16).

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> steps = [AgentStep(observation="My code is 7391."), AgentStep(thought="Noted.", observation="And my name is Ann."),
    ...          AgentStep(thought="Hi Ann.", observation="What is my code?"), AgentStep(thought="7391.")]
    >>> m = LangChainSummarization(StateSpace(sizes.words, v_max=100), trigger=("messages", 4), keep=("messages", 2))
    >>> [(x.role, x.text) for x in run(m, steps).project(3)]  # doctest: +NORMALIZE_WHITESPACE
    [('user', 'Here is a summary of the conversation to date:\\n\\nHuman: My code is 7391. AI: Noted.'),
     ('assistant', 'Hi Ann.'), ('user', 'What is my code?')]
    """

    name = "LangChainSummarization"
    operations = OperationSet(
        {
            "append": "add the step's messages",
            "summarize": "replace the messages before the cut by one summary message",
        }
    )
    element_types = element_types_of(
        {**CHAT_TYPES, **THINKING_TYPE,
         "summary_message": ("LangChain's summary message (a user message) replacing older ones", "#b5cf6b", True)}
    )
    #: Which part of the manager's work U does and which π does (read by the figures).
    placement = {N_("append messages"): "U", N_("replace old messages by a summary message"): "U", N_("show the messages"): "π"}

    def __init__(
        self,
        space: StateSpace,
        *,
        system: str | None = None,
        trigger: Any = None,
        keep: tuple[str, float] = ("messages", 20),
        trim_tokens_to_summarize: int | None = 4000,
        summarizer: Any = None,
        summary_tokens: int | None = None,
    ) -> None:
        super().__init__(space)
        self._pins = pinned_system(space, system)
        self.system = system
        self.trigger = trigger
        self._clauses = _clauses(trigger)
        self.keep = _size("keep", keep)
        self.trim_tokens_to_summarize = guards.whole_number(trim_tokens_to_summarize, "trim_tokens_to_summarize", 1, none_ok=True)
        #: ``summarize(texts, budget) -> str`` (each answer checked to be text).
        self.summarizer = guards.function(summarizer, "summarizer", "(texts, budget) -> str", returns=str) or default_summarize
        self.summary_tokens = guards.whole_number(summary_tokens, "summary_tokens", 1, none_ok=True)
        self._messages = Memo()  # one element object per message: μ is counted once

    @staticmethod
    def openai_summarizer(client: Any, model: str, **options: Any) -> Any:
        """A summarizer that sends LangChain's own prompt (:data:`SUMMARY_PROMPT`) to an OpenAI-compatible model."""
        from ..text import OpenAISummarizer

        return OpenAISummarizer(client, model, prompt=SUMMARY_PROMPT.replace("{messages}", "{text}"), **options)

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (the summarizer is not saved: the default is used on rebuild)."""
        return {
            "system": self.system, "trigger": [dict(c) for c in self._clauses] or None, "keep": list(self.keep),
            "trim_tokens_to_summarize": self.trim_tokens_to_summarize, "summary_tokens": self.summary_tokens,
        }

    def initial_state(self, context: Context) -> State:
        """ω_0: the system prompt (pinned), or ∅."""
        return State(self._pins)

    # -- the controller and U ---------------------------------------------------
    def _threshold(self, kind: str, value: float) -> float:
        return max(1, int(self.space.v_max * value)) if kind == "fraction" else value

    def triggered(self, messages: Sequence[Element]) -> str | None:
        """The trigger clause the messages meet, as text (None: none is met)."""
        tokens = self.space.size(messages)
        for clause in self._clauses:
            met = []
            for kind, value in clause.items():
                if kind == "messages":
                    if len(messages) < value:
                        break
                    met.append(_("{n} messages ≥ {value}").format(n=len(messages), value=value))
                else:
                    threshold = self._threshold(kind, value)
                    if tokens < threshold:
                        break
                    met.append(_("{n} tokens ≥ {value}").format(n=format_number(tokens), value=format_number(threshold)))
            else:
                both = _("{first} and {second}")
                return functools.reduce(lambda first, second: both.format(first=first, second=second), met[1:], met[0]) if met else ""
        return None

    def controller(self, state: State, context: Context) -> list[Operation]:
        """``append``, then ``summarize`` when an input arrived (a model call follows) and a trigger clause holds."""
        ops = [Operation("append")]
        if not context.step.has_input or not self._clauses:
            return ops
        grown = self._appended(state, context).state
        messages = _messages(grown)
        why = self.triggered(messages)
        if why is not None and self.cutoff(messages) > 0:
            ops.append(Operation("summarize", reason=_("trigger met: {why}").format(why=why)))
        return ops

    def cutoff(self, messages: Sequence[Element]) -> int:
        """Where the cut falls: messages[:cutoff] are summarized, the rest kept (LangChain's rules, see the module)."""
        kind, value = self.keep
        n = len(messages)
        if kind == "messages":
            if n <= value:
                return 0
            return _safe_cut(messages, n - int(value))
        target = max(1, int(self._threshold(kind, value)))
        measure = self.space.measure
        if sum(measure(e) for e in messages) <= target:
            return 0
        suffix, cut = 0.0, n
        while cut > 0 and suffix + measure(messages[cut - 1]) <= target:
            cut -= 1
            suffix += measure(messages[cut])
        if cut >= n:
            if n == 1:
                return 0
            cut = n - 1
        return _safe_cut(messages, cut)

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of LangChain's summarization: append, or replace old messages by a summary."""
        if operation.type == "append":
            return self._appended(state, context)
        if operation.type != "summarize":
            raise UnsupportedOperationError(f"LangChainSummarization has no update for {operation.type!r}")
        messages = _messages(state)
        cut = self.cutoff(messages)
        if cut <= 0:
            return Transition(state)
        old, kept = messages[:cut], messages[cut:]
        text = self._summary(old)
        t = (kept[0].t or 0) - GAP if kept else (old[-1].t or 0) + GAP  # just before the first kept message
        summary = Element(SUMMARY_PREFIX + text, {"t": t, "type": "summary_message", "role": "user", "summarized": len(old)})
        why = _(_KEPT[self.keep[0]]).format(why=operation.reason or "summarize", n=f"{self.keep[1]:g}")
        steps = {e.meta.get("step") for e in old if e.type == "assistant"}
        thinking = [e for e in state if e.type == "thinking" and e.meta.get("step") in steps]  # part of those AI messages
        reasons = {e: why for e in (*old, *thinking)}
        result = state.replace(reasons.keys(), [summary])
        total = self.space.size(result)
        if total > self.space.v_max:
            extra = evict_oldest(result.ordered(), total, self.space.v_max, self.space.measure, keep=(summary,),
                                 note=HISTORY_BOUND, pairs_note=RESULT_WITH_CALL)
            reasons.update(extra)
            result = result - extra.keys()
        check_summary_fits(self.space, result, summary, self.summary_tokens or max(16, int(self.space.v_max // 10)),
                           "LangChainSummarization")
        return Transition(result, reasons)

    def _summary(self, old: Sequence[Element]) -> str:
        trimmed = list(old)
        if self.trim_tokens_to_summarize is not None:
            trimmed = self._trimmed(old)
            if not trimmed:
                return "Previous conversation was too long to summarize."
        if self.summarizer is default_summarize:  # the offline stand-in reads plain lines
            texts = [f"{_LABELS.get(e.type, 'Human')}: {e.text}" for e in trimmed]
        else:  # a model's summarizer gets what LangChain's summary model gets
            texts = [messages_as_xml(trimmed)]
        return self.summarizer(texts, self.summary_tokens or max(16, int(self.space.v_max // 10))).strip()

    def _trimmed(self, old: Sequence[Element]) -> list[Element]:
        """LangChain's ``trim_messages(strategy="last", start_on="human", allow_partial=True)``.

        The newest messages within ``trim_tokens_to_summarize``; the next older one, if some of its
        last lines fit the room left, cut to those lines (a previous summary is kept in part so);
        then messages are dropped from the front until the first is a human message.
        """
        measure, budget = self.space.measure, self.trim_tokens_to_summarize or 0
        used, start = 0.0, len(old)
        while start > 0 and used + measure(old[start - 1]) <= budget:
            start -= 1
            used += measure(old[start])
        kept = list(old[start:])
        if start > 0:
            part = _last_lines_within(old[start - 1], budget - used, measure)
            if part is not None:
                kept.insert(0, part)
        while kept and kept[0].type not in ("user", "summary_message"):  # start on a human message
            kept.pop(0)
        return kept

    def _appended(self, state: State, context: Context) -> Transition:
        """ω with step t's messages added; while Σμ > V_max the oldest are cut off (a stmviz bound)."""
        new = step_messages(context.step, context.t, api=True, memo=self._messages)
        return appended(self.space, state, new, note=HISTORY_BOUND, pairs_note=RESULT_WITH_CALL)

    # -- π --------------------------------------------------------------------
    def project(self, state: State) -> ModelInput:
        """The projection π : Ω → X of LangChain's summarization: the identity (system prompt, then the messages)."""
        return as_model_input(state.ordered())

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: Σμ(ω) when μ counts the content's tokens (π is the identity), else the counted messages."""
        if not counts_content_tokens(self.space):
            return super().projection_size(state)
        return int(self.space.size(state))


def _messages(state: State) -> list[Element]:
    """LangChain's ``state["messages"]``: ω in order without the system prompt; a step's thinking belongs to its AI message."""
    return [e for e in state.ordered() if not e.meta.get("pinned") and e.type != "thinking"]


def _safe_cut(messages: Sequence[Element], cut: int) -> int:
    """LangChain's safe cutoff: a cut on a tool result moves back to its call, else forward past the results."""
    if cut >= len(messages) or messages[cut].type != "tool":
        return cut
    calls, end = set(), cut
    while end < len(messages) and messages[end].type == "tool":
        calls.add(messages[end].meta.get("call"))
        end += 1
    for i in range(cut - 1, -1, -1):
        if messages[i].type == "assistant" and messages[i].meta.get("call") in calls:
            return i
    return end


def _size(name: str, value: Any) -> tuple[str, float]:
    """A ``(kind, value)`` context size, checked as LangChain checks it (a count may be written 20.0)."""
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        raise InvalidArgumentError(
            f"{name} must be a pair (kind, value) with kind in {_KINDS}, got {guards.brief(value)}; e.g. ('messages', 20)"
        )
    kind, number = value
    guards.choice(kind, f"{name}: the kind of {guards.brief(value)}", _KINDS, "e.g. ('messages', 20)")
    if kind == "fraction":
        guards.real_number(number, f"{name}: a fraction", 0, 1, low_open=True)
    else:
        count = guards.as_int(number, float_ok=True)
        exact = count is not None and abs(count) < 2**63 and float(count) == number  # 20.0 is 20; 1e300 stays a float
        guards.whole_number(count if exact else number, f"{name}: the {kind} of {guards.brief(value)}", 1)
    return (kind, number)


def _clauses(trigger: Any) -> list[dict[str, float]]:
    """The trigger as clauses: AND within a clause, OR across them (LangChain's normalization)."""
    if trigger is None:
        return []
    items = trigger if isinstance(trigger, list) else [trigger]
    out = []
    for item in items:
        if isinstance(item, Mapping):
            if not item:
                raise InvalidArgumentError("a trigger clause must name at least one of 'tokens', 'messages', 'fraction'")
            out.append({k: _size("trigger", (k, v))[1] for k, v in item.items()})
        else:
            kind, value = _size("trigger", item)
            out.append({kind: value})
    return out


_XML_TYPES = {"user": "human", "summary_message": "human", "assistant": "ai", "tool": "tool", "system": "system"}


def messages_as_xml(messages: Sequence[Element]) -> str:
    """The messages as LangChain's summary model reads them: ``get_buffer_string(messages, format="xml")``.

    Source: langchain-ai/langchain ``libs/core/langchain_core/messages/utils.py`` (``get_buffer_string``),
    called by ``SummarizationMiddleware._format_summary_prompt``. Each message is
    ``<message type="…">text</message>`` (text escaped); an assistant message with a tool call is
    ``<message type="ai">``, then ``  <content>thought</content>`` (when there is one) and
    ``  <tool_call id="…" name="…">arguments</tool_call>`` per line of its action, then ``</message>``;
    messages are joined by line breaks. Thinking is left out.

    >>> from stmviz import AgentStep
    >>> from stmviz.managers.conversation import step_messages
    >>> print(messages_as_xml(step_messages(AgentStep(thought="Look.", action='search({"q": "a<b"})', observation="hit"), 0, api=True)))
    <message type="ai">
      <content>Look.</content>
      <tool_call id="call_0" name="search">{"q": "a&lt;b"}</tool_call>
    </message>
    <message type="tool">hit</message>
    """
    out = []
    for e in messages:
        kind = _XML_TYPES.get(str(e.type))
        if kind is None:
            continue
        action = str(e.meta.get("action") or "")
        if kind != "ai" or not action or e.meta.get("call") is None:
            out.append(f"<message type={quoteattr(kind)}>{escape(e.text)}</message>")
            continue
        text = e.text
        thought = text[: len(text) - len(action)].rstrip("\n") if text.endswith(action) else ""
        parts = ["<message type=\"ai\">"] + ([f"  <content>{escape(thought)}</content>"] if thought else [])
        for line in (line.strip() for line in action.splitlines()):
            if line:
                name, _, rest = line.partition("(")
                parts.append(f"  <tool_call id={quoteattr(str(e.meta['call']))} name={quoteattr(name.strip())}>"
                             f"{escape(_arguments(rest[:-1] if rest.endswith(')') else rest))}</tool_call>")
        out.append("\n".join(parts + ["</message>"]))
    return "\n".join(out)


def _arguments(text: str) -> str:
    """A call's arguments as LangChain shows them: JSON, re-dumped as ``json.dumps`` writes it; else as written."""
    if not text.strip():
        return "{}"  # no arguments: an empty dict
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else text


def _last_lines_within(message: Element, room: float, measure: Any) -> Element | None:
    """``message`` cut to its last lines that fit ``room`` (LangChain's partial trim), or ``None``.

    The text is split after each newline, as langchain_core's default text splitter does, and the
    number of lines kept is found by the same bounded binary search.
    """
    lines = message.text.split("\n")
    pieces = [line + "\n" for line in lines[:-1]] + lines[-1:]
    low, high = 0, len(pieces)
    for _step in range(len(pieces).bit_length()):
        if low >= high:
            break
        middle = (low + high + 1) // 2
        if measure(Element("".join(pieces[-middle:]), message.meta)) <= room:
            low = middle
        else:
            high = middle - 1
    return Element("".join(pieces[-low:]), message.meta) if low else None
