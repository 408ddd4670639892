"""Notebook 04's exercises — SCM: predict what the controller activates for a joke; the judgement of one memory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.i18n import N_
from ..core.i18n import gettext as _
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_joke_prediction", "check_judge"]

# Every sentence a student reads, whole, with named placeholders (translatable).
TEXT = {
    "pair": N_("a pair of whole numbers (released, paper)"),
    "pair hint": N_("answer two counts in a tuple, e.g. (2, 1): activation memories in ω for the released SCM, "
                    "then the paper's"),
    "pair got": N_("got {got!r}"),
    "released": N_("the released SCM activates {want} memories for the joke"),
    "released got": N_("you predicted {got} for the released SCM; the run activates {want}: its is_history_need is "
                       "never called, so it retrieves the top k = {k} for every message, a joke too"),
    "released hint": N_("as released, SCM never asks whether memory is needed: "
                        "it activates the top k for every message"),
    "paper": N_("the paper's controller activates {want} memories for the joke"),
    "paper got": N_("you predicted {got} for the paper's controller; the run activates {want}: it first asks whether "
                    "the message needs memory, and a joke does not"),
    "released todo": N_("your count for the released SCM matches the run"),
    "paper todo": N_("your count for the paper's controller matches the run"),
    "paper hint": N_("the paper's controller first asks 'is memory needed?': a joke needs nothing from the past"),
    "verdict": N_("the answer is one of 'drop', 'summary', 'full'"),
    "verdict hint": N_("return one of the three strings"),
    "drop": N_("a memory that shares no content word with the message is dropped"),
    "drop hint": N_("look at the words the *full* memory shares with the message: none → 'drop'"),
    "summary": N_("a summary that keeps every shared word is enough"),
    "summary hint": N_("shared words all in the summary → 'summary'"),
    "full": N_("a summary that loses a shared word is not enough"),
    "full hint": N_("a shared word missing from the summary → 'full'"),
    "only shared": N_("the summary may lose words the message does not ask about"),
    "only shared hint": N_("compare only the words the memory shares with the message, not all its words"),
    "case": N_("memory {memory!r}, summary {summary!r}, message {message!r}: expected {want!r}, got {got!r}"),
}


def _joke_counts(k: int = 3) -> tuple[int, int, int]:
    """(the joke's step, activation memories for it as released, with the paper's controller) on long_dialogue."""
    from ..core.trace import run
    from ..mechanisms import SCM
    from ..scenarios import load_scenario

    scenario = load_scenario("long_dialogue")
    space = scenario.space()  # tokens, the scenario's V_max: the notebook's space
    joke = next(t for t, step in enumerate(scenario.steps) if "joke" in step.observation)
    counts = [len(run(SCM(space, k=k, variant=v), scenario).state_at(joke + 1).where(type="activation"))
              for v in ("released", "paper")]
    return joke, counts[0], counts[1]


def check_joke_prediction(prediction: Any) -> ExerciseReport:
    """Notebook 04, predict then run: how many memories SCM activates for the joke, ``(released, paper)``.

    The counts are of activation memories in ω after the step that brings the joke
    (``SCM(space, k=3)`` and ``SCM(space, k=3, variant="paper")`` on ``long_dialogue``).

    >>> check_joke_prediction((3, 0)).ok
    True
    """
    criteria: dict[str, tuple[Any, ...]] = {
        N_("a pair"): (TEXT["pair"], TEXT["pair hint"]),
        "released": (TEXT["released todo"], TEXT["released hint"], ("a pair",)),
        "paper": (TEXT["paper todo"], TEXT["paper hint"], ("a pair",)),
    }
    c = Checks(N_("04 · predict: memory for a joke"), criteria)
    if prediction is None or prediction is ...:
        return c.not_done(NotImplementedError(_("joke_prediction is None")))
    _joke, released, paper = _joke_counts()
    c.spec["released"] = (_(TEXT["released"]).format(want=released), TEXT["released hint"])
    c.spec["paper"] = (_(TEXT["paper"]).format(want=paper), TEXT["paper hint"])
    whole = isinstance(prediction, (tuple, list)) and len(prediction) == 2 and all(
        isinstance(n, int) and not isinstance(n, bool) for n in prediction)
    if not c.check("a pair", whole, _(TEXT["pair got"]).format(got=prediction)):
        return c.report()
    c.check("released", prediction[0] == released,
            _(TEXT["released got"]).format(got=prediction[0], want=released, k=3))
    c.check("paper", prediction[1] == paper, _(TEXT["paper got"]).format(got=prediction[1], want=paper))
    return c.report()


def check_judge(judge: Callable[[str, str, str], Any]) -> ExerciseReport:
    """Notebook 04: ``judge(memory_text, summary_text, message)`` → ``"drop"``, ``"summary"`` or ``"full"``.

    The rule of SCM's offline judgement (``OverlapJudge``), by content words
    (``stmviz.text.scm_judges.content_words``). A ``(verdict, reason)``
    pair, as SCM's ``judge=`` takes, is accepted too. Each criterion is judged on
    cases of its own, and only once the answer gives verdicts at all.

    >>> from stmviz.text.scm_judges import OverlapJudge
    >>> check_judge(OverlapJudge()).ok
    True
    """
    needs = ("a verdict",)
    criteria: dict[str, tuple[Any, ...]] = {
        N_("a verdict"): (TEXT["verdict"], TEXT["verdict hint"]),
        "drop": (TEXT["drop"], TEXT["drop hint"], needs),
        "summary": (TEXT["summary"], TEXT["summary hint"], needs),
        "full": (TEXT["full"], TEXT["full hint"], needs),
        N_("only shared words"): (TEXT["only shared"], TEXT["only shared hint"], needs),
    }
    c = Checks(N_("04 · SCM's judgement"), criteria)
    cases = [  # (criterion, memory, summary, message, expected)
        ("drop", "Sunny all week in Riga.", "sunny week", "What is my locker code?", "drop"),
        ("drop", "Sunny all week in Riga.", "locker code", "What is my locker code?", "drop"),
        ("summary", "My locker code is 7391, locker B.", "locker code 7391", "What is my locker code?", "summary"),
        ("full", "My locker code is 7391, locker B.", "locker B", "What is my locker code?", "full"),
        ("full", "My locker code is 7391, locker B.", "the locker", "What is my locker code?", "full"),
        ("only shared words", "My daughter Mia loves the blue kite from Lisbon.", "daughter Mia",
         "What is my daughter's name? Mia?", "summary"),
    ]
    try:
        for name, memory, summary, message, expected in cases:
            ok, got = call_answer(judge, memory, summary, message)
            if not ok:
                c.fail("a verdict", error_text(got))
                continue
            if got is None:
                raise NotImplementedError(_("judge returned None"))
            verdict = got[0] if isinstance(got, tuple) and got else got
            if not c.check("a verdict", verdict in ("drop", "summary", "full"), _(TEXT["pair got"]).format(got=got)):
                continue
            c.check(name, verdict == expected,
                    _(TEXT["case"]).format(memory=memory, summary=summary, message=message, want=expected, got=verdict))
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
