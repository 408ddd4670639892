"""HiAgent as its authors built it (issue 16): subgoals from the model's output, summarized observations with a
verdict, retrieve(ids…) of full trajectories until the next switch, oldest-first overflow, π that offers retrieval."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from stmviz import HiAgent, StateSpace, check_mechanism, run, sizes
from stmviz.text.subgoal_summary import ObservationSummarizer, SubgoalPair, informative_sentences, verdict_of
from stmviz.text.openai import OpenAISubgoalSummarizer

QUERY = "Put a clean mug on the desk"


def make(v_max: int = 1000, mu=None, **kw) -> HiAgent:
    return HiAgent(StateSpace(mu or sizes.tokens(), v_max), **kw)


def five_subgoals(retrieve_at: dict | None = None) -> list[dict]:
    """Subgoals 1–4 finish; subgoal 5 asks (at its first step) to retrieve 1 and 2; subgoal 6 starts after two steps."""
    steps = [
        {"subgoal": "find a mug", "action": "look()", "observation": "A cupboard and a sink stand here."},
        {"action": "open('cupboard')", "observation": "A dirty red mug is inside.", "subgoal_done": True},
        {"subgoal": "clean the mug", "action": "go('sink')", "observation": "The tap is dripping slowly."},
        {"action": "wash('mug')", "observation": "The mug is clean.", "subgoal_done": True},
        {"thought": "Subgoal: find the desk\nIt is in the study.", "action": "go('study')", "observation": "Nothing happens."},
        {"subgoal": "try the hall", "action": "go('hall')", "observation": "A desk with a lamp stands in the hall."},
        {"subgoal": "put it on the desk", "action": "put('mug', 'desk')", "observation": "Placed near the lamp.",
         "directives": {"retrieve": [1, 2]}},
        {"action": "look()", "observation": "The mug is on the desk."},
        {"subgoal": "report", "action": "say('done')", "observation": "Thanks."},
    ]
    return steps


# --------------------------------------------------------------------------- 1. subgoals from the model's output


def test_subgoals_come_from_markers_and_subgoal_lines_only():
    trace = run(make(), five_subgoals(), query=QUERY)
    sources = [op.get("source") for step in trace for op in step.operations if op.type == "subgoal"]
    assert sources == ["marker", "marker", "thought", "marker", "marker", "marker"]
    texts = [e.meta["goal"] for e in trace.state_at(7).where(type="summary")]
    assert texts == ["find a mug", "clean the mug", "find the desk", "try the hall"]


# --------------------------------------------------------------------------- 2. summarized observation with a verdict


def test_summary_keeps_observations_not_actions_and_states_a_verdict():
    trace = run(make(), five_subgoals(), query=QUERY)
    summaries = {e.meta["subgoal"]: e for e in trace.state_at(6).where(type="summary")}
    summaries[4] = next(e for e in trace.state_at(9).where(type="summary") if e.meta["subgoal"] == 4)
    first = summaries[1].text
    assert "dirty red mug" in first and "cupboard" in first and "open(" not in first and "Action" not in first
    assert first.endswith("Verdict: achieved.") and summaries[1].meta["achieved"] is True  # subgoal_done
    assert summaries[3].text.endswith("Verdict: not achieved.")  # "Nothing happens." ended it
    assert summaries[4].text.endswith("Verdict: not confirmed.")  # ended by a switch, no cue
    assert summaries[4].meta["achieved"] is None


def test_verdict_heuristic_and_informative_sentences():
    assert verdict_of([SubgoalPair(0, "a", "x"), SubgoalPair(1, "b", "The task is complete.")]) is True
    assert verdict_of([SubgoalPair(0, "a", "x", thought="That finished it.")]) is True
    assert verdict_of([SubgoalPair(0, "open safe", "You cannot open it.")]) is False
    assert verdict_of([]) is None
    assert informative_sentences("go to cabinet 1", "You arrive at cabinet 1. The cabinet 1 is closed.") == []
    text, achieved = ObservationSummarizer()("g", [SubgoalPair(0, "go to cabinet 1", "You arrive at cabinet 1.")], 20)
    assert text == "You arrive at cabinet 1." and achieved is None  # nothing informative: the last observation


def test_a_summarizer_that_breaks_its_contract_is_refused():
    steps = five_subgoals()[:3]
    with pytest.raises(Exception, match="summarize_subgoal returned"):
        run(make(summarize_subgoal=lambda subgoal, pairs, budget: "no verdict"), steps, query=QUERY)
    with pytest.raises(ValueError, match="summarize_subgoal must be a callable"):
        make(summarize_subgoal="llm")


class _FakeChat:
    """An OpenAI-compatible client that records requests and answers with a fixed reply."""

    def __init__(self, reply: str):
        self.reply, self.requests = reply, []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **request):
        self.requests.append(request)
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=self.reply))])


@pytest.mark.parametrize(
    "reply, achieved",
    [
        ("The mug was in the cupboard, dirty.\nAchieved: yes", True),
        ("Only a sink was seen.\nachieved: NO.", False),
        ("The cupboard was opened.\n**Achieved:** unclear", None),
        ("The cupboard was opened.", None),
    ],
)
def test_llm_adapter_with_a_fake_client(reply, achieved):
    client = _FakeChat(reply)
    summarizer = OpenAISubgoalSummarizer(client, "some-model", temperature=0)
    trace = run(make(summarize_subgoal=summarizer), five_subgoals()[:3], query=QUERY)
    (request,) = client.requests
    assert request["model"] == "some-model" and request["temperature"] == 0
    prompt = request["messages"][0]["content"]
    assert "Subgoal: find a mug" in prompt and "Action: open('cupboard')" in prompt
    assert "Observation: A dirty red mug is inside." in prompt
    (summary,) = trace.final.where(type="summary")
    assert summary.meta["achieved"] is achieved and "Achieved" not in summary.text and "achieved:" not in summary.text
    assert summary.text.startswith("find a mug → observed: ")
    with pytest.raises(ValueError, match="OpenAI-compatible"):
        OpenAISubgoalSummarizer(object(), "m")


# --------------------------------------------------------------------------- 3. retrieve(ids…)


def test_retrieve_of_two_subgoals_restores_full_trajectories_then_folds_back_at_the_next_switch():
    steps = five_subgoals()
    trace = run(make(), steps, query=QUERY)
    before = trace.state_at(6)
    after = trace.state_at(7)  # the retrieve directive was in step 6's output
    retrieved = after.where(type="retrieved")
    assert [(e.meta["subgoal"], e.meta["step"]) for e in retrieved] == [(1, 0), (1, 1), (2, 2), (2, 3)]
    heads = {e.meta["subgoal"]: e for e in after.where(type="summary")}
    assert heads[1].meta["expanded"] and heads[2].meta["expanded"] and not heads[3].meta.get("expanded")
    x = trace.project(7).text()
    assert "Finished subgoal 1 (steps 0–1; achieved), retrieved in full: find a mug" in x
    assert "Observation: A dirty red mug is inside." in x and "Action: wash('mug')" in x
    assert "find a mug → observed" not in x  # in place of the summary, not under it
    assert trace.state_at(8).where(type="retrieved") == retrieved  # still there one step later
    # step 8 starts a new subgoal: the trajectories fold back to the very summaries they replaced
    folded = trace.state_at(9)
    assert not folded.where(type="retrieved")
    assert [e for e in folded.where(type="summary") if e.meta["subgoal"] in (1, 2)] == [
        e for e in before.where(type="summary") if e.meta["subgoal"] in (1, 2)
    ]
    assert any("folds back to its summary" in r for r in trace[8].reasons)


def test_retrieve_as_the_released_agent_writes_it_and_the_legacy_meta_form():
    base = five_subgoals()[:6]
    for extra in ({"action": "retrieve(1, 2)"}, {"action": "x()", "meta": {"retrieve": 2}}):
        steps = base + [{**extra, "observation": "ok"}]
        final = run(make(), steps, query=QUERY).final
        assert {e.meta["subgoal"] for e in final.where(type="retrieved")} == ({1, 2} if "retrieve(" in extra["action"] else {2})
    assert "retrieve" in HiAgent.directives


# --------------------------------------------------------------------------- 4. overflow: oldest first


def test_overflow_drops_the_oldest_memory_first_not_the_current_subgoals_pairs():
    """Before, the current subgoal's pairs went first and old summaries last."""
    words = sizes.words
    steps = five_subgoals()[:6] + [{"action": f"step({i})", "observation": f"result {i} " * 6} for i in range(4)]
    m = make(v_max=90, mu=words)
    trace = run(m, steps, query=QUERY)
    final = trace.final
    ids = [e.meta["subgoal"] for e in final.where(type="summary")]
    pairs = [e.meta["step"] for e in final.where(type="pair")]
    assert pairs == list(range(5, 10))  # every pair of the current subgoal stayed
    assert ids == []  # the summaries, older than every pair of the current subgoal, went first
    dropped = [r for step in trace for r in step.reasons if "the oldest memory first" in r]
    assert [r.split(" dropped")[0] for r in dropped] == [f"summary of subgoal {k}" for k in (1, 2, 3)]
    assert all(trace.size_at(t) <= 90 for t in range(len(trace) + 1))


# --------------------------------------------------------------------------- 5. select: off by default


def test_select_is_off_by_default_and_labelled_as_stmviz_reading():
    m = make()
    assert m.keep_pairs is None
    trace = run(m, [{"subgoal": "g", "action": f"a{i}()", "observation": f"o {i}"} for i in range(12)], query=QUERY)
    assert not any(op.type == "select" for step in trace for op in step.operations)
    assert "stmviz's reading of the paper's Section 4, not in the released agent" in " ".join(HiAgent.__doc__.split())


# --------------------------------------------------------------------------- 6. π offers retrieval


def test_pi_tells_the_model_it_may_retrieve_and_which_ids():
    trace = run(make(), five_subgoals(), query=QUERY)
    assert "retrieve(" not in trace.project(1).text()  # nothing finished yet
    last = trace.project(6).text().splitlines()[-1]
    assert "retrieve(ids…)" in last and last.endswith("ids among: 1, 2, 3.")
    assert trace.project(7).text().splitlines()[-1].endswith("ids among: 3, 4.")  # 1 and 2 are expanded
    m = make()
    for t in range(len(trace) + 1):
        assert abs(m.projection_size(trace.state_at(t)) - m.count_tokens(trace.project(t).text())) <= 2 * (len(trace.state_at(t)) + 1)


# --------------------------------------------------------------------------- the contract and the hierarchy


@pytest.mark.parametrize("v_max", [60, 200, 1000])
def test_check_mechanism_and_hierarchy(v_max):
    m = make(v_max=v_max)
    report = check_mechanism(m, steps=five_subgoals(), query=QUERY)
    assert report.ok, report
    trace = run(make(), five_subgoals(), query=QUERY)
    h = trace.mechanism.hierarchy(trace.state_at(7))
    parents = {child.meta.get("step"): parent for parent, child in h.edges if child.type == "retrieved"}
    assert parents[0].type == "summary" and parents[0].meta["subgoal"] == 1 and parents[0].meta["expanded"]
    assert parents[3].meta["subgoal"] == 2


# --------------------------------------------------------------------------- as released (issue 25) and retrieval (issue 28)


def test_steps_before_the_first_subgoal_stay_verbatim_and_subgoals_count_from_1():
    """Before: a rule chunk "steps from 0" was summarized as "Finished subgoal 0" when the first subgoal started,
    and the model's first subgoal became subgoal 1 (the released agent keeps those steps verbatim and calls it 1)."""
    steps = [
        {"action": "look()", "observation": "A kitchen. A note says: the code is 4417."},
        {"subgoal": "find the key", "action": "open('drawer')", "observation": "A key."},
        {"subgoal": "open the door", "action": "use('key')", "observation": "Open."},
        {"action": "retrieve(1)", "observation": "Done."},
        {"action": "wait()", "observation": "Quiet."},
    ]
    trace = run(make(), steps, query=QUERY)
    x = trace.project(3).text().splitlines()
    assert x[1] == "[step 0] Action: look()" and "the code is 4417" in x[2]  # verbatim, not summarized
    assert x[3].startswith("Finished subgoal 1 (step 1): find the key")
    assert x[4] == "Current subgoal 2: open the door"
    assert not [e for s in trace for e in s.removed if e.meta.get("step") == 0]
    expanded = [e for e in trace.state_at(4).where(type="summary") if e.meta.get("expanded")]
    assert [e.meta["goal"] for e in expanded] == ["find the key"]  # retrieve(1) names the first subgoal


def test_check_valid_actions_pairs_are_left_out_of_the_summarizers_input():
    seen = []

    def summarize_subgoal(goal, pairs, budget):
        seen.append([p.action for p in pairs])
        return "ok", True

    steps = [
        {"subgoal": "take the mug", "action": "take mug", "observation": "Nothing happens."},
        {"action": "check valid actions", "observation": "Valid actions: take mug 1, look."},
        {"action": "take mug 1", "observation": "You take the mug 1."},
        {"subgoal": "wash it", "action": "go to sink", "observation": "A sink."},
    ]
    run(HiAgent(StateSpace(sizes.tokens(), 2000), summarize_subgoal=summarize_subgoal), steps, query=QUERY)
    assert seen == [["take mug", "take mug 1"]]


def test_retrieval_says_which_pairs_came_back_and_why_the_others_did_not():
    """Issue 28: on household at step 16, retrieve(1, 3) restored only step 2 of subgoal 1; steps 0–1 entered and left
    in the same update with no reason recorded, and π still said "retrieved in full"."""
    from stmviz import load_scenario

    scenario = load_scenario("household")
    trace = run(HiAgent(StateSpace(sizes.tokens(), scenario.v_max)), scenario)
    assert trace[16].operation.endswith("retrieve(subgoals=(1, 3))")
    omega = trace.state_at(17)
    back = sorted(e.meta["step"] for e in omega.where(type="retrieved") if e.meta["subgoal"] == 1)
    head = next(e for e in omega.where(type="summary") if e.meta["subgoal"] == 1)
    assert head.meta["restored"] == tuple(back) and head.meta["steps"] == (0, 1, 2)
    line = next(line for line in trace.project(17).text().splitlines() if line.startswith("Finished subgoal 1 "))
    if back == [0, 1, 2]:
        assert "retrieved in full" in line
    else:
        assert "retrieved in full" not in line and f"retrieved in part (step{'s' if len(back) > 1 else ''} " in line
        summary = next(e for e in trace[16].removed if e.type == "summary" and e.meta["subgoal"] == 1)
        why = trace[16].why[summary]
        for s in sorted({0, 1, 2} - set(back)):  # each pair not kept: its step, the rule and the bound
            assert f"step {s} not kept: retrieved pair (step {s}) dropped, the oldest memory first: " in why
            assert "> V_max = 600" in why


def test_a_header_says_so_when_overflow_later_drops_its_retrieved_pairs():
    long = " ".join(f"w{i}" for i in range(40))
    steps = [
        {"subgoal": "a", "action": "a1()", "observation": "alpha " + long},
        {"action": "a2()", "observation": "beta " + long, "subgoal_done": True},
        {"subgoal": "b", "action": "b1()", "observation": "short", "directives": {"retrieve": [1]}},
    ] + [{"action": f"b{i}()", "observation": f"gamma {i} " + long} for i in range(2, 5)]
    m = HiAgent(StateSpace(sizes.tokens(), 260))
    trace = run(m, steps, query=QUERY)
    for t in range(3, len(trace) + 1):
        omega = trace.state_at(t)
        for head in (e for e in omega.where(type="summary") if e.meta.get("expanded")):
            held = tuple(e.meta["step"] for e in omega.where(type="retrieved") if e.meta["subgoal"] == head.meta["subgoal"])
            assert head.meta["restored"] == held, t
            line = m._line(head)[0]
            assert ("retrieved in full" in line) == (held == head.meta["steps"]), (t, line)
