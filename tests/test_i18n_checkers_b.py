"""The checkers of notebooks 05–11 speak Russian after ``stmviz.set_language("ru")`` (issue 35, area checkers_b).

Each checker is run, in Russian, on answers a student writes (wrong ones of several kinds, an untouched
TODO, a right one), and what its report says — the title, each criterion's name, what was found, the
hint — must hold no English sentence (``tests/russian_text.py``'s finder: quoted values and code are
not prose). The criteria's names stay what programs read (``report.failed("…")``), whatever the
language. English stays byte for byte what it was: the checkers' own tests and the English notebooks
compare it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from russian_text import english_sentences  # noqa: E402

from stmviz import Element, Mechanism, language  # noqa: E402
from stmviz.core.space import State  # noqa: E402
from stmviz.exercise_solutions import SOLUTIONS  # noqa: E402
from stmviz.exercises import (  # noqa: E402
    check_blocks_prediction,
    check_capacity_prediction,
    check_chat_steps,
    check_clear_prediction,
    check_clear_tool_results,
    check_fifo_match,
    check_fold,
    check_keepers_prediction,
    check_priority_memory,
    check_priority_prediction,
    check_retrieval_prediction,
    check_steps_prediction,
    check_subgoal_switch,
    check_word_overlap,
)


def solved(key: str, name: str):
    namespace: dict = {}
    exec(compile(SOLUTIONS[key], key, "exec"), namespace)  # noqa: S102 - the package's own reference solutions
    return namespace[name]


def todo(*args):
    raise NotImplementedError("TODO: write this")


def boom(*args):
    raise ValueError("oops")  # the student's own message is theirs: not judged here


# -- wrong answers, as students write them ------------------------------------------------------------------------------

def switch_keeps_everything(state, new_id, new_goal, summarize):  # nothing leaves, no summary, new goal not current
    return State(list(state) + [Element(new_goal, {"type": "subgoal", "subgoal": new_id})])


def switch_resummarizes_all(state, new_id, new_goal, summarize):  # summarizes the older summary too
    texts = [e.text for e in state if e.meta.get("type") in ("pair", "summary")]
    goal = next(e for e in state if e.meta.get("current"))
    kept = [e for e in state if e.meta.get("type") == "task"]
    return State(kept + [Element(summarize(goal.text, texts), {"type": "summary", "subgoal": goal.meta["subgoal"]})])


def fold_in_place(blocks, latest, x, sigma):  # appends to the list it was given, keeps the merged blocks
    blocks.append(((x, latest[0] + 1), sigma.upper()))
    return blocks


def chat_swapped(messages):  # (input, output) instead of (output, input), and an extra step at the end
    steps, reply = [], None
    for m in messages:
        if m["role"] == "assistant":
            reply = m["content"]
        else:
            steps.append((m["content"], reply))
    return steps + [(None, reply)]


def chat_consuming(messages):  # empties the log while reading it; drops step 0 and pairs the last reply
    steps = []
    while messages:
        m = messages.pop(0)
        if m["role"] == "assistant":
            steps.append((m["content"], "user says 9"))
    return steps


def overlap_raw_words(trace, probe):  # split() instead of content words
    evidence = "\n".join(trace[s].context.step.text for s in probe.evidence_steps).split()
    shown = set(trace.project(probe.t).text().split())
    return sum(w in shown for w in set(evidence)) / len(set(evidence)) if evidence else None


def clear_in_place(messages, keep, placeholder):  # clears every result, in ω itself
    for m in messages:
        if m["role"] == "tool":
            m["content"] = placeholder
    return messages


def clear_reordered(messages, keep, placeholder):
    return list(reversed([dict(m) for m in messages]))


class FirstAttempt(Mechanism):  # notebook 08's plain FIFO: ignores the priority
    operations = {"append": "add the observation, drop the oldest on overflow"}

    def update(self, state, operation, context):
        new = Element(context.observation, {"t": context.t, **context.step.meta})
        state = state | {new}
        while state not in self.space:
            state = state - {state.ordered()[0]}
        return state

    def project(self, state):
        return "\n".join(e.text for e in state)


class NoMetadata(FirstAttempt):  # forgets the step's metadata; shows nothing
    def update(self, state, operation, context):
        state = state | {Element(context.observation, {"t": context.t})}
        while state not in self.space:
            state = state - {state.ordered()[0]}
        return state

    def project(self, state):
        return ""


class Unwritten(Mechanism):  # notebook 08's exercise cell as given: its TODO untouched
    operations = {"append": "add the observation"}

    def update(self, state, operation, context):
        raise NotImplementedError("TODO")

    def project(self, state):
        raise NotImplementedError("TODO")


CASES = {
    "05-retrieve": [lambda: check_retrieval_prediction(None), lambda: check_retrieval_prediction("2, 6"),
                    lambda: check_retrieval_prediction({0, 2, 6, 7, 8, 9, 10, 11, 12}),
                    lambda: check_retrieval_prediction({2, 3, 4, 5})],
    "05-subgoal": [lambda: check_subgoal_switch(todo), lambda: check_subgoal_switch(lambda *a: None),
                   lambda: check_subgoal_switch(boom),
                   lambda: check_subgoal_switch(lambda *a: 42), lambda: check_subgoal_switch(switch_keeps_everything),
                   lambda: check_subgoal_switch(switch_resummarizes_all)],
    "06-blocks": [lambda: check_blocks_prediction(None), lambda: check_blocks_prediction("0-6"),
                  lambda: check_blocks_prediction([(0, 2), (3, 4), (5, 6), (7, 7), (9, 9)])],
    "06-fold": [lambda: check_fold(todo), lambda: check_fold(lambda *a: None), lambda: check_fold(boom),
                lambda: check_fold(fold_in_place), lambda: check_fold(lambda blocks, latest, x, sigma: blocks[:1])],
    "07-keepers": [lambda: check_keepers_prediction(None), lambda: check_keepers_prediction({"LRU"}),
                   lambda: check_keepers_prediction({"FIFOWindow", "HiAgent"})],
    "07-fifo-match": [lambda: check_fifo_match(None), lambda: check_fifo_match(2.5), lambda: check_fifo_match(10),
                      lambda: check_fifo_match(100_000)],
    "08-predict-eviction": [lambda: check_priority_prediction(None), lambda: check_priority_prediction("4, 1"),
                            lambda: check_priority_prediction((3, 0)), lambda: check_priority_prediction((4, 3)),
                            lambda: check_priority_prediction((4, 4))],
    "08-priority": [lambda: check_priority_memory(FirstAttempt), lambda: check_priority_memory(NoMetadata),
                    lambda: check_priority_memory(boom), lambda: check_priority_memory(Unwritten)],
    "09-predict-steps": [lambda: check_steps_prediction(None), lambda: check_steps_prediction("4"),
                         lambda: check_steps_prediction((7, 5, 3)), lambda: check_steps_prediction((5, 3, 2))],
    "09-chat-steps": [lambda: check_chat_steps(lambda m: None), lambda: check_chat_steps(boom),
                      lambda: check_chat_steps(lambda m: "steps"), lambda: check_chat_steps(chat_swapped),
                      lambda: check_chat_steps(chat_consuming), lambda: check_chat_steps(lambda m: [])],
    "10-word-overlap": [lambda: check_word_overlap(todo), lambda: check_word_overlap(boom),
                        lambda: check_word_overlap(lambda trace, probe: 2),
                        lambda: check_word_overlap(overlap_raw_words)],
    "10-predict-capacity": [lambda: check_capacity_prediction(None), lambda: check_capacity_prediction("rises"),
                            lambda: check_capacity_prediction({"FIFOWindow": "falls", "SCM": "rises"})],
    "11-predict-clearing": [lambda: check_clear_prediction(None), lambda: check_clear_prediction("yes"),
                            lambda: check_clear_prediction((False, True))],
    "11-clear-results": [lambda: check_clear_tool_results(todo), lambda: check_clear_tool_results(lambda *a: None),
                         lambda: check_clear_tool_results(boom),
                         lambda: check_clear_tool_results(lambda *a: "text"),
                         lambda: check_clear_tool_results(clear_in_place),
                         lambda: check_clear_tool_results(clear_reordered)],
}

#: the right answers: a report with every criterion met is Russian too
RIGHT = {
    "05-retrieve": lambda: check_retrieval_prediction({2, 6, 7, 8, 9, 10}),
    "05-subgoal": lambda: check_subgoal_switch(solved("05-subgoal", "start_subgoal")),
    "06-blocks": lambda: check_blocks_prediction([(0, 6)]),
    "06-fold": lambda: check_fold(solved("06-fold", "fold")),
    "07-keepers": lambda: check_keepers_prediction({"SCM"}),
    "08-predict-eviction": lambda: check_priority_prediction((4, 1)),
    "09-predict-steps": lambda: check_steps_prediction((4, 2, 1)),
    "09-chat-steps": lambda: check_chat_steps(solved("09-chat-steps", "chat_steps")),
    "10-predict-capacity": lambda: check_capacity_prediction({"FIFOWindow": "rises", "SCM": "stays"}),
    "11-predict-clearing": lambda: check_clear_prediction((True, False)),
    "11-clear-results": lambda: check_clear_tool_results(solved("11-clear-results", "project")),
}


def _russian_report(make):
    with language("ru"):
        report = make()
        text = str(report)
    return report, text


@pytest.mark.parametrize("key", list(CASES))
def test_a_checker_of_notebooks_05_to_11_reports_in_russian(key):
    for make in CASES[key]:
        report, text = _russian_report(make)
        assert not report.ok
        assert english_sentences(text) == [], f"{key}: English left in the Russian report:\n{text}"
        assert any(ch in text for ch in "абвгдежзийклмнопрстуфхцчшщыьэюя"), text


@pytest.mark.parametrize("key", list(RIGHT))
def test_a_met_report_is_russian_too(key):
    report, text = _russian_report(RIGHT[key])
    assert report.ok, text
    assert english_sentences(text) == [], f"{key}: English left in the Russian report:\n{text}"
    assert "все критерии выполнены" in text


def test_the_wrong_answers_reach_the_details_they_are_written_for():
    """The Russian cases above are worth something only if they show the checkers' details, not just their heads."""
    report, text = _russian_report(lambda: check_priority_memory(FirstAttempt))
    assert report.failed("priority")  # the criteria's names stay what programs read
    assert [c.name for c in report.not_judged] == ["high-priority facts"]
    assert "наблюдение" in text and "удалено" in text
    report, text = _russian_report(lambda: check_fold(fold_in_place))
    assert report.failed("inputs unchanged") and "свёртка от x =" in text
    report, text = _russian_report(lambda: check_retrieval_prediction({0, 1, 2, 6, 7, 8, 9, 10, 11, 12}))
    assert report.failed("only subgoals 1 and 3") and "шаги [11, 12] не относятся" in text
    assert "при переполнении в том же обновлении удалены шаги [0, 1]" in text
    report, text = _russian_report(lambda: check_keepers_prediction({"FIFOWindow", "HiAgent"}))
    assert report.failed("FIFOWindow") and "вы предсказали, что FIFOWindow хоть что-то сохранит" in text


def test_russian_plural_forms_follow_the_count():
    _, one = _russian_report(lambda: check_retrieval_prediction({2, 4, 6, 7, 8, 9, 10}))
    _, three = _russian_report(lambda: check_retrieval_prediction({2, 3, 4, 5, 6, 7, 8, 9, 10}))
    _, steps = _russian_report(lambda: check_steps_prediction((5, 2, 1)))
    assert "шаг [4] не относится" in one
    assert "шаги [3, 4, 5] не относятся" in three
    assert "импортёр делает 4 шага" in steps


def test_english_stays_the_default_and_the_same_after_russian():
    """Russian for one report leaves the next English report as it was (the language is a setting, not a state)."""
    before = str(check_fold(fold_in_place))
    _russian_report(lambda: check_fold(fold_in_place))
    after = str(check_fold(fold_in_place))
    assert before == after
    assert "fold from x = 7 changed the list passed as blocks" in after
    assert english_sentences(after)  # English is English


def test_whole_sentences_print_the_english_they_replaced():
    """The sentences once built from fragments print, in English, exactly what the fragments did."""
    text = str(check_retrieval_prediction({0, 1, 2, 6, 7, 8, 9, 10}))
    assert ("✗ subgoal 1: you predicted steps [0, 1, 2] of subgoal 1; ω_17 holds steps [2]: overflow dropped steps "
            "[0, 1] in the same update (the oldest memory first)\n") in text
    text = str(check_retrieval_prediction({2, 6, 7, 8, 9}))
    assert "✗ subgoal 3: you predicted steps [6, 7, 8, 9] of subgoal 3; ω_17 holds steps [6, 7, 8, 9, 10]\n" in text
    text = str(check_keepers_prediction({"FIFOWindow"}))
    assert "✗ FIFOWindow: you predicted FIFOWindow keeps some; the run: it keeps 0 of 7 probes\n" in text
    assert "✗ SCM: you predicted SCM keeps none; the run: it keeps 5 of 7 probes\n" in text
    assert "✓ HiAgent: HiAgent keeps 0 of 7 probes: you predicted it keeps none\n" in text
