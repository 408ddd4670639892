"""Every exercise checker passes the reference solution and catches wrong ones, each by the criterion it breaks.

A wrong solution here is a mistake a student makes; each test names the
criterion that must fail for it, so a checker that gives ✓ to everything (as
08's once did) fails these tests.
"""

from __future__ import annotations

import pytest

from stmviz import Element, Mechanism, StateSpace
from stmviz import exercises as ex
from stmviz.core.errors import InvalidArgumentError
from stmviz.exercise_solutions import SOLUTIONS
from stmviz.exercises import (
    check_chat_steps,
    check_fifo_match,
    check_fifo_push,
    check_fold,
    check_judge,
    check_keep_first,
    check_membership,
    check_priority_memory,
    check_subgoal_switch,
)


def solved(key: str, name: str):
    namespace: dict = {}
    exec(compile(SOLUTIONS[key], f"solution {key}", "exec"), namespace)
    return namespace[name]


def todo(*args, **kwargs):
    raise NotImplementedError("TODO: write it")


def assert_catches(report, criterion, fault):
    """The report fails ``criterion``, and that line's hint names the fault (``fault`` is a phrase of it)."""
    assert report.done, str(report)
    assert not report.ok, str(report)
    assert report.failed(criterion), f"expected ✗ {criterion}:\n{report}"
    hint = next(c.hint for c in report.criteria if c.name == criterion)
    assert fault in hint, f"the hint of ✗ {criterion} should name the fault ({fault!r}):\n{report}"
    assert_consistent(report)


def assert_consistent(report):
    """No criterion is ✓ when one it builds on is ✗ (07: "smallest" judged at a V_max that is not even enough)."""
    passed = {c.name: c.passed for c in report.criteria}
    for before, after in [("enough", "smallest"), ("a whole number", "enough"), ("above the scenario's V_max", "enough")]:
        if before in passed and after in passed:
            assert passed[before] or not passed[after], f"✗ {before} but ✓ {after}:\n{report}"


CHECKERS = {
    "01-which-fit": (ex.check_which_fit, "fits"),
    "01-membership": (check_membership, "in_omega"),
    "02-predict-window": (ex.check_window_prediction, "kept"),
    "02-keep-first": (check_keep_first, "KeepFirst"),
    "03-which-leave": (ex.check_eviction_prediction, "leaves"),
    "03-fifo-push": (check_fifo_push, "push"),
    "04-joke": (ex.check_joke_prediction, "joke_prediction"),
    "04-judge": (check_judge, "judge"),
    "05-retrieve": (ex.check_retrieval_prediction, "retrieved_steps"),
    "05-subgoal": (check_subgoal_switch, "start_subgoal"),
    "06-blocks": (ex.check_blocks_prediction, "blocks_after"),
    "06-fold": (check_fold, "fold"),
    "07-keepers": (ex.check_keepers_prediction, "keepers"),
    "07-fifo-match": (check_fifo_match, "fifo_v_max"),
    "08-priority": (check_priority_memory, "PriorityMemory"),
    "08-predict-eviction": (ex.check_priority_prediction, "prediction"),
    "09-chat-steps": (check_chat_steps, "chat_steps"),
    "09-predict-steps": (ex.check_steps_prediction, "prediction"),
    "10-word-overlap": (ex.check_word_overlap, "my_word_overlap"),
    "10-predict-capacity": (ex.check_capacity_prediction, "prediction"),
    "11-clear-results": (ex.check_clear_tool_results, "project"),
    "11-predict-clearing": (ex.check_clear_prediction, "prediction"),
}


def test_every_solution_has_a_checker():
    assert sorted(CHECKERS) == sorted(SOLUTIONS)


@pytest.mark.parametrize("key", sorted(CHECKERS))
def test_the_reference_solution_meets_every_criterion(key):
    checker, name = CHECKERS[key]
    report = checker(solved(key, name))
    assert report.ok and report.done, str(report)
    assert all(line.startswith("  ✓") for line in str(report).splitlines()[1:])


@pytest.mark.parametrize("key", sorted(CHECKERS))
def test_the_untouched_todo_is_reported_as_not_done(key):
    checker, _ = CHECKERS[key]
    if key in ("02-keep-first", "08-priority"):

        class Todo(Mechanism):
            operations = {"append": "TODO"}

            def update(self, state, operation, context):
                raise NotImplementedError("TODO: write update")

            def project(self, state):
                return "\n".join(e.text for e in state)

        report = checker(Todo)
    elif key in ("01-which-fit", "02-predict-window", "03-which-leave", "04-joke", "05-retrieve", "06-blocks",
                 "07-keepers", "07-fifo-match", "08-predict-eviction", "09-predict-steps", "10-predict-capacity",
                 "11-predict-clearing"):  # a value left as None  # TODO
        report = checker(None)
    else:
        report = checker(todo)
    assert not report.done and not report.ok
    assert "not done yet" in str(report) and "✓" not in str(report)
    assert "hint:" not in str(report)  # hints come with an answer, not before the student tries


def test_the_notebooks_import_of_the_checkers_does_not_load_the_solutions():
    """A notebook imports its checker from stmviz.exercises; the reference solutions stay unloaded until asked for."""
    import subprocess
    import sys

    probe = (
        "import sys; from stmviz.exercises import check_membership, check_fold;"
        " import stmviz.exercises as ex;"
        " print('stmviz.exercise_solutions' in sys.modules, hasattr(ex, 'SOLUTIONS'));"
        " ex.solution('01-membership'); print('stmviz.exercise_solutions' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "False False", out  # neither loaded nor reachable through the module the notebooks import
    assert out[-2] == "True", out  # loaded once a solution is asked for


def test_solution_prints_the_reference_and_rejects_an_unknown_key(capsys):
    ex.solution("01-membership")
    assert "def in_omega" in capsys.readouterr().out
    with pytest.raises(InvalidArgumentError, match="01-membership"):
        ex.solution("01")


def test_a_report_refuses_an_unknown_criterion_name():
    report = check_membership(solved("01-membership", "in_omega"))
    with pytest.raises(InvalidArgumentError, match="boundary"):
        report.failed("no such criterion")


def test_a_failing_criterion_shows_its_hint():
    report = check_membership(lambda elements, mu, v_max: sum(mu(e) for e in elements) < v_max)
    text = str(report)
    assert "✗ boundary" in text and "hint: Definition 1 says Σμ(e) ≤ V_max" in text


# -- 01 ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("wrong, criterion, fault", [
    (lambda elements, mu, v_max: sum(mu(e) for e in set(elements)) < v_max, "boundary", 'equality is allowed'),
    (lambda elements, mu, v_max: sum(mu(e) for e in elements) <= v_max, "a set", 'set(elements)'),
    (lambda elements, mu, v_max: len(set(elements)) <= v_max, "sizes, not counts", 'the number of elements is not its size'),
    (lambda elements, mu, v_max: True, "over capacity", 'compare the total size'),
    (lambda elements, mu, v_max: bool(elements) and sum(mu(e) for e in set(elements)) <= v_max, "empty state", 'a sum over no elements is 0'),
])
def test_membership_catches(wrong, criterion, fault):
    assert_catches(check_membership(wrong), criterion, fault)


# -- 05 ---------------------------------------------------------------------------------------------------

def _current(state):
    goal = next(e for e in state if e.meta.get("current"))
    return goal, goal.meta["subgoal"]


def switch_drops_pairs(state, new_id, new_goal, summarize):
    goal, done = _current(state)
    finished = {e for e in state if e.meta.get("subgoal") == done}
    return (state - finished) | {Element(new_goal, {"type": "subgoal", "subgoal": new_id, "current": True})}


def switch_keeps_pairs(state, new_id, new_goal, summarize):
    goal, done = _current(state)
    pairs = [e.text for e in state if e.meta.get("type") == "pair"]
    summary = Element(summarize(goal.text, pairs), {"type": "summary", "subgoal": done})
    return (state - {goal}) | {summary, Element(new_goal, {"type": "subgoal", "subgoal": new_id, "current": True})}


def switch_resummarizes_all(state, new_id, new_goal, summarize):
    goal, done = _current(state)
    memory = {e for e in state if e.meta.get("type") in ("pair", "summary", "subgoal")}
    texts = [e.text for e in state if e.meta.get("type") in ("pair", "summary")]
    summary = Element(summarize(goal.text, texts), {"type": "summary", "subgoal": done})
    return (state - memory) | {summary, Element(new_goal, {"type": "subgoal", "subgoal": new_id, "current": True})}


def switch_two_current(state, new_id, new_goal, summarize):
    goal, done = _current(state)
    pairs = [e.text for e in state if e.meta.get("type") == "pair" and e.meta.get("subgoal") == done]
    finished = {e for e in state if e.meta.get("type") == "pair" and e.meta.get("subgoal") == done}
    summary = Element(summarize(goal.text, pairs), {"type": "summary", "subgoal": done})
    new = Element(new_goal, {"type": "subgoal", "subgoal": new_id, "current": True})
    return (state - finished) | {summary, new}


@pytest.mark.parametrize("wrong, criterion, fault", [
    (switch_drops_pairs, "one summary", 'add Element(summarize'),
    (switch_keeps_pairs, "pairs summarized", "remove every pair whose meta['subgoal']"),
    (switch_resummarizes_all, "older memory kept", 'summarize only the current subgoal'),
    (switch_two_current, "old subgoal closed", "remove the finished subgoal's element too"),
])
def test_subgoal_switch_catches(wrong, criterion, fault):
    assert_catches(check_subgoal_switch(wrong), criterion, fault)


# -- 06 ---------------------------------------------------------------------------------------------------

def fold_everything(blocks, latest, x, sigma):
    return [((0, latest[0]), sigma)] if x < latest[0] else blocks + [((x, x), sigma)]


def fold_keeps_merged(blocks, latest, x, sigma):
    return blocks + [((x, latest[0]), sigma)]


def fold_forgets_latest(blocks, latest, x, sigma):
    kept = [(r, t) for r, t in blocks if r[1] < x]
    return kept + ([((x, latest[0] - 1), sigma)] if x < latest[0] else [])


def fold_own_text(blocks, latest, x, sigma):
    kept = [(r, t) for r, t in blocks if r[1] < x]
    merged = " ".join(t for r, t in blocks if r[1] >= x) + " " + latest[1]
    return kept + [((x, latest[0]), merged.strip())]


def fold_condensation_merges_previous(blocks, latest, x, sigma):
    x = min(x, blocks[-1][0][0])  # always swallows the newest block too
    return [(r, t) for r, t in blocks if r[1] < x] + [((x, latest[0]), sigma)]


@pytest.mark.parametrize("wrong, criterion, fault", [
    (fold_everything, "kept blocks", 'keep every block whose range ends before x'),
    (fold_keeps_merged, "merged blocks gone", 'must not stay next to the block that replaces it'),
    (fold_forgets_latest, "one new block", 'add exactly one block for the directive'),
    (fold_own_text, "agent's text", 'use sigma'),
    (fold_condensation_merges_previous, "kept blocks", 'keep every block whose range ends before x'),
])
def test_fold_catches(wrong, criterion, fault):
    assert_catches(check_fold(wrong), criterion, fault)


# -- 09 ---------------------------------------------------------------------------------------------------

def test_the_chat_steps_reference_agrees_with_the_importer():
    from stmviz.scenarios import from_openai_messages

    messages = [{"role": r, "content": f"{r} {i}"} for i, r in enumerate(["user", "assistant"] * 3)]
    steps = from_openai_messages(messages).steps
    expected = solved("09-chat-steps", "chat_steps")(messages)
    assert [((s.thought or None), (s.observation or None)) for s in steps] == expected


def test_make_may_be_any_callable_from_a_state_space():
    built = []
    cls = solved("08-priority", "PriorityMemory")
    assert check_priority_memory(lambda space: built.append(space) or cls(space)).ok
    assert built and all(isinstance(s, StateSpace) and s.v_max == 26 for s in built)

# notebook 10's catalogue of wrong answers: tests/exercises/test_ex10_measuring.py
