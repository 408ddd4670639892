"""The practitioners' context managers in stmviz, side by side with their libraries: per-step cost as ratios.

The job, the same for every method: a seeded agent stream (a user's task, then
N tool-using steps of 10–60-token thoughts and 20–300-token results, cl100k_base)
arrives step by step; before each model call, build the model input.

Pairs (stmviz ↔ library, counting tokens with the same offline cl100k_base):

- ``ClearToolUses.langchain`` ↔ LangChain ``ContextEditingMiddleware`` with
  ``ClearToolUsesEdit`` (``wrap_model_call`` on the full history, as the agent runs it);
- ``LangChainSummarization`` ↔ LangChain ``SummarizationMiddleware.before_model``
  (both with the same offline summarizer, so the model call is not what is timed);
- ``Compaction`` (Anthropic's is server-side: no library to run) ↔ the lower bound.

The lower bound tokenizes each message once. "U fired" counts the steps where
U did more than append (a summary, a compaction block); "π edited" the model
inputs that differ from the stored state (placeholders, hidden messages): the
managers must have fired for the times to mean anything. stmviz's times are ``run()``'s:
the whole loop of Figure 1, recording the trace and building π(ω_t) (to measure
it) at every step. Before any time is reported, each pair's model inputs are compared at
every step; a difference stops the benchmark.

Usage: python benchmarks/peers_managers.py [--n 200] [--repeat 3]
(H3b adds LlamaIndex's Memory and the OpenAI Agents SDK sessions to this file.)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from copy import deepcopy
from functools import lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _common as common  # noqa: E402

common.offline_tiktoken()  # before any peer imports tiktoken
common.forbid_network()
common.warm_up()

V_MAX = 1_000_000  # the stored history never reaches it: the managers' own rules do all the work
SYSTEM = "You are a research agent. Use the tools."


def stream(n: int, seed: int = 0) -> list[Any]:
    """The agent stream as stmviz steps: the task, then N tool uses (tool name and call id in metadata)."""
    from stmviz import AgentStep

    steps = [AgentStep(observation="Find and compare the prices of the three products.")]
    for k, record in enumerate(common.agent_stream(n, seed)):
        tool = record.action.split("(", 1)[0]
        args = json.dumps({"q": record.action[len(tool) + 2 : -2]})
        steps.append(AgentStep(thought=record.thought, action=f"{tool}({args})", observation=record.observation,
                               meta={"tool": tool, "call": f"call_{k + 1}"}))
    return steps


def summarizer() -> Callable[[list[str], int], str]:
    from stmviz.text import summarize

    return lambda texts, budget: summarize(texts, 200)


# ----------------------------------------------------------------- LangChain's side


def lc_messages(steps: list[Any]) -> list[list[Any]]:
    """Each step's LangChain messages (an AIMessage with its tool call, then the ToolMessage; or a HumanMessage)."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    out = []
    for t, step in enumerate(steps):
        if step.action:
            tool, call = step.meta["tool"], step.meta["call"]
            args = json.loads(step.action[len(tool) + 1 : -1])
            out.append([AIMessage(content=step.thought, tool_calls=[{"name": tool, "args": args, "id": call}]),
                        ToolMessage(content=step.observation, tool_call_id=call, name=tool)])
        else:
            out.append([HumanMessage(content=step.observation)])
    return out


def text_of(message: Any) -> str:
    if getattr(message, "tool_calls", None):
        calls = "\n".join(f"{c['name']}({json.dumps(c['args'])})" for c in message.tool_calls)
        return f"{message.content}\n{calls}" if message.content else calls
    return str(message.content)


def lc_counter(encode: Callable[[str], list[int]]) -> Callable[[Any], int]:
    """A token counter measuring each message's text as stmviz's μ does (tokens cached per text, as μ is per element)."""
    tokens = lru_cache(maxsize=None)(lambda text: len(encode(text)))
    return lambda messages: sum(tokens(text_of(m)) for m in messages)


def lc_clear(steps: list[Any], per_step: list[list[Any]], encode: Any, **edit: Any) -> dict[int, list[str]]:
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import SystemMessage

    middleware = ContextEditingMiddleware(edits=[ClearToolUsesEdit(**edit)], token_counter=lc_counter(encode))
    model, system = FakeListChatModel(responses=["-"]), SystemMessage(SYSTEM)
    history: list[Any] = []
    seen: dict[int, list[str]] = {}
    for t, step in enumerate(steps):
        if step.has_output:
            request = ModelRequest(model=model, messages=history, system_message=system)
            middleware.wrap_model_call(request, lambda r: seen.__setitem__(t, [text_of(m) for m in r.messages]))
        history = history + per_step[t]
    return seen


def lc_summarize(steps: list[Any], per_step: list[list[Any]], encode: Any, **options: Any) -> dict[int, list[str]]:
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.messages import RemoveMessage, get_buffer_string

    summarize = summarizer()
    middleware = SummarizationMiddleware(  # the summarizer reads what LangChain's summary model reads: the XML
        FakeListChatModel(responses=["-"]), token_counter=lc_counter(encode),
        summarizer=lambda ms: summarize([get_buffer_string(ms, format="xml")], 0), **options,
    )
    state: list[Any] = []
    seen: dict[int, list[str]] = {}
    for t, step in enumerate(steps):
        if step.has_output:
            update = middleware.before_model({"messages": state}, None)
            if update is not None:
                state = [m for m in update["messages"] if not isinstance(m, RemoveMessage)]
            seen[t] = [text_of(m) for m in state]
        state = state + per_step[t]
    return seen


# ----------------------------------------------------------------- stmviz's side


def stmviz_inputs(trace: Any, steps: list[Any]) -> dict[int, list[str]]:
    """x_t = π(ω_t) before each model call, read back from the trace (not timed: run() already built each one)."""
    return {t: [m.text for m in trace.project(t) if m.role != "system"] for t in range(len(steps)) if steps[t].has_output}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from stmviz import ClearToolUses, Compaction, LangChainSummarization, StateSpace, run, sizes

    encode = common.cl100k().encode_ordinary
    steps = stream(args.n)
    space = StateSpace(sizes.tokens(), v_max=V_MAX)
    lower = common.timed(lambda: [len(encode(s.text)) for s in steps], args.repeat)
    rows = [{"method": "lower bound (tokenize each step once)", "µs/step": common.fmt_us(lower.best, len(steps))}]

    def pair(name: str, ours: Callable[[], Any], theirs: Callable[[], Any] | None) -> None:
        mine = common.timed(lambda: run(ours(), steps), args.repeat, setup=common.reset_stmviz_caches)
        trace = mine.result
        inputs = stmviz_inputs(trace, steps)
        edited = sum(1 for t, x in inputs.items() if x != [e.text for e in trace.state_at(t).ordered() if e.type != "system"])
        fired = sum(1 for step in trace if step.operation != "append")
        row: dict[str, Any] = {"method": f"stmviz {name}", "µs/step": common.fmt_us(mine.best, len(steps)),
                               "× lower bound": mine.best / lower.best, "U fired": fired, "π edited": edited}
        if theirs is not None:
            peer = common.timed(theirs, args.repeat)
            differ = [t for t, x in peer.result.items() if inputs.get(t) != x]
            if differ:
                raise SystemExit(f"{name}: the model inputs differ from the library's at steps {differ[:5]}")
            row["× library"] = mine.best / peer.best
            rows.append(row)
            rows.append({"method": f"  library ({len(peer.result)} model inputs equal)", "µs/step": common.fmt_us(peer.best, len(steps)),
                         "× lower bound": peer.best / lower.best})
        else:
            rows.append(row)

    if common.import_or_none("langchain.agents.middleware", "ClearToolUsesEdit") is not None:
        per_step = lc_messages(steps)
        clear = dict(trigger=20_000, keep=3, clear_at_least=0)
        pair("ClearToolUses.langchain", lambda: ClearToolUses.langchain(space, system=SYSTEM, **clear),
             lambda: lc_clear(steps, per_step, encode, **clear))
        summary = dict(trigger=("tokens", 30_000), keep=("messages", 20))
        pair("LangChainSummarization", lambda: LangChainSummarization(space, system=SYSTEM, summarizer=summarizer(), **summary),
             lambda: lc_summarize(steps, per_step, encode, **summary))
    pair("Compaction (no library: server-side)", lambda: Compaction(space, system=SYSTEM, trigger=30_000, summarizer=summarizer()), None)

    print(common.machine_line())
    print(common.table(rows, ["method", "µs/step", "× lower bound", "× library", "U fired", "π edited"],
                       f"Per-step cost over {len(steps)} steps (best of {args.repeat})"))
    common.write_json("peers_managers", {"n": len(steps), "rows": rows})


if __name__ == "__main__":
    main()
