"""The checks of :func:`stmviz.core.trace.run`: its arguments, ω_0, and errors located at a step.

Functions called by the loop of Figure 1 (in :mod:`stmviz.core.trace`, which imports
this module; it imports nothing from there). Every argument of ``run`` is checked here,
at the entry point, and every error raised inside the loop is given the step and the
trace so far (``trace`` below is that :class:`~stmviz.core.trace.Trace`):

- ``InvalidArgumentError`` when ``mechanism`` is not a Mechanism, ``steps`` is a
  single string or not iterable, ``query`` is not text, ``tools`` is not a list of
  texts (a single string is refused, not split into letters), ``meta`` is not a
  mapping, or ``checkpoint_every`` is not a whole number ≥ 1 (checked by the Trace);
- ``FormatError`` when a step record is not an AgentStep, a dict or a
  string; it names the step;
- ``CapacityError``, ``ContractError``, ``UnsupportedOperationError`` when U
  leaves Ω_STM, returns a non-State, or gets an undeclared operation: the same
  class (a user's STMError subclass too), its message starting with ``step t:``;
- ``UpdateFailedError`` when U (or a summarizer it calls), the controller or π
  raises anything else; it names the step, and ``error.trace`` holds the steps before it.

A step record is an :class:`~stmviz.core.context.AgentStep`, a dict with ``thought`` /
``action`` / ``observation``, or a string (an observation); a scenario object with
``steps``, ``query`` and ``tools`` attributes is accepted in place of the steps.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import Any

from .context import AgentStep, Context
from .element import Element, Meta
from .errors import CapacityError, InvalidArgumentError, STMError, UpdateFailedError
from .formatting import shorten
from .guards import brief
from .mechanism import Mechanism
from .space import State

#: The request metadata of a run given none (immutable, so shared).
NO_EXTRA = Meta()


def read_steps(steps: Iterable[Any]) -> Iterator[AgentStep]:
    """The steps one by one, as AgentSteps; an iterable that fails while it is read (a broken generator): an STMError."""
    iterator: Iterator[Any] | None = None
    t = 0
    while True:
        try:
            if iterator is None:
                iterator = iter(steps)
            raw = next(iterator)
        except StopIteration:
            return
        except STMError:
            raise
        except Exception as exc:
            raise InvalidArgumentError(
                f"run: reading step {t} from steps failed: {type(exc).__name__}: {shorten(str(exc))}; "
                f"pass a list of steps, or a generator that does not fail"
            ) from exc
        yield raw if type(raw) is AgentStep else AgentStep.coerce(raw, where=f"step {t}")
        t += 1


def projection_size(mechanism: Mechanism, state: State, t: int, trace: Any) -> int:
    """|π(ω_t)|; an error of π names step t and carries the trace, as an error of U does."""
    try:
        return mechanism.projection_size(state)
    except STMError as exc:
        raise at_step(exc, t, trace)
    except Exception as exc:
        raise UpdateFailedError(
            f"step {t}: {mechanism} failed in the projection π(ω_{t}): {type(exc).__name__}: {exc}. "
            f"error.trace holds steps 0…{t - 1}",
            step=t,
            trace=trace,
        ) from exc


def _has_steps(value: object) -> bool:
    """Whether ``value`` is a scenario (it has ``.steps``); an object whose attributes fail is not."""
    try:
        return hasattr(value, "steps")
    except Exception:
        return False


def run_inputs(
    mechanism: object,
    steps: Iterable[Any],
    query: str | None,
    tools: Sequence[str] | None,
    meta: Mapping[str, Any] | None,
) -> tuple[Iterable[Any], str, tuple[str, ...], Meta]:
    """The mechanism checked; the steps, Q, T and request metadata of a run, checked (a scenario gives those not given)."""
    if not isinstance(mechanism, Mechanism):
        raise InvalidArgumentError(
            f"run() needs a Mechanism (O, E, Ω_STM, C, U, X, π), got {type(mechanism).__name__}; "
            f"e.g. run(FIFOWindow(StateSpace(tokens(), v_max=4096)), steps)"
        )
    if not isinstance(steps, (str, bytes, Mapping)) and _has_steps(steps):
        scenario: Any = steps
        steps = scenario.steps
        query = _given_or(query, scenario, "query")
        tools = _given_or(tools, scenario, "tools")
        meta = _given_or(meta, scenario, "meta")
    if isinstance(steps, (str, bytes)):
        raise InvalidArgumentError(
            "steps must be an iterable of step records, not a single string; wrap it in a list: run(m, [text])"
        )
    if isinstance(steps, Mapping) or not isinstance(steps, Iterable):
        raise InvalidArgumentError(
            f"run: steps must be an iterable of step records (AgentStep, dict or str), got {type(steps).__name__} "
            f"{brief(steps)}; e.g. run(m, [{{'thought': '…', 'observation': '…'}}])"
        )
    return steps, _query(query), _tools(tools), _request_meta(meta)


def _query(query: Any) -> str:
    """The user's query Q: text (``None`` is no query)."""
    if query is None:
        return ""
    if not isinstance(query, str):
        raise InvalidArgumentError(
            f"run: query Q must be text, got {type(query).__name__} {brief(query)}; pass query=str(value)"
        )
    return query


def _tools(tools: Any) -> tuple[str, ...]:
    """The tools T: a list or tuple of tool names (``None`` is no tools)."""
    if tools is None:
        return ()
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        example = f"tools=[{brief(tools)}]" if isinstance(tools, str) else "tools=['search', 'open']"
        raise InvalidArgumentError(
            f"run: tools T must be a list of tool names, got {type(tools).__name__} {brief(tools)}; e.g. {example}"
        )
    names = tuple(tools)
    for k, name in enumerate(names):
        if not isinstance(name, str):
            raise InvalidArgumentError(
                f"run: tools[{k}] = {brief(name)} is a {type(name).__name__}; each tool is named by text"
            )
    return names


def _request_meta(meta: Any) -> Meta:
    """The request metadata shared by every c_t: a mapping (``None`` is none)."""
    if meta is None:
        return NO_EXTRA
    if not isinstance(meta, Mapping):
        raise InvalidArgumentError(f"run: meta must be a mapping (e.g. a dict), got {type(meta).__name__} {brief(meta)}")
    try:
        return Meta(meta)
    except STMError as exc:
        raise InvalidArgumentError(f"run: meta: {exc}") from None


def _given_or(value: Any, scenario: Any, name: str) -> Any:
    """An argument of run() if given, else the scenario's attribute of that name."""
    return getattr(scenario, name, None) if value is None else value


def initial_state(mechanism: Mechanism, initial: Iterable[Element] | None, context: Context) -> State:
    """ω_0: ``initial`` or the mechanism's, checked to be in Ω_STM."""
    state = mechanism.initial_state(context) if initial is None else initial
    if not isinstance(state, State):
        state = State(state)
    if initial is not None:
        _check_metadata(mechanism, state)
    try:
        mechanism.space.check(state)
    except CapacityError as exc:
        raise CapacityError(f"the initial state ω_0 of {mechanism} is not in Ω_STM: {exc}") from None
    return state


def _check_metadata(mechanism: Mechanism, state: State) -> None:
    """Each element of a given ω_0 carries the metadata its type needs (``mechanism.required_meta``), or an error."""
    required = mechanism.required_meta
    for element in state:
        kind = element.meta.get("type")
        missing = [key for key in required.get(kind, ()) if key not in element.meta] if isinstance(kind, str) else []
        if missing:
            raise InvalidArgumentError(
                f"run: the initial state ω_0 holds {element.label()} of type {kind!r} without the metadata "
                f"{', '.join(map(repr, missing))} that {mechanism}'s U and π read for that type; give it those "
                f"components, or start from a state the mechanism built (e.g. trace.final)"
            )


def at_step(exc: STMError, t: int, trace: Any) -> STMError:
    """The same kind of error, its message starting with ``step t:``, carrying the step and the trace.

    It is caused by ``exc`` (as ``raise … from exc``); an error whose class cannot be
    made with one message (a subclass whose ``__init__`` takes other arguments) is
    itself given the step and the trace.
    """
    message = str(exc)
    prefix = f"step {t}: "
    try:
        error = type(exc)(message if message.startswith(prefix) else prefix + message)
        error.__cause__ = exc
    except Exception:  # a subclass whose __init__ takes other arguments: the error itself, located
        error = exc
    error.step = t
    error.trace = trace
    return error


class ErrorsAtStep:
    """Around o_t = controller(ω_t, c_t) and ω_{t+1} = U(ω_t, o_t, c_t): an error names step t and carries the trace.

    An UpdateFailedError passes as it is, given the trace; any other STMError
    (a user's subclass too) reaches the caller as its own class (:func:`at_step`);
    any other exception becomes an UpdateFailedError caused by it.
    """

    __slots__ = ("mechanism", "t", "trace")

    def __init__(self, mechanism: Mechanism, t: int, trace: Any) -> None:
        self.mechanism = mechanism
        self.t = t
        self.trace = trace

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if exc is None:
            return None
        t = self.t
        if isinstance(exc, UpdateFailedError):
            exc.trace = self.trace
        elif isinstance(exc, STMError):
            raise at_step(exc, t, self.trace)
        elif isinstance(exc, Exception):
            raise UpdateFailedError(
                f"step {t}: {self.mechanism} failed in the controller or in U: {type(exc).__name__}: {exc}. "
                f"ω_{t} was left as it was; error.trace holds steps 0…{t - 1}",
                step=t,
                trace=self.trace,
            ) from exc
        # no error, or an UpdateFailedError, or a BaseException (Ctrl-C): it propagates as it is
