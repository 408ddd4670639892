"""Every exercise checker passes the reference solution and catches wrong ones, each by the criterion it breaks.

A wrong solution here is a mistake a student makes; each test names the
criterion that must fail for it, so a checker that gives ✓ to everything (as
08's once did) fails these tests.
"""

from __future__ import annotations

import pytest

from stmviz import Element, Mechanism, StateSpace, Transition
from stmviz.core.errors import InvalidArgumentError
from stmviz import exercises as ex
from stmviz.exercise_solutions import SOLUTIONS
from stmviz.exercises import (
    check_chat_steps,
    check_fifo_push,
    check_fold,
    check_judge,
    check_keep_first,
    check_membership,
    check_priority_memory,
    check_fifo_match,
    check_subgoal_switch,
)
from stmviz.text.scm_judges import content_words


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


# -- 02 ---------------------------------------------------------------------------------------------------

class _Window(Mechanism):
    operations = {"append": "add the output and the input; on overflow drop some"}

    def add(self, state, context):
        halves = (context.step.output, context.step.observation)
        return state | {Element(text, {"t": context.t + k / 2}) for k, text in enumerate(halves) if text}

    def project(self, state):
        return "\n".join(e.text for e in state)


class SlidingWindow(_Window):  # notebook 02's window: forgets the task
    def update(self, state, operation, context):
        state = self.add(state, context)
        for oldest in list(state):
            if state in self.space:
                break
            state = state - {oldest}
        return state


class NewestOut(_Window):  # keeps the task but evicts the newest elements
    def update(self, state, operation, context):
        state = self.add(state, context)
        for newest in reversed(list(state)):
            if state in self.space:
                break
            if int(newest.meta["t"]) != 0:
                state = state - {newest}
        return state


class ClearAll(_Window):  # on overflow keeps only the task and the new elements
    def update(self, state, operation, context):
        new = self.add(state, context) - state
        state = state | new
        if state not in self.space:
            state = {e for e in state if int(e.meta["t"]) in (0, context.t)}
            from stmviz import State
            state = State(state)
        return state


class YoungestAfterTask(_Window):  # keeps the task, evicts the second-newest element first
    def update(self, state, operation, context):
        state = self.add(state, context)
        while state not in self.space:
            older = [e for e in state if int(e.meta["t"]) not in (0, context.t)]
            state = state - {older[-1]}
        return state


@pytest.mark.parametrize("wrong, criterion, fault", [
    (SlidingWindow, "task kept", 'skip the element of step 0'),
    (NewestOut, "oldest first", 'never the newest'),  # the whole catalogue: tests/exercises/test_ex02_mechanism.py
    (ClearAll, "only as needed", 'stop evicting as soon as'),
    (YoungestAfterTask, "oldest first", 'evict from the front'),
])
def test_keep_first_catches(wrong, criterion, fault):
    assert_catches(check_keep_first(wrong), criterion, fault)


# -- 03 ---------------------------------------------------------------------------------------------------

def push_newest_out(window, new, mu, v_max):
    window = window + [new]
    while sum(mu(m) for m in window) > v_max:
        window.pop(-2)  # drops the newest old message
    return window


def push_clear(window, new, mu, v_max):
    if sum(mu(m) for m in window + [new]) > v_max:
        return [m for m in window if m.meta.get("pinned")] + [new]
    return window + [new]


def push_ignores_pins(window, new, mu, v_max):
    window = window + [new]
    while sum(mu(m) for m in window) > v_max:
        window.pop(0)
    return window


def push_always_evicts(window, new, mu, v_max):
    window = [m for m in window if m.meta.get("pinned")] + [m for m in window if not m.meta.get("pinned")][1:]
    window = window + [new]
    while sum(mu(m) for m in window) > v_max:
        window.remove(next(m for m in window if not m.meta.get("pinned")))
    return window


def push_once(window, new, mu, v_max):
    window = window + [new]
    if sum(mu(m) for m in window) > v_max:
        window.remove(next(m for m in window if not m.meta.get("pinned")))
    return window


def push_prepends(window, new, mu, v_max):
    window = [new] + window
    while sum(mu(m) for m in window) > v_max:
        window.pop()
    return window


@pytest.mark.parametrize("wrong, criterion, fault", [
    (push_newest_out, "oldest first", 'remove from the front'),
    (push_clear, "only as needed", 'after each removal'),
    (push_ignores_pins, "pinned stay", "meta['pinned'] is True"),
    (push_always_evicts, "no eviction while it fits", 'only while Σμ > V_max'),
    (push_once, "fits V_max", 'keep evicting until'),
    (push_prepends, "appends at the end", 'window + [new]'),
])
def test_fifo_push_catches(wrong, criterion, fault):
    assert_catches(check_fifo_push(wrong), criterion, fault)


# -- 04 ---------------------------------------------------------------------------------------------------

def judge_always_full(memory, summary, message):
    return "full"


def judge_any_word(memory, summary, message):
    shared = content_words(message) & content_words(memory)
    if not shared:
        return "drop"
    return "summary" if shared & content_words(summary) else "full"


def judge_drop_by_summary(memory, summary, message):
    shared = content_words(message) & content_words(memory)
    if not content_words(message) & content_words(summary):
        return "drop"
    return "summary" if shared <= content_words(summary) else "full"


def judge_all_memory_words(memory, summary, message):
    shared = content_words(message) & content_words(memory)
    if not shared:
        return ("drop", "no shared word")
    return ("summary", "ok") if content_words(memory) <= content_words(summary) else ("full", "lost words")


def judge_yes_no(memory, summary, message):
    return bool(content_words(message) & content_words(memory))


@pytest.mark.parametrize("wrong, criterion, fault", [
    (judge_always_full, "summary", "all in the summary → 'summary'"),
    (judge_any_word, "full", 'a shared word missing from the summary'),
    (judge_drop_by_summary, "drop", 'the *full* memory shares'),
    (judge_all_memory_words, "only shared words", 'compare only the words the memory shares'),
    (judge_yes_no, "a verdict", 'one of the three strings'),
])
def test_judge_catches(wrong, criterion, fault):
    assert_catches(check_judge(wrong), criterion, fault)


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


# -- 07 ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fifo_v_max():
    return solved("07-fifo-match", "fifo_v_max")


@pytest.mark.parametrize("wrong, criterion, fault", [
    # the scenario's own V_max (that is where SCM is measured), and below it: a whole number, in the wrong place
    (lambda right: 800, "above the scenario's V_max", "the answer lies above it"),
    (lambda right: 300, "above the scenario's V_max", "the answer lies above it"),
    (lambda right: float(right), "a whole number", "answer an int"),
    (lambda right: str(right), "a whole number", "answer an int"),
    (lambda right: 2 * 800, "enough", "try larger values"),
    (lambda right: 2000, "enough", "try larger values"),
    (lambda right: right - 1, "enough", "try larger values"),
    (lambda right: right + 1, "smallest", "search downwards"),
    (lambda right: 10 ** 5, "smallest", "search downwards"),
])
def test_fifo_match_catches(wrong, criterion, fault, fifo_v_max):
    assert_catches(check_fifo_match(wrong(fifo_v_max)), criterion, fault)


# -- 08 ---------------------------------------------------------------------------------------------------

RANK = {"low": 0, "medium": 1, "high": 2}


class _Priority(Mechanism):
    operations = {"append": "add the observation; on overflow drop by priority"}
    victim_key = staticmethod(lambda e: (RANK[e.meta["priority"]], e.meta["t"]))

    def new(self, context):
        return Element(context.observation, {"t": context.t, **context.step.meta})

    def update(self, state, operation, context):
        state = state | {self.new(context)}
        reasons = {}
        for victim in sorted(state, key=self.victim_key):
            if state in self.space:
                break
            state = state - {victim}
            reasons[victim] = "priority"
        return Transition(state, reasons)

    def project(self, state):
        ranked = sorted(state, key=lambda e: (-RANK[e.meta["priority"]], e.meta["t"]))
        return "\n".join(e.text for e in ranked)


class LowFirstInPi(_Priority):  # π lists low priority first
    def project(self, state):
        return "\n".join(e.text for e in sorted(state, key=lambda e: (RANK[e.meta["priority"]], e.meta["t"])))


class NewestOfPriority(_Priority):  # evicts the newest element of the lowest priority
    victim_key = staticmethod(lambda e: (RANK[e.meta["priority"]], -e.meta["t"]))


class EvictsAllOfLowest(_Priority):  # on overflow evicts every element of the lowest priority present
    def update(self, state, operation, context):
        state = state | {self.new(context)}
        if state not in self.space:
            lowest = min(RANK[e.meta["priority"]] for e in state)
            state = state - {e for e in state if RANK[e.meta["priority"]] == lowest}
            while state not in self.space:
                state = state - {min(state, key=self.victim_key)}
        return state


class Fifo(_Priority):  # notebook 08's first attempt: ignores the priority
    victim_key = staticmethod(lambda e: e.meta["t"])


class NoMetadata(_Priority):  # forgets the step's metadata (and so must guess a priority)
    victim_key = staticmethod(lambda e: e.meta["t"])

    def new(self, context):
        return Element(context.observation, {"t": context.t, "priority": "low", "source": "api"})


class HidesLowInPi(_Priority):  # π shows only the high and medium elements
    def project(self, state):
        return "\n".join(e.text for e in state if e.meta["priority"] != "low")


@pytest.mark.parametrize("wrong, criterion, fault", [
    (LowFirstInPi, "projection", 'sort by -RANK[priority]'),
    (NewestOfPriority, "age", 'not the newest'),
    (EvictsAllOfLowest, "only as needed", 'stop when it holds'),
    (Fifo, "priority", 'sort the candidates by RANK[priority]'),
    (NoMetadata, "metadata", '**context.step.meta'),
    (HidesLowInPi, "projection", 'render every element'),
])
def test_priority_memory_catches(wrong, criterion, fault):
    assert_catches(check_priority_memory(wrong), criterion, fault)


def test_priority_wrong_solutions_pass_the_other_criteria():
    """Each of the issue's three wrong answers fails exactly its own criterion, not by accident another one."""
    for wrong, criterion in [(LowFirstInPi, "projection"), (NewestOfPriority, "age"),
                             (EvictsAllOfLowest, "only as needed")]:
        report = check_priority_memory(wrong)
        assert [c.name for c in report.failures] == [criterion], str(report)


# -- 09 ---------------------------------------------------------------------------------------------------

def steps_same_index(messages):  # (a_k, u_k): the reply before the message it answers
    users = [m["content"] for m in messages if m["role"] == "user"]
    replies = [m["content"] for m in messages if m["role"] == "assistant"]
    return [(replies[k] if k < len(replies) else None, u) for k, u in enumerate(users)]


def steps_drop_last_reply(messages):
    steps, output = [], None
    for m in messages:
        if m["role"] == "assistant":
            output = m["content"]
        else:
            steps.append((output, m["content"]))
            output = None
    return steps


def steps_extra_empty(messages):
    steps, output = [], None
    for m in messages:
        if m["role"] == "assistant":
            output = m["content"]
        else:
            steps.append((output, m["content"]))
            output = None
    return steps + [(output, None)]


def steps_user_as_output(messages):  # (u_k, a_k): the user's message as the output
    pairs = [(m["content"], n["content"]) for m, n in zip(messages[::2], messages[1::2])]
    return pairs


@pytest.mark.parametrize("wrong, criterion, fault", [
    (steps_same_index, "step 0", 'the model has produced nothing yet'),
    (steps_drop_last_reply, "last reply", 'still a step'),
    (steps_extra_empty, "no extra step", 'do not add an empty step'),
    (steps_user_as_output, "roles", 'swapped'),
])
def test_chat_steps_catches(wrong, criterion, fault):
    assert_catches(check_chat_steps(wrong), criterion, fault)


def test_the_chat_steps_reference_agrees_with_the_importer():
    from stmviz.scenarios import from_openai_messages

    messages = [{"role": r, "content": f"{r} {i}"} for i, r in enumerate(["user", "assistant"] * 3)]
    steps = from_openai_messages(messages).steps
    expected = solved("09-chat-steps", "chat_steps")(messages)
    assert [((s.thought or None), (s.observation or None)) for s in steps] == expected


def test_checkers_are_deterministic():
    wrong = check_priority_memory(NewestOfPriority)
    assert str(wrong) == str(check_priority_memory(NewestOfPriority))
    assert str(check_fifo_match(1000)) == str(check_fifo_match(1000))


def test_make_may_be_any_callable_from_a_state_space():
    built = []
    cls = solved("08-priority", "PriorityMemory")
    assert check_priority_memory(lambda space: built.append(space) or cls(space)).ok
    assert built and all(isinstance(s, StateSpace) and s.v_max == 26 for s in built)

# notebook 10's catalogue of wrong answers: tests/exercises/test_ex10_measuring.py
