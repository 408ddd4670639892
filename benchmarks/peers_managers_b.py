"""Per-step cost of the practitioners' managers (part b) against the libraries they reproduce, as ratios in one run.

The job, the same for each pair: a seeded chat of N steps with tool calls (user turns and tool results of
varied length; μ = whitespace words, the peers' tokenizer ``str.split``) arrives step by step; after each step,
the manager updates and the model input is read.

- ``LlamaIndexMemory`` vs LlamaIndex ``Memory`` (``put`` per message, ``get`` per step; in-memory SQL store,
  static blocks);
- ``TrimmingSession`` / ``SummarizingSession`` vs the cookbook's recipes on the SDK's ``SQLiteSession``
  (``add_items`` per message, ``get_items`` per step; the same offline summarizer in both);
- ``ADKCompaction`` vs google-adk 1.x's own sliding-window compaction and request building (``append_event``
  per message, compaction after each reply, ``_process_compaction_events`` per step) on the text steps of the
  stream, with a summarizer writing the same offline summary;
- ``LettaMemory`` (and ``ADKCompaction`` with a token threshold): Letta does not run offline (a server with its
  database and a model), so only stmviz's µs per step is reported.

stmviz's time is ``run(mechanism, steps)``: U, and π with its size at every step, and the whole trace recorded.
Before any time is reported, the model inputs of both sides are compared at every step (they must be equal).
The ratio is stmviz / library: below 1, stmviz is faster.

Usage: python benchmarks/peers_managers_b.py [--n 300] [--repeat 3] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests" / "managers"))

import _common as common  # noqa: E402

common.offline_tiktoken()
common.forbid_network()

from stmviz import (  # noqa: E402
    ADKCompaction,
    LettaMemory,
    LlamaIndexMemory,
    StateSpace,
    SummarizingSession,
    TrimmingSession,
    run,
    sizes,
)
from stmviz.managers.conversation import step_messages  # noqa: E402
from stmviz.managers.llamaindex_memory import MemoryBlock  # noqa: E402
from stmviz.text import summarize  # noqa: E402
from test_peers_b import _adk_sliding_window_inputs, stream  # noqa: E402

BLOCKS = [MemoryBlock("core_info", "The user is Ann from Oslo.", priority=0),
          MemoryBlock("notes", " ".join(["notes"] * 20), priority=1)]


def messages_of(steps: list[Any]) -> list[list[tuple[str, str]]]:
    """Per step, its messages as (role, text)."""
    return [[(e.meta["role"], e.text) for e in step_messages(s, t)] for t, s in enumerate(steps)]


def stmviz_inputs(mechanism: Any, steps: list[Any]) -> list[list[tuple[str, str]]]:
    trace = run(mechanism, steps)
    return [[(m.role, m.content) for m in trace.project(t + 1)] for t in range(len(steps))]


def llamaindex(per_step: list[list[tuple[str, str]]], token_limit: int, flush: int) -> list[list[tuple[str, str]]]:
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.memory import Memory, StaticMemoryBlock

    memory = Memory.from_defaults(token_limit=token_limit, token_flush_size=flush, tokenizer_fn=str.split,
                                  memory_blocks=[StaticMemoryBlock(name=b.name, static_content=b.content,
                                                                   priority=b.priority) for b in BLOCKS])
    seen = []
    for messages in per_step:
        for role, text in messages:
            memory.put(ChatMessage(role=role, content=text))
        seen.append([(m.role.value, m.content) for m in memory.get()])
    return seen


def session(recipe: Any, per_step: list[list[tuple[str, str]]]) -> list[list[tuple[str, str]]]:
    async def replay() -> list[list[tuple[str, str]]]:
        seen = []
        for messages in per_step:
            for role, text in messages:
                await recipe.add_items([{"role": role, "content": text}])
            seen.append([(i["role"], i["content"]) for i in await recipe.get_items()])
        return seen

    return asyncio.run(replay())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="n = 60, one repeat")
    args = parser.parse_args()
    n, repeat = (60, 1) if args.quick else (args.n, args.repeat)
    steps = stream(7, n)
    per_step = messages_of(steps)
    space = StateSpace(sizes.words, 10**7)

    def lines_summary(lines: list[str]) -> str:
        return " ".join(summarize(lines, 400).split())

    pairs: list[tuple[str, Any, Any]] = []
    if common.import_or_none("llama_index.core.memory", "Memory") is not None:
        pairs.append(("LlamaIndexMemory / llama_index Memory",
                      lambda: LlamaIndexMemory(StateSpace(sizes.words, 2000), token_limit=200, token_flush_size=20,
                                               blocks=BLOCKS),
                      lambda: llamaindex(per_step, 200, 20)))
    if common.import_or_none("agents", "SQLiteSession") is not None:
        from _peer_recipes import summarizing_recipe, trimming_recipe

        pairs.append(("TrimmingSession / cookbook recipe on SQLiteSession",
                      lambda: TrimmingSession(space, max_turns=8),
                      lambda: session(trimming_recipe(8), per_step)))
        pairs.append(("SummarizingSession / cookbook recipe on SQLiteSession",
                      lambda: SummarizingSession(space, keep_last_n_turns=3, context_limit=3),
                      lambda: session(summarizing_recipe(3, 3, lines_summary), per_step)))
    text_steps = [s for s in steps if not s.action]  # ADK's request is compared on text events only
    if common.import_or_none("google.adk.apps.compaction", "_run_compaction_for_sliding_window") is not None:
        pairs.append(("ADKCompaction / google-adk sliding window (text events)",
                      lambda: ADKCompaction(space, compaction_interval=3, overlap_size=1),
                      lambda: _adk_sliding_window_inputs(text_steps, 3, 1)))
    rows = []
    for name, build, peer in pairs:
        run_steps = text_steps if name.startswith("ADK") else steps
        ours = stmviz_inputs(build(), run_steps)
        theirs = peer()
        same = ours == theirs
        mine = common.timed(lambda: run(build(), run_steps), repeat)
        lib = common.timed(peer, repeat)
        per = len(run_steps)
        rows.append({"pair": name, "same input every step": same, "stmviz µs/step": common.fmt_us(mine.best, per),
                     "library µs/step": common.fmt_us(lib.best, per), "ratio": mine.best / lib.best})
    for name, build in (("LettaMemory (no offline peer)", lambda: LettaMemory(StateSpace(sizes.words, 3000))),
                        ("ADKCompaction with token threshold (stmviz only)",
                         lambda: ADKCompaction(space, compaction_interval=3, overlap_size=1, token_threshold=800,
                                               event_retention_size=5))):
        mine = common.timed(lambda: run(build(), steps), repeat)
        rows.append({"pair": name, "stmviz µs/step": common.fmt_us(mine.best, n)})
    print(common.machine_line())
    print(common.table(rows, ["pair", "same input every step", "stmviz µs/step", "library µs/step", "ratio"],
                       title=f"Per-step cost, {n} steps, best of {repeat} (ratio = stmviz / library)"))
    common.write_json("peers_managers_b", {"n": n, "repeat": repeat, "rows": rows})


if __name__ == "__main__":
    main()
