"""Notebooks 04–07: for each exercise, a catalogue of wrong answers as students write them, each with its faults.

Each entry asserts that EXACTLY its faults fail (``report.failures``), that each failed
criterion's hint names that fault, that the criteria waiting for a failed one are not
judged, and that no wrong answer passes (issue 34: checkers by fault).
"""

from __future__ import annotations

import pytest

from stmviz import SCM, AgentFold, Element, FIFOWindow, HiAgent
from stmviz.exercise_solutions import SOLUTIONS
from stmviz.exercises import (
    check_blocks_prediction,
    check_fifo_match,
    check_fold,
    check_joke_prediction,
    check_judge,
    check_keepers_prediction,
    check_retrieval_prediction,
    check_subgoal_switch,
)
from stmviz.text.scm_judges import content_words


def assert_catalogue(report, faults):
    """``faults`` maps each criterion that must fail to a phrase its hint must contain; nothing else fails."""
    assert report.done, str(report)
    assert not report.ok, f"a wrong answer passed:\n{report}"
    assert {c.name for c in report.failures} == set(faults), str(report)
    for c in report.failures:
        assert faults[c.name] in c.hint, f"the hint of ✗ {c.name} should name its fault ({faults[c.name]!r}):\n{report}"
    for c in report.not_judged:
        assert "not judged until" in c.detail and any(repr(f) in c.detail for f in faults), str(report)


# -- 04 · predict: memory for a joke --------------------------------------------------------------------

RELEASED = "never asks whether memory is needed"
PAPER = "a joke needs nothing"
PAIR = "answer two counts in a tuple"


@pytest.mark.parametrize("answer, faults", [
    ((0, 0), {"released": RELEASED}),                  # believes SCM as released skips jokes too
    ((3, 3), {"paper": PAPER}),                        # believes the paper's controller always retrieves
    ((0, 3), {"released": RELEASED, "paper": PAPER}),  # the two swapped
    ((1, 0), {"released": RELEASED}),                  # one memory, the best match
    ("3, 0", {"a pair": PAIR}),                        # the right numbers as a string
    ((3.0, 0.0), {"a pair": PAIR}),                    # floats
    ((3,), {"a pair": PAIR}),                          # only the released count
    ((True, False), {"a pair": PAIR}),                 # yes/no instead of counts
])
def test_joke_prediction_catalogue(answer, faults):
    report = check_joke_prediction(answer)
    assert_catalogue(report, faults)
    if "a pair" in faults:
        assert {c.name for c in report.not_judged} == {"released", "paper"}


def test_joke_prediction_explains_the_difference():
    report = check_joke_prediction((0, 3))
    text = str(report)
    assert "you predicted 0 for the released SCM; the run activates 3" in text
    assert "you predicted 3 for the paper's controller; the run activates 0" in text


# -- 04 · SCM's judgement -------------------------------------------------------------------------------

def judge_always_full(memory, summary, message):
    return "full"


def judge_any_word(memory, summary, message):  # a summary keeping ONE shared word is taken as enough
    shared = content_words(message) & content_words(memory)
    if not shared:
        return "drop"
    return "summary" if shared & content_words(summary) else "full"


def judge_drop_by_summary(memory, summary, message):  # asks the summary, not the memory, whether to drop
    if not content_words(message) & content_words(summary):
        return "drop"
    shared = content_words(message) & content_words(memory)
    return "summary" if shared <= content_words(summary) else "full"


def judge_all_memory_words(memory, summary, message):  # the summary must keep every word of the memory
    shared = content_words(message) & content_words(memory)
    if not shared:
        return ("drop", "no shared word")
    return ("summary", "ok") if content_words(memory) <= content_words(summary) else ("full", "lost words")


def judge_yes_no(memory, summary, message):  # answers "is it relevant?" instead of a form
    return bool(content_words(message) & content_words(memory))


def judge_summary_first(memory, summary, message):  # tests the summary before the drop: ∅ ⊆ anything
    shared = content_words(message) & content_words(memory)
    if shared <= content_words(summary):
        return "summary"
    return "drop" if not shared else "full"


def judge_text_against_set(memory, summary, message):  # intersects a set with the message's raw text
    shared = content_words(memory) & message
    return "drop" if not shared else "full"


def judge_capitalised(memory, summary, message):  # the right rule, the wrong spelling
    shared = content_words(message) & content_words(memory)
    if not shared:
        return "Drop"
    return "Summary" if shared <= content_words(summary) else "Full"


VERDICT = "one of the three strings"


@pytest.mark.parametrize("answer, faults", [
    (judge_always_full, {"drop": "none → 'drop'", "summary": "all in the summary → 'summary'",
                         "only shared words": "compare only the words the memory shares"}),
    (judge_any_word, {"full": "a shared word missing from the summary"}),
    (judge_drop_by_summary, {"drop": "the *full* memory shares"}),
    (judge_all_memory_words, {"only shared words": "compare only the words the memory shares"}),
    (judge_yes_no, {"a verdict": VERDICT}),
    (judge_summary_first, {"drop": "none → 'drop'"}),
    (judge_text_against_set, {"a verdict": VERDICT}),
    (judge_capitalised, {"a verdict": VERDICT}),
])
def test_judge_catalogue(answer, faults):
    report = check_judge(answer)
    assert_catalogue(report, faults)
    if "a verdict" in faults:
        assert {c.name for c in report.not_judged} == {"drop", "summary", "full", "only shared words"}


# -- 05 · predict: what retrieve(1, 3) brings back -------------------------------------------------------

STEPS = "answer a set of ints"
ONLY = "restores only the pairs of subgoals 1 and 3"
SUB1 = "only as far as they fit V_max"
SUB3 = "every one that fits"


@pytest.mark.parametrize("answer, faults", [
    ({0, 1, 2, 6, 7, 8, 9, 10}, {"subgoal 1": SUB1}),         # everything asked for comes back
    ({6, 7, 8, 9, 10}, {"subgoal 1": SUB1}),                  # subgoal 1 does not fit at all
    ({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {"only subgoals 1 and 3": ONLY, "subgoal 1": SUB1}),  # 1 to 3, a range
    ({2, 10}, {"subgoal 3": SUB3}),                           # only the last pair of each
    ({1, 3}, {"only subgoals 1 and 3": ONLY, "subgoal 1": SUB1, "subgoal 3": SUB3}),  # the ids, not steps
    ("2, 6-10", {"a set of steps": STEPS}),                   # a string
    ({2.0, 6.0}, {"a set of steps": STEPS}),                  # floats
    (2, {"a set of steps": STEPS}),                           # one number, not a set
])
def test_retrieval_prediction_catalogue(answer, faults):
    report = check_retrieval_prediction(answer)
    assert_catalogue(report, faults)
    if "a set of steps" in faults:
        assert {c.name for c in report.not_judged} == {"only subgoals 1 and 3", "subgoal 1", "subgoal 3"}


def test_retrieval_prediction_explains_what_overflow_dropped():
    text = str(check_retrieval_prediction({0, 1, 2, 6, 7, 8, 9, 10}))
    assert "you predicted steps [0, 1, 2] of subgoal 1; ω_17 holds steps [2]" in text
    assert "overflow dropped steps [0, 1] in the same update" in text


# -- 05 · HiAgent's subgoal switch ----------------------------------------------------------------------

def _current(state):
    goal = next(e for e in state if e.meta.get("current"))
    return goal, goal.meta["subgoal"]


def _new(new_id, new_goal, **meta):
    return Element(new_goal, {"type": "subgoal", "subgoal": new_id, "current": True, **meta})


def switch_drops_pairs(state, new_id, new_goal, summarize):  # forgets to write the summary
    _, done = _current(state)
    finished = {e for e in state if e.meta.get("subgoal") == done}
    return (state - finished) | {_new(new_id, new_goal)}


def switch_keeps_pairs(state, new_id, new_goal, summarize):  # summarizes, but leaves the pairs in ω
    goal, done = _current(state)
    pairs = [e.text for e in state if e.meta.get("type") == "pair"]
    summary = Element(summarize(goal.text, pairs), {"type": "summary", "subgoal": done})
    return (state - {goal}) | {summary, _new(new_id, new_goal)}


def switch_resummarizes_all(state, new_id, new_goal, summarize):  # folds the older summary in again
    goal, done = _current(state)
    memory = {e for e in state if e.meta.get("type") in ("pair", "summary", "subgoal")}
    texts = [e.text for e in state if e.meta.get("type") in ("pair", "summary")]
    summary = Element(summarize(goal.text, texts), {"type": "summary", "subgoal": done})
    return (state - memory) | {summary, _new(new_id, new_goal)}


def switch_keeps_old_goal(state, new_id, new_goal, summarize):  # removes the pairs, not the subgoal element
    goal, done = _current(state)
    finished = {e for e in state if e.meta.get("type") == "pair" and e.meta.get("subgoal") == done}
    summary = Element(summarize(goal.text, [e.text for e in sorted(finished, key=lambda e: e.meta["t"])]),
                      {"type": "summary", "subgoal": done})
    return (state - finished) | {summary, _new(new_id, new_goal)}


def switch_new_not_current(state, new_id, new_goal, summarize):  # the new subgoal enters without the flag
    goal, done = _current(state)
    finished = [e for e in state if e.meta.get("subgoal") == done and e.meta.get("type") in ("pair", "subgoal")]
    pairs = [e.text for e in sorted(finished, key=lambda e: e.meta["t"]) if e.meta["type"] == "pair"]
    summary = Element(summarize(goal.text, pairs), {"type": "summary", "subgoal": done})
    return (state - finished) | {summary, Element(new_goal, {"type": "subgoal", "subgoal": new_id})}


def switch_summarizes_elements(state, new_id, new_goal, summarize):  # passes the elements, not their texts
    goal, done = _current(state)
    pairs = [e for e in state if e.meta.get("type") == "pair" and e.meta.get("subgoal") == done]
    summary = Element(summarize(goal.text, pairs), {"type": "summary", "subgoal": done})
    return (state - set(pairs) - {goal}) | {summary, _new(new_id, new_goal)}


def switch_returns_added(state, new_id, new_goal, summarize):  # returns only what enters
    goal, done = _current(state)
    pairs = [e.text for e in state if e.meta.get("type") == "pair" and e.meta.get("subgoal") == done]
    return {Element(summarize(goal.text, pairs), {"type": "summary", "subgoal": done}), _new(new_id, new_goal)}


def switch_text_of_goal(state, new_id, new_goal, summarize):  # the summary holds the goal, not the summarizer's text
    goal, done = _current(state)
    finished = {e for e in state if e.meta.get("subgoal") == done and e.meta.get("type") in ("pair", "subgoal")}
    summary = Element(goal.text, {"type": "summary", "subgoal": done})
    return (state - finished) | {summary, _new(new_id, new_goal)}


SUMMARY = "add Element(summarize(goal, pair texts)"
SUMMARY_TEXT = "the texts of the finished subgoal's pairs"


@pytest.mark.parametrize("answer, faults", [
    (switch_drops_pairs, {"one summary": SUMMARY}),
    (switch_keeps_pairs, {"pairs summarized": "remove every pair whose meta['subgoal']"}),
    (switch_resummarizes_all, {"one summary": SUMMARY_TEXT, "older memory kept": "summarize only the current subgoal"}),
    (switch_keeps_old_goal, {"old subgoal closed": "remove the finished subgoal's element too"}),
    (switch_new_not_current, {"new subgoal current": "'current': True"}),
    (switch_summarizes_elements, {"a state": "your code raised"}),
    (switch_returns_added, {"older memory kept": "keep the task and the older summaries"}),
    (switch_text_of_goal, {"one summary": SUMMARY_TEXT}),
])
def test_subgoal_switch_catalogue(answer, faults):
    report = check_subgoal_switch(answer)
    assert_catalogue(report, faults)
    if "a state" in faults:
        assert len(report.not_judged) == len(report.criteria) - 1


# -- 06 · predict: the blocks after a deep consolidation ------------------------------------------------

RANGES = "answer a list of pairs of ints"
LEAVE = "replaces every block from step x on"
NEW = "makes ONE block s_{x,t−1}"
ELSE = "I_{t−1} does not become a block of its own"


@pytest.mark.parametrize("answer, faults", [
    ([(0, 5), (6, 6)], {"the new block": NEW, "nothing else": ELSE}),        # folds the blocks, keeps I_6 apart
    ([(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)],               # reads it as a condensation
     {"merged blocks leave": LEAVE, "the new block": NEW, "nothing else": ELSE}),
    ([(0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (0, 6)], {"merged blocks leave": LEAVE}),  # adds, keeps the old
    ([(0, 6), (7, 7)], {"nothing else": ELSE}),                                # one step ahead
    ([(0, 7)], {"the new block": NEW, "nothing else": ELSE}),                  # the range ends at t, not t − 1
    ([0, 6], {"a list of ranges": RANGES}),                                    # one range, not a list of them
    ("(0, 6)", {"a list of ranges": RANGES}),                                  # a string
])
def test_blocks_prediction_catalogue(answer, faults):
    report = check_blocks_prediction(answer)
    assert_catalogue(report, faults)
    if "a list of ranges" in faults:
        assert {c.name for c in report.not_judged} == {"merged blocks leave", "the new block", "nothing else"}


# -- 06 · AgentFold's fold ------------------------------------------------------------------------------

def fold_ends_at_t(blocks, latest, x, sigma):  # issue 34: the range ends at t instead of t − 1
    t = latest[0] + 1
    return [(r, text) for r, text in blocks if r[1] < x] + [((x, t), sigma)]


def fold_keeps_merged(blocks, latest, x, sigma):  # adds the new block, leaves the merged ones
    return blocks + [((x, latest[0]), sigma)]


def fold_in_place(blocks, latest, x, sigma):  # right result, built in the caller's list
    while blocks and blocks[-1][0][1] >= x:
        blocks.pop()
    blocks.append(((x, latest[0]), sigma))
    return blocks


def fold_own_text(blocks, latest, x, sigma):  # writes its own summary instead of the agent's
    kept = [(r, t) for r, t in blocks if r[1] < x]
    merged = " ".join(t for r, t in blocks if r[1] >= x) + " " + latest[1]
    return kept + [((x, latest[0]), merged.strip())]


def fold_everything(blocks, latest, x, sigma):  # a consolidation always folds from step 0
    return [((0, latest[0]), sigma)] if x < latest[0] else blocks + [((x, x), sigma)]


def fold_new_first(blocks, latest, x, sigma):  # the new block put in front
    return [((x, latest[0]), sigma)] + [(r, t) for r, t in blocks if r[1] < x]


def fold_forgets_latest(blocks, latest, x, sigma):  # folds only the blocks; a condensation adds nothing
    kept = [(r, t) for r, t in blocks if r[1] < x]
    return kept + ([((x, latest[0] - 1), sigma)] if x < latest[0] else [])


def fold_latest_text(blocks, latest, x, sigma):  # the new block holds I_{t-1}'s text
    return [(r, t) for r, t in blocks if r[1] < x] + [((x, latest[0]), latest[1])]


def fold_dict(blocks, latest, x, sigma):  # returns a mapping range -> text
    kept = {r: t for r, t in blocks if r[1] < x}
    kept[(x, latest[0])] = sigma
    return kept


RANGE = "not at t"
TEXT_SIGMA = "use sigma"


@pytest.mark.parametrize("answer, faults", [
    (fold_ends_at_t, {"range": RANGE}),
    (fold_keeps_merged, {"merged blocks gone": "must not stay next to the block that replaces it"}),
    (fold_in_place, {"inputs unchanged": "do not append to, pop from"}),
    (fold_own_text, {"agent's text": TEXT_SIGMA}),
    (fold_everything, {"kept blocks": "keep every block whose range ends before x", "range": RANGE}),
    (fold_new_first, {"one new block": "at the end of the list"}),
    (fold_forgets_latest, {"one new block": "add exactly one block"}),
    (fold_latest_text, {"agent's text": TEXT_SIGMA}),
    (fold_dict, {"a list of blocks": "return a list of blocks"}),
])
def test_fold_catalogue(answer, faults):
    report = check_fold(answer)
    assert_catalogue(report, faults)
    if "a list of blocks" in faults:
        assert {c.name for c in report.not_judged} >= {"kept blocks", "range", "agent's text"}


# -- 07 · predict: who keeps a probe --------------------------------------------------------------------

FIFO_H = "every probe asks about a turn long gone"
SCM_H = "a question brings back the turn it asks about"
HIAGENT_H = "here it is a window"
AGENTFOLD_H = "not the names and dates"
NAMES = "answer a set of names"


@pytest.mark.parametrize("answer, faults", [
    ({"SCM", "AgentFold"}, {"AgentFold": AGENTFOLD_H}),                  # trusts the summaries
    ({"SCM", "HiAgent", "AgentFold"}, {"HiAgent": HIAGENT_H, "AgentFold": AGENTFOLD_H}),  # "they all summarize"
    (set(), {"SCM": SCM_H}),                                             # the window is too small for anyone
    ({"FIFOWindow", "SCM", "HiAgent", "AgentFold"},                      # V_max is the same for all
     {"FIFOWindow": FIFO_H, "HiAgent": HIAGENT_H, "AgentFold": AGENTFOLD_H}),
    ({"FIFOWindow"}, {"FIFOWindow": FIFO_H, "SCM": SCM_H}),               # the simplest keeps the most
    ({"scm"}, {"a set of names": NAMES}),                                # a misspelt name
    ("SCM", {"a set of names": NAMES}),                                  # a string, not a set
])
def test_keepers_prediction_catalogue(answer, faults):
    report = check_keepers_prediction(answer)
    assert_catalogue(report, faults)
    if "a set of names" in faults:
        assert {c.name for c in report.not_judged} == {"FIFOWindow", "SCM", "HiAgent", "AgentFold"}


def test_keepers_prediction_takes_the_classes_too():
    assert check_keepers_prediction({SCM}).ok
    assert {c.name for c in check_keepers_prediction([FIFOWindow, HiAgent, AgentFold]).failures} == {
        "FIFOWindow", "SCM", "HiAgent", "AgentFold"}


# -- 07 · what FIFO needs to match SCM ------------------------------------------------------------------

@pytest.fixture(scope="module")
def fifo_v_max():
    namespace: dict = {}
    exec(compile(SOLUTIONS["07-fifo-match"], "solution 07-fifo-match", "exec"), namespace)  # noqa: S102 - the reference solution, our own code
    return namespace["fifo_v_max"]


WHOLE = "answer an int"
ABOVE = "the answer lies above it"
ENOUGH = "try larger values"
SMALLEST = "search downwards"


@pytest.mark.parametrize("wrong, faults", [
    (lambda right: 800, {"above the scenario's V_max": ABOVE}),   # the scenario's own V_max
    (lambda right: 300, {"above the scenario's V_max": ABOVE}),   # below it
    (lambda right: float(right), {"a whole number": WHOLE}),      # the right size as a float
    (lambda right: str(right), {"a whole number": WHOLE}),        # as a string
    (lambda right: True, {"a whole number": WHOLE}),              # a yes
    (lambda right: 2 * 800, {"enough": ENOUGH}),                  # "twice should do"
    (lambda right: right - 1, {"enough": ENOUGH}),                # one token short
    (lambda right: right + 1, {"smallest": SMALLEST}),            # stopped the search one too early
    (lambda right: 10 ** 5, {"smallest": SMALLEST}),              # the whole dialogue and more
])
def test_fifo_match_catalogue(wrong, faults, fifo_v_max):
    report = check_fifo_match(wrong(fifo_v_max))
    assert_catalogue(report, faults)
    judged = [c.name for c in report.criteria if c.passed is not None]
    order = ["a whole number", "above the scenario's V_max", "enough", "smallest"]
    assert judged == order[: len(judged)]  # a criterion is judged only once those it builds on are met
