"""The notebooks' exercises: a checker per exercise; the reference solutions on request.

Each notebook from 01 to 09 ends with an exercise. The student writes code in
the exercise cell (its default is a TODO that raises ``NotImplementedError``)
and runs the checker, which reports ✓ or ✗ for each criterion, with a hint
for every ✗. A checker never raises on a student's mistake: what went wrong
is a ✗ line. ``solution(key)`` prints the reference solution — for after
trying, not before. The solutions live in :mod:`stmviz.exercise_solutions`,
which this module loads only when ``solution`` is called: importing the
checkers (as every notebook does) does not bring the answers along.

========================  ===================================  =====================================
key                       checker                              what the student writes
========================  ===================================  =====================================
``01-membership``         :func:`check_membership`             ``in_omega(elements, mu, v_max)``
``02-keep-first``         :func:`check_keep_first`             a mechanism that never forgets step 0
``03-fifo-push``          :func:`check_fifo_push`              FIFO's U on a list of messages
``04-judge``              :func:`check_judge`                  SCM's judgement of one memory
``05-subgoal``            :func:`check_subgoal_switch`         HiAgent's U when a subgoal starts
``06-fold``               :func:`check_fold`                   AgentFold's fold of blocks s_{x,y}
``07-fifo-match``         :func:`check_fifo_match`             the V_max a FIFO window needs to match SCM
``08-priority``           :func:`check_priority_memory`        a mechanism using the priority D_1
``09-chat-steps``         :func:`check_chat_steps`             a chat cut into steps (output, input)
``10-evidence-recall``    :func:`check_evidence_recall`        evidence recall computed by hand
``11-clear-results``      :func:`check_clear_tool_results`     π of tool-result clearing (the history untouched)
========================  ===================================  =====================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .contract import check_mechanism
from .core.context import AgentStep
from .core.element import Element
from .core import guards
from .core.errors import STMError
from .core.formatting import shorten
from .core.mechanism import Mechanism
from .core.sizes import words
from .core.space import State, StateSpace
from .core.trace import Trace, run

__all__ = [
    "Criterion",
    "ExerciseReport",
    "solution",
    "check_membership",
    "check_keep_first",
    "KEEP_FIRST_STEPS",
    "check_fifo_push",
    "check_judge",
    "check_subgoal_switch",
    "check_fold",
    "check_fifo_match",
    "check_priority_memory",
    "PRIORITY_STEPS",
    "check_chat_steps",
    "check_evidence_recall",
    "check_clear_tool_results",
]


# -- reports ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Criterion:
    """One criterion of an exercise, whether the student's answer met it, and a hint when it did not.

    >>> print(Criterion("boundary", False, "Σμ = V_max was rejected", "Definition 1 says ≤, not <"))
    ✗ boundary: Σμ = V_max was rejected
        hint: Definition 1 says ≤, not <
    """

    name: str
    passed: bool
    detail: str
    hint: str = ""

    def __str__(self) -> str:
        line = f"{'✓' if self.passed else '✗'} {self.name}: {self.detail}"
        return line if self.passed or not self.hint else f"{line}\n    hint: {self.hint}"


class ExerciseReport:
    """What a checker found: one :class:`Criterion` per line; ``done`` is False while the TODO is left as is."""

    def __init__(self, exercise: str, criteria: list[Criterion], done: bool = True, todo: str = "") -> None:
        self.exercise = exercise
        self.criteria = criteria
        self.done = guards.flag(done, "done", where="ExerciseReport")
        self.todo = todo  # what the untouched exercise said (its NotImplementedError), while not done

    @property
    def ok(self) -> bool:
        """Whether every criterion was met."""
        return self.done and all(c.passed for c in self.criteria)

    @property
    def failures(self) -> list[Criterion]:
        """The criteria that were not met."""
        return [c for c in self.criteria if not c.passed]

    def failed(self, name: str) -> bool:
        """Whether the criterion ``name`` was not met (an unknown name raises, so a test cannot pass by a typo)."""
        guards.choice(name, "name", [c.name for c in self.criteria], f"the criteria of exercise {self.exercise!r}",
                      where="ExerciseReport.failed")
        return not next(c.passed for c in self.criteria if c.name == name)

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        if not self.done:
            head = (f"{self.exercise}: not done yet ({self.todo}) — replace the TODO in the exercise cell, "
                    "then run this cell again")
        elif self.ok:
            head = f"{self.exercise}: every criterion is met ✓"
        else:
            head = f"{self.exercise}: {len(self.failures)} of {len(self.criteria)} criteria not met"
        return "\n".join([head] + ["  " + str(c).replace("\n", "\n  ") for c in self.criteria])

    __repr__ = __str__


class _Checks:
    """Collects criteria in a fixed order; the first failure of a criterion is the one reported."""

    def __init__(self, exercise: str, criteria: dict[str, tuple[str, str]]) -> None:
        self.exercise = exercise
        self.spec = criteria  # name -> (what it means when met, hint when not)
        self.failures: dict[str, str] = {}
        self.hints: dict[str, str] = {}  # a hint naming the fault found, where it differs from the criterion's own

    def fail(self, name: str, detail: str, hint: str | None = None) -> None:
        if name not in self.spec:  # a programming error in this module
            raise KeyError(name)
        if name not in self.failures:
            self.failures[name] = detail
            if hint is not None:
                self.hints[name] = hint

    def check(self, name: str, condition: bool, detail: str, hint: str | None = None) -> bool:
        if not condition:
            self.fail(name, detail, hint)
        return condition

    def report(self) -> ExerciseReport:
        return ExerciseReport(self.exercise, [
            Criterion(name, name not in self.failures, self.failures.get(name, met), self.hints.get(name, hint))
            for name, (met, hint) in self.spec.items()
        ])

    def not_done(self, exc: BaseException) -> ExerciseReport:
        """Every criterion ✗ with what it will check, and no hint: the hints come once there is an answer."""
        return ExerciseReport(self.exercise, [
            Criterion(name, False, f"not checked yet — {met}") for name, (met, _) in self.spec.items()
        ], done=False, todo=shorten(str(exc) or "TODO", 100))


def _call(fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """Call the student's code: (True, result), or (False, the exception) — NotImplementedError is re-raised."""
    try:
        return True, fn(*args)
    except NotImplementedError:
        raise
    except Exception as exc:  # a student's bug becomes a ✗ line, not a traceback
        return False, exc


def _checked_run(
    c: _Checks, make: Any, space: StateSpace, steps: Sequence[AgentStep], *,
    check_steps: Sequence[AgentStep] | None = None, todo: str,
) -> tuple[Mechanism, Trace] | ExerciseReport:
    """Build the student's mechanism, check its contract (criterion "contract") and run it on ``steps``.

    Returns the mechanism and its trace, or the report to give back at once: "not done yet" while
    the mechanism still raises its TODO, a ✗ when it cannot be built or run.
    """
    try:
        ok, mechanism = _call(make, space)
        if not ok:
            c.fail("contract", f"could not build the mechanism: {_err(mechanism)}")
            return c.report()
        contract = check_mechanism(mechanism, check_steps) if check_steps is not None else check_mechanism(mechanism)
        if not contract.ok and any("TODO" in r.detail or "NotImplementedError" in r.detail for r in contract.failures):
            raise NotImplementedError(todo)
        c.check("contract", contract.ok, "check_mechanism fails: " + "; ".join(r.detail for r in contract.failures))
        ok, trace = _call(run, mechanism, steps)
    except NotImplementedError as exc:
        return c.not_done(exc)
    if not ok:
        c.fail("contract", f"run() failed: {_err(trace)}")
        return c.report()
    return mechanism, trace


def _err(exc: BaseException) -> str:
    return f"it raised {type(exc).__name__}: {shorten(str(exc), 120)}"


# -- 01 · Definition 1 --------------------------------------------------------------------------------------


def check_membership(in_omega: Callable[[Iterable[Element], Callable[[Element], float], float], Any]) -> ExerciseReport:
    """Notebook 01: ``in_omega(elements, mu, v_max)`` decides ω ∈ Ω_STM without ``StateSpace``.

    >>> def in_omega(elements, mu, v_max):
    ...     return sum(mu(e) for e in set(elements)) <= v_max
    >>> check_membership(in_omega).ok
    True
    >>> check_membership(lambda elements, mu, v_max: sum(mu(e) for e in elements) < v_max).failed("boundary")
    True
    """
    c = _Checks("01 · ω ∈ Ω_STM", {
        "empty state": ("the empty set is a state (Σμ = 0 ≤ V_max)", "a sum over no elements is 0"),
        "boundary": ("a state with Σμ = V_max is in Ω_STM", "Definition 1 says Σμ(e) ≤ V_max: equality is allowed"),
        "over capacity": ("a set with Σμ > V_max is not in Ω_STM", "compare the total size Σμ(e) with V_max"),
        "sizes, not counts": ("a few large elements can overflow, many small ones can fit",
                              "add up μ(e) for each element; the number of elements is not its size"),
        "a set": ("an element listed twice is counted once", "ω ∈ 2^E is a set: build set(elements) first"),
    })
    a = Element("one two three four")            # 4 words
    b = Element("five six seven eight nine ten")  # 6 words
    many = [Element(f"w{i}") for i in range(8)]   # 8 elements of 1 word
    cases = [  # (criterion, elements, v_max, expected)
        ("empty state", [], 5, True),
        ("boundary", [a, b], 10, True),
        ("over capacity", [a, b], 9, False),
        ("sizes, not counts", [a, b], 3 * 2 + 1, False),
        ("sizes, not counts", many, 8, True),
        ("a set", [a, a, b], 10, True),
        ("a set", [a, a], 5, True),
    ]
    try:
        for name, elements, v_max, expected in cases:
            called, answer = _call(in_omega, list(elements), words, v_max)
            if not called:
                c.fail(name, _err(answer))
            elif answer is None or bool(answer) != expected:
                total = sum(words(e) for e in set(elements))
                c.fail(name, f"{len(elements)} element(s), Σμ = {total} (as a set), V_max = {v_max}: "
                             f"expected {expected}, got {answer!r}")
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()


# -- 02 · Definition 2 --------------------------------------------------------------------------------------

#: The stream of exercise 02: the task comes first and must never be forgotten.
KEEP_FIRST_STEPS = [
    AgentStep(observation="Task: book a table for Ada, who is allergic to peanuts.", meta={"role": "user"}),
    AgentStep(thought="I will search.", observation="It is raining in Riga today."),
    AgentStep(thought="Look for Italian places.", observation="The API returned 42 restaurants near the old town."),
    AgentStep(thought="Filter them.", observation="Trattoria Sole and Casa Nostra have nut-free menus."),
    AgentStep(thought="Check a time.", observation="Trattoria Sole has a table on Friday at 19:30."),
    AgentStep(thought="Book it.", observation="Booked: Trattoria Sole, Friday 19:30, two people."),
]


def check_keep_first(make: Callable[[StateSpace], Mechanism] | type, v_max: int = 40) -> ExerciseReport:
    """Notebook 02: a sliding window whose U never evicts the first message (the task), at μ = words.

    ``make`` builds the mechanism from a state space (a Mechanism subclass works).
    """
    c = _Checks("02 · a window that keeps the task", {
        "contract": ("check_mechanism passes: U stays in Ω_STM, is pure and repeatable", "read the ✗ lines of "
                     "check_mechanism(...) on your mechanism"),
        "task kept": ("the first message is in every ω_t after it arrived",
                      "skip the element of step 0 (int(meta['t']) == 0) when you look for one to evict"),
        "new input kept": ("each step's input is in ω_{t+1}", "evict old elements, never the one that just arrived"),
        "oldest first": ("the elements that leave are older than every element that stays (but the task)",
                         "iterate over the state in canonical order (by time) and evict from the front"),
        "only as needed": ("no element leaves while the state fits",
                           "stop evicting as soon as `state in self.space` holds"),
    })
    space = StateSpace(words, v_max)
    built = _checked_run(c, make, space, KEEP_FIRST_STEPS, check_steps=KEEP_FIRST_STEPS,
                         todo="TODO: update is not written yet")
    if isinstance(built, ExerciseReport):
        return built
    _, trace = built
    task = KEEP_FIRST_STEPS[0].observation
    for t in range(len(trace)):
        before, after = trace.state_at(t), trace.state_at(t + 1)
        texts = " ".join(e.text for e in after)
        c.check("task kept", task in texts, f"the task is not in ω_{t + 1}")
        new = KEEP_FIRST_STEPS[t].observation
        c.check("new input kept", new in texts, f"step {t}'s input {shorten(new, 40)!r} is not in ω_{t + 1}")
        removed = [e for e in before if e not in after]
        stays = [e for e in after if e in before and task not in e.text]
        for gone in removed:
            if task in gone.text:
                continue
            if any((e.t or 0) < (gone.t or 0) for e in stays):
                c.fail("oldest first", f"step {t}: {gone.label()} left while an older element stayed")
        if removed:
            youngest = max(removed, key=lambda e: e.t or 0)
            c.check("only as needed", State(list(after) + [youngest]) not in space,
                    f"step {t}: {youngest.label()} left, but ω_{t + 1} with it still fits V_max = {v_max}")
    return c.report()


# -- 03 · FIFO ----------------------------------------------------------------------------------------------


def check_fifo_push(push: Callable[[list[Element], Element, Callable[[Element], float], float], Any]) -> ExerciseReport:
    """Notebook 03: ``push(window, new, mu, v_max)`` is the FIFO window's U on a list of messages, oldest first.

    >>> def push(window, new, mu, v_max):
    ...     window = window + [new]
    ...     while sum(mu(m) for m in window) > v_max:
    ...         window.remove(next(m for m in window if not m.meta.get("pinned")))
    ...     return window
    >>> check_fifo_push(push).ok
    True
    """
    c = _Checks("03 · FIFO's update", {
        "appends at the end": ("the new message is last and the others keep their order", "window + [new]"),
        "no eviction while it fits": ("nothing leaves while Σμ ≤ V_max", "evict only while Σμ > V_max"),
        "oldest first": ("on overflow the oldest messages leave", "remove from the front of the list, not the end"),
        "only as needed": ("no more messages leave than needed to fit", "check Σμ again after each removal"),
        "pinned stay": ("a pinned message (meta pinned=True) never leaves",
                        "skip messages whose meta['pinned'] is True when you look for the oldest"),
        "fits V_max": ("the result has Σμ ≤ V_max", "keep evicting until Σμ ≤ V_max"),
    })
    m = [Element(text, {"t": i}) for i, text in enumerate(
        ["one two three", "four five six", "seven eight nine", "ten eleven twelve"])]
    system = Element("be kind", {"t": -1, "pinned": True})
    new = Element("thirteen fourteen fifteen", {"t": 9})
    cases = [  # (window, v_max, expected)
        ([m[0], m[1]], 12, [m[0], m[1], new]),
        ([m[0], m[1], m[2]], 12, [m[1], m[2], new]),
        ([m[0], m[1], m[2], m[3]], 9, [m[3], new]),
        ([system, m[0], m[1], m[2]], 11, [system, m[2], new]),
    ]
    try:
        for window, v_max, expected in cases:
            ok, got = _call(push, list(window), new, words, v_max)
            if not ok:
                c.fail("appends at the end", _err(got))
                continue
            if got is None:
                raise NotImplementedError("push returned None")
            got = list(got)
            where = f"window {[e.text for e in window]} + {new.text!r}, V_max = {v_max}: got {[e.text for e in got]}"
            total = sum(words(e) for e in got)
            c.check("fits V_max", total <= v_max, f"Σμ = {total} > V_max; {where}")
            c.check("appends at the end", got[-1:] == [new] and
                    [e for e in window if e in got] == [e for e in got if e is not new and e != new],
                    where)
            gone = [e for e in window if e not in got]
            fits = sum(words(e) for e in window) + words(new) <= v_max
            c.check("no eviction while it fits", not (fits and gone), where)
            c.check("pinned stay", not any(e.meta.get("pinned") for e in gone), where)
            kept = [e for e in window if e in got and not e.meta.get("pinned")]
            c.check("oldest first", not any((g.t or 0) > (k.t or 0) for g in gone for k in kept), where)
            if gone and not fits:
                youngest = max((g for g in gone if not g.meta.get("pinned")), key=lambda e: e.t or 0, default=None)
                if youngest is not None:
                    c.check("only as needed", total + words(youngest) > v_max, where)
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()


# -- 04 · SCM -----------------------------------------------------------------------------------------------


def check_judge(judge: Callable[[str, str, str], Any]) -> ExerciseReport:
    """Notebook 04: ``judge(memory_text, summary_text, message)`` → ``"drop"``, ``"summary"`` or ``"full"``.

    The rule of SCM's offline judgement (``OverlapJudge``), by content words
    (``stmviz.text.scm_judges.content_words``). A ``(verdict, reason)``
    pair, as SCM's ``judge=`` takes, is accepted too.

    >>> from stmviz.text.scm_judges import OverlapJudge
    >>> check_judge(OverlapJudge()).ok
    True
    """
    c = _Checks("04 · SCM's judgement", {
        "a verdict": ("the answer is one of 'drop', 'summary', 'full'", "return one of the three strings"),
        "drop": ("a memory that shares no content word with the message is dropped",
                 "look at the words the *full* memory shares with the message: none → 'drop'"),
        "summary": ("a summary that keeps every shared word is enough", "shared words all in the summary → 'summary'"),
        "full": ("a summary that loses a shared word is not enough", "a shared word missing from the summary → 'full'"),
        "only shared words": ("the summary may lose words the message does not ask about",
                              "compare only the words the memory shares with the message, not all its words"),
    })
    cases = [  # (criterion, memory, summary, message, expected)
        ("drop", "Sunny all week in Riga.", "sunny week", "What is my locker code?", "drop"),
        ("drop", "Sunny all week in Riga.", "locker code", "What is my locker code?", "drop"),
        ("summary", "My locker code is 7391, locker B.", "locker code 7391", "What is my locker code?", "summary"),
        ("full", "My locker code is 7391, locker B.", "a number", "What is my locker code?", "full"),
        ("full", "My locker code is 7391, locker B.", "the locker", "What is my locker code?", "full"),
        ("only shared words", "My daughter Mia loves the blue kite from Lisbon.", "daughter Mia",
         "What is my daughter's name? Mia?", "summary"),
    ]
    try:
        for name, memory, summary, message, expected in cases:
            ok, got = _call(judge, memory, summary, message)
            if not ok:
                c.fail("a verdict", _err(got))
                continue
            if got is None:
                raise NotImplementedError("judge returned None")
            verdict = got[0] if isinstance(got, tuple) and got else got
            if not c.check("a verdict", verdict in ("drop", "summary", "full"), f"got {got!r}"):
                continue
            c.check(name, verdict == expected,
                    f"memory {memory!r}, summary {summary!r}, message {message!r}: expected {expected!r}, got {verdict!r}")
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()


# -- 05 · HiAgent -------------------------------------------------------------------------------------------


def _fake_summary(goal: str, pairs: Sequence[str]) -> str:
    return f"{goal}: " + " / ".join(p.split(" -> ")[-1] for p in pairs)


def check_subgoal_switch(start_subgoal: Callable[..., Any]) -> ExerciseReport:
    """Notebook 05: ``start_subgoal(state, new_id, new_goal, summarize)`` is HiAgent's U when a subgoal starts.

    ``state`` is a :class:`State` of elements with ``meta["type"]`` in
    ``task``, ``subgoal`` (with ``meta["subgoal"]`` its id and
    ``meta["current"]``), ``pair`` (with its subgoal id) and ``summary``.
    The finished subgoal and its pairs become one ``summary`` element (same
    subgoal id, text ``summarize(goal, pair_texts)``); a new ``subgoal``
    element enters, current; everything else stays.
    """
    c = _Checks("05 · HiAgent's subgoal switch", {
        "pairs summarized": ("the finished subgoal's pairs (and its subgoal element) left ω",
                             "remove every element whose meta['subgoal'] is the current id"),
        "one summary": ("exactly one summary element for the finished subgoal, with the summarizer's text",
                        "add Element(summarize(goal, pair texts), {'type': 'summary', 'subgoal': id})"),
        "older memory kept": ("the task and older summaries are unchanged",
                              "summarize only the current subgoal; the older ones are already summaries"),
        "new subgoal current": ("the new subgoal is in ω and is the only current one",
                                "add Element(new_goal, {'type': 'subgoal', 'subgoal': new_id, 'current': True})"),
    })
    task = Element("Task: put a clean knife in the drawer.", {"type": "task", "t": 0})
    old = Element("find a knife: saw a knife on the counter", {"type": "summary", "subgoal": 0, "t": 1})
    goal = Element("clean the knife", {"type": "subgoal", "subgoal": 1, "current": True, "t": 3})
    pairs = [Element(text, {"type": "pair", "subgoal": 1, "t": 4 + i}) for i, text in enumerate(
        ["go to sink -> you are at the sink", "clean knife -> the knife is clean"])]
    state = State([task, old, goal, *pairs])
    seen: list[tuple[str, list[str]]] = []

    def summarize(goal_text: str, pair_texts: Sequence[str]) -> str:
        seen.append((goal_text, list(pair_texts)))
        return _fake_summary(goal_text, pair_texts)

    try:
        ok, got = _call(start_subgoal, state, 2, "put the knife in the drawer", summarize)
        if got is None:
            raise NotImplementedError("start_subgoal returned None")
    except NotImplementedError as exc:
        return c.not_done(exc)
    if not ok:
        c.fail("pairs summarized", _err(got))
        return c.report()
    after = list(got.elements if isinstance(got, State) else got)
    c.check("pairs summarized", not any(e.meta.get("subgoal") == 1 and e.meta.get("type") in ("pair", "subgoal")
                                        for e in after), "a pair or the subgoal element of subgoal 1 is still in ω")
    summaries = [e for e in after if e.meta.get("type") == "summary" and e.meta.get("subgoal") == 1]
    expected = _fake_summary(goal.text, [p.text for p in pairs])
    c.check("one summary", len(summaries) == 1 and summaries[0].text == expected,
            f"summaries of subgoal 1: {[e.text for e in summaries]}; expected one: {expected!r}")
    c.check("older memory kept", task in after and old in after and all(s[0] == goal.text for s in seen),
            "the task or the summary of subgoal 0 changed (or summarize was asked about another subgoal)")
    current = [e for e in after if e.meta.get("current")]
    new = [e for e in after if e.meta.get("type") == "subgoal" and e.meta.get("subgoal") == 2
           and e.text == "put the knife in the drawer"]
    others = [e for e in current if e not in new]
    shown = f"current elements: {[(e.meta.get('type'), e.meta.get('subgoal'), e.text) for e in current]}"
    if not new:
        c.fail("new subgoal current", shown + "; the new subgoal is not in ω")
    elif others:
        c.fail("new subgoal current", shown, hint="the new subgoal is there, but an older element is still current "
               "(the finished subgoal?): remove it — its summary replaces it — or give it 'current': False")
    elif not new[0].meta.get("current"):
        c.fail("new subgoal current", shown + "; the new subgoal is in ω but not current",
               hint="give the new subgoal's element meta 'current': True")
    return c.report()


# -- 06 · AgentFold -----------------------------------------------------------------------------------------


def check_fold(fold: Callable[..., Any]) -> ExerciseReport:
    """Notebook 06: ``fold(blocks, latest, x, sigma)`` applies an AgentFold directive [x, t−1] with summary σ.

    ``blocks`` is a list of ``((x, y), text)`` oldest first: the blocks s_{x,y};
    ``latest`` is ``(t - 1, text)``: the latest interaction I_{t-1}. The result
    is the new list of blocks: x = t−1 is a granular condensation (I_{t-1}
    becomes s_{t-1,t-1}); x < t−1 a deep consolidation (the blocks from step x
    on and I_{t-1} become one block s_{x,t-1}).
    """
    c = _Checks("06 · AgentFold's fold", {
        "condensation": ("x = t−1 appends s_{t−1,t−1} and leaves the other blocks alone",
                         "when x == t - 1 the result is blocks + [((t - 1, t - 1), sigma)]"),
        "consolidation": ("x < t−1 merges the blocks from step x on, with I_{t−1}, into s_{x,t−1}",
                          "keep the blocks that end before x; replace the rest and I_{t-1} by ((x, t - 1), sigma)"),
        "cover": ("the blocks cover steps 0 … t−1 in order, without gaps or overlaps",
                  "a merged block must not stay next to the block that replaces it"),
        "agent's text": ("the new block holds σ, the summary the agent wrote", "use sigma as the block's text"),
    })
    blocks = [((0, 3), "searched the fleet size"), ((4, 4), "found 640 e-bikes"), ((5, 6), "read the contract")]
    latest = (7, "opened the news page: the deal is worth 2.1 M EUR")
    cases = [  # (criterion, x, sigma, expected)
        ("condensation", 7, "deal worth 2.1 M EUR", blocks + [((7, 7), "deal worth 2.1 M EUR")]),
        ("consolidation", 4, "640 e-bikes; contract read; deal 2.1 M EUR",
         blocks[:1] + [((4, 7), "640 e-bikes; contract read; deal 2.1 M EUR")]),
        ("consolidation", 5, "contract and deal: 2.1 M EUR", blocks[:2] + [((5, 7), "contract and deal: 2.1 M EUR")]),
    ]
    try:
        for name, x, sigma, expected in cases:
            ok, got = _call(fold, list(blocks), latest, x, sigma)
            if got is None:
                raise NotImplementedError("fold returned None")
            if not ok:
                c.fail(name, _err(got))
                continue
            try:
                got = [((int(r[0]), int(r[1])), str(text)) for r, text in got]
            except (TypeError, ValueError, IndexError) as exc:
                c.fail(name, f"the result is not a list of ((x, y), text): {_err(exc)}")
                continue
            ranges = [r for r, _ in got]
            steps = [s for x_, y_ in ranges for s in range(x_, y_ + 1)]
            c.check("cover", steps == list(range(latest[0] + 1)), f"fold from x = {x}: ranges {ranges}")
            new = [text for r, text in got if r == (x, latest[0])]
            c.check("agent's text", new == [sigma], f"fold from x = {x}: the block s_{{{x},{latest[0]}}} holds {new}")
            c.check(name, got == expected, f"fold from x = {x}: got {got}")
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()


# -- 07 · the comparison ------------------------------------------------------------------------------------


def check_fifo_match(v_max: Any, scenario: str = "long_dialogue") -> ExerciseReport:
    """Notebook 07: the smallest V_max at which a FIFO window keeps as many probes as SCM at the scenario's V_max.

    Checked by running the FIFO window at ``v_max`` and at ``v_max - 1``:
    the first must retain at least as many probes as SCM (with its defaults) at
    ``scenario.v_max``, the second fewer.
    """
    from . import metrics  # late: keeps this module light for notebooks 01-03
    from .mechanisms import SCM, FIFOWindow
    from .scenarios import load_scenario

    c = _Checks("07 · what FIFO needs to match SCM", {
        "a whole number": ("V_max is a whole number of tokens",
                           "answer an int (a count of tokens), e.g. the result of a binary search over V_max"),
        "above the scenario's V_max": ("V_max is larger than the scenario's, where SCM is measured",
                                       "SCM keeps its probes at the scenario's V_max and FIFO keeps fewer there: "
                                       "the answer lies above it"),
        "enough": ("at your V_max the FIFO window keeps as many probes as SCM",
                   "a FIFO window keeps a fact only while everything said since fits: try larger values"),
        "smallest": ("at V_max − 1 it keeps fewer: no smaller window will do",
                     "search downwards too: halve the interval [scenario.v_max, your value] until it is one token wide"),
    })
    if v_max is None or v_max is ...:
        return c.not_done(NotImplementedError("fifo_v_max is None"))
    data = load_scenario(scenario)
    unchecked = "not checked: {}".format
    if isinstance(v_max, bool) or not isinstance(v_max, int):
        c.fail("a whole number", f"got {v_max!r} ({type(v_max).__name__})")
        for name in ("above the scenario's V_max", "enough", "smallest"):
            c.fail(name, unchecked("V_max is not a whole number"), hint="first answer a whole number")
        return c.report()
    if v_max <= (data.v_max or 0):
        c.fail("above the scenario's V_max", f"got {v_max}, not above the scenario's V_max = {data.v_max}")
        for name in ("enough", "smallest"):
            c.fail(name, unchecked(f"V_max = {v_max} is not above the scenario's {data.v_max}"),
                   hint="first find a V_max above the scenario's")
        return c.report()

    def kept(mechanism: Mechanism) -> int | str:
        try:
            trace = run(mechanism, data)
        except STMError as exc:
            return _err(exc)
        return sum(r.retained for r in metrics.retention(trace, data.probes))

    target = kept(SCM(data.space()))
    at, below = kept(FIFOWindow(data.space(v_max=v_max))), kept(FIFOWindow(data.space(v_max=v_max - 1)))
    n = len(data.probes)
    enough = c.check("enough", isinstance(at, int) and isinstance(target, int) and at >= target,
                     f"SCM keeps {target} of {n} probes at V_max = {data.v_max}; FIFO at V_max = {v_max}: {at}")
    if not enough:  # "smallest" means the smallest V_max that is enough: not to be judged at one that is not
        c.fail("smallest", unchecked(f"V_max = {v_max} is not enough yet"), hint="first find a V_max that is enough")
    else:
        c.check("smallest", not isinstance(below, int) or not isinstance(target, int) or below < target,
                f"FIFO at V_max = {v_max - 1} still keeps {below} of {n}: a smaller window will do")
    return c.report()


# -- 08 · build your own ------------------------------------------------------------------------------------

#: The trajectory of exercise 08: facts with a priority (D_1) and a source (D_2) in step metadata.
PRIORITY_STEPS = [
    AgentStep(observation="User: I am allergic to peanuts.", meta={"priority": "high", "source": "user"}),
    AgentStep(observation="API: it is 14 degrees and raining.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="Model: I will look for restaurants.", meta={"priority": "medium", "source": "model"}),
    AgentStep(observation="API: 42 restaurants found nearby.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="User: book for Friday at 19:30.", meta={"priority": "high", "source": "user"}),
    AgentStep(observation="API: the traffic is heavy downtown.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="Model: Trattoria Sole has nut-free dishes.", meta={"priority": "medium", "source": "model"}),
]

_RANK = {"low": 0, "medium": 1, "high": 2}


def check_priority_memory(make: Callable[[StateSpace], Mechanism] | type, v_max: int = 26) -> ExerciseReport:
    """Notebook 08: a mechanism that uses the priority D_1 to decide what leaves ω when Σμ would exceed V_max.

    ``make`` builds the mechanism from a state space (a Mechanism subclass works).
    At μ = words and the given V_max, each step's observation is a candidate
    together with ω_t; whatever of them is not in ω_{t+1} has left. Checked:

    1. ``check_mechanism`` passes;
    2. each element holding an observation keeps the step's ``priority`` and ``source`` in its metadata;
    3. a lower priority leaves before a higher one;
    4. within one priority, the oldest leaves first (the observation that just arrived is the newest);
    5. no more leaves than needed: with the most valuable element that left, ω_{t+1} would not fit;
    6. π lists every element of ω, the high priorities first, then medium, then low;
    7. both high-priority user facts are still in ω at the end.

    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> check_priority_memory(ExampleMechanism).ok
    False
    """
    c = _Checks("08 · priority memory", {
        "contract": ("check_mechanism passes", "read the ✗ lines of check_mechanism(...) on your mechanism"),
        "metadata": ("each element holding an observation carries its step's priority and source",
                     "Element(context.observation, {'t': context.t, **context.step.meta})"),
        "priority": ("lower priorities always left before higher ones",
                     "sort the candidates by RANK[priority] first, lowest first"),
        "age": ("within one priority the oldest left first",
                "break ties by meta['t'], smallest (oldest) first — not the newest"),
        "only as needed": ("no element left while the state would fit without removing it",
                           "check `state in self.space` before each removal, and stop when it holds"),
        "projection": ("π lists every element, high priority first, then medium, then low",
                       "in project, sort by -RANK[priority] (then by t) and render every element"),
        "high-priority facts": ("both user facts marked high are still in ω_n",
                                "high facts leave only when nothing of lower priority is left"),
    })
    space = StateSpace(words, v_max)
    built = _checked_run(c, make, space, PRIORITY_STEPS, todo="TODO: update or project is not written yet")
    if isinstance(built, ExerciseReport):
        return built
    mechanism, trace = built

    def index(e: Element) -> int:  # which observation an element holds (−1: none)
        return next((i for i, s in enumerate(PRIORITY_STEPS) if s.observation in e.text), -1)

    elements = [e for e in trace.sizes if index(e) >= 0]
    c.check("metadata", bool(elements), "no element holds an observation's text")
    for e in elements:
        s = PRIORITY_STEPS[index(e)]
        c.check("metadata", e.meta.get("priority") == s.meta["priority"] and e.meta.get("source") == s.meta["source"],
                f"{e.label()} has priority {e.meta.get('priority')!r} and source {e.meta.get('source')!r}; "
                f"the step said {s.meta['priority']!r} and {s.meta['source']!r}")
    size = {index(e): trace.sizes[e] for e in elements}
    for t in range(len(trace)):
        before = {index(e) for e in trace.state_at(t)} - {-1}
        after = {index(e) for e in trace.state_at(t + 1)} - {-1}
        left = (before | {t}) - after
        if not left:
            continue
        key = {i: (_RANK[PRIORITY_STEPS[i].meta["priority"]], i) for i in before | {t}}
        for gone in left:
            p = PRIORITY_STEPS[gone].meta["priority"]
            for kept in after:
                q = PRIORITY_STEPS[kept].meta["priority"]
                if _RANK[q] < _RANK[p]:
                    c.fail("priority", f"step {t}: observation {gone} ({p}) left while observation {kept} ({q}) stayed")
                elif q == p and kept < gone:
                    c.fail("age", f"step {t}: observation {gone} left while the older {p} observation {kept} stayed")
        best = max(left, key=key.__getitem__)
        total = sum(size.get(i, words(Element(PRIORITY_STEPS[i].observation))) for i in after | {best})
        c.check("only as needed", total > v_max,
                f"step {t}: observation {best} left, but with it ω_{t + 1} would hold {total} ≤ V_max = {v_max} words")
    for t in range(len(trace) + 1):
        state = trace.state_at(t)
        ok, shown = _call(lambda s: mechanism.input(s).text(), state)
        if not ok:
            c.fail("projection", f"π(ω_{t}) failed: {_err(shown)}")
            break
        held = sorted(i for i in (index(e) for e in state) if i >= 0)
        where = {i: shown.find(PRIORITY_STEPS[i].observation) for i in held}
        missing = [i for i in held if where[i] < 0]
        if missing:
            c.fail("projection", f"π(ω_{t}) does not show observation(s) {missing}")
            break
        order = [PRIORITY_STEPS[i].meta["priority"] for i in sorted(held, key=where.__getitem__)]
        if any(_RANK[a] < _RANK[b] for a, b in zip(order, order[1:])):
            c.fail("projection", f"π(ω_{t}) lists the priorities in the order {order}")
            break
    final = " ".join(e.text for e in trace.final)
    c.check("high-priority facts", all(fact in final for fact in ("allergic to peanuts", "Friday at 19:30")),
            "a high-priority user fact is missing from ω_n")
    return c.report()


# -- 09 · your own logs -------------------------------------------------------------------------------------


def _reference_chat_steps(messages: Sequence[dict[str, str]]) -> list[tuple[str | None, str | None]]:
    steps: list[tuple[str | None, str | None]] = []
    output: str | None = None
    for m in messages:
        if m["role"] == "assistant":
            if output is not None:
                steps.append((output, None))
            output = m["content"]
        else:
            steps.append((output, m["content"]))
            output = None
    if output is not None:
        steps.append((output, None))
    return steps


def check_chat_steps(chat_steps: Callable[[list[dict[str, str]]], Any]) -> ExerciseReport:
    """Notebook 09: ``chat_steps(messages)`` cuts a plain chat into steps ``(output, input)`` of the loop.

    A step holds the model's output, then the input that arrives after it: step
    0 = (None, u_0), step k = (a_{k−1}, u_k), and a last reply with nothing after
    it is a step (a_n, None).
    """
    c = _Checks("09 · a chat as steps", {
        "step 0": ("step 0 is (None, the user's first message): no model call yet",
                   "the user speaks first; the model has produced nothing yet"),
        "reply then message": ("step k is (reply a_{k−1}, the user's next message u_k)",
                               "a reply is produced from π(ω_k), which holds the message it answers: "
                               "it opens a step, and the user's next message closes it"),
        "last reply": ("a chat that ends on a reply ends with the step (reply, None)",
                       "the last reply has no input after it, but it is still a step"),
        "no extra step": ("a chat that ends on a user message has no step after it", "do not add an empty step"),
    })
    u = [f"user says {i}" for i in range(3)]
    a = [f"assistant says {i}" for i in range(3)]
    ends_on_reply = [m for i in range(3) for m in ({"role": "user", "content": u[i]}, {"role": "assistant", "content": a[i]})]
    ends_on_user = ends_on_reply[:-1]
    try:
        for messages in (ends_on_reply, ends_on_user):
            ok, got = _call(chat_steps, [dict(m) for m in messages])
            if got is None:
                raise NotImplementedError("chat_steps returned None")
            if not ok:
                c.fail("step 0", _err(got))
                continue
            got = [tuple(s) for s in got]
            expected = _reference_chat_steps(messages)
            shown = f"got {got}"
            c.check("step 0", got[:1] == expected[:1], shown)
            c.check("reply then message", [s for s in got if s[0] and s[1]] == [s for s in expected if s[0] and s[1]],
                    shown)
            if messages[-1]["role"] == "assistant":
                c.check("last reply", got[-1:] == expected[-1:], shown)
            else:
                c.check("no extra step", len(got) == len(expected), shown)
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()




# -- 10 · measuring memory ----------------------------------------------------------------------------------


def check_evidence_recall(
    evidence_recall: Callable[[Trace, Any], Any], scenario: str = "long_dialogue", v_max: int = 300
) -> ExerciseReport:
    """Notebook 10: the evidence word overlap computed by hand, |C(T(S_p)) ∩ C(X_t)| / |C(T(S_p))|.

    Compared with :func:`stmviz.metrics.evidence_word_overlap` (the bag-of-words measure; the
    default :func:`stmviz.metrics.evidence_recall` counts the evidence's 4-grams) on every probe of
    ``scenario`` for FIFO, SCM, HiAgent and AgentFold at ``v_max``. A value that
    differs is matched against the usual slips (raw words instead of content
    words, the state ω_t instead of the model input π(ω_t), the final input,
    a count instead of a share, 0 instead of None) so that the hint names the one made.
    """
    from . import metrics  # late: keeps this module light for notebooks 01-03
    from .mechanisms import SCM, AgentFold, FIFOWindow, HiAgent
    from .scenarios import load_scenario

    c = _Checks("10 · evidence recall by hand", {
        "a share": ("every value is a number between 0 and 1, or None",
                    "divide by the number of the evidence's content words: recall is a share, not a count"),
        "no evidence": ("None where the evidence has no content word",
                        "with no content word in the evidence the share is undefined: return None, not 0"),
        "every probe": ("the value equals metrics.evidence_word_overlap on every probe and mechanism",
                        "follow the definition: content words of the evidence steps' texts, against π(ω_t) at t = probe.t"),
    })
    data = load_scenario(scenario)
    traces = [run(cls(data.space(v_max=v_max)), data)
              for cls in (FIFOWindow, SCM, HiAgent, AgentFold)]

    def evidence(trace: Trace, probe: Any) -> str:
        return "\n".join(trace[s].context.step.text for s in probe.evidence_steps)

    def share(found: frozenset[str] | set[str], wanted: frozenset[str] | set[str]) -> float | None:
        return len(found & wanted) / len(wanted) if wanted else None

    slips: dict[str, Callable[[Trace, Any], Any]] = {
        "compare metrics.content_tokens of both texts, not raw words (split() keeps stop words and punctuation)":
            lambda tr, p: share(set(tr.project(p.t).text().split()), set(evidence(tr, p).split())),
        "the model answered from π(ω_t), trace.project(probe.t), not from the state's elements":
            lambda tr, p: share(metrics.content_tokens(" ".join(e.text for e in tr.state_at(p.t))),
                                metrics.content_tokens(evidence(tr, p))),
        "take the model input at the probe's step, trace.project(probe.t), not the last one":
            lambda tr, p: share(metrics.content_tokens(tr.project(len(tr)).text()), metrics.content_tokens(evidence(tr, p))),
        "count the evidence's words that reach π(ω_t), not the input's words":
            lambda tr, p: share(metrics.content_tokens(evidence(tr, p)), metrics.content_tokens(tr.project(p.t).text())),
    }
    try:
        pairs = [(trace, probe) for trace in traces for probe in data.probes]
        got = []
        for trace, probe in pairs:
            ok, value = _call(evidence_recall, trace, probe)
            if not ok:
                c.fail("every probe", f"{trace.name}, probe {shorten(probe.answer, 30)!r}: {_err(value)}")
                return c.report()
            got.append(value)
    except NotImplementedError as exc:
        return c.not_done(exc)
    expected = [metrics.evidence_word_overlap(trace, probe) for trace, probe in pairs]
    for value, (trace, probe) in zip(got, pairs):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1):
            c.fail("a share", f"{trace.name}, probe {shorten(probe.answer, 30)!r}: got {value!r}")
            break
    for value, want, (trace, probe) in zip(got, expected, pairs):
        if want is None and value is not None:
            c.fail("no evidence", f"{trace.name}, probe {shorten(probe.answer, 30)!r}: got {value!r}, its evidence has no content word")
            break
    wrong = [(value, want, pair) for value, want, pair in zip(got, expected, pairs)
             if not (value == want or (isinstance(value, float) and isinstance(want, float) and abs(value - want) < 1e-9))]
    if wrong:
        value, want, (trace, probe) = wrong[0]
        fault = next((hint for hint, slip in slips.items()
                      if all(_same(v, slip(tr, p)) for v, (tr, p) in zip(got, pairs))), None)
        c.fail("every probe", f"{len(wrong)} of {len(pairs)} values differ; first: {trace.name}, probe "
               f"{shorten(probe.answer, 30)!r} at t = {probe.t}: got {value!r}, expected {want!r}", hint=fault)
    return c.report()


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return abs(float(a) - float(b)) < 1e-9
    except (TypeError, ValueError):
        return False


# -- 11 · the managers you use -----------------------------------------------------------------------------


def _history() -> list[dict[str, Any]]:
    """A stored history ω of six messages, three of them tool results (each after the call it answers)."""
    return [
        {"role": "user", "content": "Fix the failing test.", "call": None},
        {"role": "assistant", "content": "Read(totals.py)", "call": "c1"},
        {"role": "tool", "content": "def invoice_total(lines): ...", "call": "c1"},
        {"role": "assistant", "content": "Bash(pytest -q)", "call": "c2"},
        {"role": "tool", "content": "1 failed, 15 passed", "call": "c2"},
        {"role": "assistant", "content": "Read(docs/billing.md)", "call": "c3"},
        {"role": "tool", "content": "A discount applies before tax.", "call": "c3"},
    ]


def _reference_clear(messages: Sequence[dict[str, Any]], keep: int, placeholder: str) -> list[dict[str, Any]]:
    results = [k for k, m in enumerate(messages) if m["role"] == "tool"]
    cleared = set(results[: max(len(results) - keep, 0)])
    return [{**m, "content": placeholder} if k in cleared else dict(m) for k, m in enumerate(messages)]


def check_clear_tool_results(project: Callable[..., Any]) -> ExerciseReport:
    """Notebook 11: ``project(messages, keep, placeholder)`` is π of tool-result clearing; ω stays as it is.

    Every tool result except the ``keep`` most recent shows ``placeholder``; every
    other message is shown as it is, in order; and the stored messages (the
    state ω) are left unchanged — clearing is π's work, not U's.
    """
    c = _Checks("11 · tool-result clearing as π", {
        "recent kept": ("the `keep` most recent tool results are shown as they are",
                        "count the tool results from the end: the newest `keep` of them keep their content"),
        "older cleared": ("every older tool result shows the placeholder",
                          "all but the `keep` newest tool results (role 'tool') show `placeholder` instead of their content"),
        "nothing else changes": ("user and assistant messages (the calls) are shown as they are, every message once, in order",
                                 "replace only the content of role 'tool' messages; a cleared result keeps its place after "
                                 "its call, and no message is dropped or moved"),
        "ω untouched": ("the stored messages are unchanged after π (π builds a copy for each model call)",
                        "you changed the messages in place: π must build new dicts (e.g. {**m, 'content': placeholder}) "
                        "and leave ω — the history the client keeps — as it was; changing it would be U's work"),
        "edge cases": ("keep ≥ the number of results clears nothing; keep = 0 clears every result",
                       "with keep = 0 nothing is kept; with more `keep` than results there is nothing to clear"),
    })
    try:
        for keep, placeholder in ((1, "[cleared]"), (2, "[result cleared to save context]"), (0, "[x]"), (5, "[x]")):
            history = _history()
            before = [dict(m) for m in history]
            ok, got = _call(project, history, keep, placeholder)
            if got is None:
                raise NotImplementedError("project returned None")
            if not ok:
                c.fail("recent kept", _err(got))
                continue
            c.check("ω untouched", history == before, f"keep={keep}: the messages after π were {shorten(str(history), 100)}")
            if not isinstance(got, list) or not all(isinstance(m, dict) for m in got):
                c.fail("nothing else changes", f"π returned {type(got).__name__}, not a list of message dicts")
                continue
            expected = _reference_clear(before, keep, placeholder)
            if len(got) != len(expected) or [m.get("role") for m in got] != [m["role"] for m in expected]:
                c.fail("nothing else changes", f"keep={keep}: roles in order {[m.get('role') for m in got]}, "
                                               f"expected {[m['role'] for m in expected]}")
                continue
            others = [k for k, m in enumerate(expected) if m["role"] != "tool"]
            c.check("nothing else changes", all(got[k].get("content") == expected[k]["content"] for k in others),
                    f"keep={keep}: a user or assistant message changed")
            results = [k for k, m in enumerate(expected) if m["role"] == "tool"]
            kept = results[len(results) - min(keep, len(results)):] if keep else []
            older = [k for k in results if k not in kept]
            name = "edge cases" if keep in (0, 5) else None
            if not all(got[k].get("content") == expected[k]["content"] for k in kept):
                c.fail(name or "recent kept", f"keep={keep}: the newest results show "
                                              f"{[shorten(str(got[k].get('content')), 30) for k in kept]}")
            if not all(got[k].get("content") == placeholder for k in older):
                c.fail(name or "older cleared", f"keep={keep}: the older results show "
                                                f"{[shorten(str(got[k].get('content')), 30) for k in older]}")
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()


def solution(key: str) -> None:
    """Print the reference solution of an exercise — after trying it yourself.

    >>> solution("06-fold")  # doctest: +ELLIPSIS
    def fold(blocks, latest, x, sigma):
    ...
    """
    from .exercise_solutions import SOLUTIONS  # loaded on request only: the notebooks' import never brings it

    guards.choice(key, "key", sorted(SOLUTIONS), "the exercises with a reference solution", where="solution")
    print(SOLUTIONS[key].strip("\n"))
