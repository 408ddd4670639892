"""The reasons the mechanisms and managers record, in Russian under ``stmviz.language("ru")``, and unchanged in English.

A reason is written when U or the controller runs (``_()`` at run time), so a run under the Russian setting records
Russian reasons and an English run records exactly the English the golden fingerprints hold. Each paper mechanism and
each practitioners' manager runs here on the bundled scenarios (and on the options that write their other reasons);
every recorded reason — each operation's and each removed element's, and what π hides or clears — must have no
English sentence (``tests/russian_text.py``; quoted values, code and math are not prose).
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import pytest

import stmviz
from stmviz import (
    AgentStep,
    FIFOWindow,
    StateSpace,
    list_scenarios,
    load_scenario,
    run,
    sizes,
)
from stmviz.core import i18n
from stmviz.managers import (
    ADKCompaction,
    ClearToolUses,
    Compaction,
    LangChainSummarization,
    LettaMemory,
    LlamaIndexMemory,
    SummarizingSession,
    TrimmingSession,
)
from stmviz.scenarios import example_transcript, load_transcript
from stmviz.text.scm_judges import OverlapJudge, RecallHeuristic

sys.path.insert(0, str(Path(__file__).resolve().parent))
from golden.canonical import agent_stream
from russian_text import english_sentences

pytest.importorskip("babel", reason="the Russian catalog is compiled with Babel (pip install -e '.[test]')")

PAPER = ("FIFOWindow", "SCM", "HiAgent", "AgentFold")
SCENARIOS = [info.name for info in list_scenarios()]


@pytest.fixture(autouse=True)
def english_after():
    yield
    i18n.set_language("en")


def reasons(trace) -> list[str]:
    """Every reason a trace recorded: each operation's and each removed element's."""
    out = []
    for step in trace:
        out += [o.reason for o in step.operations if o.reason]
        out += [str(r) for r in step.reasons if r]
        out += [str(j[2]) for o in step.operations for j in (o.get("judgements") or ())]  # SCM's judgements' reasons
    return out


#: a list of the agent's words a reason quotes (``['key', "i'd"]``): content, not prose, whatever its quotes
_WORD_LIST = re.compile(r"\[(?:\s*(?:'[^']*'|\"[^\"]*\"),?)*\s*(?:…|\.\.\.)?\]?")


def english_in(texts) -> list[tuple[str, list[str]]]:
    """The English sentences of each text (the agent's quoted words taken out first)."""
    return [(text[:300], found) for text in dict.fromkeys(texts) if (found := english_sentences(_WORD_LIST.sub(" ", text)))]


def session():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_transcript(example_transcript("claude_code_session"))


def managers(v_max, window, max_turns=8, context_limit=3, keep_last_n_turns=3, adk_interval=3):
    """The managers as notebook 11 fits them to a window (its ``managers(v_max, window)``)."""
    space = StateSpace(sizes.tokens(), v_max)
    return {
        "ClearToolUses": ClearToolUses(space, trigger=window // 2, keep=3),
        "Compaction": Compaction(space, trigger=window * 3 // 4),
        "Claude Code": Compaction.claude_code(space, window=window, percent=95),
        "LangChainSummarization": LangChainSummarization(space, trigger=("tokens", window * 3 // 5), keep=("messages", 6)),
        "LlamaIndexMemory": LlamaIndexMemory(space, token_limit=window * 3 // 4),
        "TrimmingSession": TrimmingSession(space, max_turns=max_turns),
        "SummarizingSession": SummarizingSession(space, context_limit=context_limit, keep_last_n_turns=keep_last_n_turns),
        "LettaMemory": LettaMemory(space, context_window=window),
        "ADKCompaction": ADKCompaction(space, compaction_interval=adk_interval, overlap_size=1),
    }


def paper_variants(v_max):
    """The paper's four, with the options that write their other reasons (rules, judges, oversize policies)."""
    space = StateSpace(sizes.tokens(), v_max)
    return {
        "FIFOWindow": FIFOWindow(space),
        "SCM": stmviz.SCM(space),
        "HiAgent": stmviz.HiAgent(space),
        "AgentFold": stmviz.AgentFold(space),
        "SCM recall/overlap": stmviz.SCM(space, k=4, needs_memory=RecallHeuristic(), judge=OverlapJudge(), flash_size=2),
        "SCM judged": stmviz.SCM(StateSpace(sizes.tokens(), v_max // 2), k=6, judge=OverlapJudge()),
        "HiAgent select/chunks": stmviz.HiAgent(space, keep_pairs=2, subgoal_every=3),
        "AgentFold share": stmviz.AgentFold(space, controller_rule="share", share=0.3),
        "AgentFold count": stmviz.AgentFold(space, controller_rule="count", max_blocks=3),
        "AgentFold condense": stmviz.AgentFold(space, controller_rule="condense"),
    }


# -- the paper's mechanisms -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_reason_a_paper_mechanism_records_on_a_bundled_scenario_is_russian(scenario):
    data = load_scenario(scenario)
    with stmviz.language("ru"):
        found = {name: english_in(reasons(run(m, data))) for name, m in paper_variants(data.v_max).items()}
    assert not {k: v for k, v in found.items() if v}, found
    assert any(reasons(run(stmviz.HiAgent(StateSpace(sizes.tokens(), data.v_max)), data))) or scenario != "household"


@pytest.mark.parametrize("name", PAPER)
def test_every_reason_on_an_agent_stream_with_directives_is_russian(name):
    """The golden tests' agent stream: subgoal markers, subgoal_done, folding directives, overflow."""
    steps = agent_stream(120, 1)
    with stmviz.language("ru"):
        trace = run(getattr(stmviz, name)(StateSpace(sizes.tokens(), 600)), steps, query="Collect the prices of three sources.",
                    tools=("search", "open"))
    found = reasons(trace)
    assert found, "the run recorded no reason: nothing was checked"
    assert not english_in(found)


def test_fifo_oversize_notes_are_russian_and_counted_from_what_was_kept():
    big = " ".join(["word"] * 400)
    steps = [AgentStep(observation="hello"), AgentStep(thought=big, observation=big), AgentStep(observation="bye")]
    space = StateSpace(sizes.tokens(), 120)
    for policy in ("skip", "truncate"):
        for system in (None, "Be brief."):
            with stmviz.language("ru"):
                ru = run(FIFOWindow(space, oversize=policy, system=system), steps)
            en = run(FIFOWindow(space, oversize=policy, system=system), steps)
            (ru_op,) = ru[1].operations
            (en_op,) = en[1].operations
            assert ru_op.params == en_op.params and sum(en_op.params.values()) == 2  # both messages noted, as in English
            assert not english_in(reasons(ru)), policy
            assert en_op.reason.startswith("truncated the" if policy == "truncate" else "skipped the")


# -- the practitioners' managers ------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", ["claude_code_session", *SCENARIOS])
def test_every_reason_a_manager_records_is_russian(source):
    data = session() if source == "claude_code_session" else load_scenario(source)
    v_max = getattr(data, "v_max", None) or 2400
    checked = 0
    for args in ((v_max * 3, v_max), (v_max, v_max // 2, 2, 2, 1, 2)):
        for name, manager in managers(*args).items():
            with stmviz.language("ru"):
                try:
                    trace = run(manager, data)
                except stmviz.errors.CapacityError:
                    continue  # a recipe that keeps turns, not tokens, can outgrow a small V_max: an error, not a reason
                found = reasons(trace) + hidden(manager, trace)
            checked += len(found)
            assert not english_in(found), (name, english_in(found))
    assert checked


def hidden(manager, trace) -> list[str]:
    """Why π leaves out or clears elements of each ω_t (a π-manager's ``hidden``), written when asked."""
    if not hasattr(manager, "hidden"):
        return []
    return [why for t in range(len(trace) + 1) for why in manager.hidden(trace.state_at(t)).values()]


def test_the_managers_reasons_on_notebook_11_s_session_cover_each_kind_of_forgetting():
    """The run the notebook shows: compaction, eviction, summaries and cleared tool results all recorded, in Russian."""
    fitted = managers(2400, 1700, 2, 2, 1, 2)
    with stmviz.language("ru"):
        traces = {name: run(m, session()) for name, m in fitted.items()}
        cleared = hidden(fitted["ClearToolUses"], traces["ClearToolUses"])
        dropped = hidden(fitted["Compaction"], traces["Compaction"])
    recorded = [r for trace in traces.values() for r in reasons(trace)]
    assert len(set(recorded)) >= 5 and cleared and dropped
    assert not english_in(recorded + cleared + dropped)


# -- English stays as it was ----------------------------------------------------------------------------------------

def test_an_english_run_after_a_russian_one_records_the_same_english():
    """The language is read when a reason is made; no cache (SCM's judgements and plans) carries one language into the
    other, even for the same mechanism object."""
    data = load_scenario("household")
    space = StateSpace(sizes.tokens(), data.v_max)
    mechanisms = {**paper_variants(data.v_max), "LettaMemory": LettaMemory(space, context_window=data.v_max)}
    for name, m in mechanisms.items():
        before = reasons(run(m, data))
        with stmviz.language("ru"):
            russian = reasons(run(m, data))
        after = reasons(run(m, data))
        assert before == after, name
        assert len(russian) == len(before), name
        if before:
            assert russian != before, name
            assert not english_in(russian), name


def test_the_english_reasons_are_the_code_s_own_words():
    data = load_scenario("household")
    trace = run(FIFOWindow(StateSpace(sizes.tokens(), data.v_max)), data)
    assert "oldest message; Σμ = 609 > V_max = 600" in reasons(trace)
    with stmviz.language("ru"):
        trace = run(FIFOWindow(StateSpace(sizes.tokens(), data.v_max)), data)
    assert "самое старое сообщение; Σμ = 609 > V_max = 600" in reasons(trace)


# -- why a probe's evidence was forgotten ---------------------------------------------------------------------------

@pytest.mark.parametrize("scenario", SCENARIOS)
def test_why_forgotten_explains_in_russian(scenario):
    """What notebooks 04–06 print for each probe: the explanation and its rule, under the Russian setting."""
    from stmviz.forgetting import why_forgotten_all

    data = load_scenario(scenario)
    texts, english = [], []
    for m in paper_variants(data.v_max).values():
        with stmviz.language("ru"):
            trace = run(m, data)
            answers = why_forgotten_all(trace, data.probes)
        english += [f.explanation for f in why_forgotten_all(run(m, data), data.probes)]
        texts += [f.explanation for f in answers] + [f.rule for f in answers if f.rule]
    assert texts and not english_in(texts)
    assert english != [t for t in texts if t in english]  # the Russian run said it in other words


# -- what reading a transcript kept and left out --------------------------------------------------------------------

def test_a_transcript_report_is_printed_in_russian_and_its_kinds_stay_the_english_a_program_looks_up():
    """Notebook 11 prints ``session.report``: its head, its lists' names and every kind are Russian (the examples
    are the transcript's own quoted text); ``report.count(kind)`` still takes the English kind."""
    report = session().report
    english = str(report)
    with stmviz.language("ru"):
        russian = str(report)
    assert english.startswith("Read a Claude Code session") and "left out:" in english
    assert russian.startswith("Прочитано: сессия Claude Code")
    assert not english_in(russian.splitlines())
    assert report.count("sidechain (sub-agent) record") == 4
    assert report.count("summary record off the conversation's chain") == 1  # a kind written from a sentence
    assert str(report) == english  # the report itself did not change


def test_a_forgetting_shown_as_html_names_its_kind_in_russian():
    from stmviz.forgetting import why_forgotten_all

    data = load_scenario("household")
    trace = run(stmviz.HiAgent(StateSpace(sizes.tokens(), data.v_max)), data)
    answers = why_forgotten_all(trace, data.probes)
    kinds = {f.kind for f in answers}
    assert "retained" in kinds and len(kinds) > 1
    english = [f._repr_html_() for f in answers]
    with stmviz.language("ru"):
        russian = [f._repr_html_() for f in answers]
    assert any("✓ retained" in h for h in english) and not any("✓ retained" in h for h in russian)
    assert any("✓ сохранено" in h for h in russian) and any("✗ суммаризировано" in h for h in russian)


def test_a_recorded_compaction_s_label_is_russian():
    from stmviz.scenarios import recorded_compactions

    (real,) = recorded_compactions(session())
    assert real.label == "Claude Code compacted (auto, 1,611 tokens)"
    with stmviz.language("ru"):
        assert real.label == "Claude Code: уплотнение (auto, 1,611 токенов)"


def test_the_hierarchy_a_figure_titles_is_named_in_russian():
    data = load_scenario("household")
    for name, english, russian in (("HiAgent", "task → subgoals → pairs", "задача → подцели → пары"),
                                   ("AgentFold", "folded summaries", "свёрнутые суммаризации")):
        m = getattr(stmviz, name)(StateSpace(sizes.tokens(), data.v_max))
        state = run(m, data).state_at(10)
        assert m.hierarchy(state).title == english
        with stmviz.language("ru"):
            assert m.hierarchy(state).title == russian
