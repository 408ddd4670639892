"""Equivalence with the real libraries: the same message stream through LlamaIndex's Memory, the OpenAI Agents SDK's
session recipes and Google ADK's sliding-window compaction, and through stmviz, gives the same model input at every step.

The peers are the optional extra ``peers`` (``pip install -e .[peers]``); without them these tests skip, saying which
package is missing. Nothing calls a model: LlamaIndex runs with a whitespace tokenizer and static memory blocks, the
session recipes are rebuilt as the cookbook documents them on the SDK's ``SQLiteSession`` (in memory), with stmviz's
offline summarizer plugged into the summarizing recipe; ADK's own compaction and request-building functions run with a
summarizer that writes stmviz's offline summary.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, StateSpace, run, sizes
from stmviz.managers.conversation import step_messages
from stmviz.managers.llamaindex_memory import LlamaIndexMemory, MemoryBlock
from stmviz.managers.openai_sessions import SummarizingSession, TrimmingSession
from stmviz.text import summarize

from _peer_recipes import summarizing_recipe, trimming_recipe

_WORDS = "router firmware error reset cable light blinking laptop update version network driver".split()


def run_coroutine(coroutine):
    """``asyncio.run(coroutine)`` in a thread of its own.

    The SDK's sessions are async. In the full suite the browser tests run first, and Playwright's
    sync API keeps an event loop running in the main thread for the session, where asyncio.run refuses
    to start another; a fresh thread has no running loop.
    """
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def stream(seed: int, n: int) -> list[AgentStep]:
    """A chat with tool calls: user messages, replies, tool calls with results, of varied lengths."""
    rng = random.Random(seed)

    def text(k: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(k))

    steps = [AgentStep(observation=text(rng.randint(1, 12)), meta={"role": "user"})]
    for t in range(1, n):
        if rng.random() < 0.4:
            steps.append(AgentStep(thought=text(rng.randint(1, 5)), action=f"lookup({text(1)})",
                                   observation=text(rng.choice((2, 8, 30)))))
        else:
            steps.append(AgentStep(thought=text(rng.randint(1, 15)), observation=text(rng.randint(1, 12)),
                                   meta={"role": "user"}))
    return steps


def dicts(messages) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in messages]


# --------------------------------------------------------------------------- LlamaIndex Memory


def _llama_memory(token_limit: int, flush: int, blocks: list[MemoryBlock]):
    memory_module = pytest.importorskip("llama_index.core.memory", reason="the peer llama-index-core is not installed")
    return memory_module.Memory.from_defaults(
        token_limit=token_limit,
        token_flush_size=flush,
        tokenizer_fn=str.split,
        memory_blocks=[
            memory_module.StaticMemoryBlock(name=b.name, static_content=b.content, priority=b.priority) for b in blocks
        ],
    )


def _check_llamaindex(seed: int, n: int, token_limit: int, flush: int) -> None:
    types = pytest.importorskip("llama_index.core.base.llms.types", reason="the peer llama-index-core is not installed")
    blocks = [
        MemoryBlock("core_info", "The user is Ann from Oslo.", priority=0),
        MemoryBlock("notes", " ".join(["notes"] * 20), priority=1),
        MemoryBlock("tips", " ".join(["tips"] * 8), priority=2),
    ]
    steps = stream(seed, n)
    mine = LlamaIndexMemory(StateSpace(sizes.words, 10 * token_limit), token_limit=token_limit, token_flush_size=flush,
                            blocks=blocks)
    trace = run(mine, steps)
    peer = _llama_memory(token_limit, flush, blocks)
    for t, step in enumerate(steps):
        for e in step_messages(step, t):
            peer.put(types.ChatMessage(role=e.meta["role"], content=e.text))
        theirs = [(m.role.value, m.content) for m in peer.get()]
        assert dicts(trace.project(t + 1)) == theirs, f"step {t}"


def test_llamaindex_memory_gives_the_model_input_of_llama_index_at_every_step() -> None:
    _check_llamaindex(seed=1, n=40, token_limit=60, flush=6)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), token_limit=st.integers(30, 120), flush=st.integers(1, 40))
def test_llamaindex_memory_equivalence_holds_on_random_streams(seed: int, token_limit: int, flush: int) -> None:
    _check_llamaindex(seed, 25, token_limit, flush)


def _offline_fact_llm(fact_budget: int, max_facts: int):
    """A LlamaIndex LLM that answers FactExtractionMemoryBlock's two prompts with stmviz's offline summary.

    Extraction: the facts are the sentences of the summary of the flushed messages; condensing: the sentences of the
    summary of the listed facts, at most ``max_facts`` (what the condense prompt asks of the model).
    """
    import re

    mock = pytest.importorskip("llama_index.core.llms.mock", reason="the peer llama-index-core is not installed")
    from llama_index.core.base.llms.types import ChatMessage, ChatResponse

    from stmviz.text import split_sentences

    def facts_of(texts: list[str]) -> list[str]:
        return split_sentences(" ".join(summarize(texts, fact_budget).split()))

    class OfflineFacts(mock.MockLLM):
        def chat(self, messages, **kwargs):
            *flushed, prompt = messages
            if "condensing" in prompt.content:
                listed = prompt.content.split("<existing_facts>", 1)[1].split("</existing_facts>", 1)[0]
                facts = facts_of(re.findall(r"<fact>(.*?)</fact>", listed, re.DOTALL))[:max_facts]
            else:
                facts = facts_of([m.content for m in flushed])
            xml = "<facts>" + "".join(f"<fact>{f}</fact>" for f in facts) + "</facts>"
            return ChatResponse(message=ChatMessage(role="assistant", content=xml))

        async def achat(self, messages, **kwargs):
            return self.chat(messages, **kwargs)

    return OfflineFacts()


@pytest.mark.parametrize(("seed", "max_facts"), [(3, 50), (4, 4)])
def test_llamaindex_fact_block_gets_the_facts_of_llama_index_at_every_step(seed: int, max_facts: int) -> None:
    memory_module = pytest.importorskip("llama_index.core.memory", reason="the peer llama-index-core is not installed")
    types = pytest.importorskip("llama_index.core.base.llms.types", reason="the peer llama-index-core is not installed")
    steps = stream(seed, 40)
    blocks = [MemoryBlock("core_info", "The user is Ann.", priority=0),
              MemoryBlock("facts", kind="facts", priority=1, max_facts=max_facts)]
    mine = LlamaIndexMemory(StateSpace(sizes.words, 2000), token_limit=80, token_flush_size=10, blocks=blocks,
                            fact_budget=60)
    trace = run(mine, steps)
    peer = memory_module.Memory.from_defaults(
        token_limit=80, token_flush_size=10, tokenizer_fn=str.split,
        memory_blocks=[memory_module.StaticMemoryBlock(name="core_info", static_content="The user is Ann.", priority=0),
                       memory_module.FactExtractionMemoryBlock(name="facts", priority=1, max_facts=max_facts,
                                                               llm=_offline_fact_llm(60, max_facts))])
    for t, step in enumerate(steps):
        for e in step_messages(step, t):
            peer.put(types.ChatMessage(role=e.meta["role"], content=e.text))
        assert dicts(trace.project(t + 1)) == [(m.role.value, m.content) for m in peer.get()], f"step {t}"
    shown = [t for t in range(len(steps) + 1) if "<fact>" in trace.project(t)[0].content]
    assert shown and trace.state_at(len(steps)).where(type="block", name="facts")  # facts were made and shown


# --------------------------------------------------------------------------- OpenAI Agents SDK sessions


def _check_session(mine, recipe, steps) -> None:
    trace = run(mine, steps)

    async def replay() -> list[list[tuple[str, str]]]:
        seen = []
        for t, step in enumerate(steps):
            for e in step_messages(step, t):  # one add_items per message, as the cookbook's flow does
                await recipe.add_items([{"role": e.meta["role"], "content": e.text}])
            seen.append([(item["role"], item["content"]) for item in await recipe.get_items()])
        return seen

    for t, theirs in enumerate(run_coroutine(replay())):
        assert dicts(trace.project(t + 1)) == theirs, f"step {t}"


@pytest.mark.parametrize("max_turns", [1, 3, 8])
def test_trimming_session_gives_the_model_input_of_the_recipe_at_every_step(max_turns: int) -> None:
    _check_session(TrimmingSession(StateSpace(sizes.words, 10**6), max_turns=max_turns), trimming_recipe(max_turns),
                   stream(max_turns, 40))


@pytest.mark.parametrize(("keep", "limit"), [(3, 3), (2, 4), (0, 2), (1, 1)])
def test_summarizing_session_gives_the_model_input_of_the_recipe_at_every_step(keep: int, limit: int) -> None:
    def summarize_lines(lines: list[str]) -> str:
        return " ".join(summarize(lines, 400).split())

    mine = SummarizingSession(StateSpace(sizes.words, 10**6), keep_last_n_turns=keep, context_limit=limit)
    _check_session(mine, summarizing_recipe(keep, limit, summarize_lines), stream(keep * 10 + limit, 40))


@pytest.mark.parametrize(("keep", "limit"), [(3, 3), (0, 2)])
def test_a_multi_line_summary_reaches_the_model_as_written_in_stmviz_and_the_recipe(keep: int, limit: int) -> None:
    def summary_of(lines) -> str:  # a cookbook-shaped summary: several lines, as a model writes it
        return f"Product & environment:\n- {len(lines)} lines read\nSteps tried:\n- {lines[-1][:30]}\n"

    mine = SummarizingSession(StateSpace(sizes.words, 10**6), keep_last_n_turns=keep, context_limit=limit,
                              summarize=lambda texts, budget: summary_of(list(texts)))
    _check_session(mine, summarizing_recipe(keep, limit, summary_of), stream(keep * 10 + limit, 40))


# --------------------------------------------------------------------------- Google ADK compaction (sliding window)


def _adk_sliding_window_inputs(steps: list[AgentStep], interval: int, overlap: int) -> list[list[tuple[str, str]]]:
    """The request contents ADK builds after each step, with a summarizer that writes stmviz's offline summary."""
    adk = pytest.importorskip("google.adk", reason="the peer google-adk is not installed")
    if int(adk.__version__.split(".")[0]) >= 2:
        pytest.skip(f"google-adk {adk.__version__}: 2.x adds compaction guards stmviz does not reproduce "
                    f"(docs/fidelity.md, Google ADK compaction); the peers extra pins google-adk < 2")
    from google.adk.agents import LlmAgent
    from google.adk.apps.app import App, EventsCompactionConfig
    from google.adk.apps.base_events_summarizer import BaseEventsSummarizer
    from google.adk.apps.compaction import _run_compaction_for_sliding_window
    from google.adk.events.event import Event
    from google.adk.events.event_actions import EventActions, EventCompaction
    from google.adk.flows.llm_flows.contents import _process_compaction_events
    from google.adk.sessions import InMemorySessionService
    from google.genai import types

    class OfflineSummarizer(BaseEventsSummarizer):
        """LlmEventSummarizer's event, with stmviz's offline summary of its `author: text` lines."""

        async def maybe_summarize_events(self, *, events):
            lines = [f"{e.author}: {p.text}" for e in events if e.content and e.content.parts for p in e.content.parts
                     if p.text]
            content = types.Content(role="model", parts=[types.Part(text=" ".join(summarize(lines, 200).split()))])
            compaction = EventCompaction(start_timestamp=events[0].timestamp, end_timestamp=events[-1].timestamp,
                                         compacted_content=content)
            return Event(author="user", actions=EventActions(compaction=compaction), invocation_id=Event.new_id())

    app = App(name="app", root_agent=LlmAgent(name="agent", model="gemini-2.0-flash"),
              events_compaction_config=EventsCompactionConfig(compaction_interval=interval, overlap_size=overlap,
                                                              summarizer=OfflineSummarizer()))

    async def replay() -> list[list[tuple[str, str]]]:
        service = InMemorySessionService()
        session = await service.create_session(app_name="app", user_id="u")
        invocation, seen = 0, []
        for t, step in enumerate(steps):
            for e in step_messages(step, t):
                user = e.meta["role"] == "user"
                invocation += user
                event = Event(author="user" if user else "agent", invocation_id=f"inv{invocation}",
                              timestamp=1000.0 + e.meta["t"],
                              content=types.Content(role="user" if user else "model", parts=[types.Part(text=e.text)]))
                await service.append_event(session, event)
                if not user:  # a reply ends the invocation: the runner runs compaction
                    await _run_compaction_for_sliding_window(app, session, service)
            seen.append([("user" if ev.author == "user" else "assistant", ev.content.parts[0].text)
                         for ev in _process_compaction_events(session.events)])
        return seen

    return run_coroutine(replay())


@pytest.mark.parametrize(("interval", "overlap"), [(2, 1), (3, 0), (1, 2)])
def test_adk_compaction_gives_the_request_of_google_adk_at_every_step(interval: int, overlap: int) -> None:
    steps = [s for s in stream(interval * 7 + overlap, 30) if not s.action]  # text events only: no function calls
    theirs = _adk_sliding_window_inputs(steps, interval, overlap)
    from stmviz import ADKCompaction

    trace = run(ADKCompaction(StateSpace(sizes.words, 10**6), compaction_interval=interval, overlap_size=overlap), steps)
    for t in range(len(steps)):
        assert dicts(trace.project(t + 1)) == theirs[t], f"step {t}"
