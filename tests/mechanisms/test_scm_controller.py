"""SCM's memory controller (issue 16): one test per behaviour.

- the controller decides whether memory is needed ("Tell me a joke" does not activate it);
- retrieval ranks the older interactions by relevance (the released code), the paper's
  recency + relevance as an option, the previous interaction excluded (flash memory);
- flash memory is the previous interaction, in full below ``flash_threshold`` tokens, else its summary;
- when the activated memories exceed their room, each is judged (drop / summary / full), then full
  texts become summaries until they fit;
- the decisions are pluggable, with OpenAI-compatible adapters (tested with fake clients);
- the trace records the candidates' scores and the judgements, and the player shows them.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from stmviz import SCM, AgentStep, StateSpace, check_mechanism, run, sizes
from stmviz.core.errors import InvalidArgumentError, STMError, UpdateFailedError
from stmviz.mechanisms.scm import interaction_text
from stmviz.text.scm_judges import OverlapJudge, RecallHeuristic, always_needs_memory, content_words
from stmviz.metrics import retention
from stmviz.scenarios import load_scenario
from stmviz.text.openai import OpenAIMemoryController, OpenAIMemoryJudge
from stmviz.widgets.player import step_html


def dialogue_steps(turns):
    steps = [AgentStep(observation=turns[0][0], meta={"role": "user"})]
    steps += [AgentStep(thought=turns[k - 1][1], observation=turns[k][0], meta={"role": "user"}) for k in range(1, len(turns))]
    steps.append(AgentStep(thought=turns[-1][1]))
    return steps


LOCKER = [
    ("My locker code is 7391.", "Noted."),
    ("How is the weather?", "Sunny."),
    ("What is for dinner?", "Pasta."),
    ("Tell me a joke.", "Why did the scarecrow win an award? He was outstanding in his field."),
    ("What is my locker code?", "It is 7391."),
]


def space(v_max=400):
    return StateSpace(sizes.tokens(), v_max)


# -- (1) is memory needed? ------------------------------------------------------------------------


def test_a_joke_does_not_activate_memory():
    """The paper's memory controller (variant="paper"); the released code retrieves for every message."""
    steps = dialogue_steps(LOCKER)
    trace = run(SCM(space(), variant="paper", k=2), steps)
    # step 3 brings "Tell me a joke.": the controller files the previous exchange and activates nothing
    (op,) = trace[3].operations
    assert op.type == "add_interaction" and op.reason.startswith("memory not needed: no recall cue")
    assert not trace.state_at(4).where(type="activation")
    # step 4 brings "What is my locker code?": memory is needed ("my") and the code comes back
    assert [o.type for o in trace[4].operations] == ["add_interaction", "activate_memory"]
    assert "refers back ('my')" in trace[4].operations[1].reason
    assert "7391" in trace.project(5).text()


def test_recall_heuristic_says_what_it_found():
    needs = RecallHeuristic()
    earlier = ["My locker code is 7391.\nNoted.", "Lisbon trip budget is 1,800 euros.\nGreat."]
    assert needs("Tell me a joke", earlier)[0] is False
    assert needs("Tell me a joke about penguins, something silly", earlier)[0] is False
    assert needs("Remember the code?", earlier) == (True, "the message refers back ('Remember')")
    assert needs("I told you about it", earlier)[1] == "the message refers back ('I told you')"
    ok, why = needs("Is the Lisbon budget enough?", earlier)  # no cue: overlap with interaction 1
    assert ok and why == "earlier interaction 1 shares 2 of the message's 3 content words"
    assert needs("mystery", earlier)[0] is False  # "my" is a whole word, not a prefix
    assert content_words("What's the budget for Lisbon?") == {"budget", "lisbon"}
    with pytest.raises(InvalidArgumentError, match="min_shared"):
        RecallHeuristic(min_shared=0)
    with pytest.raises(InvalidArgumentError, match="max_shared"):
        RecallHeuristic(min_shared=3, max_shared=2)
    # a long input (a tool's result, say) needs at most max_shared = 4 shared content words, not half of its 12
    result = "Rivermouth report: fleet 1450 bikes, operator Voltway, stations 96, trips 2310000, year 2025, city council"
    earlier = ["Search Rivermouth fleet operator Voltway figures.\nsearch(Rivermouth)"]
    ok, why = needs(result, earlier)
    assert ok and why.startswith("earlier interaction 0 shares 4 of the message's")
    assert RecallHeuristic(max_shared=8)(result, earlier)[0] is False


def test_long_dialogue_answers_the_joke_without_memory_and_early_questions_with_it():
    scenario = load_scenario("long_dialogue")
    trace = run(SCM(StateSpace(sizes.tokens(), scenario.v_max), variant="paper"), scenario)
    joke = next(t for t, s in enumerate(scenario.steps) if "joke" in s.observation)
    assert [o.type for o in trace[joke].operations] == ["add_interaction"]
    assert not trace.state_at(joke + 1).where(type="activation")
    for probe in scenario.probes:
        ops = trace[probe.t - 1].operations  # the question arrives at step t − 1
        assert [o.type for o in ops] == ["add_interaction", "activate_memory"], probe
    found = [r for r in retention(trace, scenario.probes) if r.retained]
    assert len(found) >= 5


# -- (2) relevance ranking, flash excluded --------------------------------------------------------


def test_the_evidence_ranks_in_the_top_k_by_relevance():
    scenario = load_scenario("long_dialogue")
    trace = run(SCM(StateSpace(sizes.tokens(), scenario.v_max), k=3), scenario)
    first = 0
    for probe in scenario.probes[:5]:
        scores = trace[probe.t - 1].operations[1]["scores"]
        ranked = [i for i, _ in scores]
        evidence = probe.evidence_step + 1  # user message k is filed with its reply at step k + 1
        assert evidence in ranked, (probe, scores)
        assert [s for _, s in scores] == sorted((s for _, s in scores), reverse=True)
        first += ranked[0] == evidence
    assert first == 5
    # the paper's recency + relevance (weights 0.5 / 0.5, decay 0.99): recency pushes the evidence down
    mixed = run(SCM(StateSpace(sizes.tokens(), scenario.v_max), k=3, ranking="recency+relevance"), scenario)
    first_mixed = sum(
        mixed[p.t - 1].operations[1]["scores"][0][0] == p.evidence_step + 1 for p in scenario.probes[:5]
    )
    assert first_mixed < first


def test_retrieval_excludes_the_previous_interaction():
    steps = dialogue_steps([("My locker code is 7391.", "Noted."), ("What is my locker code?", "7391.")])
    trace = run(SCM(space(), k=3, needs_memory=always_needs_memory), steps)
    # at step 1 the only interaction is the previous one: it is flash memory, nothing is a candidate
    assert [o.type for o in trace[1].operations] == ["add_interaction"]
    assert [e.type for e in trace.state_at(2)] == ["flash", "message"]


def test_ranking_must_be_known():
    with pytest.raises(InvalidArgumentError, match="ranking must be one of"):
        SCM(space(), ranking="recency")
    assert SCM(space(), ranking="recency+relevance").params()["ranking"] == "recency+relevance"
    assert SCM(space()).params()["flash_size"] == 1


# -- (3) flash memory: full below the threshold, else the summary ---------------------------------


def test_flash_is_full_below_the_threshold_and_the_summary_at_it():
    steps = dialogue_steps([("Tell me about Lisbon trams " * 8, "They climb the hills. " * 8), ("Thanks!", "Welcome.")])
    full, _ = interaction_text(steps[1], steps[0])
    n = sizes.count_tokens(full)
    below = run(SCM(space(1000), flash_threshold=n + 1), steps)
    (flash,) = below.state_at(2).where(type="flash")
    assert flash.meta["form"] == "full" and flash.content == full
    at = run(SCM(space(1000), flash_threshold=n, summary_budget=16, summary_threshold=0), steps)
    (flash,) = at.state_at(2).where(type="flash")
    assert flash.meta["form"] == "summary" and sizes.count_tokens(flash.content) <= 16
    with pytest.raises(InvalidArgumentError, match="flash_threshold"):
        SCM(space(), flash_threshold=0)


# -- (4) the judgement and the fit loop -----------------------------------------------------------

FACTS = [
    ("My locker code is 7391 and my bike lock code is 4410. " + "Some chatter. " * 12, "Noted both codes."),
    ("My gym is on Rua Augusta. " + "More chatter. " * 12, "Noted the gym."),
    ("The weather was grey all week. " + "Weather chatter. " * 12, "Sorry to hear."),
    ("Filler message here.", "Filler reply."),
    ("What are my codes for the locker and the gym?", "7391."),
]


def _judged(judge, v_max=150, k=3):
    steps = dialogue_steps(FACTS)
    scm = SCM(space(v_max), k=k, summary_budget=8, needs_memory=always_needs_memory, judge=judge)
    trace = run(scm, steps)
    t = len(FACTS) - 1  # the question arrives at step t
    (op,) = [o for o in trace[t].operations if o.type == "activate_memory"]
    return scm, trace, t, op


def test_each_memory_but_the_best_is_judged_and_the_verdict_is_applied():
    calls = []
    verdicts = {"weather": "drop", "gym": "summary"}

    def judge(memory_text, summary_text, message):
        calls.append((memory_text, message))
        verdict = next((v for word, v in verdicts.items() if word in memory_text.lower()), "full")
        return verdict, f"fake judge: {verdict}"

    scm, trace, t, op = _judged(judge, v_max=150)
    scores = [i for i, _ in op["scores"]]
    judgements = [list(j) for j in op["judgements"]]
    assert judgements[0] == [scores[0], "full", "the best-ranked memory is kept without a judgement"]
    by_index = {i: (v, why) for i, v, why in judgements[1:] if why.startswith("fake judge")}
    assert set(by_index) == set(scores[1:])  # every other memory was judged once
    state = trace.state_at(t + 1)
    forms = {e.meta["index"]: e.meta["form"] for e in state.where(type="activation")}
    for i, (verdict, _) in by_index.items():
        if verdict == "drop":
            assert i not in forms
        elif verdict == "summary":
            assert forms[i] == "summary"
    assert "drop" in {v for v, _ in by_index.values()}
    assert state in scm.space
    assert len(calls) == len(set(calls))  # cached: the controller's plan and the update judge a memory once


def test_full_texts_become_summaries_lowest_ranked_first_until_they_fit():
    scm, trace, t, op = _judged(lambda m, s, q: ("full", "fake judge: full"), v_max=150)
    fits = [list(j) for j in op["judgements"] if j[2].startswith(("summarized", "dropped"))]
    assert fits, op
    ranked = [i for i, _ in op["scores"]]
    summarized = [i for i, v, why in fits if why.startswith("summarized")]
    assert summarized == sorted(summarized, key=ranked.index, reverse=True)  # lowest-ranked first
    state = trace.state_at(t + 1)
    assert state in scm.space
    for e in state.where(type="activation"):
        assert e.meta["form"] == ("summary" if e.meta["index"] in summarized else "full")


def test_no_judgement_when_the_memories_fit():
    _, _, _, op = _judged(lambda m, s, q: pytest.fail("judged although everything fits"), v_max=5000)
    assert op.get("judgements") is None and op["scores"]


def test_overlap_judge_drop_summary_full():
    judge = OverlapJudge()
    assert judge("The weather was grey.", "grey weather", "What is my locker code?")[0] == "drop"
    assert judge("My locker code is 7391.", "locker code 7391", "What is my locker code?")[0] == "summary"
    verdict, why = judge("My locker code is 7391.", "a number was given", "What is my locker code?")
    assert verdict == "full" and "['code', 'locker']" in why


def test_a_bad_verdict_is_an_update_error():
    with pytest.raises(UpdateFailedError, match="judge returned 'maybe'"):
        _judged(lambda m, s, q: ("maybe", "?"), v_max=150)


# -- (5) adapters, the trace, the player, the protocol --------------------------------------------


class FakeChat:
    """A fake OpenAI-compatible client: replies in turn, records the prompts."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.prompts = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, model, messages, **options):
        self.prompts.append(messages[0]["content"])
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=self.replies.pop(0)))])


def test_openai_memory_controller_with_a_fake_client():
    client = FakeChat("(B) No. A joke needs no earlier conversation.", "(A) Yes, it asks about a stated fact.")
    needs = OpenAIMemoryController(client, "m")
    assert needs("Tell me a joke", ["x"]) == (False, "m: (B) No. A joke needs no earlier conversation.")
    assert needs("What is my code?", ["x"])[0] is True
    assert "Tell me a joke" in client.prompts[0]
    with pytest.raises(InvalidArgumentError, match="OpenAI-compatible"):
        OpenAIMemoryController(object(), "m")
    broken = FakeChat(None)
    with pytest.raises(STMError, match="no text"):
        OpenAIMemoryController(broken, "m")("hi", [])


def test_openai_memory_judge_with_a_fake_client():
    judge = OpenAIMemoryJudge(FakeChat("(B) no"), "m")
    assert judge("full", "short", "q")[0] == "drop"
    judge = OpenAIMemoryJudge(FakeChat("(A) yes", "(A) yes"), "m")
    assert judge("full", "short", "q") == ("summary", "the summary can answer (m: (A) yes)")
    client = FakeChat("(A) yes", "(B) no, the number is lost")
    assert OpenAIMemoryJudge(client, "m")("My code is 7391.", "a code", "What is my code?")[0] == "full"
    assert "My code is 7391." in client.prompts[0] and "a code" in client.prompts[1]


def test_the_adapters_drive_the_mechanism():
    class ByMessage(FakeChat):
        def _create(self, model, messages, **options):
            self.replies = ["(A) yes" if "my locker" in messages[0]["content"] else "(B) no"]
            return super()._create(model, messages, **options)

    client = ByMessage()
    trace = run(SCM(space(), k=1, needs_memory=OpenAIMemoryController(client, "m")), dialogue_steps(LOCKER))
    assert [len(s.operations) for s in trace][2:5] == [1, 1, 2]
    assert trace[4].operations[1].reason == "memory needed at step 4: m: (A) yes"
    assert "7391" in trace.project(5).text()


def test_the_trace_json_holds_scores_and_judgements():
    _, trace, t, _ = _judged(OverlapJudge(), v_max=150)
    data = json.loads(trace.to_json())
    text = json.dumps(data)
    assert '"scores"' in text and '"judgements"' in text and "memory not needed" not in text
    joke = run(SCM(space(), variant="paper", k=2), dialogue_steps(LOCKER)).to_json()
    assert "memory not needed: no recall cue" in joke


def test_the_player_shows_scores_and_judgements_escaped():
    def judge(m, s, q):
        return "full", "<b>kept</b>"

    _, trace, t, op = _judged(judge, v_max=150)
    html = step_html(trace, t + 1)
    assert "scores</span>: #" in html and "judgements</span>:" in html
    assert "&lt;b&gt;kept&lt;/b&gt;" in html and "<b>kept</b>" not in html


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"ranking": "recency+relevance"}, {"needs_memory": always_needs_memory, "flash_threshold": 20}, {"k": 2, "summary_budget": 4}],
)
def test_check_mechanism_passes_with_the_controller(kwargs):
    report = check_mechanism(SCM(space(120), **kwargs))
    assert report.ok, report


def test_a_controller_that_raises_names_the_step_and_leaves_omega():
    def broken(message, memories):
        raise RuntimeError("model offline")

    with pytest.raises(UpdateFailedError, match=r"step 2: .*decide whether memory is needed.*model offline"):
        run(SCM(space(), needs_memory=broken), dialogue_steps(LOCKER))


def test_the_plan_shared_by_controller_and_update_equals_a_fresh_mechanism():
    """The controller plans the activation and the update reuses it: the same states as planning anew every step."""
    steps = dialogue_steps(FACTS * 4)
    shared = SCM(space(150), k=3, summary_budget=8)
    trace = run(shared, steps)
    for t in range(len(steps)):
        fresh = SCM(space(150), k=3, summary_budget=8)
        state = trace.state_at(t)
        context = trace[t].context
        for op in fresh.choose(state, context):
            assert op in trace[t].operations
            state = fresh.apply(state, op, context).state
        assert state == trace.state_at(t + 1), t


# -- as released (issue 25) -----------------------------------------------------------------------


def test_as_released_memory_is_retrieved_for_every_message_once_there_are_older_turns():
    """Before, the default asked RecallHeuristic and answered "Tell me a joke." without memory; the released
    chatbot never calls is_history_need and retrieves from its third turn on (cur_turn_index > 2)."""
    trace = run(SCM(space(), k=2), dialogue_steps(LOCKER))
    assert SCM(space()).variant == "released" and SCM(space()).ranking == "relevance"
    ops = [[o.type for o in step.operations] for step in trace]
    assert ops[1] == ["add_interaction"]  # second turn: only the previous turn, nothing older to retrieve from
    assert all(o == ["add_interaction", "activate_memory"] for o in ops[2:len(LOCKER)])  # the joke at step 3 too
    assert "is_history_need is never called" in trace[3].operations[1].reason
    paper = SCM(space(), variant="paper")
    assert isinstance(paper.needs_memory, RecallHeuristic) and paper.ranking == "recency+relevance"
    assert paper.summary_threshold == 0 and paper.params()["variant"] == "paper"
    with pytest.raises(InvalidArgumentError, match="variant"):
        SCM(space(), variant="original")


def test_as_released_a_short_turns_summary_is_the_turn_itself():
    """Before, every summary was an extractive cut to summary_budget = 64 tokens (an 80-token turn became 50);
    the released code keeps the turn itself unless its summarization prompt exceeds 300 tokens."""
    from stmviz.mechanisms.scm import RELEASED_SUMMARY_THRESHOLD, SUMMARY_PROMPT_TOKENS

    short = dialogue_steps([("Tell me about Lisbon trams " * 6, "They climb the hills. " * 6), ("Thanks!", "Welcome.")])
    full, _ = interaction_text(short[1], short[0])
    n = sizes.count_tokens(full)
    assert 64 < n and n + SUMMARY_PROMPT_TOKENS <= RELEASED_SUMMARY_THRESHOLD
    flash = run(SCM(space(1000), flash_threshold=n), short).state_at(2).where(type="flash")[0]
    assert flash.meta["form"] == "summary" and flash.content == full  # its "summary" is itself
    long = dialogue_steps([("Tell me about Lisbon trams " * 30, "They climb the hills. " * 30), ("Thanks!", "Welcome.")])
    full, _ = interaction_text(long[1], long[0])
    assert sizes.count_tokens(full) + SUMMARY_PROMPT_TOKENS > RELEASED_SUMMARY_THRESHOLD
    flash = run(SCM(space(2000), flash_threshold=300, summary_budget=16), long).state_at(2).where(type="flash")[0]
    assert flash.meta["form"] == "summary" and sizes.count_tokens(flash.content) <= 16  # a model's summary
