"""Tool-result clearing — Anthropic context editing, and LangChain's ``ClearToolUsesEdit`` — as π's work.

Sources:

- Anthropic, *Context editing* (platform.claude.com/docs/en/build-with-claude/context-editing),
  strategies ``clear_tool_uses_20250919`` and ``clear_thinking_20251015``; their
  parameters as typed in anthropics/anthropic-sdk-python,
  ``src/anthropic/types/beta/beta_clear_tool_uses_20250919_edit_param.py`` and
  ``beta_clear_thinking_20251015_edit_param.py``.
- LangChain, langchain-ai/langchain ``libs/langchain_v1/langchain/agents/middleware/context_editing.py``
  (``ClearToolUsesEdit`` inside ``ContextEditingMiddleware``).

Both edit a *copy* of the conversation for each model call and leave the
history itself alone: Anthropic applies the edit server-side "before the
prompt reaches Claude" while "your client application maintains the full,
unmodified conversation history"; LangChain deep-copies the request's
messages and edits the copy. In the paper's terms that is all π's work: U
only appends messages, π(ω) shows old tool results as a placeholder.

In the terms of Definitions 1 and 2:

- E: chat messages (system prompt, user, assistant with its tool call, tool
  result, thinking), see :mod:`stmviz.managers.conversation`; μ, V_max:
  the size and capacity of the stored history;
- O: ``append``; C: the incoming step;
- U: append the step's messages (the history is kept whole; only when Σμ
  would exceed V_max are the oldest cut off — a stmviz bound);
- π: the messages in order, with

  1. **thinking clearing** (Anthropic only): thinking is shown for the
     ``keep_thinking`` most recent assistant turns that have some (``"all"``:
     every one). When no ``clear_thinking`` strategy is set the API's default
     depends on the model (Anthropic, *Extended thinking*: Claude Opus 4.5 and
     later Opus, Sonnet 4.6 and later Sonnet keep every earlier turn's thinking;
     Opus 4.1 and earlier, Sonnet 4.5 and earlier and Haiku up to 4.5 keep only
     the last turn's): ``keep_thinking=None`` takes it from ``model``
     (:func:`default_keep_thinking`), and a current model when none is named;
  2. **tool-result clearing**, when the request's size exceeds ``trigger``
     (input tokens in units of μ, or ``trigger_type="tool_uses"``: the number
     of tool uses): every tool use except the ``keep`` most recent (and those
     of ``exclude_tools``) shows ``placeholder`` instead of its result, oldest
     first; with ``clear_tool_inputs`` its call shows ``name({})`` too.

``clear_at_least`` (tokens, net of the placeholders) differs between the two:

- ``flavour="anthropic"``: a precondition — "if the API can't clear at least
  the specified amount, the strategy will not be applied": all the clearable
  tool uses are cleared, or none;
- ``flavour="langchain"`` (:meth:`ClearToolUses.langchain`): a stopping rule —
  tool uses are cleared oldest first until at least that many tokens were
  freed (0: clear them all).

What could not be verified, and how it is labelled:

- Anthropic's placeholder text is not published: :data:`PLACEHOLDER` is
  stmviz's stand-in (LangChain's is ``"[cleared]"``, :data:`LANGCHAIN_PLACEHOLDER`);
- how Anthropic renders a cleared tool *input* is not published: stmviz shows
  the call as ``name({})`` (LangChain empties the call's ``args``);
- whether Anthropic's ``keep`` counts excluded tools, and whether it stops
  clearing once ``clear_at_least`` is reached, is not published: stmviz keeps
  the ``keep`` most recent tool uses of any tool and clears all the others;
- which turns ``keep_thinking`` counts: stmviz counts the assistant turns that
  have thinking.

Departures (docs/fidelity.md): a step's tool calls count as one tool use; the
stored history is bounded by V_max; token counts are μ's, not the API's.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .._fast.memo import Memo
from ..core import guards
from ..core.context import Context
from ..core.element import Element
from ..core.errors import InvalidArgumentError
from ..core.formatting import format_number
from ..core.i18n import N_
from ..core.i18n import gettext as _
from ..core.mechanism import Mechanism, Transition
from ..core.model_input import ModelInput
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ..protocol import element_types_of
from .conversation import CHAT_TYPES, HISTORY_BOUND, RESULT_WITH_CALL, THINKING_TYPE, appended, as_model_input
from .conversation import counts_content_tokens, pinned_system, step_messages

__all__ = ["ClearToolUses", "PLACEHOLDER", "LANGCHAIN_PLACEHOLDER", "default_keep_thinking"]

#: stmviz's stand-in for Anthropic's placeholder of a cleared tool result (the real text is not published).
PLACEHOLDER = "[tool result cleared by context editing]"
#: LangChain's placeholder (``DEFAULT_TOOL_PLACEHOLDER`` of ``context_editing.py``).
LANGCHAIN_PLACEHOLDER = "[cleared]"

_FLAVOURS = ("anthropic", "langchain")
_TRIGGER_TYPES = ("input_tokens", "tool_uses")

class ClearToolUses(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of tool-result clearing: U keeps the history, π shows placeholders.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ (tokens for the real thing) and V_max, the stored history's capacity.
    system : str, optional
        The system prompt (pinned; counted in the request's input tokens by
        the Anthropic flavour, not by LangChain's, whose system message is apart).
    trigger : int or dict
        Clear once the request exceeds this (default 100,000 input tokens), or the
        API's own form ``{"type": "input_tokens" | "tool_uses", "value": n}``. A
        trigger of input tokens at or above V_max is never reached: it warns.
    trigger_type : {"input_tokens", "tool_uses"}
        What ``trigger`` counts (Anthropic's two trigger types; LangChain: tokens).
    keep : int or dict
        The most recent tool uses never cleared (default 3), or ``{"type": "tool_uses", "value": n}``.
    clear_at_least : int or dict, optional
        Tokens a clearing must free (see the module's text for the two flavours), or
        ``{"type": "input_tokens", "value": n}``.
    exclude_tools : sequence of str
        Tools whose uses are never cleared.
    clear_tool_inputs : bool or sequence of str
        Also clear the calls' inputs (all, or those of the named tools).
    keep_thinking : int, "all", dict or None
        Assistant turns whose thinking π still shows (Anthropic's
        ``clear_thinking_20251015`` ``keep``, also as ``{"type": "thinking_turns",
        "value": n}``); ``None`` (default): the API's default for ``model``.
    model : str, optional
        The Claude model the requests go to, for the thinking default (none: a
        current model, which keeps all thinking).
    placeholder : str
        The text shown instead of a cleared result.
    flavour : {"anthropic", "langchain"}
        Whose rules: ``clear_at_least`` as a precondition or a stopping rule,
        the system prompt counted or not, thinking cleared or left alone.

    Examples
    --------
    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> steps = [AgentStep(observation="Find the key."),
    ...          AgentStep(thought="Look.", action="search(key)", observation="under the mat, see photo one two three"),
    ...          AgentStep(thought="Check.", action="open(mat)", observation="a key"),
    ...          AgentStep(thought="Done: under the mat.")]
    >>> m = ClearToolUses(StateSpace(sizes.words, v_max=100), trigger=12, keep=1)
    >>> [m.text for m in run(m, steps).project(3)]
    ['Find the key.', 'Look.\\nsearch(key)', '[tool result cleared by context editing]', 'Check.\\nopen(mat)', 'a key']
    """

    name = "ClearToolUses"
    operations = OperationSet({"append": "add the step's messages; the history is kept whole (π clears, U does not)"})
    element_types = element_types_of({**CHAT_TYPES, **THINKING_TYPE})
    #: Which part of the manager's work U does and which π does (read by the figures).
    placement = {
        N_("store every message"): "U",
        N_("clear old tool results"): "π",
        N_("clear old tool inputs"): "π",
        N_("clear old thinking"): "π",
    }

    def __init__(
        self,
        space: StateSpace,
        *,
        system: str | None = None,
        trigger: int | Mapping[str, Any] = 100_000,
        trigger_type: str = "input_tokens",
        keep: int | Mapping[str, Any] = 3,
        clear_at_least: int | Mapping[str, Any] | None = None,
        exclude_tools: Sequence[str] = (),
        clear_tool_inputs: bool | Sequence[str] = False,
        keep_thinking: int | str | Mapping[str, Any] | None = None,
        placeholder: str = PLACEHOLDER,
        flavour: str = "anthropic",
        model: str | None = None,
    ) -> None:
        super().__init__(space)
        self._pins = pinned_system(space, system)
        self.system = system
        if isinstance(trigger, Mapping):  # the API's form {"type": "input_tokens" | "tool_uses", "value": n}
            trigger_type, trigger = _api_form(trigger, "trigger", _TRIGGER_TYPES)
        self.trigger = guards.whole_number(trigger, "trigger", 0)
        self.trigger_type = guards.choice(trigger_type, "trigger_type", _TRIGGER_TYPES)
        if self.trigger_type == "input_tokens" and self.trigger >= space.v_max:
            warnings.warn(
                f"ClearToolUses: trigger = {format_number(self.trigger)} ≥ V_max = {format_number(space.v_max)}: the stored "
                f"history never exceeds it, so no tool result will be cleared; pass a trigger below V_max to see clearing, "
                f"e.g. trigger={int(space.v_max) // 2}",
                UserWarning, stacklevel=2,
            )
        if isinstance(keep, Mapping):
            keep = _api_form(keep, "keep", ("tool_uses",))[1]
        self.keep = guards.whole_number(keep, "keep", 0)
        if isinstance(clear_at_least, Mapping):
            clear_at_least = _api_form(clear_at_least, "clear_at_least", ("input_tokens",))[1]
        self.clear_at_least = guards.whole_number(clear_at_least, "clear_at_least", 0, none_ok=True)
        self.exclude_tools = _names("exclude_tools", exclude_tools)
        if isinstance(clear_tool_inputs, bool):
            self.clear_tool_inputs: bool | tuple[str, ...] = clear_tool_inputs
        else:
            self.clear_tool_inputs = _names("clear_tool_inputs", clear_tool_inputs)
        self.model = None if model is None else guards.text(model, "model", example="claude-opus-4-5")
        thinking: Any = keep_thinking
        if thinking is None:
            thinking = default_keep_thinking(self.model)
        elif isinstance(thinking, Mapping):
            thinking = _api_form(thinking, "keep_thinking", ("thinking_turns",))[1]
        if thinking != "all":
            thinking = guards.whole_number(thinking, "keep_thinking", 0)
        self.keep_thinking: int | str = thinking
        self.placeholder = guards.text(placeholder, "placeholder", example=LANGCHAIN_PLACEHOLDER)
        self.flavour = guards.choice(flavour, "flavour", _FLAVOURS)
        if flavour == "langchain" and self.trigger_type != "input_tokens":
            raise InvalidArgumentError("flavour='langchain' triggers on tokens only; pass trigger_type='input_tokens'")
        self._replacements = Memo()  # (element, shown text) → the element as π shows it
        self._messages = Memo()  # one element object per message: μ is counted once

    @classmethod
    def langchain(
        cls,
        space: StateSpace,
        *,
        system: str | None = None,
        trigger: int = 100_000,
        clear_at_least: int = 0,
        keep: int = 3,
        clear_tool_inputs: bool = False,
        exclude_tools: Sequence[str] = (),
        placeholder: str = LANGCHAIN_PLACEHOLDER,
    ) -> "ClearToolUses":
        """LangChain's ``ClearToolUsesEdit`` with its defaults: ``"[cleared]"``, ``clear_at_least`` a stopping rule."""
        return cls(
            space, system=system, trigger=trigger, keep=keep, clear_at_least=clear_at_least,
            exclude_tools=exclude_tools, clear_tool_inputs=clear_tool_inputs, keep_thinking="all",
            placeholder=placeholder, flavour="langchain",
        )

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments: ``ClearToolUses(space, **m.params())`` rebuilds it."""
        inputs = self.clear_tool_inputs
        return {
            "system": self.system, "trigger": self.trigger, "trigger_type": self.trigger_type, "keep": self.keep,
            "clear_at_least": self.clear_at_least, "exclude_tools": list(self.exclude_tools),
            "clear_tool_inputs": inputs if isinstance(inputs, bool) else list(inputs),
            "keep_thinking": self.keep_thinking, "placeholder": self.placeholder, "flavour": self.flavour,
            "model": self.model,
        }

    def initial_state(self, context: Context) -> State:
        """ω_0: the system prompt (pinned), or ∅."""
        return State(self._pins)

    # -- U --------------------------------------------------------------------
    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of tool-result clearing: append the step's messages, clear nothing.

        Only when Σμ would exceed V_max are the oldest messages cut off, a tool call with its result
        (a stmviz bound: the originals keep a client-side history of any length).
        """
        new = step_messages(context.step, context.t, api=True, memo=self._messages)
        return appended(self.space, state, new, note=HISTORY_BOUND, pairs_note=RESULT_WITH_CALL)

    # -- π --------------------------------------------------------------------
    def edits(self, state: State) -> dict[Element, tuple[str, str]]:
        """What π(ω) changes: element → (what it shows instead, or "" for hidden; why). ω itself is unchanged."""
        order = state.ordered()
        changes: dict[Element, tuple[str, str]] = {}
        if self.flavour == "anthropic" and self.keep_thinking != "all":
            turns = sorted({e.meta.get("step") for e in order if e.type == "thinking"})
            kept_turns = set(turns[max(0, len(turns) - int(self.keep_thinking)):])
            for e in order:
                if e.type == "thinking" and e.meta.get("step") not in kept_turns:
                    changes[e] = ("", _("thinking of an earlier turn (keep_thinking = {keep})").format(keep=self.keep_thinking))
        results = [e for e in order if e.type == "tool" and e.meta.get("call") is not None]
        if self.trigger_type == "tool_uses":
            size, unit = float(len(results)), "tool_uses"
        else:  # the request's tokens: Σμ(ω) (carried by the core) less hidden thinking (and the system prompt for LangChain)
            left_out = [e for e in changes] + ([e for e in order if e.type == "system"] if self.flavour == "langchain" else [])
            size, unit = self.space.size(state) - self.space.size(left_out), "tokens"
        if size <= self.trigger:
            return changes
        candidates = results[: max(0, len(results) - self.keep)]
        calls = {e.meta.get("call"): e for e in order if e.type == "assistant" and e.meta.get("call") is not None}
        measure = self.space.measure
        words = {"size": format_number(size), "trigger": format_number(self.trigger), "keep": self.keep}
        why = _(_CLEARED["tool", unit]).format(**words)
        why_input = _(_CLEARED["assistant", unit]).format(**words)
        planned: list[tuple[Element, str, float]] = []  # (element, shown text, tokens freed)
        freed = 0.0
        for result in candidates:
            tools = set(str(result.meta.get("tool", "")).split(","))
            if tools & set(self.exclude_tools):
                continue
            edit = [(result, self.placeholder)]
            call = calls.get(result.meta.get("call"))
            if call is not None and self._clears_input(tools):
                edit.append((call, _without_input(call)))
            for element, text in edit:
                gain = measure(element) - measure(self._replacements.lookup((element, text), _replaced))
                planned.append((element, text, gain))
                freed += gain
            if self.flavour == "langchain" and self.clear_at_least and freed >= self.clear_at_least:
                break  # LangChain: a stopping rule
        if self.flavour == "anthropic" and self.clear_at_least is not None and freed < self.clear_at_least:
            return changes  # all or nothing: not enough to clear
        for element, text, _gain in planned:
            changes[element] = (text, why if element.type == "tool" else why_input)
        return changes

    def _clears_input(self, tools: set[str]) -> bool:
        inputs = self.clear_tool_inputs
        return inputs if isinstance(inputs, bool) else bool(tools & set(inputs))

    def shown(self, state: State) -> list[Element]:
        """The elements π(ω) shows: old thinking left out, a cleared result or input as its replacement."""
        changes = self.edits(state)
        out = []
        for e in state.ordered():
            change = changes.get(e)
            if change is None:
                out.append(e)
            elif change[0]:
                out.append(self._replacements.lookup((e, change[0]), _replaced))
        return out

    def project(self, state: State) -> ModelInput:
        """The projection π : Ω → X of tool-result clearing: the messages, old thinking hidden, old tool results as placeholders."""
        return as_model_input(self.shown(state))

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: Σμ over what π shows when μ counts the content's tokens (μ is cached), else counted."""
        if not counts_content_tokens(self.space):
            return super().projection_size(state)
        return int(self.space.size(self.shown(state)))

    def hidden(self, state: State) -> dict[Element, str]:
        """The elements of ω that π(ω) does not show as they are, with why (for ``why_forgotten``-style views)."""
        return {e: why for e, (_, why) in self.edits(state).items()}


def default_keep_thinking(model: str | None) -> int | str:
    """The thinking turns the API keeps when no ``clear_thinking`` strategy is set: ``"all"`` or 1, by model.

    Anthropic, *Extended thinking* (platform.claude.com/docs/en/build-with-claude/extended-thinking):
    Opus 4.5 and later Opus models and Sonnet 4.6 and later Sonnet models keep every earlier
    turn's thinking; Opus 4.1 and earlier, Sonnet 4.5 and earlier, and Haiku models up to
    Haiku 4.5 keep only the last assistant turn's. A model stmviz cannot place (a later Haiku,
    another family, or none named) is taken as a current model: ``"all"``.

    >>> default_keep_thinking("claude-opus-4-5-20251101"), default_keep_thinking("claude-sonnet-4-5-20250929")
    ('all', 1)
    >>> default_keep_thinking("claude-3-7-sonnet-20250219"), default_keep_thinking(None)
    (1, 'all')
    """
    if model is None:
        return "all"
    name = guards.text(model, "model", example="claude-opus-4-5").lower()
    family = next((f for f in ("opus", "sonnet", "haiku") if f in name), None)
    numbers = [int(n) for n in re.findall(r"(?<![0-9])[0-9]{1,2}(?![0-9])", name)][:2]
    if family is None or not numbers:
        return "all"
    version = (numbers + [0])[:2]
    first_keeping_all = {"opus": [4, 5], "sonnet": [4, 6], "haiku": [4, 6]}[family]
    return "all" if version >= first_keeping_all else 1


def _api_form(value: Mapping[str, Any], name: str, types: Sequence[str]) -> tuple[str, Any]:
    """``{"type": kind, "value": n}``, the API's form of a count, as (kind, n), checked."""
    if set(value) != {"type", "value"}:
        raise InvalidArgumentError(
            f"{name} as a dict must hold exactly 'type' and 'value' (the API's form), got keys {sorted(map(str, value))}; "
            f"e.g. {name}={{'type': {types[0]!r}, 'value': 3}}"
        )
    kind = guards.choice(value["type"], f"{name}['type']", types)
    return kind, value["value"]


def _replaced(key: tuple[Element, str]) -> Element:
    """The element as π shows it after an edit: the new text, the same metadata."""
    element, text = key
    return Element(text, element.meta)


#: Why π shows a tool result (``tool``) or its call's input (``assistant``) cleared, by the trigger's unit.
_CLEARED = {
    ("tool", "tokens"): N_("tool result cleared: the request has {size} tokens > trigger = {trigger}; "
                           "the {keep} most recent tool uses are kept"),
    ("tool", "tool_uses"): N_("tool result cleared: the request has {size} tool uses > trigger = {trigger}; "
                              "the {keep} most recent tool uses are kept"),
    ("assistant", "tokens"): N_("tool input cleared: the request has {size} tokens > trigger = {trigger}; "
                                "the {keep} most recent tool uses are kept"),
    ("assistant", "tool_uses"): N_("tool input cleared: the request has {size} tool uses > trigger = {trigger}; "
                                   "the {keep} most recent tool uses are kept"),
}


def _without_input(call: Element) -> str:
    """An assistant message with its call's input cleared: the thought, then ``name({})`` per call."""
    action = str(call.meta.get("action", ""))
    text = call.text
    thought = text[: len(text) - len(action)].rstrip("\n") if action and text.endswith(action) else ""
    names = [line.split("(", 1)[0].strip() or "tool" for line in action.splitlines() if line.strip()]
    cleared = "\n".join(f"{name}({{}})" for name in names) or f"{call.meta.get('tool', 'tool')}({{}})"
    return f"{thought}\n{cleared}" if thought else cleared


def _names(name: str, value: Any) -> tuple[str, ...]:
    """A list of tool names, checked (a bare string is not one)."""
    names = tuple(guards.items(value, name, what="tool names, e.g. ['memory']"))
    for k, tool in enumerate(names):
        guards.text(tool, f"{name}[{k}]", example="memory")
    return names
