"""Notebook 01's exercises — Definition 1: which sets of elements are states of Ω_STM.

Two exercises: a prediction (which of six candidate sets fit V_max = 20 tokens?),
then ``in_omega``, membership written by hand. Each criterion is judged on
cases where only its fault changes the answer: the boundary case is the only
one with Σμ = V_max, the duplicate and the counting cases stay away from it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..core.element import Element, ImagePart
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.sizes import tokens, words
from ..core.space import State, StateSpace
from .checking import Checks, ExerciseReport, call_answer, error_text
from .predicting import read_choice

__all__ = ["WHICH_FIT_V_MAX", "check_membership", "check_which_fit", "fit_candidates"]

# -- the prediction: which candidates fit V_max = 20 tokens --------------------------------------------------

#: The capacity of the prediction "which of these sets fit?", in tokens.
WHICH_FIT_V_MAX = 20

PREDICTION_CRITERIA: dict[str, tuple[Any, ...]] = {
    N_("names from the list"): (N_("the answer is a set of the candidates' names"),
                                N_("answer a set of names, such as {\"B\", \"E\"}")),
    N_("sizes add up"): (N_("A, B and F (sets of a few elements): predicted rightly"),
                         N_("add up μ(e) of every element of the set: each may fit alone while together they do not"),
                         ("names from the list",)),
    N_("a set counts each element once"): (N_("C (an element listed twice): predicted rightly"),
                                           N_("ω is a set: [weather, weather] is the state {weather}, "
                                              "of size μ(weather)"),
                                           ("names from the list",)),
    N_("the empty state"): (N_("E (no element at all): predicted rightly"),
                            N_("Σμ over no elements is 0 ≤ V_max: ∅ ∈ Ω_STM"), ("names from the list",)),
    N_("an image's size"): (N_("D (an image): predicted rightly"),
                            N_("μ counts an image as 85 tokens plus 170 per 512-pixel tile: look at μ(chart)"),
                            ("names from the list",)),
}
SAID_FITS = N_("you predicted that {name} fits; Σμ({name}) = {total} > V_max = {v_max}, so it does not fit")
SAID_DOES_NOT_FIT = N_("you predicted that {name} does not fit; Σμ({name}) = {total} ≤ V_max = {v_max}, so it fits")


def fit_candidates() -> dict[str, list[Element]]:
    """The six candidate sets of notebook 01's prediction, built from the notebook's elements."""
    allergy = Element("The user is allergic to peanuts.", {"t": 0, "priority": "high", "source": "user"})
    weather = Element("Weather API: 14 °C and light rain in Riga.", {"t": 1, "priority": "low", "source": "api"})
    plan = Element("I will suggest three nut-free restaurants.", {"t": 2, "priority": "medium", "source": "model"})
    chart = Element(("Here is the sales chart:", ImagePart("sales.png", width=1024, height=768)),
                    {"t": 3, "source": "user"})
    return {"A": [allergy, weather], "B": [allergy, plan], "C": [weather, weather], "D": [chart], "E": [],
            "F": [allergy, weather, plan]}


def check_which_fit(fits: Any) -> ExerciseReport:
    """Notebook 01's prediction: the names of the candidates (:func:`fit_candidates`) in Ω_STM at V_max = 20 tokens.

    >>> check_which_fit({"B", "C", "E"}).ok
    True
    >>> check_which_fit({"B", "E"}).failures[0].name
    'a set counts each element once'
    """
    c = Checks(N_("01 · which sets fit?"), PREDICTION_CRITERIA)
    candidates = fit_candidates()
    judged_by = {"A": "sizes add up", "B": "sizes add up", "F": "sizes add up",
                 "C": "a set counts each element once", "D": "an image's size", "E": "the empty state"}
    space = StateSpace(tokens(), WHICH_FIT_V_MAX)
    try:
        chosen = read_choice(c, "names from the list", fits, list(candidates))
    except NotImplementedError as exc:
        return c.not_done(exc)
    if chosen is not None:
        for name, elements in candidates.items():
            state = State(elements)
            truth, said = state in space, name in chosen
            if truth != said:
                total = space.size(state)
                wrong = SAID_FITS if said else SAID_DOES_NOT_FIT
                c.fail(judged_by[name], _(wrong).format(name=name, total=f"{total:g}", v_max=WHICH_FIT_V_MAX))
    return c.report()


# -- in_omega, by hand ---------------------------------------------------------------------------------------

MEMBERSHIP_CRITERIA: dict[str, tuple[Any, ...]] = {
    N_("empty state"): (N_("the empty set is a state (Σμ = 0 ≤ V_max)"),
                        N_("a sum over no elements is 0: ∅ is a state")),
    N_("boundary"): (N_("a state with Σμ = V_max is in Ω_STM"),
                     N_("Definition 1 says Σμ(e) ≤ V_max: equality is allowed")),
    N_("over capacity"): (N_("a set with Σμ > V_max is not in Ω_STM"),
                          N_("compare the total size Σμ(e) of all the elements with V_max")),
    N_("sizes, not counts"): (N_("two large elements can overflow a V_max larger than their count"),
                              N_("add up μ(e) for each element; the number of elements is not its size"),
                              ("over capacity",)),
    N_("a set"): (N_("an element listed twice is counted once"),
                  N_("ω ∈ 2^E is a set: build set(elements) first")),
}
WRONG_MEMBERSHIP = "{n} element(s) listed, Σμ = {total} as a set, V_max = {v_max}: expected {expected}, got {got}"


def check_membership(in_omega: Callable[[Iterable[Element], Callable[[Element], float], float], Any]) -> ExerciseReport:
    """Notebook 01: ``in_omega(elements, mu, v_max)`` decides ω ∈ Ω_STM without ``StateSpace``.

    >>> def in_omega(elements, mu, v_max):
    ...     return sum(mu(e) for e in set(elements)) <= v_max
    >>> check_membership(in_omega).ok
    True
    >>> [c.name for c in check_membership(lambda elements, mu, v_max: sum(mu(e) for e in set(elements)) < v_max).failures]
    ['boundary']
    """
    c = Checks(N_("01 · ω ∈ Ω_STM"), MEMBERSHIP_CRITERIA)
    a = Element("one two three four")            # 4 words
    b = Element("five six seven eight nine ten")  # 6 words
    ones = [Element(f"w{i}") for i in range(8)]   # 8 elements of 1 word: their count is their size
    cases = [  # (criterion, elements, v_max, expected): only the criterion's fault changes the answer
        ("empty state", [], 5, True),
        ("boundary", [a, b], 10, True),
        ("boundary", ones[:3], 3, True),
        ("over capacity", ones, 5, False),
        ("sizes, not counts", [a, b], 7, False),
        ("a set", [a, a, b], 12, True),
        ("a set", [b, b], 9, True),
    ]
    try:
        for name, elements, v_max, expected in cases:
            called, answer = call_answer(in_omega, list(elements), words, v_max)
            if not called:
                c.fail(name, error_text(answer))
            elif answer is None or bool(answer) != expected:
                total = sum(words(e) for e in set(elements))
                c.fail(name, ngettext(  # WRONG_MEMBERSHIP, in the plural form of n
                    "{n} element(s) listed, Σμ = {total} as a set, V_max = {v_max}: expected {expected}, got {got}",
                    "{n} element(s) listed, Σμ = {total} as a set, V_max = {v_max}: expected {expected}, got {got}",
                    len(elements)).format(
                    n=len(elements), total=total, v_max=v_max, expected=expected, got=repr(answer)))
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
