"""The OpenAI Agents SDK cookbook's session recipes rebuilt, as the cookbook documents them, on the SDK's ``SQLiteSession``.

Used by tests/managers/test_peers_b.py (equivalence) and benchmarks/peers_managers_b.py (speed). Written from the
cookbook's description ("Context Engineering - Short-Term Memory Management with Sessions", openai/openai-cookbook,
examples/agents_sdk/session_memory.ipynb); ``pytest.importorskip`` skips with a clear reason without openai-agents.
"""

from __future__ import annotations

import pytest

from stmviz.managers.openai_sessions import SHADOW_USER_LINE


def _sqlite_session():
    agents = pytest.importorskip("agents", reason="the peer openai-agents is not installed")
    return agents.SQLiteSession


def _trimmed(items: list[dict], max_turns: int) -> list[dict]:
    """The cookbook's trim: keep everything from the earliest of the last max_turns user messages."""
    users = [i for i, item in enumerate(items) if item.get("role") == "user"]
    return items[users[-max_turns]:] if len(users) >= max_turns else items


def trimming_recipe(max_turns: int):
    base = _sqlite_session()

    class TrimmingRecipe(base):  # type: ignore[misc, valid-type]
        """The cookbook's TrimmingSession on the SDK's SQLiteSession: trim on write and on read."""

        async def add_items(self, items):
            await super().add_items(items)
            stored = await super().get_items()
            kept = _trimmed(stored, max_turns)
            if len(kept) != len(stored):
                await self.clear_session()
                await super().add_items(kept)

        async def get_items(self, limit=None):
            items = _trimmed(await super().get_items(), max_turns)
            return items[-limit:] if limit else items

    return TrimmingRecipe("trim")


def summarizing_recipe(keep: int, limit: int, summarize_lines):
    base = _sqlite_session()

    class SummarizingRecipe(base):  # type: ignore[misc, valid-type]
        """The cookbook's SummarizingSession on the SDK's SQLiteSession (the synthetic flag stored with each item)."""

        async def add_items(self, items):
            await super().add_items([{**item, "synthetic": item.get("synthetic", False)} for item in items])
            records = await super().get_items()
            starts = [i for i, r in enumerate(records) if r["role"] == "user" and not r["synthetic"]]
            if len(starts) <= limit:
                return
            boundary = len(records) if keep == 0 else starts[-keep]
            if boundary <= 0:
                return
            prefix = [{"role": r["role"], "content": r["content"]} for r in records[:boundary]]
            lines = []
            for m in prefix:
                content = m["content"].strip()
                if m["role"] == "tool" and len(content) > 600:
                    content = content[:600] + " …"
                if content:
                    lines.append(f"{m['role'].upper()}: {content}")
            pair = [{"role": "user", "content": SHADOW_USER_LINE, "synthetic": True},
                    {"role": "assistant", "content": summarize_lines(lines), "synthetic": True}]
            await self.clear_session()
            await super().add_items(pair + records[boundary:])

        async def get_items(self, limit=None):
            items = [{"role": r["role"], "content": r["content"]} for r in await super().get_items()]
            return items[-limit:] if limit else items

    return SummarizingRecipe("summarize")
