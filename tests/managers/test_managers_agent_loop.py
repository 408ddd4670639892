"""End to end: a LangChain agent (create_agent, a scripted fake model, a real tool) with the middleware, against stmviz.

The fake model records the messages it is called with; the same steps through stmviz's mechanism
must give the same model input x_t = π(ω_t) at every call, system prompt included.
"""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, ClearToolUses, LangChainSummarization, run

from _managers import SPACE, WORDS, counter, role_of, text_of, tool_step

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("langchain") is None, reason="peer library langchain not installed (pip install stmviz[peers])"
)

SYSTEM = "be brief"


def agent_run(results: list[str], middleware) -> list[list[tuple[str, str]]]:
    """Run create_agent over one task: the model calls `search` once per result, then answers; what it saw, per call."""
    from langchain.agents import create_agent
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    seen: list[list[tuple[str, str]]] = []

    class Recording(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            seen.append([(role_of(m), text_of(m)) for m in messages])
            return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    @tool
    def search(q: str) -> str:
        """Look something up."""
        return results[int(q[1:])]

    replies = [AIMessage("", tool_calls=[{"name": "search", "args": {"q": f"x{k}"}, "id": f"c{k}"}]) for k in range(len(results))]
    model = Recording(messages=iter(replies + [AIMessage("done")]))
    create_agent(model, tools=[search], system_prompt=SYSTEM, middleware=[middleware]).invoke({"messages": [HumanMessage("find it")]})
    return seen


def steps_for(results: list[str]) -> list[AgentStep]:
    steps = [AgentStep(observation="find it")]
    steps += [tool_step("search", f"x{k}", r, call=f"c{k}") for k, r in enumerate(results)]
    return steps + [AgentStep(thought="done")]


def stmviz_run(mechanism, results: list[str]) -> list[list[tuple[str, str]]]:
    trace = run(mechanism, steps_for(results))
    return [[(m.role, m.text) for m in trace.project(t)] for t in range(1, len(trace))]


results_lists = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=10).map(" ".join), min_size=1, max_size=8)


@given(results_lists, st.integers(0, 40), st.integers(0, 3), st.booleans())
@settings(max_examples=15, deadline=None)
def test_clear_tool_uses_edit_in_an_agent_loop(results, trigger, keep, inputs):
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware

    edit = ClearToolUsesEdit(trigger=trigger, keep=keep, clear_tool_inputs=inputs)
    theirs = agent_run(results, ContextEditingMiddleware(edits=[edit], token_counter=counter()))
    mine = stmviz_run(ClearToolUses.langchain(SPACE, system=SYSTEM, trigger=trigger, keep=keep, clear_tool_inputs=inputs), results)
    assert mine == theirs


@given(results_lists, st.integers(3, 8), st.integers(1, 4))
@settings(max_examples=15, deadline=None)
def test_summarization_middleware_in_an_agent_loop(results, trigger, keep):
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import get_buffer_string

    def summarize(texts, budget=0):
        return f"{len(texts)} messages, the last: {texts[-1]}"

    middleware = SummarizationMiddleware(
        FakeListChatModel(responses=["-"]), trigger=("messages", trigger), keep=("messages", keep), token_counter=counter(),
        summarizer=lambda ms: summarize([get_buffer_string(ms, format="xml")]),  # what LangChain's model reads
    )
    theirs = agent_run(results, middleware)
    mine = stmviz_run(LangChainSummarization(SPACE, system=SYSTEM, trigger=("messages", trigger), keep=("messages", keep),
                                             summarizer=summarize), results)
    assert mine == theirs
