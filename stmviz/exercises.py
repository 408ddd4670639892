"""Checks for the exercises of the notebooks: a student's mechanism against the paper's examples.

:func:`check_priority_memory` is the check of notebook 08: build a mechanism that
uses the metadata component D_1 = {low, medium, high} (the paper's priority
example) to decide what leaves ω when Σμ would exceed V_max.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .core.element import Element
from .core.errors import STMError
from .core.check import CheckReport, CheckResult, check_mechanism
from .core.mechanism import Mechanism
from .core.context import AgentStep
from .core.sizes import words
from .core.space import StateSpace
from .core.trace import run

__all__ = ["check_priority_memory", "PRIORITY_STEPS"]

#: The trajectory of the exercise: facts with a priority (D_1) and a source (D_2) in step metadata.
PRIORITY_STEPS = [
    AgentStep(observation="User: I am allergic to peanuts.", meta={"priority": "high", "source": "user"}),
    AgentStep(observation="API: it is 14 degrees and raining.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="Model: I will look for restaurants.", meta={"priority": "medium", "source": "model"}),
    AgentStep(observation="API: 42 restaurants found nearby.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="User: book for Friday at 19:30.", meta={"priority": "high", "source": "user"}),
    AgentStep(observation="API: the traffic is heavy downtown.", meta={"priority": "low", "source": "api"}),
    AgentStep(observation="Model: Trattoria Sole has nut-free dishes.", meta={"priority": "medium", "source": "model"}),
]


def _texts(state: Iterable[Element]) -> list[str]:
    return [e.text for e in state]


def check_priority_memory(make: Callable[[StateSpace], Mechanism] | type, v_max: int = 24) -> CheckReport:
    """Check a priority-based mechanism: the contract of Definition 2, and the exercise's rules.

    ``make`` builds the mechanism from a state space (a Mechanism subclass works).
    The rules, at μ = words and the given V_max:

    1. every state stays in Ω_STM and ``check_mechanism`` passes;
    2. each observation enters ω as one element whose metadata keeps the step's
       ``priority`` and ``source``;
    3. when something must go, a lower priority goes before a higher one;
    4. within one priority, the oldest goes first;
    5. both high-priority user facts are still in ω at the end.

    >>> from stmviz.core.mechanism import _Example
    >>> report = check_priority_memory(_Example)
    >>> report.ok
    False
    """
    results: list[CheckResult] = []
    space = StateSpace(words, v_max)
    try:
        mechanism = make(space)
    except Exception as exc:
        results.append(CheckResult("build", False, f"could not build the mechanism: {type(exc).__name__}: {exc}"))
        return CheckReport("your mechanism", results, 0)
    contract = check_mechanism(mechanism)
    results.append(CheckResult("contract", contract.ok,
                               "check_mechanism passes" if contract.ok else
                               "check_mechanism fails: " + "; ".join(r.detail for r in contract.failures)))
    try:
        trace = run(mechanism, PRIORITY_STEPS)
    except STMError as exc:
        results.append(CheckResult("run", False, f"run() failed: {exc}"))
        return CheckReport(str(mechanism), results, 0)

    elements = list(trace.sizes)
    kept_meta = all(
        any(e.meta.get("priority") == s.meta["priority"] and e.meta.get("source") == s.meta["source"]
            and s.observation in e.text for e in elements)
        for s in PRIORITY_STEPS
    )
    results.append(CheckResult("metadata", kept_meta,
                               "each observation became an element with its priority and source" if kept_meta else
                               "some observation has no element carrying its priority and source in meta"))
    rank = {"low": 0, "medium": 1, "high": 2}
    order_ok, age_ok = True, True
    detail_order = "lower priorities always left before higher ones"
    detail_age = "within one priority the oldest left first"
    for t, step in enumerate(trace):
        before = trace.state_at(t)
        for gone in step.removed:
            p = rank.get(gone.meta.get("priority"), -1)
            survivors = [e for e in before if e not in step.removed]
            if any(rank.get(e.meta.get("priority"), -1) < p for e in survivors):
                order_ok = False
                detail_order = f"step {t}: {gone.label()} ({gone.meta.get('priority')}) left while a lower priority stayed"
            same = [e for e in survivors if e.meta.get("priority") == gone.meta.get("priority")]
            if any((e.t or 0) < (gone.t or 0) for e in same):
                age_ok = False
                detail_age = f"step {t}: {gone.label()} left while an older {gone.meta.get('priority')} one stayed"
    results.append(CheckResult("priority", order_ok, detail_order))
    results.append(CheckResult("age", age_ok, detail_age))
    final = " ".join(_texts(trace.final))
    facts = all(fact in final for fact in ("allergic to peanuts", "Friday at 19:30"))
    results.append(CheckResult("high-priority facts", facts,
                               "both user facts marked high are still in ω_n" if facts else
                               "a high-priority user fact is missing from ω_n"))
    return CheckReport(str(mechanism), results, len(trace))


