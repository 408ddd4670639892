"""Shared by the tests of the practitioners' managers: agent streams (hypothesis) and their LangChain form."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from stmviz import AgentStep, Element, StateSpace, sizes

TOOLS = ("search", "read", "memory")
WORDS = "alpha beta gamma delta key mat room door blue red one two three file path".split()

SPACE = StateSpace(sizes.words, v_max=10_000)


def tool_step(tool: str, arg: str, result: str, thought: str = "", call: str | None = None) -> AgentStep:
    """A step with one tool call ``tool({"q": arg})`` and its result (the action text LangChain's call renders to)."""
    meta: dict[str, Any] = {"tool": tool}
    if call is not None:
        meta["call"] = call
    return AgentStep(thought=thought, action=f"{tool}({json.dumps({'q': arg})})", observation=result, meta=meta)


def chat(n: int) -> list[AgentStep]:
    """A dialogue: the user's first message, n (reply, next message) steps, then a last reply."""
    steps = [AgentStep(observation="user 0 says hello there")]
    steps += [AgentStep(thought=f"reply {k} is here", observation=f"user {k + 1} asks more") for k in range(n)]
    return steps + [AgentStep(thought="bye")]


_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)


@st.composite
def agent_streams(draw: Any, max_steps: int = 14) -> list[AgentStep]:
    """A user message, then steps that are tool uses or replies followed by the user's next message."""
    steps = [AgentStep(observation=draw(_text))]
    for _ in range(draw(st.integers(1, max_steps))):
        if draw(st.booleans()):
            thought = draw(st.one_of(st.just(""), _text))
            steps.append(tool_step(draw(st.sampled_from(TOOLS)), draw(st.sampled_from(WORDS)), draw(_text), thought))
        else:
            steps.append(AgentStep(thought=draw(_text), observation=draw(_text)))
    steps.append(AgentStep(thought=draw(_text)))
    return steps


def text_of(message: Any) -> str:
    """The text μ measures for a LangChain message: what stmviz's element for it holds."""
    from langchain_core.messages import AIMessage

    content = message.content if isinstance(message.content, str) else str(message.content)
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = "\n".join(f"{c['name']}({json.dumps(c['args'])})" for c in message.tool_calls)
        return f"{content}\n{calls}" if content else calls
    return content


def role_of(message: Any) -> str:
    return {"ai": "assistant", "human": "user", "tool": "tool", "system": "system"}[message.type]


def langchain_messages(step: AgentStep, t: int) -> list[Any]:
    """Step t as LangChain messages: an AIMessage (with its tool call), then the ToolMessage or HumanMessage."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    out: list[Any] = []
    if step.action:
        tool = step.meta["tool"]
        args = json.loads(step.action[len(tool) + 1 : -1])
        call = step.meta.get("call", f"call_{t}")
        out.append(AIMessage(content=step.thought, tool_calls=[{"name": tool, "args": args, "id": call}]))
        if step.observation:
            out.append(ToolMessage(content=step.observation, tool_call_id=call, name=tool))
        return out
    if step.thought:
        out.append(AIMessage(content=step.thought))
    if step.observation:
        out.append(HumanMessage(content=step.observation))
    return out


def counter(space: StateSpace = SPACE) -> Any:
    """A LangChain token counter that measures each message with stmviz's μ."""
    return lambda messages: int(sum(space.measure(Element(text_of(m))) for m in messages))


def pairs(messages: Any) -> list[tuple[str, str]]:
    """(role, text) of LangChain messages."""
    return [(role_of(m), text_of(m)) for m in messages]


def stmviz_pairs(model_input: Any) -> list[tuple[str, str]]:
    """(role, text) of stmviz's model input, without the system prompt."""
    return [(m.role, m.text) for m in model_input if m.role != "system"]
