"""The practitioners' managers against their sources (issue 33, parts 3 and 4): each test pins one difference that was
fixed, and fails on the code before the fix."""

from __future__ import annotations

import pytest

from stmviz import ADKCompaction, AgentStep, StateSpace, SummarizingSession, run, sizes
from stmviz.text.pluggable import cached_summarizer

MULTI_LINE = "Goal: fix the router.\nDone:\n- firmware updated\n- reset\nNext: call support."


def words(v_max: float) -> StateSpace:
    return StateSpace(sizes.words, v_max)


def user(text: str, reply: str = "") -> AgentStep:
    return AgentStep(thought=reply, observation=text, meta={"role": "user"})


def multi_line(texts, budget) -> str:
    return MULTI_LINE


# --------------------------------------------------------------------------- summaries kept as written


def test_a_managers_summary_reaches_the_model_as_written_line_breaks_included() -> None:
    steps = [user(f"q{k}", f"a{k}") for k in range(6)]
    session = run(SummarizingSession(words(10**4), keep_last_n_turns=1, context_limit=2, summarize=multi_line), steps)
    assert MULTI_LINE in [m.content for m in session.project(len(steps))]
    adk = run(ADKCompaction(words(10**4), compaction_interval=2, overlap_size=0, summarize=multi_line), steps)
    assert any(MULTI_LINE in m.content for m in adk.project(len(steps)))


def test_the_paper_mechanisms_summaries_stay_on_one_line() -> None:
    assert cached_summarizer(multi_line)(["x"], 10) == " ".join(MULTI_LINE.split())
    assert cached_summarizer(multi_line, one_line=False)(["x"], 10) == MULTI_LINE
    assert cached_summarizer(lambda texts, budget: " \n ", one_line=False)(["a b"], 10) == "a b"  # blank: fallback


# --------------------------------------------------------------------------- Claude Code's auto-compact


def test_claude_codes_percent_override_is_capped_at_its_default_threshold() -> None:
    from stmviz import Compaction

    big = StateSpace(sizes.words, v_max=200_000)
    assert Compaction.claude_code(big, percent=95).trigger == 167_000  # 95 % of 180,000 = 171,000 > the default
    assert Compaction.claude_code(big, percent=50).trigger == 90_000  # below the default: the override holds


def test_claude_code_compaction_replaces_the_history_in_u() -> None:
    from stmviz import Compaction

    m = Compaction.claude_code(StateSpace(sizes.words, v_max=60), system="Be brief.", percent=60)
    trace = run(m, [user(f"question {k} " + "word " * 6, f"answer {k}") for k in range(10)])
    t = next(s.t for s in trace if any(e.type == "compaction" for e in s.added))
    after = trace.state_at(t + 1)
    assert [e.type for e in after.ordered()][:2] == ["system", "compaction"]  # nothing before the summary is left in ω
    assert all(not e.meta.get("pinned") for e in trace[t].removed)
    assert m.hidden(after) == {} and m.placement["replace the history by a summary"] == "U"
