"""The one vocabulary of argument checks, used at the public entry points of every layer.

Each guard takes the value first and the parameter's name second, returns the
value (normalized where it says so) or raises
:class:`~stmviz.errors.InvalidArgumentError` saying which argument, the value
given (its type and a shortened repr) and what to pass instead. ``where``
names the public function, for a message read far from the call.

One rule per kind of value, whatever the layer:

- a **whole number** is an ``int`` or a numpy integer, never a ``bool``
  (``k=True`` is a slip) nor a float, and at most ``sys.maxsize`` unless a
  larger ``maximum`` is given;
- a **time index** t is such a whole number naming a state ω_t or a step;
- a **real number** is finite (not NaN, not ±∞, not an int too large for a float);
- a **text** is a ``str`` with a non-blank character; a **flag** is ``True`` or ``False``;
- a **function** is any callable.

The guards read only a value's type, so they hold for objects whose ``str``,
``==`` or ``len`` raise: :func:`brief` shows a value without trusting its ``repr``.

>>> whole_number(3, "t", where="loop_figure")
3
>>> whole_number(1.5, "t", where="loop_figure")
Traceback (most recent call last):
...
stmviz.core.errors.InvalidArgumentError: loop_figure: t must be a whole number, got float 1.5; pass an int such as 3
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Iterable, Mapping, Sized
from typing import Any

from .errors import InvalidIndexError, InvalidArgumentError
from .formatting import shorten

__all__ = [
    "LARGEST",
    "brief",
    "as_int",
    "is_finite",
    "whole_number",
    "real_number",
    "flag",
    "text",
    "function",
    "choice",
    "items",
    "time_index",
    "prompt",
]

#: the largest whole number a count, budget or index may be unless a guard says otherwise
LARGEST = sys.maxsize


def brief(value: object, width: int = 60) -> str:
    """``repr(value)`` on one line, shortened to ``width`` characters; a value whose repr raises is named by its type.

    >>> brief("a" * 100, 12)
    "'aaaaaaaaaa…"
    """
    try:
        shown = repr(value)
    except Exception:
        return f"a {type(value).__name__} (its repr fails)"
    return shorten(shown, width)


def _got(value: object) -> str:
    """The value as a message shows it: its type and its shortened repr."""
    text = brief(value)
    return text if text.startswith("a ") and text.endswith("(its repr fails)") else f"{type(value).__name__} {text}"


def _prefix(where: str) -> str:
    return f"{where}: " if where else ""


def as_int(value: object, *, float_ok: bool = False) -> int | None:
    """``value`` as an int if it is a whole number (an int or a numpy integer; not a bool, not a float), else None.

    With ``float_ok`` a float with no fractional part counts too: a metadata
    value read back from JSON may be ``3.0``.

    >>> as_int(3), as_int(True), as_int(3.0), as_int("3"), as_int(3.0, float_ok=True)
    (3, None, None, None, 3)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if float_ok and isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, (float, complex, str, bytes)) or not hasattr(type(value), "__index__"):
        return None
    try:
        return operator.index(value)  # type: ignore[arg-type]  # a numpy integer
    except Exception:
        return None


def is_finite(value: object) -> bool:
    """Whether a real number is finite as a float: not NaN, not ±∞, not an int too large for a float (``10**400``).

    >>> is_finite(4096), is_finite(float("nan")), is_finite(10**400)
    (True, False, False)
    """
    try:
        return math.isfinite(float(value))  # type: ignore[arg-type]
    except (OverflowError, TypeError, ValueError):
        return False


def whole_number(value: object, name: str, minimum: int | None = None, *, maximum: int | None = LARGEST,
                 where: str = "", none_ok: bool = False, fix: str = "",
                 error: type[Exception] = InvalidArgumentError) -> Any:
    """``value`` as an int, if it is a whole number in ``minimum`` … ``maximum`` (or None when ``none_ok``).

    ``error`` is the class raised otherwise, when a layer names the defect more
    precisely (an operation's parameter: ``InvalidArgumentError``).

    >>> whole_number(True, "k", 0)
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: k must be a whole number ≥ 0, got bool True; pass an int such as 3
    """
    if value is None and none_ok:
        return None
    number = as_int(value)
    low = minimum if minimum is not None else -LARGEST - 1
    high = maximum if maximum is not None else math.inf
    if number is not None and low <= number <= high:
        return number
    bounds = _bounds(name, minimum, maximum, number)
    example = 3 if minimum is None else max(minimum, 3 if maximum is None else min(3, maximum))
    advice = fix or f"; pass an int such as {example}" + ("; or None for the default" if none_ok else "")
    raise error(
        f"{_prefix(where)}{name} must be a whole number{bounds}{' or None' if none_ok else ''}, got {_got(value)}{advice}"
    )


def _bounds(name: str, minimum: int | None, maximum: int | None, number: int | None) -> str:
    """The range a whole number must lie in, as a message says it (the default maximum only once it is passed)."""
    if maximum == LARGEST and (number is None or number <= maximum):
        maximum = None
    if minimum is not None and maximum is not None:
        if len(name) > 24 or " " in name:  # a long name said twice in one message reads as noise
            return f" in {minimum} … {maximum}"
        return f" with {minimum} ≤ {name} ≤ {maximum}"
    if minimum is not None:
        return f" ≥ {minimum}"
    return f" ≤ {maximum}" if maximum is not None else ""


def real_number(value: object, name: str, low: float = -math.inf, high: float = math.inf, *,
                low_open: bool = False, high_open: bool = False, where: str = "") -> float:
    """``float(value)``, if it is a finite real number in the interval; not a bool, not NaN, not ±∞.

    An int too large for a float (``10**400``) is refused here, not met later as an OverflowError.

    >>> real_number(0.5, "share", 0, 1, low_open=True)
    0.5
    >>> real_number(10**400, "v_max", 0, low_open=True)
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: v_max must be a finite number > 0, got int 10000000000000000000000000000000000000000000000000000000000…
    """
    if high == math.inf:
        wanted = "a finite number" + ("" if low == -math.inf else f" {'>' if low_open else '≥'} {low:g}")
    else:
        wanted = f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    number: float | None = None
    if not isinstance(value, bool) and (isinstance(value, (int, float)) or hasattr(type(value), "__float__")):
        try:
            number = float(value)  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - an int too large for a float; an odd __float__ (any error it raises)
            number = None
        if isinstance(value, (str, bytes, complex)):
            number = None
    if (
        number is None
        or not math.isfinite(number)
        or (number <= low if low_open else number < low)
        or (number >= high if high_open else number > high)
    ):
        raise InvalidArgumentError(f"{_prefix(where)}{name} must be {wanted}, got {_got(value)}")
    return number


def flag(value: object, name: str, *, where: str = "", none_ok: bool = False) -> Any:
    """``value`` if it is True or False (not 0, 1, "yes" or an array), or None when ``none_ok``."""
    if isinstance(value, bool) or (value is None and none_ok):
        return value
    also = ", False or None (the default)" if none_ok else " or False"
    raise InvalidArgumentError(f"{_prefix(where)}{name} must be True{also}, got {_got(value)}")


def text(value: object, name: str, *, where: str = "", example: str = "", none_ok: bool = False,
         blank_ok: bool = False) -> Any:
    """``value``, if it is a str with some non-blank character (any str when ``blank_ok``; None when ``none_ok``)."""
    if value is None and none_ok:
        return None
    if isinstance(value, str) and (blank_ok or value.strip()):
        return value
    wanted = "a str" if blank_ok else "a non-empty text"
    raise InvalidArgumentError(
        f"{_prefix(where)}{name} must be {wanted}{' or None' if none_ok else ''}, got {_got(value)}"
        f"{'; e.g. ' + repr(example) if example else ''}"
    )


def function(value: object, name: str, signature: str, *, where: str = "", none_ok: bool = True,
             returns: type | None = None) -> Any:
    """``value``, if it is callable (or None when ``none_ok``, the default); ``signature`` says what it is called with.

    With ``returns``, the callable comes back wrapped so that each call checks its
    result is of that type: a summarizer that returns ``None`` is named at its
    first call, not met later as a missing text.

    >>> shout = function(lambda texts, budget: None, "summarize", "(texts, budget) -> str", returns=str)
    >>> shout(["a"], 4)
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: summarize returned NoneType None; summarize(texts, budget) -> str must return a string
    """
    if value is None and none_ok:
        return None
    if not callable(value):
        raise InvalidArgumentError(
            f"{_prefix(where)}{name} must be a callable {signature}{' or None (the default)' if none_ok else ''}, "
            f"got {_got(value)}"
        )
    return value if returns is None else _Returning(value, f"{_prefix(where)}{name}", f"{name}{signature}", returns)


class _Returning:
    """A user's callable whose every result is checked to be of one type (see :func:`function`)."""

    def __init__(self, wrapped: Any, label: str, signature: str, kind: type) -> None:
        self.wrapped, self.label, self.signature, self.kind = wrapped, label, signature, kind

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self.wrapped(*args, **kwargs)
        if not isinstance(result, self.kind):
            raise InvalidArgumentError(
                f"{self.label} returned {_got(result)}; {self.signature} must return a "
                f"{'string' if self.kind is str else self.kind.__name__}"
            )
        return result

    def __repr__(self) -> str:
        return repr(self.wrapped)


def choice(value: object, name: str, choices: Iterable[str], explain: str = "", *, where: str = "") -> str:
    """``value``, if it is one of the string ``choices`` (listed in the message otherwise)."""
    options = tuple(choices)
    if isinstance(value, str) and value in options:
        return value
    raise InvalidArgumentError(
        f"{_prefix(where)}{name} must be one of {', '.join(map(repr, options))}, got {_got(value)}"
        f"{': ' + explain if explain else ''}"
    )


def items(value: object, name: str, *, where: str = "", what: str = "items") -> list[Any]:
    """The items of an iterable (a list, a tuple, a generator...), not of a str, bytes or mapping, as a list.

    An iterable that fails while it is read (a broken generator, an object whose
    ``__iter__`` raises) is reported as such, with the error it raised.
    """
    if isinstance(value, (str, bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise InvalidArgumentError(
            f"{_prefix(where)}{name} must be a list (or another iterable) of {what}, got {brief(value)}"
        )
    try:
        return list(value)
    except Exception as exc:
        raise InvalidArgumentError(
            f"{_prefix(where)}{name} could not be read: iterating it raised {type(exc).__name__}; pass a list of {what}"
        ) from exc


def time_index(trace: Sized, t: object, where: str = "trace", *, states: bool = True) -> int:
    """A time index t of a trace of ``len(trace)`` steps, as a non-negative int — the one rule for every t.

    t names a state ω_t (``states=True``: 0 ≤ t ≤ n) or a step (0 ≤ t < n);
    negative t counts from the end, as for lists; a numpy integer is a whole
    number. A t that is not a whole number (``1.5``, ``True``, ``"2"``) raises
    :class:`~stmviz.errors.InvalidIndexError`, one out of range
    :class:`~stmviz.errors.InvalidIndexError`.
    """
    n = len(trace)
    top = n if states else n - 1
    number = as_int(t)
    if number is None:
        raise InvalidIndexError(
            f"{where}: t must be a whole number (an int) naming "
            f"{'a state ω_t' if states else 'a step'}, got {brief(t)}; pass t = 0 … {max(top, 0)}"
        )
    if top < 0:
        raise InvalidIndexError(f"{where}: the trace has no steps, so there is no step t = {number}")
    resolved = number + top + 1 if number < 0 else number
    if not 0 <= resolved <= top:
        what = f"states ω_0 … ω_{n}" if states else f"steps 0 … {n - 1} (ω_t → ω_{{t+1}})"
        raise InvalidIndexError(f"{where}: the trace has {what}; t = {number} is out of range")
    return resolved


def prompt(value: object, name: str, fields: Mapping[str, Any]) -> str:
    """``value``, if it is a ``str.format`` template that ``fields`` (name → a sample value) fill.

    A prompt need not use every field, but one it cannot fill (a misspelt
    ``{txt}``, a positional ``{0}``, an unclosed ``{``) would fail at the first
    model call; literal braces are written ``{{`` and ``}}``.

    >>> prompt("Summarize {text} in {budget} tokens", "prompt", {"text": "", "budget": 1})
    'Summarize {text} in {budget} tokens'
    """
    listed = ", ".join("{" + f + "}" for f in fields)
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgumentError(f"{name} must be a non-empty prompt text that may use {listed}, got {_got(value)}")
    try:
        value.format(**fields)
    except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
        raise InvalidArgumentError(
            f"{name} is not a prompt template stmviz can fill ({type(exc).__name__}: {shorten(str(exc), 60)}): "
            f"it may use {listed}; write literal braces as {{{{ and }}}}"
        ) from None
    return value


# ---------------------------------------------------------------- the words the layers above the core share

__all__ += ["instance", "labelled", "nonempty", "probe", "evidence_steps"]


def _a(noun: str) -> str:
    """``noun`` with its indefinite article: "a Trace", "an Element"."""
    return f"{'an' if noun[:1] in 'AEIOUaeiou' else 'a'} {noun}"


def instance(value: object, name: str, kinds: type | tuple[type, ...], *, where: str = "", what: str = "",
             none_ok: bool = False, fix: str = "") -> Any:
    """``value``, if it is an instance of ``kinds`` (a class or a tuple of classes), or None when ``none_ok``.

    ``what`` says what to pass in words (default: the classes' names, "a Trace or
    a State"); ``fix``, appended to the message, says how to make one.

    >>> instance(3, "trace", (list, tuple), where="occupancy_figure", what="a list of Traces",
    ...          fix="; pass what run(mechanism, steps) returns")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: occupancy_figure: trace must be a list of Traces, got int 3; pass what run(mechanism, steps) returns
    """
    if isinstance(value, kinds) or (value is None and none_ok):
        return value
    classes = kinds if isinstance(kinds, tuple) else (kinds,)
    wanted = what or " or ".join(_a(kind.__name__) for kind in classes)
    raise InvalidArgumentError(
        f"{_prefix(where)}{name} must be {wanted}{' or None' if none_ok else ''}, got {_got(value)}{fix}"
    )


def labelled(value: object, name: str, *, where: str = "", what: str = "items", empty_ok: bool = True,
             fix: str = "") -> list[tuple[str | None, Any]]:
    """The items of a list (each labelled None) or of a dict label → item, in order, as (label, item) pairs.

    A label that is not a str is named by :func:`brief` (a hostile ``str`` cannot
    break it). A mapping whose ``items()`` fails, or an iterable that fails while
    it is read, is reported as such; with ``empty_ok=False`` an empty one is refused.

    >>> labelled({"fifo": 1, 2: 3}, "mechanisms"), labelled([1], "mechanisms")
    ([('fifo', 1), ('2', 3)], [(None, 1)])
    """
    found: list[tuple[str | None, Any]]
    if isinstance(value, Mapping):
        try:
            found = [(key if isinstance(key, str) else brief(key), item) for key, item in value.items()]
        except Exception as exc:
            raise InvalidArgumentError(
                f"{_prefix(where)}{name} could not be read: its items() raised {type(exc).__name__}; "
                f"pass a dict that names each of the {what}"
            ) from exc
    elif isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Iterable):
        raise InvalidArgumentError(
            f"{_prefix(where)}{name} must be a list of {what} (or a dict that names each), got {_got(value)}{fix}"
        )
    else:
        found = [(None, item) for item in items(value, name, where=where, what=what)]
    if not found and not empty_ok:
        raise InvalidArgumentError(f"{_prefix(where)}{name} is empty; pass at least one of the {what}")
    return found


def probe(value: object, name: str, trace: Sized, *, where: str = "", texts: Iterable[str] = ("question", "answer"),
          needs: Iterable[str] = ()) -> Any:
    """``value``, if it is a probe asked at a state of the trace: a whole-number t with 0 ≤ t ≤ n = ``len(trace)``.

    A probe is read as :class:`stmviz.scenarios.Probe` is built: a time index
    ``t``, the attributes named in ``texts`` as str, and those in ``needs``
    present. Unlike :func:`time_index`, t does not count from the end: a probe
    asked at t = −1 names no state of the run.

    >>> class Asked:
    ...     t, question, answer = 9, "What is my name?", "Ada"
    >>> probe(Asked(), "probe", [1, 2, 3], where="why_forgotten")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: why_forgotten: probe 'What is my name?' is asked at t = 9, but the trace has states ω_0 … ω_3; run the whole scenario, or drop probes after step 3
    """
    wanted, present = tuple(texts), tuple(needs)
    try:
        t = as_int(getattr(value, "t", None))
        shaped = all(isinstance(getattr(value, field, None), str) for field in wanted) and all(
            hasattr(value, field) for field in present
        )
        question = getattr(value, "question", None)
    except Exception:  # an object whose attributes cannot be read is no probe
        t, shaped, question = None, False, None
    if t is None or not shaped:
        fields = ", ".join(["t: int", *(f"{field}: str" for field in wanted), *present])
        raise InvalidArgumentError(
            f"{_prefix(where)}{name} must be a Probe ({fields}), got {_got(value)}; "
            "pass scenario.probes or Probe(t, question, answer, evidence_step)"
        )
    n = len(trace)
    if not 0 <= t <= n:
        asked = f" {brief(question)}" if isinstance(question, str) else ""
        raise InvalidArgumentError(
            f"{_prefix(where)}{name}{asked} is asked at t = {t}, but the trace has states ω_0 … ω_{n}; "
            f"run the whole scenario, or drop probes after step {n}"
        )
    if "evidence_steps" in present:
        evidence_steps(value, name, where=where)
    return value


def evidence_steps(value: object, name: str, *, where: str = "") -> tuple[int, ...]:
    """The evidence steps S_p of a probe (its ``evidence_steps``, else its one ``evidence_step``), checked.

    As :class:`stmviz.scenarios.Probe` is built: each a whole number in 0 … t−1 (a step before the probe is
    asked). A negative step does not count from the end: −1 would silently read the last step of the run.

    >>> class Asked:
    ...     t, evidence_steps = 3, (0, -1)
    >>> evidence_steps(Asked(), "probe", where="evidence_recall")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: evidence_recall: probe.evidence_steps[1] must be a step before the probe is asked at t = 3 (a whole number 0 … 2), got int -1; a negative step does not count from the end: pass the step's number
    """
    try:
        t = as_int(getattr(value, "t", None))
        listed = getattr(value, "evidence_steps", None)
        if listed is None or (isinstance(listed, (tuple, list)) and not listed and hasattr(value, "evidence_step")):
            single = getattr(value, "evidence_step", None)
            listed = () if single is None else (single,)
    except Exception:  # an object whose attributes cannot be read names no step
        raise InvalidArgumentError(
            f"{_prefix(where)}{name}.evidence_steps cannot be read from {_got(value)}; pass scenario.probes or "
            f"Probe(t, question, answer, evidence_step)"
        ) from None
    given = items(listed, f"{name}.evidence_steps", where=where, what="step numbers")
    out = []
    for k, step in enumerate(given):
        number = as_int(step)
        if t is None or number is None or not 0 <= number < t:
            top = f"0 … {t - 1}" if t is not None and t > 0 else "none: a probe at t = 0 has no step before it"
            raise InvalidArgumentError(
                f"{_prefix(where)}{name}.evidence_steps[{k}] must be a step before the probe is asked at t = {t} "
                f"(a whole number {top}), got {_got(step)}; a negative step does not count from the end: pass the "
                f"step's number"
            )
        out.append(number)
    return tuple(out)


def nonempty(value: object, name: str, *, where: str = "", what: str = "items", fix: str = "") -> list[Any]:
    """The items of an iterable, as :func:`items` reads them, if there is at least one.

    An empty list gives nothing to draw, run or plant; the message says what to pass.

    >>> nonempty([], "v_max", where="sweep", what="capacities V_max", fix="; e.g. v_max=[1024, 4096]")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: sweep: v_max is empty; pass at least one of the capacities V_max; e.g. v_max=[1024, 4096]
    """
    found = items(value, name, where=where, what=what)
    if not found:
        raise InvalidArgumentError(f"{_prefix(where)}{name} is empty; pass at least one of the {what}{fix}")
    return found


def capacity(value: object, name: str = "v_max", *, where: str = "", none_ok: bool = False) -> Any:
    """``value``, if it is a capacity V_max ∈ ℝ⁺: a finite real number > 0 that a float holds (or None when ``none_ok``).

    NaN and ±∞ are no capacity (Σμ(e) ≤ NaN is never true; ∞ bounds nothing), and an int too large for a
    float (``10**400``) would overflow wherever V_max meets a float: each is refused here. The value is
    returned as it was given (an int stays an int).

    >>> capacity(4096), capacity(None, none_ok=True)
    (4096, None)
    >>> capacity(float("nan"), where="generate_dialogue")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: generate_dialogue: v_max must be a finite number > 0, got float nan; a capacity V_max ∈ ℝ⁺ bounds Σμ(e): pass e.g. v_max=4096
    """
    if value is None and none_ok:
        return None
    try:
        real_number(value, name, 0, low_open=True, where=where)
    except InvalidArgumentError:
        raise InvalidArgumentError(
            f"{_prefix(where)}{name} must be a finite number > 0, got {_got(value)}; a capacity V_max ∈ ℝ⁺ bounds "
            "Σμ(e): pass e.g. v_max=4096" + (", or None" if none_ok else "")
        ) from None
    return value


__all__ += ["capacity"]
