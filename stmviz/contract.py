"""The contract of Definition 2, checked: :func:`check_mechanism`.

The paper: the mechanism is the seven-tuple (O, E, Ω_STM, C, U, X, π), with
the update U : Ω_STM × O × C → Ω_STM and the projection π : Ω_STM → X. So
every result of U is again a state of Ω_STM (closure); U and π are functions
— the same inputs give the same output, and the inputs are left as they were
(purity, a deterministic π); and U acts on the operations O = ⋃_{a ∈ τ} O_a
the mechanism declares. :func:`check_mechanism` runs the loop of Figure 1 on
a mechanism and checks each clause, as a student does with their own
mechanism before looking at its figures.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .core.context import AgentStep, Context, History
from .core.errors import CapacityError, InvalidArgumentError, ContractError, STMError, UnsupportedOperationError
from .core.guards import brief
from .core.formatting import format_number, shorten
from .core.i18n import N_, ngettext
from .core.i18n import gettext as _
from .core.mechanism import Mechanism
from .core.operation import Operation, OperationSet
from .core.space import State
from .protocol import directives_declared, types_of

__all__ = ["check_mechanism", "CheckReport", "CheckResult", "sample_steps"]

#: The clauses checked along the loop, with what is reported when they hold.
_LOOP_CLAUSES = (N_("closure"), N_("purity"), N_("deterministic π"))
#: The names of the other clauses: keys that programs read, shown translated (CheckResult.__str__)
_CLAUSES = (N_("declarations"), N_("operations"), N_("initial state"), N_("declared operations"))
#: The clause of one operation type a ∈ τ: its name is this sentence with the type's repr
TYPE_HANDLED = N_("type {type} handled")
_TYPE_HANDLED = re.compile(r"type (.+) handled")


@dataclass
class CheckResult:
    """One clause of the contract of Definition 2 and whether it held.

    >>> print(CheckResult("closure", True, "U stayed in Ω_STM"))
    ✓ closure: U stayed in Ω_STM
    """

    name: str
    passed: bool
    detail: str
    warning: bool = False
    #: False when the loop never reached the clause (e.g. U failed at step 0): neither held nor failed
    checked: bool = True

    def __str__(self) -> str:
        mark = "?" if not self.checked else "✓" if self.passed else ("!" if self.warning else "✗")
        return f"{mark} {_clause_name(self.name)}: {self.detail}"


def _clause_name(name: str) -> str:
    """A clause's name as a person reads it, in the current language (the name itself stays the key)."""
    typed = _TYPE_HANDLED.fullmatch(name)
    return _(TYPE_HANDLED).format(type=typed.group(1)) if typed else _(name)


class CheckReport:
    """What :func:`check_mechanism` found about the contract of Definition 2: one line per clause."""

    def __init__(self, mechanism: str, results: list[CheckResult], steps: int) -> None:
        self.mechanism = mechanism
        self.results = results
        self.steps = steps

    @property
    def ok(self) -> bool:
        """Whether no clause failed (warnings and clauses that could not be checked do not count as failures)."""
        return all(r.passed or r.warning or not r.checked for r in self.results)

    @property
    def failures(self) -> list[CheckResult]:
        """The clauses that failed."""
        return [r for r in self.results if r.checked and not r.passed and not r.warning]

    @property
    def unchecked(self) -> list[CheckResult]:
        """The clauses the loop never reached, so neither held nor failed (each says why)."""
        return [r for r in self.results if not r.checked]

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        if not self.ok:
            n = len(self.failures)
            head = ngettext("{mechanism}: {n} clause(s) of the contract fail",
                            "{mechanism}: {n} clause(s) of the contract fail", n).format(mechanism=self.mechanism, n=n)
        elif self.unchecked:
            head = ngettext("{mechanism}: no clause failed on {steps} steps, but {k} could not be checked",
                            "{mechanism}: no clause failed on {steps} steps, but {k} could not be checked",
                            self.steps).format(mechanism=self.mechanism, steps=self.steps, k=len(self.unchecked))
        else:
            head = ngettext("{mechanism}: contract of Definition 2 holds on {steps} steps",
                            "{mechanism}: contract of Definition 2 holds on {steps} steps",
                            self.steps).format(mechanism=self.mechanism, steps=self.steps)
        return "\n".join([head] + ["  " + str(r) for r in self.results])

    __repr__ = __str__

    def raise_if_failed(self) -> "CheckReport":
        """The report itself if the contract held, else a :class:`ContractError` with the report.

        The report is in the language it was made in (:func:`stmviz.set_language`), as a student read it.
        """
        if not self.ok:
            raise ContractError(str(self))
        return self


_WORDS = (
    "the agent reads a page about memory and notes that the user asked for a summary of "
    "three sources while the tool returned a long table with prices dates names and links"
).split()


def sample_steps(n: int = 40, seed: int = 0) -> list[AgentStep]:
    """A deterministic synthetic stream of agent steps (inputs of c ∈ C) for contract checks: varied sizes, subgoals, folds.

    >>> steps = sample_steps(7)
    >>> len(steps), steps[0].directives["subgoal"], steps[6].directives["fold"]["op"]
    (7, 'subgoal 0', 'condense')
    """
    rng = random.Random(seed)
    return [_sample_step(t, rng) for t in range(n)]


def _sample_step(t: int, rng: random.Random) -> AgentStep:
    length = rng.choice((3, 8, 20, 60, 150))
    text = " ".join(rng.choice(_WORDS) for _ in range(length))
    fold: dict[str, Any] | None = None
    if t % 3 == 0:
        fold = {"op": "condense"}
    elif t % 7 == 0:
        fold = {"op": "consolidate", "from": max(0, t - 5)}
    directives = {
        "subgoal": f"subgoal {t // 6}" if t % 6 == 0 else None,
        "subgoal_done": True if t % 6 == 5 else None,
        "fold": fold,
    }
    return AgentStep(
        thought=f"Step {t}: I should look at source {t % 5}.",
        action=f"search(query='item {t}')" if t % 2 == 0 else "",
        observation=f"[{t}] {text}",
        directives={key: value for key, value in directives.items() if value is not None},
        meta={"priority": rng.choice(("low", "medium", "high")), "source": rng.choice(("user", "model", "api"))},
    )


@dataclass
class _Loop:
    """Where the checked loop is: ω_t, c_t, the clauses that failed, the operation types chosen."""

    state: State
    context: Context
    failures: dict[str, str] = field(default_factory=dict)
    exercised: set[str] = field(default_factory=set)
    steps_done: int = 0
    #: how many times each clause was checked: a clause checked 0 times is reported "not checked"
    checks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_LOOP_CLAUSES, 0))
    #: why the loop stopped early, if it did
    stopped: str = ""


def check_mechanism(
    mechanism: Mechanism,
    steps: Iterable[Any] | None = None,
    *,
    query: str = "Find and summarize three sources about agent memory.",
    tools: Sequence[str] = ("search", "open_page"),
    raise_on_failure: bool = False,
) -> CheckReport:
    """Check that a mechanism keeps the contract of Definition 2, and say what failed in plain words.

    It runs the Figure 1 loop over ``steps`` (default: a synthetic 40-step
    trajectory with varied sizes, subgoal markers and folding directives) and
    checks at every step:

    - **closure** — U returns a State and stays in Ω_STM (Σμ ≤ V_max);
    - **purity** — U leaves its inputs (ω, o, c) and the mechanism unchanged,
      and gives the same result when called twice;
    - **deterministic π** — π(ω) is the same when called twice;
    - **declared operations** — the controller only picks declared types, and
      every declared type a ∈ τ is handled by U.

    Returns a :class:`CheckReport` (true when everything held); with
    ``raise_on_failure=True`` a failing report raises
    :class:`~stmviz.errors.ContractError`.

    >>> from stmviz import StateSpace, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> print(check_mechanism(ExampleMechanism(StateSpace(sizes.words, 50))))  # doctest: +ELLIPSIS
    example: contract of Definition 2 holds on 40 steps
      ✓ operations: τ = {append}
      ✓ initial state: ω_0 ∈ Ω_STM (Σμ = 0 ≤ V_max = 50)
      ...
    """
    _check_arguments(mechanism, steps, query, tools, raise_on_failure)
    results: list[CheckResult] = _bad_declarations(mechanism)
    context0 = Context(t=0, query=query, tools=tuple(tools))
    state = _initial_state(mechanism, context0, results) if _operations_declared(mechanism, results) else None
    if state is None:
        return _finish(CheckReport(str(mechanism), results, 0), raise_on_failure)
    records = sample_steps() if steps is None else [AgentStep.coerce(s, where=f"step {i}") for i, s in enumerate(steps)]
    loop = _run_checked(mechanism, _Loop(state, context0), records, query, tuple(tools))
    results += _loop_results(loop)
    results += _operation_results(mechanism, loop)
    return _finish(CheckReport(str(mechanism), results, loop.steps_done), raise_on_failure)


def _check_arguments(mechanism: Any, steps: Any, query: Any, tools: Any, raise_on_failure: Any) -> None:
    """Refuse what check_mechanism cannot check, before any work: the message says what and how to fix it."""
    if not isinstance(mechanism, Mechanism):
        raise InvalidArgumentError(
            f"check_mechanism needs a Mechanism (O, E, Ω_STM, C, U, X, π), got {type(mechanism).__name__}; "
            f"subclass stmviz.Mechanism or use make_mechanism(...)"
        )
    if not isinstance(query, str):
        raise InvalidArgumentError(f"query must be the text of the task, got {brief(query)}")
    if isinstance(tools, (str, bytes)) or not isinstance(tools, Iterable) or not all(isinstance(x, str) for x in tools):
        raise InvalidArgumentError(
            f"tools must be a sequence of tool names, e.g. ('search', 'open_page'), got {brief(tools)}"
            f"; one tool is written ('search',)"
        )
    if not isinstance(raise_on_failure, bool):
        raise InvalidArgumentError(f"raise_on_failure must be True or False, got {brief(raise_on_failure)}")
    if steps is not None and (isinstance(steps, (str, bytes)) or not isinstance(steps, Iterable)):
        raise InvalidArgumentError(
            f"steps must be a sequence of agent steps (AgentStep, dict or str), got {brief(steps)}; "
            f"one step is written [step]"
        )


def _bad_declarations(mechanism: Mechanism) -> list[CheckResult]:
    """A failed clause for an element-type or directive declaration the figures cannot read (none when they can)."""
    try:
        types_of(mechanism)
        directives_declared(mechanism)
    except STMError as exc:
        return [CheckResult("declarations", False, str(exc))]
    return []


def _operations_declared(mechanism: Mechanism, results: list[CheckResult]) -> bool:
    """Whether O is declared and not empty (recorded in ``results``)."""
    declared = mechanism.operations
    if not isinstance(declared, OperationSet) or len(declared) == 0:
        results.append(CheckResult("operations", False, _("the mechanism declares no operation types (O is empty)")))
        return False
    results.append(CheckResult("operations", True, f"τ = {{{', '.join(declared.types)}}}"))
    return True


def _initial_state(mechanism: Mechanism, context: Context, results: list[CheckResult]) -> State | None:
    """ω_0 if it is a state of Ω_STM, else ``None`` (recorded in ``results``)."""
    space = mechanism.space
    try:
        state = mechanism.initial_state(context)
        if not isinstance(state, State):
            raise ContractError(f"initial_state returned {type(state).__name__}, not a State")
        space.check(state)
    except Exception as exc:
        results.append(CheckResult("initial state", False, _("ω_0 is not a state of Ω_STM: {error}").format(error=exc)))
        return None
    held = f"Σμ = {format_number(space.size(state))} ≤ V_max = {format_number(space.v_max)}"
    results.append(CheckResult("initial state", True, f"ω_0 ∈ Ω_STM ({held})"))
    return state


def _run_checked(mechanism: Mechanism, loop: _Loop, records: list[AgentStep], query: str, tools: tuple[str, ...]) -> _Loop:
    """The loop of Figure 1 over ``records``, checking each step; it stops at the first step U fails."""
    history: list[AgentStep] = []
    if not records:
        loop.stopped = _("no steps were given")
    for t, step in enumerate(records):
        loop.context = Context(t=t, step=step, query=query, tools=tools, history=History(history, t))
        _check_projection(mechanism, loop, t)
        if not _check_step(mechanism, loop, t):
            loop.stopped = _("the loop stopped at step {t}, where U or the controller failed").format(t=t)
            break
        history.append(step)
        loop.steps_done += 1
    return loop


def _check_projection(mechanism: Mechanism, loop: _Loop, t: int) -> None:
    """π deterministic: π(ω_t) twice gives the same x."""
    if "deterministic π" in loop.failures:
        return
    loop.checks["deterministic π"] += 1
    try:
        if mechanism.input(loop.state) != mechanism.input(loop.state):
            loop.failures["deterministic π"] = _("π(ω_{t}) differed between two calls on the same state").format(t=t)
    except Exception as exc:
        loop.failures["deterministic π"] = _("π(ω_{t}) raised {error}: {message}").format(
            t=t, error=type(exc).__name__, message=exc)


def _check_step(mechanism: Mechanism, loop: _Loop, t: int) -> bool:
    """One step: the controller's choice, then U for each operation; ``False`` if it failed."""
    try:
        operations = mechanism.choose(loop.state, loop.context)
    except Exception as exc:
        loop.failures["declared operations"] = _("step {t}: the controller failed: {error}").format(t=t, error=exc)
        return False
    for operation in operations:
        loop.exercised.add(operation.type)
        new = _apply_checked(mechanism, loop, operation, t)
        if new is None:
            return False
        loop.state = new
    return True


def _apply_checked(mechanism: Mechanism, loop: _Loop, operation: Operation, t: int) -> State | None:
    """ω' = U(ω, o, c), checked for closure and purity; ``None`` if U failed."""
    state, context = loop.state, loop.context
    before, context_copy, snapshot = state.elements, context.replace(), _snapshot(mechanism)
    try:
        transition = mechanism.apply(state, operation, context)
    except Exception as exc:
        clause, text = _update_failure(exc, operation, t)
        loop.failures[clause] = text
        return None
    loop.checks["closure"] += 1
    if "purity" not in loop.failures:
        loop.checks["purity"] += 1
        problem = _purity_problem(mechanism, (state, operation, context), before, context_copy, snapshot, transition.state)
        if problem:
            loop.failures["purity"] = _("step {t}: {problem}").format(t=t, problem=problem)
    return transition.state


def _update_failure(exc: Exception, operation: Operation, t: int) -> tuple[str, str]:
    """The clause a failure of U breaks, and what to say."""
    if isinstance(exc, (CapacityError, ContractError)):
        return "closure", _("step {t}: {error}").format(t=t, error=exc)
    if isinstance(exc, UnsupportedOperationError):
        return "declared operations", _("step {t}: {error}").format(t=t, error=exc)
    if isinstance(exc, NotImplementedError):
        return "declared operations", _("step {t}: U does not handle {type}: {error}").format(
            t=t, type=repr(operation.type), error=exc)
    return "closure", _("step {t}: U(ω, {operation}, c) raised {error}: {message}").format(
        t=t, operation=operation, error=type(exc).__name__, message=exc)


def _purity_problem(
    mechanism: Mechanism,
    inputs: tuple[State, Operation, Context],
    before: frozenset[Any],
    context_copy: Context,
    snapshot: dict[str, Any],
    result: State,
) -> str | None:
    """What U changed or did not repeat when called on ``inputs`` = (ω, o, c), or ``None``."""
    state, operation, context = inputs
    if state.elements is not before or state.elements != before:
        return _("U changed its input state ω")
    if context != context_copy:
        return _("U changed its input context c")
    changed = _changed_attributes(mechanism, snapshot)
    if changed:
        return _("U changed the mechanism's own attributes ({changed}); "
                 "keep everything U needs in ω (metadata) or in c").format(changed=changed)
    try:
        again = mechanism.apply(state, operation, context).state
    except Exception as exc:
        return _("calling U twice on the same inputs raised {error}").format(error=exc)
    if again != result:
        return _("U(ω, {operation}, c) gave two different states for the same inputs; "
                 "U must be a function of (ω, o, c) only").format(operation=operation)
    return None


def _changed_attributes(mechanism: Mechanism, snapshot: dict[str, tuple[int, Any]]) -> str:
    """The names of the mechanism's attributes that differ from ``snapshot``, joined ("" if none)."""
    now = _snapshot(mechanism)
    changed = [k for k in snapshot if k not in now or not _same(now[k], snapshot[k])]
    changed += [k for k in now if k not in snapshot]
    return ", ".join(changed)


_UNCOPIED = object()  # a container that could not be copied: only its identity is compared


def _attributes(mechanism: Mechanism) -> dict[str, Any]:
    """The mechanism's own attributes: its ``__dict__`` and any ``__slots__`` of its classes."""
    try:
        found = dict(vars(mechanism))
    except TypeError:  # a class with __slots__ only
        found = {}
    for kind in type(mechanism).__mro__:
        slots = kind.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in found:
                try:
                    found[name] = getattr(mechanism, name)
                except AttributeError:  # a slot not set yet
                    continue
    return found


def _snapshot(mechanism: Mechanism) -> dict[str, Any]:
    """The mechanism's attributes: identity, and a shallow copy of each list, dict or set (of any subclass).

    A copy is a plain list, dict or set of the same items (a ``defaultdict``'s
    constructor wants a factory first; a user's subclass may want anything).
    """
    snap: dict[str, tuple[int, Any]] = {}
    for key, value in _attributes(mechanism).items():
        copy: Any = None
        if isinstance(value, (list, dict, set)):
            try:
                copy = list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else set(value)
            except Exception:  # an odd container whose items cannot be read
                copy = _UNCOPIED
        snap[key] = (id(value), copy)
    return snap


def _same(now: tuple[int, Any], before: tuple[int, Any]) -> bool:
    """Whether an attribute is as snapshot: the same object and, for a container, the same items.

    Items are compared with ``==``; where that raises or is no bool (numpy
    arrays, a user's odd ``__eq__``), by identity.
    """
    if now[0] != before[0]:
        return False
    a, b = now[1], before[1]
    if a is _UNCOPIED or b is _UNCOPIED or a is None or b is None:
        return (a is None) == (b is None)
    try:
        return bool(a == b)
    except Exception:
        return _identities(a) == _identities(b)


def _identities(container: Any) -> Any:
    """The identities of a copied container's items (keys and values of a dict)."""
    if isinstance(container, dict):
        return [(id(k), id(v)) for k, v in container.items()]
    if isinstance(container, set):
        return {id(x) for x in container}
    return [id(x) for x in container]


def _loop_results(loop: _Loop) -> list[CheckResult]:
    """closure, purity and deterministic π: held along the loop, the first failure of each, or not checked and why."""
    held = {
        "closure": ngettext("U returned a State in Ω_STM at each of {n} steps",
                            "U returned a State in Ω_STM at each of {n} steps", loop.steps_done).format(n=loop.steps_done),
        "purity": _("U left ω, o, c and the mechanism unchanged and was repeatable"),
        "deterministic π": _("π(ω) was the same on repeated calls"),
    }
    results = []
    for clause in _LOOP_CLAUSES:
        if clause in loop.failures:
            results.append(CheckResult(clause, False, loop.failures[clause]))
        elif loop.checks[clause] == 0:
            why = loop.stopped or _("the loop never reached it")
            results.append(CheckResult(clause, False, _("not checked: {why}").format(why=why), checked=False))
        else:
            results.append(CheckResult(clause, True, held[clause]))
    return results


def _operation_results(mechanism: Mechanism, loop: _Loop) -> list[CheckResult]:
    """declared operations: the controller chose only declared types, and U handles every a ∈ τ."""
    if "declared operations" in loop.failures:
        return [CheckResult("declared operations", False, loop.failures["declared operations"])]
    results = [CheckResult("declared operations", True, _("the controller only chose declared types"))]
    for op_type in mechanism.operations.types:
        results.append(_type_handled(mechanism, loop, op_type))
    return results


def _type_handled(mechanism: Mechanism, loop: _Loop, op_type: str) -> CheckResult:
    """Whether U handles the operation type a: chosen along the loop, or U(ω, a, c) called once."""
    name = TYPE_HANDLED.format(type=repr(op_type))  # the key, in English; shown translated
    if op_type in loop.exercised:
        return CheckResult(name, True, _("exercised by the controller"))
    try:
        mechanism.apply(loop.state, Operation(op_type), loop.context)
    except (UnsupportedOperationError, NotImplementedError) as exc:
        return CheckResult(name, False, _("declared in τ but U does not handle it: {error}").format(error=exc))
    except Exception as exc:
        detail = _("never chosen on these steps, and U({type}) without parameters raised {error}: {message}").format(
            type=op_type, error=type(exc).__name__, message=shorten(str(exc), 120))
        return CheckResult(name, False, detail, warning=True)
    return CheckResult(name, True, _("not chosen by the controller; U handled it when called"))


def _finish(report: CheckReport, raise_on_failure: bool) -> CheckReport:
    if raise_on_failure:
        report.raise_if_failed()
    return report
