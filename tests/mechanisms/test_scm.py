"""Tests of SCM, the Self-Controlled Memory framework, as Section 4 of the paper describes it."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import (
    SCM,
    AgentStep,
    Context,
    FIFOWindow,
    ModelInput,
    Operation,
    State,
    StateSpace,
    Trace,
    check_mechanism,
    run,
    sizes,
)
from stmviz.errors import UpdateFailedError
from stmviz.core.context import History
from stmviz.mechanisms.scm import interaction_text, pending_message
from stmviz.text.scm_judges import always_needs_memory

RR = {"ranking": "recency+relevance", "needs_memory": always_needs_memory}  # the paper's ranking, at every step
from stmviz.text import OpenAIEmbedder, OpenAISummarizer, cosine, embed

TOPICS = [
    "The weather in Lisbon is sunny and warm today.",
    "Pasta with tomato sauce is ready for dinner.",
    "The train to Porto leaves from platform four.",
    "Jazz music plays softly in the cafe downstairs.",
    "The garden roses need watering every morning.",
    "A new chess club opens near the library.",
    "Football practice moves to Thursday evening.",
    "The museum exhibits ancient pottery this month.",
]


def dialogue_steps(turns: list[tuple[str, str]]) -> list[AgentStep]:
    """Turns (u_k, a_k) in the order of run(): step 0 = (–, u_0), step k = (a_{k−1}, u_k), the last = (a_n, –)."""
    steps = [AgentStep(observation=turns[0][0], meta={"role": "user"})]
    steps += [AgentStep(thought=turns[k - 1][1], observation=turns[k][0], meta={"role": "user"}) for k in range(1, len(turns))]
    steps.append(AgentStep(thought=turns[-1][1]))
    return steps


def probe_dialogue(n: int = 40, seed: int = 0) -> list[AgentStep]:
    """A fact in turn 2, filler chatter, and a question about the fact in turn n (asked at step n, answered at n + 1).

    The fact's interaction (u_2, a_2) is filed at step 3: its index is 3.
    """
    rng = random.Random(seed)
    turns = []
    for t in range(n):
        if t == 2:
            turns.append(("My locker code is 7391.", "Noted, your locker code is 7391."))
        else:
            turns.append((f"Tell me something. {rng.choice(TOPICS)}", f"Sure. {rng.choice(TOPICS)}"))
    turns.append(("What is my locker code?", "It is 7391."))
    return dialogue_steps(turns)


def rows(steps: list[AgentStep]) -> list[tuple[str, str]]:
    """The interaction filed at each step: (full text, raw text)."""
    return [interaction_text(s, steps[i - 1] if i else None) for i, s in enumerate(steps)]


def tokens_space(v_max: int = 300) -> StateSpace:
    return StateSpace(sizes.tokens(), v_max)


# -- the paper's example: E, O, C, U, π ---------------------------------------------------


def test_paper_example_elements_E_is_I_times_D():
    scm = SCM(tokens_space(), k=2, flash_size=2)
    steps = probe_dialogue(12)  # the question arrives at step 12, the reply is step 13's output
    trace = run(scm, steps)
    for state in trace.states():
        assert state in scm.space  # V_max bounds activation + flash memory + the current message
        assert len(state.where(type="message")) <= 1
        for e in state:
            # D: interaction index, embedding, type (activation / flash / message); plus form and the sort key
            assert e.type in ("activation", "flash", "message")
            if e.type == "message":
                assert e.t == e.meta["step"] + 0.5 and "index" not in e.meta
            else:
                assert e.meta["index"] == e.t == e.meta["step"]
            assert e.meta["form"] in ("full", "summary")
            assert isinstance(e.meta["embedding"], tuple) and len(e.meta["embedding"]) == 64
    # the input of the reply: flash memory (steps 11, 12), then the question as the current message
    before = trace.state_at(13)
    flash = before.where(type="flash")
    assert [e.meta["index"] for e in flash] == [11, 12]
    # I: (observation, response) in full form: the interaction filed at step 12 is turn 11 and its reply
    full, raw = interaction_text(steps[12], steps[11])
    assert full == f"Observation: {steps[11].observation}\nResponse: {steps[12].thought}"
    assert flash[-1].text == full and flash[-1].meta["embedding"] == embed(raw)
    (message,) = before.where(type="message")
    assert message.text == "Observation: What is my locker code?" and message.meta["embedding"] == embed(steps[12].observation)
    assert len(before.where(type="activation")) == 2
    # after the last reply (no input after it): the question and its reply are one interaction, in flash memory
    final = trace.final
    assert [e.meta["index"] for e in final.where(type="flash")] == [12, 13] and not final.where(type="message")
    assert final.where(type="flash")[-1].text == "Observation: What is my locker code?\nResponse: It is 7391."


def test_paper_example_operations_O_and_controller():
    scm = SCM(tokens_space(), k=3, flash_size=2, needs_memory=always_needs_memory)
    assert set(scm.operations.types) == {"add_interaction", "activate_memory"}
    trace = run(scm, probe_dialogue(6))
    # memory activation: only once there is memory older than flash memory (interaction 0 is empty:
    # the user spoke first, so step 2 has nothing to retrieve either)
    assert [o.type for o in trace[0].operations] == ["add_interaction"]
    assert [o.type for o in trace[1].operations] == ["add_interaction"]
    assert [o.type for o in trace[2].operations] == ["add_interaction"]
    assert [o.type for o in trace[3].operations] == ["add_interaction", "activate_memory"]
    assert {key: trace[3].operations[1][key] for key in ("k", "form")} == {"k": 3, "form": "auto"}
    # k = 0 disables activation memory
    assert all(len(s.operations) == 1 for s in run(SCM(tokens_space(), k=0), probe_dialogue(6)))


def test_paper_example_context_C_observation_and_embedding_ranks_memory():
    steps = probe_dialogue(40)
    scm = SCM(tokens_space(), k=1, flash_size=2)
    trace = run(scm, steps)
    (activated,) = trace.state_at(41).where(type="activation")  # retrieved at step 40, where the question arrives
    assert activated.meta["index"] == 3  # the most relevant to the current message
    # relevance is cosine(embed(current message), embed(interaction))
    query = embed(steps[40].observation)
    texts = rows(steps)
    fact = cosine(query, embed(texts[3][1]))
    others = [cosine(query, embed(texts[i][1])) for i in range(1, 39) if i != 3]  # the candidates 1 … t − flash_size
    assert fact > max(others)


def test_paper_example_update_U_ranks_by_recency_plus_relevance():
    steps = probe_dialogue(40)
    # with recency alone, the newest interactions older than flash memory win
    recent = run(SCM(tokens_space(600), k=3, relevance_weight=0, **RR), steps)
    assert [e.meta["index"] for e in recent.state_at(41).where(type="activation")] == [37, 38, 39]
    # with relevance alone, the fact wins
    relevant = run(SCM(tokens_space(600), k=3, recency_weight=0, **RR), steps)
    assert 3 in [e.meta["index"] for e in relevant.state_at(41).where(type="activation")]


def test_paper_example_update_U_summarizes_when_full_text_does_not_fit():
    long_steps = [AgentStep(observation=("Fact %d. " % t) + "Lots of detail here. " * 30, thought="ok") for t in range(8)]
    scm = SCM(tokens_space(400), variant="paper", k=3, flash_size=1, summary_budget=16)  # every turn summarized
    trace = run(scm, long_steps)
    forms = {e.meta["form"] for s in trace.states() for e in s.where(type="activation")}
    assert "summary" in forms
    for state in trace.states():
        assert state in scm.space
        for e in state.where(form="summary"):
            assert sizes.count_tokens(e.text) <= 16


def test_paper_example_projection_pi_is_input_fusion():
    scm = SCM(tokens_space(), k=2, flash_size=2)
    trace = run(scm, probe_dialogue(40))
    x = trace.project(41)  # what the model saw when it replied to the question
    assert isinstance(x, ModelInput)
    roles = [m.role for m in x]
    # related history (activated memories), previous conversation (flash memory), the current message
    assert roles == ["system", "system", "user", "user", "user"]
    assert "7391" in x[0].content + x[1].content
    assert x[-1].content == "Observation: What is my locker code?"
    assert trace[41].input_size == scm.projection_size(trace.state_at(41)) == sum(sizes.count_tokens(m.content) for m in x)
    assert trace.final_input_size == scm.projection_size(trace.final)


def test_early_fact_retrievable_where_fifo_lost_it():
    hits_scm = hits_fifo = 0
    for seed in range(5):
        steps = probe_dialogue(40, seed=seed)
        scm_trace = run(SCM(tokens_space(300)), steps)
        fifo_trace = run(FIFOWindow(tokens_space(300)), steps)
        question = len(steps) - 1  # the step whose output answers the question
        hits_scm += "7391" in scm_trace.project(question).text()
        hits_fifo += "7391" in fifo_trace.project(question).text()
    assert hits_fifo == 0
    assert hits_scm >= 4


# -- options and pluggable helpers ---------------------------------------------------------------


def test_flash_window_slides_with_reasons():
    scm = SCM(tokens_space(), k=0, flash_size=2)
    trace = run(scm, probe_dialogue(5))
    assert [e.meta["index"] for e in trace.final] == [5, 6]
    step = trace[5]
    assert [(e.type, e.meta["step"]) for e in step.removed] == [("flash", 3), ("message", 4)]
    assert step.reasons == (
        "left flash memory: interaction 3 is older than the newest flash_size = 2",
        "the message of step 4 got its reply: filed with it as interaction 5",
    )


def test_activation_reason_when_re_ranked():
    scm = SCM(tokens_space(), k=1, flash_size=1)
    trace = run(scm, probe_dialogue(10))
    reasons = [r for s in trace for e, r in s.why.items() if e.type == "activation"]
    assert reasons and all(r.startswith("activation memory is re-ranked") for r in reasons)


def test_form_parameter_full_and_summary():
    scm = SCM(tokens_space(), k=2, flash_size=1)
    trace = run(scm, probe_dialogue(6))
    state, ctx = trace.state_at(6), trace[5].context
    base = scm.apply(state, Operation("add_interaction"), ctx).state
    summ = scm.apply(base, Operation("activate_memory", {"k": 2, "form": "summary"}), ctx).state
    assert {e.meta["form"] for e in summ.where(type="activation")} == {"summary"}
    full = scm.apply(base, Operation("activate_memory", {"k": 2, "form": "full"}), ctx).state
    assert {e.meta["form"] for e in full.where(type="activation")} == {"full"}
    with pytest.raises(ValueError, match="form must be one of"):
        scm.apply(base, Operation("activate_memory", {"form": "half"}), ctx)
    with pytest.raises(ValueError, match="k must be a whole number"):
        scm.apply(base, Operation("activate_memory", {"k": -1}), ctx)


def test_custom_summarize_and_embed_are_used_and_cached():
    calls = {"summarize": 0, "embed": 0}

    def my_summarize(texts, budget):
        calls["summarize"] += 1
        return "S: " + texts[0][:20]

    def my_embed(text):
        calls["embed"] += 1
        return [float(text.count(c)) for c in "aeiou"]

    steps = [AgentStep(observation="x " * 300 + str(t), thought="ok") for t in range(6)]
    scm = SCM(tokens_space(420), k=2, flash_size=1, summarize=my_summarize, embed=my_embed)
    trace = run(scm, steps)
    assert calls["summarize"] >= 1
    assert all(len(e.meta["embedding"]) == 5 for s in trace.states() for e in s)
    assert any(e.text.startswith("S: ") for s in trace.states() for e in s)
    n = calls["embed"]
    run(scm, steps)  # a second run reuses the caches
    assert calls["embed"] == n


def test_summarizer_that_raises_leaves_state_untouched():
    def broken(texts, budget):
        raise RuntimeError("model offline")

    steps = [AgentStep(observation="y " * 300 + str(t), thought="ok") for t in range(6)]
    scm = SCM(tokens_space(420), k=2, flash_size=1, summarize=broken)
    with pytest.raises(UpdateFailedError) as info:
        run(scm, steps)
    error = info.value
    assert error.step is not None and f"step {error.step}" in str(error) and "model offline" in str(error)
    assert isinstance(error.__cause__, RuntimeError)
    before = error.trace
    assert len(before) == error.step
    good = run(SCM(tokens_space(420), k=2, flash_size=1, summarize=lambda t, b: "short"), steps[: error.step])
    assert before.final == good.final


def test_embedder_that_raises_names_the_step():
    def broken(text):
        raise ConnectionError("no embeddings today")

    with pytest.raises(UpdateFailedError, match="step 0: .*no embeddings today"):
        run(SCM(tokens_space(), embed=broken), probe_dialogue(3))


class _FakeOpenAI:
    """A stand-in for an OpenAI SDK client: .chat.completions.create and .embeddings.create."""

    def __init__(self):
        self.chat_calls = []
        self.embedding_calls = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._chat))
        self.embeddings = SimpleNamespace(create=self._embed)

    def _chat(self, *, model, messages, **options):
        self.chat_calls.append((model, messages))
        text = messages[-1]["content"]
        first = text.split("\n\n", 1)[1].split(".")[0]
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=f" Summary: {first}. "))])

    def _embed(self, *, model, input, **options):
        self.embedding_calls.append((model, input))
        vector = [float(len(input) % 7), float(input.count("e")), 1.0, float("locker" in input)]
        return SimpleNamespace(data=[SimpleNamespace(embedding=vector)])


def test_openai_compatible_client_as_summarize_and_embed():
    client = _FakeOpenAI()
    steps = [AgentStep(observation=f"Fact {t}. " + "filler words " * 120, thought="ok") for t in range(6)]
    scm = SCM(
        tokens_space(700),
        k=2,
        flash_size=1,
        summarize=OpenAISummarizer(client, "gpt-test"),
        embed=OpenAIEmbedder(client, "embed-test"),
    )
    trace = run(scm, steps)
    assert client.embedding_calls and all(m == "embed-test" for m, _ in client.embedding_calls)
    assert client.chat_calls and all(m == "gpt-test" for m, _ in client.chat_calls)
    summaries = [e for s in trace.states() for e in s.where(form="summary")]
    assert summaries and all(e.text.startswith("Summary: Fact") for e in summaries)
    assert all(len(e.meta["embedding"]) == 4 for s in trace.states() for e in s)
    assert all(s in scm.space for s in trace.states())


# -- bad inputs ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"k": -1}, ValueError, "k must be a whole number ≥ 0"),
        ({"k": 2.5}, ValueError, "k must be a whole number"),
        ({"k": True}, ValueError, "k must be a whole number"),
        ({"flash_size": 0}, ValueError, "flash_size must be a whole number ≥ 1"),
        ({"summary_budget": 0}, ValueError, "summary_budget must be a whole number ≥ 1"),
        ({"recency_weight": -0.1}, ValueError, "recency_weight must be a finite number ≥ 0"),
        ({"relevance_weight": float("nan")}, ValueError, "relevance_weight must be a finite number"),
        ({"recency_weight": 0, "relevance_weight": 0}, ValueError, "both 0"),
        ({"recency_decay": 0}, ValueError, r"recency_decay must be a number in \(0, 1\]"),
        ({"recency_decay": 1.5}, ValueError, "recency_decay"),
        ({"summarize": "extractive"}, TypeError, "summarize must be a callable"),
        ({"embed": 3}, TypeError, "embed must be a callable"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        SCM(tokens_space(), **kwargs)


def test_bad_embedding_vectors():
    with pytest.raises(UpdateFailedError, match="embed returned"):
        run(SCM(tokens_space(), embed=lambda text: []), probe_dialogue(2))
    sizes_ = iter(range(2, 1000))
    with pytest.raises(UpdateFailedError, match="dimensions"):
        run(SCM(tokens_space(), k=1, flash_size=1, embed=lambda text: [1.0] * next(sizes_)), probe_dialogue(4))


def test_summarizer_must_return_text():
    steps = [AgentStep(observation="z " * 300 + str(t), thought="ok") for t in range(4)]
    with pytest.raises(UpdateFailedError, match="summarize returned int"):
        run(SCM(tokens_space(420), k=2, flash_size=1, summarize=lambda texts, budget: 5), steps)


# -- contract, properties, determinism, JSON -------------------------------------------------------


@pytest.mark.parametrize("kwargs", [{}, {"k": 0}, {"flash_size": 1, "k": 5}, {"recency_weight": 0}])
def test_check_mechanism_passes(kwargs):
    report = check_mechanism(SCM(tokens_space(500), **kwargs))
    assert report, str(report)


def test_params_json_and_round_trip():
    scm = SCM(tokens_space(), k=2, flash_size=3, recency_weight=0.25, relevance_weight=1, summary_budget=32)
    json.dumps(scm.params())
    assert SCM(tokens_space(), **scm.params()).params() == scm.params()
    trace = run(scm, probe_dialogue(20))
    loaded = Trace.from_json(trace.to_json())
    assert loaded == trace
    assert isinstance(loaded.mechanism, SCM) and loaded.mechanism.params() == scm.params()
    assert loaded.project(15) == trace.project(15)


def test_two_runs_are_equal_and_history_of_another_kind_gives_the_same_result():
    steps = probe_dialogue(30, seed=3)
    a = run(SCM(tokens_space()), steps)
    b = run(SCM(tokens_space()), steps)
    assert a == b and a.to_json() == b.to_json()
    # U is a function of (ω, o, c): a fresh mechanism and a fresh history list give the same ω
    scm = SCM(tokens_space())
    t = 20
    ctx = Context(t=t, step=steps[t], history=History(list(steps[:t])))
    state = a.state_at(t)
    for op in scm.choose(state, ctx):
        state = scm.apply(state, op, ctx).state
    assert state == a.state_at(t + 1)


def test_long_run_uses_the_vectorized_ranking_consistently():
    rng = random.Random(7)
    turns = [(rng.choice(TOPICS), rng.choice(TOPICS) + f" {t}") for t in range(150)]
    turns[5] = ("My locker code is 7391.", "Noted.")
    turns.append(("What is my locker code?", "Checking."))
    steps = dialogue_steps(turns)
    texts = rows(steps)
    for rw, lw in ((0.5, 0.5), (0.0, 1.0), (1.0, 0.2)):
        scm = SCM(tokens_space(300), k=3, flash_size=2, recency_weight=rw, relevance_weight=lw, **RR)
        trace = run(scm, steps)
        t = len(steps) - 2  # the question arrives at step t; the reply is step t + 1's output
        query = embed(steps[t].observation)
        expected = sorted(
            range(1, t - scm.flash_size + 1),  # (step 0 files nothing: the user spoke first)
            key=lambda i: (-(rw * 0.99 ** (t - i) + lw * cosine(query, embed(texts[i][1]))), -i),
        )[:3]
        got = [e.meta["index"] for e in trace.state_at(t + 1).where(type="activation")]
        assert sorted(got) == sorted(expected)
        if rw == 0:
            assert 6 in got  # turn 5 and its reply, filed at step 6
        assert all(s in scm.space for s in trace.states())


_step = st.builds(
    AgentStep,
    thought=st.sampled_from(["", "ok", "I think so. " * 5, "Let me search."]),
    action=st.sampled_from(["", "", "search(x)"]),
    observation=st.sampled_from(["", "The code is 12.", "long text here " * 30, "What was the code?"]),
)


@settings(max_examples=40, deadline=None)
@given(
    steps=st.lists(_step, max_size=14),
    v_max=st.integers(1, 300),
    k=st.integers(0, 4),
    flash=st.integers(1, 3),
)
def test_streams_never_leave_omega(steps, v_max, k, flash):
    scm = SCM(tokens_space(v_max), k=k, flash_size=flash, summary_budget=16)
    trace = run(scm, steps)
    for t, state in enumerate(trace.states()):
        assert state in scm.space
        assert len(state.where(type="activation")) <= k
        assert all(e.meta.get("index", e.meta["step"]) < max(t, 1) for e in state)
        assert len(state.where(type="message")) <= 1
        x = scm.project(state)
        assert len(x) == len(state)


def test_state_given_by_hand_is_accepted():
    scm = SCM(tokens_space(), k=1, flash_size=1)
    out = scm.apply(State(), Operation("add_interaction"), Context(t=0, step=AgentStep(observation="hi")))
    assert [e.type for e in out.state] == ["message"]  # nothing answered yet: no interaction, the message waits
    out = scm.apply(State(), Operation("add_interaction"), Context(t=0, step=AgentStep(thought="Hello.", observation="hi")))
    assert [e.type for e in out.state] == ["flash", "message"]


@pytest.mark.parametrize("n", [20, 120])
def test_ties_go_to_the_newest_interactions(n):
    steps = [AgentStep(observation="same words here", thought="same reply") for _ in range(n)]
    scm = SCM(tokens_space(300), k=3, flash_size=2, needs_memory=always_needs_memory)
    trace = run(scm, steps)
    assert [e.meta["index"] for e in trace.final.where(type="activation")] == [n - 5, n - 4, n - 3]


@pytest.mark.parametrize(("rw", "lw", "decay"), [(0.5, 0.5, 0.99), (0.9, 0.1, 0.9), (1.0, 0.0, 0.95), (0.3, 0.7, 1.0)])
def test_ranking_over_a_long_stream_equals_brute_force(rw, lw, decay):
    """Past 256 interactions the ranking scores the newest first and stops early; it must pick what scoring all picks."""
    rng = random.Random(11)
    steps = [
        AgentStep(observation=f"{rng.choice(TOPICS)} {rng.choice(TOPICS)}", thought=f"{rng.choice(TOPICS)} ({t})")
        for t in range(700)
    ]
    scm = SCM(tokens_space(4000), k=4, flash_size=2, recency_weight=rw, relevance_weight=lw, recency_decay=decay, **RR)
    trace = run(scm, steps)
    embeddings = [embed(raw) for _, raw in rows(steps)]
    for t in (257, 300, 450, 511, 512, 640, 699):
        query = embed(steps[t].observation)
        candidates = range(t - scm.flash_size + 1)
        score = {i: rw * decay ** (t - i) + lw * cosine(query, embeddings[i]) for i in candidates}
        expected = sorted(candidates, key=lambda i: (-score[i], -i))[:4]
        got = {e.meta["index"] for e in trace.state_at(t + 1).where(type="activation")}
        assert got == set(expected), (t, sorted(got), sorted(expected))


# -- SCM retrieves for the message it is about to answer (issue 15) ------------------------------

LOCKER = [
    ("My locker code is 7391.", "Noted."),
    ("How is the weather?", "Sunny."),
    ("What is for dinner?", "Pasta."),
    ("What is my locker code?", "It is 7391."),
]


def test_locker_example_the_reply_is_produced_from_its_question_and_the_memory_retrieved_for_it():
    """The docstring's example. Before, memory was retrieved for a message but reached π one step after its reply."""
    steps = dialogue_steps(LOCKER)
    assert [(s.thought, s.observation) for s in steps] == [
        ("", "My locker code is 7391."),
        ("Noted.", "How is the weather?"),
        ("Sunny.", "What is for dinner?"),
        ("Pasta.", "What is my locker code?"),
        ("It is 7391.", ""),
    ]
    scm = SCM(tokens_space(200), k=1, flash_size=1)
    trace = run(scm, steps)
    assert trace[4].context.step.thought == "It is 7391."
    x = trace.project(4)  # what the model saw when it said "It is 7391."
    assert [(m.role, m.content) for m in x] == [
        ("system", "Observation: My locker code is 7391.\nResponse: Noted."),  # related history, retrieved at step 3
        ("user", "Observation: What is for dinner?\nResponse: Pasta."),  # previous conversation
        ("user", "Observation: What is my locker code?"),  # the current message
    ]
    # at step 3 (where the question arrives) U files the previous exchange and retrieves for the new message
    assert [o.type for o in trace[3].operations] == ["add_interaction", "activate_memory"]
    assert trace[3].operations[1]["scores"][0][0] == 1  # the interaction that holds the code ranks first
    assert [(e.type, e.meta["step"]) for e in trace.state_at(4)] == [("activation", 1), ("flash", 3), ("message", 3)]
    # as released, memory is activated for every message: "What is for dinner?" (step 2) too
    assert [o.type for o in trace[2].operations] == ["add_interaction", "activate_memory"]
    # every reply was produced from an input that holds the message it answers, paired with nothing else
    for k in range(1, len(steps)):
        assert trace.project(k)[-1].content == f"Observation: {LOCKER[k - 1][0]}"


def test_each_interaction_pairs_a_message_with_its_reply():
    steps = dialogue_steps(LOCKER)
    trace = run(SCM(tokens_space(500), k=0, flash_size=10), steps)
    flash = [e.text for e in trace.final.where(type="flash")]
    assert flash == [f"Observation: {u}\nResponse: {a}" for u, a in LOCKER]
    assert [e.meta["index"] for e in trace.final.where(type="flash")] == [1, 2, 3, 4]  # step 0 files nothing


def test_a_step_without_output_files_the_waiting_message_alone():
    steps = [
        AgentStep(observation="First message."),
        AgentStep(observation="Second message, before any reply."),  # no output: the first got no reply
        AgentStep(thought="Both read."),  # no input: the conversation ends on a reply
    ]
    trace = run(SCM(tokens_space(500), k=2, flash_size=2), steps)
    assert [(e.type, e.text) for e in trace.state_at(2)] == [
        ("flash", "Observation: First message."),
        ("message", "Observation: Second message, before any reply."),
    ]
    assert "First message." in trace.project(2).text() and "Second message" in trace.project(2).text()
    assert [(e.type, e.text) for e in trace.final] == [
        ("flash", "Observation: First message."),
        ("flash", "Observation: Second message, before any reply.\nResponse: Both read."),
    ]


def test_a_tool_step_is_its_own_interaction_and_takes_the_user_message_it_answers():
    steps = [
        AgentStep(observation="Find the price of the red lamp.", meta={"role": "user"}),
        AgentStep(thought="Search it.", action="search('red lamp')", observation="The red lamp costs 40 EUR.", meta={"role": "tool"}),
        AgentStep(thought="Open the page.", action="open(1)", observation="Page: red lamp, 40 EUR, in stock.", meta={"role": "tool"}),
        AgentStep(thought="It costs 40 EUR.", observation="Thanks. And the blue one?", meta={"role": "user"}),
    ]
    trace = run(SCM(tokens_space(800), k=3, flash_size=1), steps)
    assert trace.state_at(2).where(type="flash")[0].text == (
        "Observation: Find the price of the red lamp.\nResponse: Search it.\nsearch('red lamp')\n"
        "Observation: The red lamp costs 40 EUR."
    )
    assert not trace.state_at(2).where(type="message")  # the tool's result is in the step's own interaction
    for t in range(1, len(steps) + 1):  # every output was produced from an input holding the input it responds to
        assert pending_message(steps[t - 1]) in trace.project(t).text() or steps[t - 1].observation in trace.project(t).text()
    assert trace.project(4)[-1].content == "Observation: Thanks. And the blue one?"


_mixed_step = st.builds(
    AgentStep,
    thought=st.sampled_from(["", "ok", "I think so.", "Let me search."]),
    action=st.sampled_from(["", "", "search(x)"]),
    observation=st.sampled_from(["", "The code is 12.", "What was the code?", "Tell me about Lisbon."]),
)


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(_mixed_step, min_size=1, max_size=12), k=st.integers(0, 3), flash=st.integers(1, 3))
def test_with_room_for_everything_each_output_sees_the_input_it_responds_to(steps, k, flash):
    scm = SCM(tokens_space(10_000), k=k, flash_size=flash)
    trace = run(scm, steps)
    for t in range(1, len(steps)):
        if steps[t].output and steps[t - 1].observation:
            assert steps[t - 1].observation in trace.project(t).text()


def test_the_interaction_holding_the_latest_input_stays_while_the_model_keeps_acting_on_it():
    """Found by the loop-contract property: thoughts more relevant than a tool result pushed it out of π."""
    steps = [
        AgentStep(action="tool('apple')", observation="obs0 apple", meta={"role": "tool"}),
        *(AgentStep(thought=f"th{t} apple apple") for t in range(1, 4)),
        *(AgentStep(thought=f"th{t} apple") for t in range(4, 7)),
        AgentStep(thought="next", action="tool('pear')", observation="obs7 pear", meta={"role": "tool"}),
        AgentStep(thought="done"),
    ]
    trace = run(SCM(tokens_space(10_000), k=3, flash_size=2), steps)
    for t in range(1, 8):  # outputs with no input in between: each acts on the result of step 0
        assert "obs0 apple" in trace.project(t).text()
        assert 0 in [e.meta["index"] for e in trace.state_at(t).where(type="flash")]
    assert "obs7 pear" in trace.project(8).text()
    assert [e.meta["index"] for e in trace.state_at(9).where(type="flash")] == [7, 8]
    assert "left flash memory: interaction 0, older than the newest flash_size = 2, no longer holds the latest input" in trace[7].reasons


def test_scm_is_whole_in_its_module():
    """SCM takes no method from a helper base in another module: its one base is Mechanism, and every
    function in its class body was written in stmviz/mechanisms/scm.py (none assigned from elsewhere)."""
    from stmviz import Mechanism

    assert SCM.__bases__ == (Mechanism,)
    assert [c for c in SCM.__mro__ if c.__module__.startswith("stmviz.mechanisms")] == [SCM]
    for name, value in vars(SCM).items():
        function = getattr(value, "fget", None) or getattr(value, "__func__", value)
        if callable(function) and hasattr(function, "__code__"):
            assert function.__module__ == "stmviz.mechanisms.scm", (name, function.__module__)
