"""What notebooks 00–04's checkers, check_mechanism and ``stmviz course grade`` say, in Russian (issue 35, part 2).

Each checker is run on answers a student could give — untouched, of the wrong shape, wrong in each way its
details name — and what it prints in Russian must hold no English sentence (``russian_text.english_sentences``:
quoted values and code are not prose). The criteria and clause names stay the keys programs read, in both
languages; and a Russian report leaves nothing behind: the English one made after it is the English one made
before it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import stmviz
from stmviz import Element, Mechanism, Operation, State, StateSpace, Transition, check_mechanism, sizes
from stmviz.course import ExerciseGrade, summary
from stmviz.exercises import (
    check_eviction_prediction,
    check_fifo_push,
    check_joke_prediction,
    check_judge,
    check_keep_first,
    check_membership,
    check_room_left,
    check_which_fit,
    check_window_prediction,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from russian_text import english_sentences  # noqa: E402


def prose_of(text, *errors):
    """``text`` without the error messages it quotes: an exception's text stays English (only its frame is translated)."""
    for error in errors:
        assert error in text, f"expected the error {error!r} in:\n{text}"
        text = text.replace(error, " ")
    return text


def _todo(*args):
    raise NotImplementedError("TODO")


def _raises(*args):
    raise ValueError("x")


# -- notebook 02's window, as a student writes it, and ways of getting KeepFirst wrong ------------------------------

class SlidingWindow(Mechanism):
    operations = {"append": "add the output and the input; on overflow drop the oldest"}

    def add(self, state, context):
        halves = (context.step.output, context.step.observation)
        return state | {Element(text, {"t": context.t + k / 2}) for k, text in enumerate(halves) if text}

    def update(self, state, operation, context):
        state = self.add(state, context)
        for oldest in list(state):
            if state in self.space:
                break
            state = state - {oldest}
        return Transition(state, {})

    def project(self, state):
        return "\n".join(e.text for e in state)


class EvictsTheNewest(SlidingWindow):
    def update(self, state, operation, context):
        state = self.add(state, context)
        for newest in reversed(list(state)):
            if state in self.space:
                break
            if int(newest.meta["t"]) != 0:
                state = state - {newest}
        return state


class ClearsAll(SlidingWindow):
    def update(self, state, operation, context):
        state = self.add(state, context)
        if state not in self.space:
            state = State(e for e in state if int(e.meta["t"]) in (0, context.t))
        return state


class ForgetsTheInput(SlidingWindow):
    def update(self, state, operation, context):
        if context.step.output:
            state = state | {Element(context.step.output, {"t": context.t})}
        for oldest in list(state):
            if state in self.space:
                break
            if int(oldest.meta["t"]) != 0:
                state = state - {oldest}
        return state


class NeverEvicts(SlidingWindow):
    def update(self, state, operation, context):
        return self.add(state, context)


class NotWrittenYet(SlidingWindow):
    def update(self, state, operation, context):
        raise NotImplementedError("TODO: as SlidingWindow.update, but never evict the task")


# -- push, wrong ------------------------------------------------------------------------------------------------------

def push_appends_in_place(window, new, mu, v_max):
    window.append(new)
    return window


def push_returns_nothing(window, new, mu, v_max):
    return None


def push_never_evicts(window, new, mu, v_max):
    return window + [new]


def push_evicts_the_newest(window, new, mu, v_max):
    window = window + [new]
    while sum(mu(m) for m in window) > v_max:
        window.pop(-2 if len(window) > 1 else -1)
    return window


#: the English error messages a report may quote (the package's STMError texts, the student's own exceptions)
QUOTED_ERRORS = {
    "02 keep-first never evicts": ("NeverEvicts.update(ω, append, c) left Ω_STM: Σμ = 43 > V_max = 40 (over by 3); "
                                   "U must evict, summarize or refuse so that its result fits",),
}

#: (what the student did, the report it gets): every detail sentence of notebooks 00–04's checkers is in one of them
REPORTS = {
    "00 untouched": lambda: check_room_left(_todo),
    "00 counts the elements": lambda: check_room_left(lambda s, v: v - len(s)),
    "00 goes below 0": lambda: check_room_left(lambda s, v: v - sum(s)),
    "00 not a number": lambda: check_room_left(lambda s, v: "room"),
    "00 raises": lambda: check_room_left(_raises),
    "00 right": lambda: check_room_left(lambda s, v: max(v - sum(s), 0)),
    "01 prediction untouched": lambda: check_which_fit(None),
    "01 prediction a string": lambda: check_which_fit("B"),
    "01 prediction unknown name": lambda: check_which_fit({"Z"}),
    "01 everything fits": lambda: check_which_fit(set("ABCDEF")),
    "01 nothing fits": lambda: check_which_fit(set()),
    "01 membership untouched": lambda: check_membership(_todo),
    "01 membership strict": lambda: check_membership(lambda e, mu, v: sum(mu(x) for x in e) < v),
    "01 membership raises": lambda: check_membership(_raises),
    "02 prediction untouched": lambda: check_window_prediction(None),
    "02 prediction a gap": lambda: check_window_prediction({0, 3, 4}),
    "02 prediction before the last step": lambda: check_window_prediction({1, 2, 3}),
    "02 prediction too few": lambda: check_window_prediction({3, 4}),
    "02 prediction not numbers": lambda: check_window_prediction({"2", "3"}),
    "02 keep-first untouched": lambda: check_keep_first(NotWrittenYet),
    "02 keep-first the window as is": lambda: check_keep_first(SlidingWindow),
    "02 keep-first evicts the newest": lambda: check_keep_first(EvictsTheNewest),
    "02 keep-first clears all": lambda: check_keep_first(ClearsAll),
    "02 keep-first forgets the input": lambda: check_keep_first(ForgetsTheInput),
    "02 keep-first never evicts": lambda: check_keep_first(NeverEvicts),
    "02 keep-first cannot be built": lambda: check_keep_first(_raises),
    "03 prediction untouched": lambda: check_eviction_prediction(None),
    "03 prediction the pinned leaves": lambda: check_eviction_prediction({"Be brief."}),
    "03 prediction the newer leaves": lambda: check_eviction_prediction({"Let me check the tracking."}),
    "03 prediction not a message": lambda: check_eviction_prediction({"the parcel"}),
    "03 push untouched": lambda: check_fifo_push(_todo),
    "03 push in place": lambda: check_fifo_push(push_appends_in_place),
    "03 push returns nothing": lambda: check_fifo_push(push_returns_nothing),
    "03 push never evicts": lambda: check_fifo_push(push_never_evicts),
    "03 push evicts the newest": lambda: check_fifo_push(push_evicts_the_newest),
    "03 push raises": lambda: check_fifo_push(_raises),
    "04 prediction untouched": lambda: check_joke_prediction(None),
    "04 prediction not a pair": lambda: check_joke_prediction("3, 0"),
    "04 prediction wrong": lambda: check_joke_prediction((0, 3)),
    "04 prediction right": lambda: check_joke_prediction((3, 0)),
    "04 judge untouched": lambda: check_judge(_todo),
    "04 judge returns None": lambda: check_judge(lambda m, s, q: None),
    "04 judge not a verdict": lambda: check_judge(lambda m, s, q: "keep"),
    "04 judge always full": lambda: check_judge(lambda m, s, q: "full"),
    "04 judge raises": lambda: check_judge(_raises),
}


@pytest.mark.parametrize("case", list(REPORTS))
def test_a_checker_s_report_in_russian_has_no_english_sentence(case):
    english = REPORTS[case]()
    with stmviz.language("ru"):
        russian = REPORTS[case]()
        text = str(russian)
    assert english_sentences(prose_of(text, *QUOTED_ERRORS.get(case, ()))) == [], text
    assert text != str(english)
    # the criteria are the same keys, judged the same, in both languages
    assert [(c.name, c.passed) for c in russian.criteria] == [(c.name, c.passed) for c in english.criteria]
    assert (russian.done, russian.ok) == (english.done, english.ok)


def test_the_russian_report_names_its_criteria_and_hints_in_russian():
    with stmviz.language("ru"):
        report = check_room_left(lambda sizes, v_max: v_max - len(sizes))
        text = str(report)
        assert report.failed("the total size")  # the key a test names stays the English one
    assert text.splitlines() == [
        "00 · сколько места осталось: не выполнено 1 из 4 критериев, 1 не проверяется, пока они не выполнены",
        "  ✓ число: room_left возвращает число токенов",
        "  ✗ суммарный объём: размеры [3, 4, 4, 5], V_max = 20: ожидалось 4, получено 16",
        "      подсказка: сложите размеры (sum(sizes)): число элементов — это не их объём",
        "  ✓ пустое состояние: без элементов свободен весь V_max",
        "  · не меньше 0: не проверяется, пока не выполнено 'суммарный объём'",
    ]


def test_counts_take_russian_plural_forms():
    with stmviz.language("ru"):
        one = str(check_eviction_prediction({"My parcel 1234 has not arrived yet."}))
        two = str(check_window_prediction({3, 4}))
        three = str(check_membership(lambda e, mu, v: sum(mu(x) for x in e) < v))
    assert "вы предсказали, что уйдёт 1 сообщение; окно удаляет 2" in one
    assert "вы предсказали 2 предложения;" in two
    assert "указано 2 элемента, Σμ = 10" in three


def test_a_russian_report_leaves_the_english_one_as_it_was():
    before = {case: str(make()) for case, make in REPORTS.items()}
    with stmviz.language("ru"):
        for make in REPORTS.values():
            str(make())
    assert {case: str(make()) for case, make in REPORTS.items()} == before
    assert before["00 counts the elements"].splitlines()[2] == (
        "  ✗ the total size: sizes [3, 4, 4, 5], V_max = 20: expected 4, got 16")
    assert "you predicted 2 sentence(s); μ of the steps is" in before["02 prediction too few"]
    assert "2 element(s) listed, Σμ = 10 as a set, V_max = 10: expected True, got False" in before["01 membership strict"]


# -- check_mechanism ----------------------------------------------------------------------------------------------------

class Counting(SlidingWindow):  # counts calls on its class, out of the contract's sight; from 0 for each check
    calls = 0

    def __init__(self, space):
        super().__init__(space)
        type(self).calls = 0


class Remembers(SlidingWindow):  # keeps what it saw on self: U is not a function of (ω, o, c)
    def __init__(self, space):
        super().__init__(space)
        self.seen = []

    def update(self, state, operation, context):
        self.seen.append(context.t)
        return super().update(state, operation, context)


class Fickle(Counting):  # U gives another state when called again on the same inputs
    def update(self, state, operation, context):
        Fickle.calls += 1
        return super().update(state, operation, context).state | {Element(f"call {Fickle.calls}")}


class OnceOnly(Counting):  # U fails when called again on the same inputs
    def update(self, state, operation, context):
        OnceOnly.calls += 1
        if OnceOnly.calls % 2 == 0:
            raise ValueError("x")
        return super().update(state, operation, context)


class Idle(SlidingWindow):  # the controller never chooses an operation: U is never called
    def controller(self, state, context):
        return []


class ControllerFails(SlidingWindow):
    def controller(self, state, context):
        raise ValueError("x")


class ProjectionFails(SlidingWindow):
    def project(self, state):
        raise ValueError("x")


class StartsTooFull(SlidingWindow):  # ω_0 is over V_max
    def initial_state(self, context):
        return State([Element("one two three four five six seven eight nine ten eleven twelve")])


class Restless(Counting):  # π differs between two calls
    def project(self, state):
        Restless.calls += 1
        return str(Restless.calls)


class Undeclared(SlidingWindow):  # declares an operation type U does not handle
    operations = {"append": "add", "evict": "remove one"}

    def controller(self, state, context):
        return Operation("append")

    def update(self, state, operation, context):
        if operation.type == "evict":
            raise NotImplementedError("TODO")
        return super().update(state, operation, context)


class Unlucky(SlidingWindow):  # an operation type never chosen, whose U needs parameters
    operations = {"append": "add", "pin": "pin an element"}

    def update(self, state, operation, context):
        if operation.type == "pin":
            raise ValueError("x")
        return super().update(state, operation, context)

    def controller(self, state, context):
        return Operation("append")


class Empty(SlidingWindow):
    operations = {}


CONTRACTS = {
    "holds": lambda space: check_mechanism(SlidingWindow(space)),
    "remembers on self": lambda space: check_mechanism(Remembers(space)),
    "U is not repeatable": lambda space: check_mechanism(Fickle(space)),
    "U fails when called again": lambda space: check_mechanism(OnceOnly(space)),
    "U never called": lambda space: check_mechanism(Idle(space)),
    "the controller fails": lambda space: check_mechanism(ControllerFails(space)),
    "π fails": lambda space: check_mechanism(ProjectionFails(space)),
    "ω_0 not a state": lambda space: check_mechanism(StartsTooFull(StateSpace(sizes.words, 10))),
    "π differs": lambda space: check_mechanism(Restless(space)),
    "a type U does not handle": lambda space: check_mechanism(Undeclared(space)),
    "a type never chosen": lambda space: check_mechanism(Unlucky(space)),
    "no steps": lambda space: check_mechanism(SlidingWindow(space), []),
    "no operations": lambda space: check_mechanism(Empty(space)),
    "U raises": lambda space: check_mechanism(NotWrittenYet(space)),
    "U leaves Ω_STM": lambda space: check_mechanism(NeverEvicts(StateSpace(sizes.words, 10))),
}
CONTRACT_ERRORS = {
    "U is not repeatable": ("Fickle.update(ω, append, c) left Ω_STM: Σμ = 51 > V_max = 50 (over by 1); "
                            "U must evict, summarize or refuse so that its result fits",),
    "ω_0 not a state": ("state exceeds capacity: Σμ = 12 > V_max = 10 (over by 2); evict elements or raise v_max",),
    "U raises": ("TODO: as SlidingWindow.update, but never evict the task",),
    "U leaves Ω_STM": ("NeverEvicts.update(ω, append, c) left Ω_STM: Σμ = 71 > V_max = 10 (over by 61); "
                       "U must evict, summarize or refuse so that its result fits",),
}


@pytest.mark.parametrize("case", list(CONTRACTS))
def test_check_mechanism_s_report_in_russian_has_no_english_sentence(case):
    space = StateSpace(sizes.words, 50)
    english = CONTRACTS[case](space)
    with stmviz.language("ru"):
        russian = CONTRACTS[case](space)
        text = str(russian)
    assert english_sentences(prose_of(text, *CONTRACT_ERRORS.get(case, ()))) == [], text
    assert text != str(english)
    assert [(r.name, r.passed, r.checked, r.warning) for r in russian.results] == [
        (r.name, r.passed, r.checked, r.warning) for r in english.results]


def test_check_mechanism_s_clause_names_are_keys_shown_in_russian():
    space = StateSpace(sizes.words, 50)
    with stmviz.language("ru"):
        report = check_mechanism(SlidingWindow(space))
        text = str(report)
    assert [r.name for r in report.results] == [
        "operations", "initial state", "closure", "purity", "deterministic π", "declared operations",
        "type 'append' handled"]
    assert text.splitlines()[0] == "SlidingWindow: контракт определения 2 выполняется на 40 шагах"
    assert "  ✓ тип 'append' обрабатывается: контроллер выбирал этот тип" in text.splitlines()
    assert "  ✓ замкнутость: U вернула State из Ω_STM на каждом из 40 шагов" in text.splitlines()
    english = str(check_mechanism(SlidingWindow(space)))
    assert english.splitlines()[0] == "SlidingWindow: contract of Definition 2 holds on 40 steps"
    assert "  ✓ type 'append' handled: exercised by the controller" in english.splitlines()


def test_a_failing_contract_counts_its_clauses_in_russian():
    space = StateSpace(sizes.words, 50)
    with stmviz.language("ru"):
        head = str(check_mechanism(Remembers(space))).splitlines()[0]
        one_step = str(check_mechanism(SlidingWindow(space), ["one step"])).splitlines()[0]
    assert head == "Remembers: нарушено 1 условие контракта"
    assert one_step == "SlidingWindow: контракт определения 2 выполняется на 1 шаге"


# -- stmviz course grade ------------------------------------------------------------------------------------------------

GRADES = [
    ExerciseGrade("01-which-fit", 4, 5, "01 · which sets fit?: 1 of 5 criteria not met\n  ✓ names from the list: ...\n"
                                        "  ✗ sizes add up: you predicted that A fits"),
    ExerciseGrade("01-membership", 5, 5, ""),
]


def test_the_grade_table_in_russian():
    with stmviz.language("ru"):
        table = summary(GRADES)
        line = str(GRADES[1])
    assert table.splitlines() == [
        "01-which-fit   4 из 5",
        "    ✗ sizes add up: you predicted that A fits",  # the checker's own line, as the graded notebook printed it
        "01-membership  5 из 5",
        "итого          9 из 10",
    ]
    assert line == "01-membership: 5 из 5"


def test_the_grade_table_in_english_is_as_it_was():
    assert summary(GRADES).splitlines() == [
        "01-which-fit   4 of 5",
        "    ✗ sizes add up: you predicted that A fits",
        "01-membership  5 of 5",
        "total          9 of 10",
    ]
    assert str(GRADES[0]) == "01-which-fit: 4 of 5"
