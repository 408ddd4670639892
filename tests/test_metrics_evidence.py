"""Evidence at question time: the text measures (hypothesis) and their records on real traces."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import Element, FIFOWindow, Mechanism, StateSpace, Transition, run, sizes
from stmviz import metrics
from stmviz.core.errors import InvalidArgumentError
from stmviz.scenarios import Probe, load_scenario


class Window(Mechanism):
    """Keep the newest observations that fit (μ = words); π joins them with blank lines."""

    name = "window"
    operations = {"append": "add the observation, dropping the oldest on overflow"}

    def update(self, state, operation, context):
        state = state | {Element(context.observation, {"t": context.t, "type": "user"})}
        reasons = {}
        while state not in self.space:
            oldest = state.ordered()[0]
            reasons[oldest] = "evict_oldest: Σμ > V_max"
            state = state - {oldest}
        return Transition(state, reasons)

    def project(self, state):
        return "\n\n".join(e.text for e in state)


class Digest(Mechanism):
    """Keeps one element: the first two words of every observation so far (a crude summary)."""

    name = "digest"
    operations = {"fold": "replace everything by the first two words of each observation"}

    def update(self, state, operation, context):
        words = [w for e in state for w in e.text.split()]
        words += context.observation.split()[:2]
        return state.replace(state, [Element(" ".join(words), {"t": context.t, "type": "summary"})])

    def project(self, state):
        return "\n".join(e.text for e in state)


STEPS = [
    "Sesame makes the user ill, she said.",
    "The weather is fine today in Lisbon.",
    "Order BH-58213-K ships to Kestrel Lane.",
    "Nothing else to report.",
]


def window(v_max):
    return run(Window(StateSpace(sizes.words, v_max=v_max)), STEPS)


# ----------------------------------------------------------------------------- the text measures

words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60)


def test_normalization_is_squads():
    assert metrics.normalize_answer("  The Aisle-seat,  an ÉCLAIR!_ ") == "aisleseat éclair"
    assert metrics.answer_tokens("a an the") == []
    assert metrics.content_tokens("It is what it is.") == frozenset()
    assert metrics.content_tokens("Ada likes sesame; Ada!") == frozenset({"ada", "likes", "sesame"})


def test_normalize_rejects_non_text():
    with pytest.raises(InvalidArgumentError, match="normalize_answer: text must be a str, got NoneType None"):
        metrics.normalize_answer(None)


@given(words, words)
def test_recalls_lie_in_unit_interval(evidence, text):
    for value in (metrics.content_recall(evidence, text), metrics.token_recall(evidence, text)):
        assert value is None or 0.0 <= value <= 1.0


@given(words, words, words)
def test_recall_is_one_when_the_text_holds_the_evidence_verbatim(evidence, before, after):
    text = f"{before} {evidence} {after}"
    assert metrics.content_recall(evidence, text) in (None, 1.0)
    assert metrics.token_recall(evidence, text) in (None, 1.0)


@given(words, words, words)
def test_recall_is_monotone_when_text_is_added(evidence, text, more):
    for recall in (metrics.content_recall, metrics.token_recall):
        before, after = recall(evidence, text), recall(evidence, text + "\n\n" + more)
        assert (before is None) == (after is None)
        if before is not None:
            assert after >= before


@given(words)
def test_recall_is_none_exactly_when_there_is_nothing_to_find(evidence):
    assert (metrics.content_recall(evidence, "") is None) == (not metrics.content_tokens(evidence))
    assert (metrics.token_recall(evidence, "") is None) == (not metrics.answer_tokens(evidence))


@given(words, words)
def test_f1_is_symmetric_and_bounded(a, b):
    f1 = metrics.token_f1(a, b)
    assert f1 == metrics.token_f1(b, a)
    assert 0.0 <= f1 <= 1.0


@given(words)
def test_f1_of_a_text_with_itself_is_one(a):
    assert metrics.token_f1(a, a) == 1.0


@settings(max_examples=50)
@given(st.lists(st.sampled_from("alpha beta gamma delta epsilon".split()), min_size=1, max_size=6),
       st.lists(st.sampled_from("alpha beta gamma delta epsilon".split()), min_size=1, max_size=6))
def test_f1_is_the_harmonic_mean_of_precision_and_recall(pred, ref):
    p = " ".join(pred)
    r = " ".join(ref)
    recall = metrics.token_recall(r, p)
    precision = metrics.token_recall(p, r)
    f1 = metrics.token_f1(p, r)
    if recall == 0:
        assert f1 == 0.0
    else:
        assert f1 == pytest.approx(2 * precision * recall / (precision + recall))


def test_f1_edge_cases():
    assert metrics.token_f1("", "") == 1.0
    assert metrics.token_f1("the", "") == 1.0  # both normalize to nothing
    assert metrics.token_f1("sesame", "") == 0.0
    assert metrics.token_f1("Sesame!", "sesame") == 1.0
    assert metrics.token_f1("blue mat", "red door") == 0.0


# ----------------------------------------------------------------------------- on traces


def test_evidence_kept_raw_then_lost():
    probe = Probe(3, "What makes the user ill?", "sesame", 0)
    kept, lost = window(100), window(8)
    assert metrics.evidence_recall(kept, probe) == 1.0
    assert metrics.whole_turns(kept, probe) == 1.0
    assert metrics.answer_recall(kept, probe) == 1.0
    # V_max = 8 words: step 1 evicted step 0, step 2 evicted step 1: π(ω_3) is step 2's text alone
    assert lost.project(3).text() == STEPS[2]
    assert metrics.evidence_recall(lost, probe) == 0.0
    assert metrics.whole_turns(lost, probe) == 0.0
    assert metrics.answer_recall(lost, probe) == 0.0


def test_a_summary_keeps_part_of_the_evidence_and_no_whole_turn():
    trace = run(Digest(StateSpace(sizes.words, v_max=100)), STEPS)
    probe = Probe(4, "Where does the order ship?", "Kestrel Lane", 2, reference="It ships to Kestrel Lane.")
    assert trace.project(4).text().startswith("Sesame makes The weather Order BH-58213-K")
    # content tokens of step 2: order, bh58213k, ships, kestrel, lane — two survive in the digest
    assert metrics.evidence_word_overlap(trace, probe) == pytest.approx(2 / 5)
    # its 4-grams (order bh58213k ships to, …) do not: two words in a row are no phrase of the evidence
    assert metrics.evidence_recall(trace, probe) == 0.0
    assert metrics.whole_turns(trace, probe) == 0.0
    assert metrics.answer_recall(trace, probe) == 0.0  # reference: ships, to, kestrel, lane
    assert metrics.probe_metrics(trace, [probe])[0]["retained"] is False


def test_evidence_over_several_steps_and_whole_turn_share():
    probe = Probe(4, "What is known?", "Kestrel", 2, evidence_steps=(0, 2))
    trace = window(15)  # steps 1, 2, 3 fit (7 + 6 + 4 = 17 > 15: step 1 leaves too) -> only 2 and 3
    text = trace.project(4).text()
    assert STEPS[2] in text and STEPS[0] not in text
    assert metrics.whole_turns(trace, probe) == 0.5
    overlap = metrics.evidence_word_overlap(trace, probe)
    assert overlap == metrics.content_recall(metrics.evidence_text(trace, probe), text)
    assert 0 < overlap < 1
    # step 0 (6 tokens: 3 4-grams) is gone, step 2 (6 tokens: 3 4-grams) is whole
    assert metrics.evidence_recall(trace, probe) == 0.5


def test_common_words_and_the_question_do_not_count_as_kept_evidence():
    # the evidence turn is evicted, but its words are everywhere else in the model input: the bag of words
    # measure finds most of them, the default measure none (it failed before: evidence_recall was the bag)
    steps = [
        "Caroline went to the LGBTQ support group yesterday and loved it.",
        "Melanie said the support group sounds lovely.",
        "Caroline and Melanie talked about the group again.",
        "Yesterday Caroline loved the painting class too.",
        "When did Caroline go to the LGBTQ support group?",
    ]
    trace = run(Window(StateSpace(sizes.words, v_max=32)), steps)
    probe = Probe(5, steps[-1], "yesterday", 0)
    assert steps[0] not in trace.project(5).text() and metrics.whole_turns(trace, probe) == 0.0
    assert metrics.evidence_word_overlap(trace, probe) >= 0.8
    assert metrics.evidence_recall(trace, probe) == 0.0


def test_a_summary_that_copies_a_phrase_gets_part_credit():
    class Copy(Window):
        def project(self, state):
            return "Summary: the user said that sesame makes the user ill."

    trace = run(Copy(StateSpace(sizes.words, v_max=100)), STEPS)
    probe = Probe(3, "What makes the user ill?", "sesame", 0)
    # N(step 0) = sesame makes user ill she said: 3 4-grams, of which "sesame makes user ill" is in the summary
    assert metrics.evidence_recall(trace, probe) == pytest.approx(1 / 3)
    # bigrams: "makes user" and "user ill" are the question's own, left out; of the other three only "sesame makes"
    assert metrics.evidence_recall(trace, probe, n=2) == pytest.approx(1 / 3)
    with pytest.raises(InvalidArgumentError, match="n must be a whole number"):
        metrics.evidence_recall(trace, probe, n=0)


@settings(max_examples=60, deadline=None)
@given(st.lists(words.filter(str.strip), min_size=1, max_size=5), st.data())
def test_property_evidence_recall_is_a_share_and_one_when_the_turns_are_whole(texts, data):
    trace = run(Window(StateSpace(sizes.words, v_max=10_000)), texts)
    evidence = data.draw(st.lists(st.integers(0, len(texts) - 1), min_size=1, max_size=3, unique=True))
    probe = Probe(len(texts), "?", "x", evidence[0], evidence_steps=tuple(sorted(evidence)))
    value = metrics.evidence_recall(trace, probe)
    if all(not metrics.answer_tokens(texts[s]) for s in evidence):
        assert value is None
    else:
        assert value == 1.0  # every evidence step is in π(ω_t) whole
    small = run(Window(StateSpace(sizes.words, v_max=max(1, max(len(t.split()) for t in texts)))), texts)
    other = metrics.evidence_recall(small, probe)
    assert other is None or 0.0 <= other <= 1.0


def test_cost_at_is_the_cumulated_input():
    trace = window(100)
    per_step = metrics.prompt_tokens(trace).per_step
    assert [metrics.cost_at(trace, t) for t in range(len(trace))] == list(metrics.prompt_tokens(trace).cumulative)
    assert metrics.cost_at(trace, len(trace)) == sum(per_step) + trace.final_input_size
    with pytest.raises(InvalidArgumentError, match="0 … 4"):
        metrics.cost_at(trace, 5)


def test_step_records():
    trace = window(8)
    rows = metrics.step_metrics(trace)
    assert [r["t"] for r in rows] == [0, 1, 2, 3]
    assert [r["cumulative_input_tokens"] for r in rows] == list(metrics.prompt_tokens(trace).cumulative)
    assert [r["occupancy"] for r in rows] == metrics.occupancy(trace)
    assert sum(r["removed"] for r in rows) == metrics.evictions(trace).count


def test_probe_records_and_run_record():
    trace = window(100)
    probes = [Probe(3, "What makes the user ill?", "sesame", 0), Probe(4, "Order?", "BH-58213-K", 2)]
    rows = metrics.probe_metrics(trace, probes)
    assert [r["retained"] for r in rows] == [p.retained_in(trace.project(p.t).text()) for p in probes]
    assert rows[1]["cost"] == metrics.cost_at(trace, 4)
    assert set(rows[0]) == {
        "t", "question", "answer", "evidence_steps", "retained", "evidence_recall", "evidence_word_overlap",
        "whole_turns", "answer_recall", "input_tokens", "cost",
    }
    record = metrics.run_metrics(trace, probes)
    assert record["retention"] == 1.0 and record["evidence_recall"] == 1.0 and record["answer_recall"] == 1.0
    assert record["cost"] == metrics.prompt_tokens(trace).total
    assert set(metrics.summary(trace, probes)) < set(record)


def test_probe_after_the_trace_is_refused():
    with pytest.raises(InvalidArgumentError, match="ω_4"):
        metrics.probe_metrics(window(100), [Probe(9, "late?", "x", 0)])
    with pytest.raises(InvalidArgumentError, match="Probe"):
        metrics.evidence_recall(window(100), "not a probe")


def test_records_make_a_table():
    from stmviz.tables import table

    trace = window(8)
    text = str(table(metrics.probe_metrics(trace, [Probe(3, "ill?", "sesame", 0)])))
    assert "evidence_recall" in text and "0.00" in text


@pytest.mark.parametrize("name", ["tool_chat", "long_dialogue"])
def test_bundled_scenario_measures_are_consistent(name):
    scenario = load_scenario(name)
    trace = run(FIFOWindow(StateSpace("tokens", v_max=scenario.v_max)), scenario)
    for row, probe in zip(metrics.probe_metrics(trace, scenario.probes), scenario.probes):
        text = trace.project(probe.t).text()
        # a turn present whole brings every content word of itself
        if row["whole_turns"] == 1.0:
            assert row["evidence_recall"] == 1.0
        # the key string is in the evidence of a bundled probe: present whole means retained
        if row["whole_turns"] == 1.0:
            assert row["retained"]
        assert row["retained"] == (probe.answer.casefold() in text.casefold())


@pytest.mark.parametrize("v_max", [8, 15, 100])
def test_run_record_agrees_with_summary(v_max):
    trace = window(v_max)
    probes = [Probe(3, "ill?", "sesame", 0), Probe(4, "order?", "bh-58213-k", 2), Probe(2, "weather?", "Lisbon", 1)]
    record, expected = metrics.run_metrics(trace, probes), metrics.summary(trace, probes)
    assert {k: record[k] for k in expected} == expected
