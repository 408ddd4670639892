"""Tests of the practitioners' managers LlamaIndexMemory, TrimmingSession, SummarizingSession, LettaMemory, ADKCompaction:
each against its documented algorithm (trigger, what is kept, the summary's text, tool-pair integrity), with property tests
of their invariants and the contract of Definition 2."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import (
    ADKCompaction,
    AgentStep,
    LettaMemory,
    LlamaIndexMemory,
    StateSpace,
    SummarizingSession,
    TrimmingSession,
    check_mechanism,
    run,
    sizes,
)
from stmviz.errors import InvalidArgumentError
from stmviz.managers.llamaindex_memory import MemoryBlock
from stmviz.managers.openai_sessions import SHADOW_USER_LINE


def words(v_max: float) -> StateSpace:
    return StateSpace(sizes.words, v_max)


def user(text: str, reply: str = "") -> AgentStep:
    return AgentStep(thought=reply, observation=text, meta={"role": "user"})


def tool(thought: str, action: str, result: str) -> AgentStep:
    return AgentStep(thought=thought, action=action, observation=result)


def roles(x) -> list[str]:
    return [m.role for m in x]


#: A random chat with tool calls: each step is a user turn (reply + next user message) or a tool call with its result.
step_strategy = st.one_of(
    st.builds(lambda n, r: user(" ".join(["u"] * n), " ".join(["r"] * r)), st.integers(1, 12), st.integers(1, 8)),
    st.builds(lambda n: tool("look", "search(x)", " ".join(["o"] * n)), st.integers(1, 40)),
)
streams = st.lists(step_strategy, min_size=1, max_size=30).map(lambda s: [user("start")] + s)


def no_orphaned_results(x) -> bool:
    """Every tool message in π follows the assistant message that called it (same call id in our messages)."""
    seen_call = False
    for m in x:
        if m.role == "assistant":
            seen_call = "\n" in m.content or "(" in m.content
        if m.role == "tool" and not seen_call:
            return False
    return True


def every_manager() -> list:
    return [
        TrimmingSession(words(10**6), max_turns=3),
        SummarizingSession(words(10**6), keep_last_n_turns=2, context_limit=3),
        LlamaIndexMemory(words(2000), token_limit=200, token_flush_size=20, blocks=[MemoryBlock("core", "Ann.")]),
        LettaMemory(words(400)),
        ADKCompaction(words(10**6), compaction_interval=3, overlap_size=1, token_threshold=150, event_retention_size=4),
    ]


@pytest.mark.parametrize("manager", every_manager(), ids=lambda m: str(m))
def test_each_manager_keeps_the_contract_of_definition_2(manager) -> None:
    report = check_mechanism(manager)
    assert report.ok, str(report)


@pytest.mark.parametrize("manager", every_manager(), ids=lambda m: str(m))
def test_each_manager_declares_where_each_part_happens(manager) -> None:
    assert manager.placement and set(manager.placement.values()) <= {"U", "π"}
    assert all(isinstance(part, str) and part for part in manager.placement)
    assert {"U", "π"} <= set(manager.placement.values())  # each manager's work is split between U and π


@settings(max_examples=40, deadline=None)
@given(steps=streams, index=st.integers(0, 4))
def test_no_manager_orphans_a_tool_result(steps, index) -> None:
    trace = run(every_manager()[index], steps)
    assert all(no_orphaned_results(trace.project(t)) for t in range(len(steps) + 1))


# --------------------------------------------------------------------------- TrimmingSession


def test_trimming_keeps_from_the_earliest_of_the_last_n_user_messages() -> None:
    # the cookbook's tiny example: user, assistant, tool call, tool result, user, assistant, user, assistant
    steps = [user("Hi"), tool("Hello!", "lookup()", "…"), AgentStep(observation="It didn't work", meta={"role": "user"}),
             user("Rebooted, now error 42", "Try rebooting"), AgentStep(thought="On it")]
    trace = run(TrimmingSession(words(100), max_turns=2), steps)
    assert [(m.role, m.content) for m in trace.project(5)] == [
        ("user", "It didn't work"), ("assistant", "Try rebooting"), ("user", "Rebooted, now error 42"),
        ("assistant", "On it")]
    assert "max_turns = 2" in next(iter(trace[3].why.values()))


def test_trimming_with_fewer_user_turns_keeps_everything_and_defaults_to_8() -> None:
    session = TrimmingSession(words(100))
    assert session.max_turns == 8
    trace = run(session, [user("m0")] + [user(f"m{k}", f"r{k}") for k in range(1, 8)])
    assert sum(m.role == "user" for m in trace.project(8)) == 8 and not any(s.removed for s in trace)


@settings(max_examples=30, deadline=None)
@given(steps=streams, n=st.integers(1, 5))
def test_trimming_never_shows_more_than_max_turns_user_turns(steps, n) -> None:
    trace = run(TrimmingSession(words(10**6), max_turns=n), steps)
    for t in range(len(steps) + 1):
        x = trace.project(t)
        assert sum(m.role == "user" for m in x) <= n
        assert not x or x[0].role == "user" or sum(m.role == "user" for m in x) < n


# --------------------------------------------------------------------------- SummarizingSession


def test_summarizing_replaces_older_turns_by_the_synthetic_pair_past_context_limit() -> None:
    steps = [user("Router fails on Windows 10."), user("Firmware v1.0.3; still failing.", "Check firmware."),
             user("Reset done; error 42 now.", "Try a factory reset."), user("Another error now.", "Install firmware."),
             user("It says 404.", "Error code?"), AgentStep(thought="Are you online?")]
    session = SummarizingSession(words(1000), keep_last_n_turns=2, context_limit=4)
    trace = run(session, steps)
    assert not any(s.removed for s in trace[:4])  # four real turns: within context_limit
    x = trace.project(6)
    assert [(m.role, m.content) for m in x][:1] == [("user", SHADOW_USER_LINE)]
    assert roles(x) == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert [m.content for m in x[2:]] == ["Another error now.", "Error code?", "It says 404.", "Are you online?"]
    summary = trace.state_at(6).where(type="summary")[0]
    assert summary.meta["synthetic"] and summary.meta["kind"] == "history_summary"


def test_summarizing_feeds_role_lines_and_trims_long_tool_results() -> None:
    seen = []

    def spy(texts, budget):
        seen.append((list(texts), budget))
        return "the summary"

    steps = [user("first"), tool("look", "search(q)", "x" * 700), AgentStep(observation="second", meta={"role": "user"}),
             user("third", "ok")]
    run(SummarizingSession(words(5000), keep_last_n_turns=1, context_limit=2, summarize=spy), steps)
    lines, budget = seen[0]
    assert budget == 400
    assert lines[0] == "USER: first" and lines[1] == "ASSISTANT: look\nsearch(q)"
    assert lines[2] == "TOOL: " + "x" * 600 + " …"


def test_summarizing_with_keep_zero_summarizes_everything_and_rolls_the_summary_forward() -> None:
    seen = []

    def spy(texts, budget):
        seen.append(list(texts))
        return f"summary {len(seen)}"

    trace = run(SummarizingSession(words(5000), keep_last_n_turns=0, context_limit=1, summarize=spy),
                [user("a"), user("b", "ra"), user("c", "rb"), user("d", "rc")])
    assert [(m.role, m.content) for m in trace.project(2)] == [("user", SHADOW_USER_LINE), ("assistant", "summary 1")]
    assert [m.content for m in trace.project(3)] == [SHADOW_USER_LINE, "summary 1", "rb", "c"]  # 1 real turn: no summary
    assert [(m.role, m.content) for m in trace.project(4)] == [("user", SHADOW_USER_LINE), ("assistant", "summary 2")]
    assert seen[1][:2] == [f"USER: {SHADOW_USER_LINE}", "ASSISTANT: summary 1"]  # the earlier pair is summarized again


def test_summarizing_refuses_keeping_more_turns_than_the_limit() -> None:
    with pytest.raises(InvalidArgumentError, match="keep_last_n_turns = 4 > context_limit = 3"):
        SummarizingSession(words(100), keep_last_n_turns=4, context_limit=3)


@settings(max_examples=30, deadline=None)
@given(steps=streams, keep=st.integers(0, 3), extra=st.integers(0, 2))
def test_summarizing_keeps_at_most_context_limit_real_turns_and_one_pair(steps, keep, extra) -> None:
    limit = max(1, keep + extra)
    session = SummarizingSession(words(10**6), keep_last_n_turns=keep, context_limit=limit)
    trace = run(session, steps)
    for t in range(len(steps) + 1):
        state = trace.state_at(t)
        real = [e for e in session.items(state) if e.meta.get("role") == "user" and not e.meta.get("synthetic")]
        assert len(real) <= limit
        assert len(state.where(type="summary")) <= 1


# --------------------------------------------------------------------------- LlamaIndexMemory


def test_llamaindex_defaults_are_the_originals() -> None:
    memory = LlamaIndexMemory(words(30_000))
    assert (memory.token_limit, memory.chat_history_token_ratio, memory.token_flush_size) == (30_000, 0.7, 3_000)
    assert LlamaIndexMemory(words(1000), token_limit=1000).token_flush_size == 700  # from_defaults: > limit → 70 %


def test_llamaindex_refuses_a_token_limit_above_v_max() -> None:
    with pytest.raises(InvalidArgumentError, match="token_limit = 30000 > V_max = 4096"):
        LlamaIndexMemory(words(4096))


@settings(max_examples=30, deadline=None)
@given(steps=streams, limit=st.integers(20, 120), flush=st.integers(1, 30))
def test_llamaindex_flush_leaves_a_queue_that_starts_with_a_user_message(steps, limit, flush) -> None:
    memory = LlamaIndexMemory(words(10**5), token_limit=limit, token_flush_size=flush)
    trace = run(memory, steps)
    for t, step in enumerate(trace, start=1):
        queue = memory.queue(trace.state_at(t))
        if step.removed:
            assert queue[0].meta["role"] == "user"
        over = sum(len(e.text.split()) for e in queue) > limit * 0.7
        assert not over or len([e for e in queue if e.meta["role"] == "user"]) <= 1  # over only with one turn left


def test_llamaindex_truncates_blocks_lowest_priority_number_first_never_priority_zero() -> None:
    blocks = [MemoryBlock("core", "a b c", priority=0), MemoryBlock("one", " ".join(["x"] * 10), priority=1),
              MemoryBlock("two", " ".join(["y"] * 10), priority=2)]
    memory = LlamaIndexMemory(words(1000), token_limit=40, token_flush_size=5, blocks=blocks)
    trace = run(memory, [user(" ".join(["u"] * 12)), user(" ".join(["v"] * 10), " ".join(["r"] * 5))])
    assert memory.dropped_blocks(trace.state_at(1)) == []  # 23 + 12 ≤ 40
    assert memory.dropped_blocks(trace.state_at(2)) == ["one"]  # 23 + 27 > 40: priority 1 goes first
    system = trace.project(2)[0]
    assert system.role == "system" and system.content == "<memory>\n<core>\na b c\n</core>\n<two>\n" + " ".join(["y"] * 10) + "\n</two>\n</memory>"


def test_llamaindex_user_insert_method_and_fact_blocks() -> None:
    memory = LlamaIndexMemory(words(1000), token_limit=20, token_flush_size=5, insert_method="user",
                              blocks=[MemoryBlock("facts", kind="facts", priority=1)])
    trace = run(memory, [user("Ann lives in Oslo. She has two cats."), user("Tell me about trains.", "Nice cats."),
                         user("And buses?", "Trains run hourly.")])
    facts = trace.state_at(3).where(type="block")
    assert facts and "<fact>" in facts[0].text and "Oslo" in facts[0].text
    last_user = [m for m in trace.project(3) if m.role == "user"][-1]
    assert last_user.content.startswith("<memory>\n<facts>\n<fact>")


# --------------------------------------------------------------------------- ADKCompaction


def _turns(n: int) -> list[AgentStep]:
    return [user("q0")] + [user(f"q{k}", f"a{k - 1}") for k in range(1, n)] + [AgentStep(thought=f"a{n - 1}")]


def test_adk_sliding_window_ranges_overlap_as_documented() -> None:
    # compaction_interval 2, overlap 1: after invocation 2 → [1, 2]; after invocation 4 → [2, 4]
    adk = ADKCompaction(words(10**4), compaction_interval=2, overlap_size=1)
    trace = run(adk, _turns(4))
    done = adk.compactions(trace.final)
    invocations = [sorted({e.meta["invocation"] for e in adk.raw(trace.final) if done_e.meta["start"] <= e.t <= done_e.meta["end"]})
                   for done_e in done]
    assert invocations == [[1, 2], [2, 3, 4]][: len(done)] and len(done) == 2
    assert adk.kept_compactions(trace.final) == done  # [1, 2] and [2, 4] overlap; neither contains the other
    assert [m.content for m in trace.project(5)] == [e.text for e in done]  # two summaries, every raw event hidden


def test_adk_hides_a_range_inside_a_later_one() -> None:
    adk = ADKCompaction(words(10**4), compaction_interval=1, overlap_size=3)
    trace = run(adk, _turns(3))
    done = adk.compactions(trace.final)
    assert len(done) == 3 and adk.kept_compactions(trace.final) == [done[-1]]  # each range contains the earlier ones


@settings(max_examples=25, deadline=None)
@given(steps=streams, interval=st.integers(1, 4), overlap=st.integers(0, 2))
def test_adk_never_deletes_an_event(steps, interval, overlap) -> None:
    trace = run(ADKCompaction(words(10**6), compaction_interval=interval, overlap_size=overlap,
                              token_threshold=60, event_retention_size=3), steps)
    assert not any(s.removed for s in trace)
    assert all(trace.state_at(t).elements <= trace.state_at(t + 1).elements for t in range(len(steps)))


def test_adk_token_threshold_keeps_the_last_events_and_a_call_with_its_result() -> None:
    adk = ADKCompaction(words(10**4), compaction_interval=0, overlap_size=0, token_threshold=30, event_retention_size=1)
    steps = [user("find the report"), tool("looking", "search(report)", " ".join(["hit"] * 40))]
    trace = run(adk, steps)
    x = trace.project(2)
    assert roles(x) == ["assistant", "assistant", "tool"]  # the summary, then the call kept with its result
    assert adk.compactions(trace.final)[0].meta["trigger"] == "token_threshold"


def test_adk_token_threshold_needs_retention() -> None:
    with pytest.raises(InvalidArgumentError, match="must be set together"):
        ADKCompaction(words(100), compaction_interval=1, overlap_size=0, token_threshold=10)


# --------------------------------------------------------------------------- LettaMemory


def test_letta_compacts_past_nine_tenths_of_the_window_with_the_summary_message() -> None:
    letta = LettaMemory(words(400), system="You are Sam.")
    steps = [user(" ".join([f"w{k}"] * 20), " ".join([f"r{k}"] * 10)) for k in range(12)]
    trace = run(letta, steps)
    fired = [s.t for s in trace if s.removed and trace.state_at(s.t + 1).where(type="summary")[0].meta["mode"] == "sliding_window"]
    assert fired, "the window filled up"  # (the first compaction falls back to summarizing all: see test_managers_fidelity)
    t = fired[0]
    after = trace.state_at(t + 1)
    summary_size = sum(len(e.text.split()) for e in after.where(type="summary"))
    before = letta.context_tokens(after) - summary_size + sum(len(e.text.split()) for e in trace[t].removed)
    assert before > 0.9 * 400 >= letta.context_tokens(trace.state_at(t))
    summary = json.loads(trace.project(t + 1)[1].content)
    assert summary["type"] == "system_alert"
    assert summary["message"].startswith(f"Note: {len(trace[t].removed) - 1} messages from the beginning of the conversation "
                                         "have been hidden from view due to memory constraints.\nThe following is a summary "
                                         "of the previous messages:\n ")  # Letta 0.16.8's sliding-window wording
    kept = letta.queue(trace.state_at(t + 1))
    assert kept[1].meta["role"] == "assistant"  # the cut is at an assistant message


def test_letta_core_memory_edits_show_the_limit_and_are_not_refused_past_it_as_in_0_16_8() -> None:
    letta = LettaMemory(words(500), block_limit=100)
    steps = [AgentStep(thought="save", directives={"core_memory_append": {"label": "human", "content": "Ann, Oslo."}}),
             AgentStep(thought="save", directives={"core_memory_append": {"label": "human", "content": "x" * 80}})]
    trace = run(letta, steps)
    assert letta.block(trace.final, "human").endswith("x" * 80)  # past chars_limit, written all the same
    assert trace.project(2)[-1].content == letta.block(trace.final, "human")  # the tool returns the new value
    system = trace.project(2)[0].content
    assert "chars_limit=100" in system and f"chars_current={len(letta.block(trace.final, 'human'))}" in system


def test_letta_pages_archival_and_recall_memory_through_tool_calls() -> None:
    letta = LettaMemory(words(400))
    steps = [AgentStep(thought="store", directives={"archival_memory_insert": {"content": "The locker code is 7391."}})]
    steps += [user(" ".join([f"filler{k}"] * 30), "ok") for k in range(8)]
    steps += [AgentStep(thought="find", directives={"archival_memory_search": {"query": "locker code"}}),
              AgentStep(thought="find", directives={"conversation_search": {"query": "filler0"}})]
    trace = run(letta, steps)
    n = len(steps)
    assert any(s.removed for s in trace)  # the early turns left the main context
    archival = [m for m in trace.project(n) if m.role == "tool" and "7391" in m.content]
    recall = [m for m in trace.project(n) if m.role == "tool" and "filler0" in m.content]
    assert archival and archival[0].content.startswith("Showing 1 of 1 results")
    assert recall, "conversation_search found a message that was evicted"


@settings(max_examples=60, deadline=None)
@given(ranges=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=8))
def test_adk_kept_compactions_are_the_non_subsumed_ranges_of_contents_py(ranges) -> None:
    from stmviz import Element, State

    adk = ADKCompaction(words(100), compaction_interval=1, overlap_size=0)
    done = [Element(f"s{n}", {"t": 10 + n, "type": "summary", "role": "assistant", "start": min(a, b), "end": max(a, b),
                             "n": n}) for n, (a, b) in enumerate(ranges)]

    def subsumed(e) -> bool:  # ADK's _is_compaction_subsumed, pair by pair
        s, f, n = e.meta["start"], e.meta["end"], e.meta["n"]
        return any(o.meta["start"] <= s and o.meta["end"] >= f
                   and (o.meta["start"] < s or o.meta["end"] > f or o.meta["n"] > n) for o in done if o is not e)

    assert adk.kept_compactions(State(done)) == [e for e in done if not subsumed(e)]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: TrimmingSession(words(100), max_turns=0), "max_turns must be a whole number ≥ 1"),
        (lambda: SummarizingSession(words(100), summarize="gpt"), "summarize must be a callable"),
        (lambda: LlamaIndexMemory(words(100), token_limit=50, chat_history_token_ratio=1.5), "chat_history_token_ratio"),
        (lambda: LlamaIndexMemory(words(100), token_limit=50, blocks=[MemoryBlock("a", "x"), MemoryBlock("a", "y")]),
         "unique names"),
        (lambda: LlamaIndexMemory(words(100), token_limit=50, insert_method="assistant"), "insert_method must be one of"),
        (lambda: MemoryBlock("notes"), "static memory block 'notes' has no content"),
        (lambda: LettaMemory(words(100), context_window=200), "context_window = 200 > V_max = 100"),
        (lambda: ADKCompaction(words(100), compaction_interval=-1, overlap_size=0), "compaction_interval must be a whole number ≥ 0"),
    ],
)
def test_bad_arguments_get_a_clear_error(build, message) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        build()
