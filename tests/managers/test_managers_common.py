"""What the practitioners' managers share: the U/π placement they declare, hidden(), and rebuilding from a trace."""

from __future__ import annotations

import pytest

from stmviz import ClearToolUses, Compaction, LangChainSummarization, Mechanism, StateSpace, run, sizes

from _managers import agent_streams, chat, tool_step  # noqa: F401  (chat, tool_step build the streams below)

SPACE = StateSpace(sizes.words, v_max=500)


def managers():
    return [
        ClearToolUses(SPACE, system="sys", trigger=40, keep=1),
        ClearToolUses.langchain(SPACE, trigger=40, keep=1, clear_tool_inputs=True),
        Compaction(SPACE, system="sys", trigger=60, pause_after_compaction=True),
        Compaction.claude_code(SPACE, percent=20),
        LangChainSummarization(SPACE, system="sys", trigger=[("messages", 8), {"tokens": 50, "messages": 3}], keep=("messages", 3)),
    ]


def stream():
    steps = chat(4)[:-1]
    steps += [tool_step("search", f"q{k}", f"result {k} with some words in it", f"thinking {k}") for k in range(6)]
    return steps + chat(3)[1:]


@pytest.mark.parametrize("mechanism", managers(), ids=str)
def test_placement_says_which_part_u_does_and_which_pi_does(mechanism):
    assert mechanism.placement and set(mechanism.placement.values()) <= {"U", "π"}
    assert "U" in mechanism.placement.values() and "π" in mechanism.placement.values()


def test_the_split_is_the_one_the_originals_make():
    assert [k for k, v in ClearToolUses.placement.items() if v == "U"] == ["store every message"]
    assert set(LangChainSummarization.placement.values()) == {"U", "π"}
    assert [v for k, v in LangChainSummarization.placement.items() if "summary" in k] == ["U"]
    assert {Compaction.placement["add the compaction block (a summary)"], Compaction.placement["show nothing before the last block"]} == {"U", "π"}


@pytest.mark.parametrize("mechanism", [m for m in managers() if hasattr(m, "hidden")], ids=str)
def test_hidden_names_exactly_what_pi_does_not_show_as_it_is(mechanism):
    trace = run(mechanism, stream())
    for t in range(len(trace)):
        state = trace.state_at(t)
        hidden = mechanism.hidden(state)
        shown = [m.text for m in trace.project(t)]
        if isinstance(mechanism, Compaction):
            assert shown == [e.text for e in state.ordered() if e not in hidden]
        else:
            edits = mechanism.edits(state)
            assert set(edits) == set(hidden)
            assert shown == [edits[e][0] if e in edits else e.text for e in state.ordered() if edits.get(e, ("-",))[0]]
            assert all(edits[e][0] != e.text for e in hidden)


@pytest.mark.parametrize("mechanism", managers(), ids=str)
def test_a_trace_rebuilds_the_mechanism_from_its_spec(mechanism):
    rebuilt = Mechanism.from_spec(SPACE, mechanism.spec())
    assert rebuilt is not None and rebuilt.params() == mechanism.params()
    assert [m.text for m in run(rebuilt, stream()).project(12)] == [m.text for m in run(mechanism, stream()).project(12)]


class _Client:
    """An OpenAI-compatible stand-in that records what it is asked and answers with a fixed summary."""

    def __init__(self):
        self.asked: list[str] = []
        self.chat = self
        self.completions = self

    def create(self, model, messages, **options):
        from types import SimpleNamespace

        self.asked.append(messages[0]["content"])
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content="the summary"))])


def test_the_openai_adapters_send_the_originals_prompts():
    from stmviz.managers.compaction import DEFAULT_INSTRUCTIONS
    from stmviz.managers.langchain_summarization import SUMMARY_PROMPT

    client = _Client()
    m = LangChainSummarization(SPACE, trigger=("messages", 6), keep=("messages", 2),
                               summarizer=LangChainSummarization.openai_summarizer(client, "any-model"))
    trace = run(m, chat(5))
    assert client.asked and client.asked[0].startswith(SUMMARY_PROMPT.split("{messages}")[0])
    assert "<message type=\"human\">user 0 says hello there</message>" in client.asked[0]  # get_buffer_string(format="xml")
    assert any(msg.text.endswith("the summary") for msg in trace.project(5))

    client = _Client()
    c = Compaction(SPACE, trigger=30)
    c = Compaction(SPACE, trigger=30, summarizer=c.openai_summarizer(client, "any-model"))
    run(c, chat(8))
    assert client.asked and client.asked[0].endswith(DEFAULT_INSTRUCTIONS) and client.asked[0].startswith("user 0 says hello there")


def test_projection_size_is_the_token_count_of_what_the_model_sees():
    from stmviz.sizes import count_tokens

    space = StateSpace(sizes.tokens(), v_max=5000)
    for m in [ClearToolUses(space, system="sys", trigger=60, keep=1), Compaction(space, system="sys", trigger=80),
              LangChainSummarization(space, system="sys", trigger=("tokens", 60), keep=("messages", 3))]:
        trace = run(m, stream())
        for t in range(len(trace)):
            assert trace[t].input_size == sum(count_tokens(msg.text) for msg in trace.project(t))


def test_the_managers_never_reach_into_the_papers_mechanisms():
    """stmviz.managers stands on the core and the conversation model; the paper's mechanisms import it, never the reverse."""
    import ast
    import subprocess
    import sys
    from pathlib import Path

    import stmviz.managers

    for path in Path(stmviz.managers.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = "." * node.level + (node.module or "")
                assert "mechanisms" not in target, f"{path.name} imports {target}"
            elif isinstance(node, ast.Import):
                assert not any("stmviz.mechanisms" in alias.name for alias in node.names), path.name
    code = "import sys, stmviz.managers; print(sorted(m for m in sys.modules if m.startswith('stmviz.mechanisms')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
