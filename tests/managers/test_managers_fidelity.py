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


# --------------------------------------------------------------------------- ClearToolUses: the API's defaults and forms


def _thinking_steps() -> list[AgentStep]:
    steps = [AgentStep(observation="start")]
    steps += [AgentStep(thought=f"reply {k}", observation=f"next {k}", meta={"thinking": f"I think {k}"}) for k in range(3)]
    return steps


@pytest.mark.parametrize(("model", "kept"), [
    (None, 3), ("claude-opus-4-5-20251101", 3), ("claude-sonnet-4-6", 3), ("claude-opus-5", 3),
    ("claude-opus-4-1-20250805", 1), ("claude-opus-4-20250514", 1), ("claude-sonnet-4-5-20250929", 1),
    ("claude-haiku-4-5-20251001", 1), ("claude-3-7-sonnet-20250219", 1),
])
def test_the_thinking_default_depends_on_the_model_family(model, kept) -> None:
    from stmviz import ClearToolUses

    x = run(ClearToolUses(words(9_999), trigger=9_000, model=model), _thinking_steps()).project(4)
    assert len([m for m in x if m.name == "thinking"]) == kept


def test_clear_tool_uses_takes_the_apis_own_parameter_forms() -> None:
    from stmviz import ClearToolUses

    api = ClearToolUses(words(9_999), trigger={"type": "tool_uses", "value": 4}, keep={"type": "tool_uses", "value": 2},
                        clear_at_least={"type": "input_tokens", "value": 5}, keep_thinking={"type": "thinking_turns", "value": 2})
    plain = ClearToolUses(words(9_999), trigger=4, trigger_type="tool_uses", keep=2, clear_at_least=5, keep_thinking=2)
    assert api.params() == plain.params()
    tokens = ClearToolUses(words(9_999), trigger={"type": "input_tokens", "value": 50})
    assert (tokens.trigger, tokens.trigger_type) == (50, "input_tokens")


def test_a_trigger_never_reached_is_a_real_setting_it_warns() -> None:
    from stmviz import ClearToolUses

    with pytest.warns(UserWarning, match="never exceeds"):
        m = ClearToolUses(words(100), trigger=100)
    assert run(m, _thinking_steps()).final  # it runs, and clears nothing


# --------------------------------------------------------------------------- ADK compaction


def test_adk_event_retention_zero_compacts_every_event() -> None:
    adk = ADKCompaction(words(10**4), compaction_interval=0, overlap_size=0, token_threshold=20, event_retention_size=0)
    steps = [user("find the report " + "word " * 10), AgentStep(thought="found it " + "word " * 10)]
    trace = run(adk, steps)
    done = adk.compactions(trace.final)
    assert len(done) == 1
    assert [m.role for m in trace.project(len(steps))] == ["assistant"]  # the summary alone: no raw event kept


def test_adk_overlap_size_has_no_invented_default() -> None:
    from stmviz.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="overlap_size"):
        ADKCompaction(words(100), compaction_interval=2)


# --------------------------------------------------------------------------- LangChain's summary input


def test_langchains_summarizer_reads_the_messages_as_xml_as_its_model_does() -> None:
    from stmviz import LangChainSummarization

    seen = []

    def spy(texts, budget):
        seen.append(list(texts))
        return "summary"

    steps = [user("Is 5 < 10 & fine?"), AgentStep(thought="Look.", action='search({"q": "x"})', observation="hit"),
             user("next", "ok"), user("more", "yes"), AgentStep(thought="done")]
    run(LangChainSummarization(words(10**4), trigger=("messages", 5), keep=("messages", 2), summarizer=spy), steps)
    assert seen and seen[0][0].startswith('<message type="human">Is 5 &lt; 10 &amp; fine?</message>\n<message type="ai">\n'
                                          '  <content>Look.</content>\n  <tool_call id="call_1" name="search">{"q": "x"}'
                                          '</tool_call>\n</message>\n<message type="tool">hit</message>')
    assert len(seen[0]) == 1  # one text: what fills the prompt's {messages}


# --------------------------------------------------------------------------- Letta


def test_letta_falls_back_to_summarizing_everything_and_carries_on() -> None:
    from stmviz import LettaMemory

    wordy = lambda texts, budget: "word " * 400  # noqa: E731  (a summarizer that ignores its budget)
    letta = LettaMemory(StateSpace(sizes.words, 300), system="You are Sam.", summarize=wordy)
    steps = [user(" ".join([f"w{k}"] * 20), " ".join([f"r{k}"] * 10)) for k in range(12)]
    trace = run(letta, steps)  # before: CapacityError (the summary left the context over V_max)
    summaries = [e for e in trace.final if e.type == "summary"]
    assert len(summaries) == 1 and summaries[0].meta["mode"] == "all" and summaries[0].meta.get("cut")
    assert letta.space.size(trace.final) <= 300


def test_letta_is_one_release_0_16_8_limits_rendering_and_summary_wording() -> None:
    from stmviz import LettaMemory
    from stmviz.managers.letta_memory import BLOCK_DESCRIPTIONS

    letta = LettaMemory(words(400), system="You are Sam.")
    assert letta.block_limit == 20_000  # CORE_MEMORY_PERSONA/HUMAN_CHAR_LIMIT in 0.16.8
    steps = [user(" ".join([f"w{k}"] * 20), " ".join([f"r{k}"] * 10)) for k in range(12)]
    trace = run(letta, steps)
    system = trace.project(1)[0].content
    assert f"<human>\n<description>\n{BLOCK_DESCRIPTIONS['human']}\n</description>\n<metadata>\n- chars_current=" in system
    assert system.endswith("</value>\n</human>\n\n</memory_blocks>")
    window = [s for s in trace if s.removed and trace.state_at(s.t + 1).where(type="summary")[0].meta["mode"] == "sliding_window"]
    import json

    message = json.loads(trace.project(window[0].t + 1)[1].content)["message"]
    hidden = len(window[0].removed) - 1
    assert message.startswith(f"Note: {hidden} messages from the beginning of the conversation have been hidden from view "
                              "due to memory constraints.\nThe following is a summary of the previous messages:\n ")


# --------------------------------------------------------------------------- hostile input: a summarizer that ignores its budget


def _wordy(texts, budget) -> str:
    return "word " * 500


@pytest.mark.parametrize("build", [
    lambda: __import__("stmviz").LangChainSummarization(words(100), trigger=("tokens", 80), keep=("messages", 2), summarizer=_wordy),
    lambda: SummarizingSession(words(100), summarize=_wordy),
    lambda: ADKCompaction(words(100), compaction_interval=1, overlap_size=0, summarize=_wordy),
    lambda: __import__("stmviz").Compaction(words(100), trigger=60, summarizer=_wordy),
], ids=["LangChainSummarization", "SummarizingSession", "ADKCompaction", "Compaction"])
def test_a_summarizer_that_ignores_its_budget_is_named_in_the_capacity_error(build) -> None:
    from stmviz.errors import CapacityError

    steps = [AgentStep(observation="w " * 10, thought="r " * 5, meta={"role": "user"})] * 8
    with pytest.raises(CapacityError, match="the summarizer ignored its budget"):
        run(build(), steps)


def test_a_users_own_exception_from_their_summarizer_reaches_them_chained_to_an_error_naming_the_run() -> None:
    from stmviz.errors import STMError

    class ClientDown(Exception):
        pass

    def down(texts, budget):
        raise ClientDown("my client failed")

    steps = [user(f"q{k}", f"a{k}") for k in range(6)]
    with pytest.raises(STMError, match="SummarizingSession") as caught:
        run(SummarizingSession(words(10**4), keep_last_n_turns=0, context_limit=1, summarize=down), steps)
    assert isinstance(caught.value.__cause__, ClientDown)


# --------------------------------------------------------------------------- hostile input: huge numbers


def test_huge_numbers_get_errors_about_what_was_passed() -> None:
    from stmviz import Compaction, LangChainSummarization
    from stmviz.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match=r"got float 1e\+300"):  # not "got int 1000…", which was not passed
        LangChainSummarization(words(100), trigger=("tokens", 1e300))
    assert LangChainSummarization(words(100), trigger=("messages", 20.0)).params()["trigger"] == [{"messages": 20.0}]
    with pytest.raises(InvalidArgumentError, match="window defaults to V_max"):  # not "window must be …": none was passed
        Compaction.claude_code(StateSpace(sizes.words, 1e308))
