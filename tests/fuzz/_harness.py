"""The fuzz harness: junk values, one guarded call, and the verdict of each call (not a test module).

Every fuzz test describes an entry point as an :class:`Entry`: the function, a
factory of valid arguments for each parameter, and which parameters to fuzz.
Hypothesis draws one parameter (sometimes all of them) and replaces its valid
value with junk from :func:`junk`; :func:`check_call` runs the call in a
thread and gives one of five verdicts:

``returned``
    the call returned;
``STMError``
    it raised a subclass of :class:`stmviz.errors.STMError` (what bad input must do);
``other``
    it raised any other exception (a failure);
``hang``
    it did not finish within :data:`HANG_SECONDS` (a failure);
``mutated``
    it returned or raised, but changed an argument it was given (a failure);
``user error``
    it raised, unchanged, an exception of a type the case's own callable raises (``Entry.own_errors``: a
    factory, a client or an executor the user passed): the user's error reaches the user (not a failure).

With the environment variable ``STMVIZ_FUZZ_RECORD`` set to a file, every verdict
is appended there as one JSON line and no test fails:
``tests/fuzz/count_cases.py`` runs the suite that way and tabulates the cases
and verdicts by entry point.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from stmviz import Element, State, StateSpace, sizes
from stmviz.errors import STMError

try:  # numpy is a dependency of stmviz, but the harness does not need it
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

#: A call that runs longer than this is a hang (generous: the CI machine is loaded).
HANG_SECONDS = float(os.environ.get("STMVIZ_FUZZ_HANG_SECONDS", "20"))

RECORD = os.environ.get("STMVIZ_FUZZ_RECORD")


# ---------------------------------------------------------------------------------------------
# hostile objects: each breaks one protocol Python code tends to use without asking


class HostileError(Exception):
    """What the hostile objects raise: never an STMError, so a leak of it is a failure."""


def _boom(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise HostileError(f"hostile {type(self).__name__}")


class BadStr:
    """str() raises (repr works)."""

    __str__ = _boom
    __format__ = _boom


class BadRepr:
    """repr() and str() raise."""

    __repr__ = _boom
    __str__ = _boom


class BadEq:
    """== raises (hash works)."""

    __eq__ = _boom
    __ne__ = _boom
    __hash__ = object.__hash__


class BadHash:
    """hash() raises."""

    __hash__ = _boom  # type: ignore[assignment]


class BadLen:
    """len() raises; iteration works."""

    __len__ = _boom

    def __iter__(self) -> Any:
        return iter(["a", "b"])


class BadIter:
    """len() works; iteration raises."""

    def __len__(self) -> int:
        return 2

    __iter__ = _boom
    __getitem__ = _boom


class BadBool:
    """bool() raises."""

    __bool__ = _boom


class BadEverything:
    """Every protocol raises, even getattr of a missing attribute."""

    __str__ = __repr__ = __format__ = _boom
    __eq__ = __ne__ = __lt__ = __gt__ = __le__ = __ge__ = _boom
    __hash__ = _boom  # type: ignore[assignment]
    __len__ = __iter__ = __getitem__ = __contains__ = __bool__ = _boom
    __int__ = __float__ = __index__ = _boom
    __call__ = _boom

    def __getattr__(self, name: str) -> Any:
        raise HostileError(f"hostile getattr {name}")


class BadMapping(Mapping):
    """A Mapping whose every method raises."""

    __getitem__ = __iter__ = __len__ = _boom  # type: ignore[assignment]


HOSTILE_TYPES = (BadStr, BadRepr, BadEq, BadHash, BadLen, BadIter, BadBool, BadEverything, BadMapping)


def _cyclic_list() -> list:
    value: list = ["a"]
    value.append(value)
    return value


def _cyclic_dict() -> dict:
    value: dict = {"a": 1}
    value["self"] = value
    return value


def _deep_list(depth: int = 300) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def _deep_dict(depth: int = 300) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"k": value}
    return value


def _generator() -> Any:
    return (w for w in ["hello", "world"])


#: Strings that break naive code: control characters, lone surrogates (half an emoji), RTL,
#: combining marks, NUL, line separators, HTML, format specs, path-like text, a number as text.
ODD_STRINGS = (
    "",
    " ",
    "\x00",
    "cut \ud83d",
    "\udc00\ud800",
    "\u202eevil\u202c",
    "e\u0301\u0301\u0301",
    "\u200b\ufeff",
    "a\u2028b\u2029c",
    "<script>alert(1)</script>",
    "{0} {t!r} %s %(x)s",
    "../../etc/passwd",
    "NaN",
    "-1",
    "1e309",
    "🙂" * 50,
    "\r\n\t",
)


def _fixed_junk() -> list[Callable[[], Any]]:
    """Factories of junk values (a fresh value per call, so a mutated one cannot leak into later cases)."""
    values: list[Callable[[], Any]] = [
        lambda: None,
        lambda: True,
        lambda: False,
        lambda: 0,
        lambda: -1,
        lambda: -(10**6),
        lambda: 2**63,
        lambda: 10**400,
        lambda: 1.5,
        lambda: -0.0,
        lambda: math.nan,
        lambda: math.inf,
        lambda: -math.inf,
        lambda: 1e308,
        lambda: complex(1, 2),
        lambda: Decimal("NaN"),
        lambda: Fraction(1, 3),
        lambda: b"\xff\xfe bytes",
        lambda: bytearray(b"abc"),
        lambda: [],
        lambda: {},
        lambda: (),
        lambda: set(),
        lambda: frozenset({1}),
        lambda: [None],
        lambda: ["a", 1, None],
        lambda: {"a": None, 1: [2]},
        lambda: {("tuple", "key"): 1},
        lambda: {"role": "user", "content": None},
        lambda: [{"role": 1, "content": []}],
        _cyclic_list,
        _cyclic_dict,
        _deep_list,
        _deep_dict,
        _generator,
        lambda: iter([1, 2]),
        lambda: object(),
        lambda: object,  # a class
        lambda: print,  # a builtin callable
        lambda: (lambda *a, **k: None),
        lambda: (lambda *a, **k: 1 / 0),  # a callable that raises
        lambda: Element("junk element", {"t": 0}),
        lambda: State([Element("junk state")]),
        lambda: StateSpace(sizes.chars, 5),
        lambda: Path("."),
        lambda: "x" * 5000,
        lambda: " ".join(["word"] * 2000),
    ]
    values += [lambda s=s: s for s in ODD_STRINGS]
    values += [lambda cls=cls: cls() for cls in HOSTILE_TYPES]
    if np is not None:
        values += [
            lambda: np.array([1, 2, 3]),
            lambda: np.array([]),
            lambda: np.array([["a", "b"]]),
            lambda: np.float64("nan"),
            lambda: np.int64(3),
            lambda: np.bool_(True),
            lambda: np.array([np.nan, np.inf]),
        ]
    return values


FIXED_JUNK = _fixed_junk()

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40),
    st.binary(max_size=20),
)


def junk() -> st.SearchStrategy[Any]:
    """Junk of every type: the fixed hostile values above, or random scalars, lists and dicts of them."""
    fixed = st.sampled_from(range(len(FIXED_JUNK))).map(lambda i: FIXED_JUNK[i]())
    nested = st.recursive(
        _scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.one_of(st.text(max_size=8), st.integers()), inner, max_size=4),
            st.tuples(inner, inner),
        ),
        max_leaves=8,
    )
    return st.one_of(fixed, fixed, nested)


# ---------------------------------------------------------------------------------------------
# the entry points and one guarded call


@dataclass
class Entry:
    """A public entry point: ``call(**arguments)`` with a valid value for every argument.

    ``valid`` maps each argument name to a factory of a valid value; ``fuzz``
    names the arguments that get junk (default: all of them).
    """

    name: str
    call: Callable[..., Any]
    valid: Mapping[str, Callable[[], Any]]
    fuzz: tuple[str, ...] | None = None
    max_examples: int = 30
    #: per argument, a predicate junk must pass (e.g. a path that stays inside the sandbox folder)
    only: Mapping[str, Callable[[Any], bool]] = field(default_factory=dict)
    #: the valid arguments themselves raise an STMError (e.g. a figure of a step of a trace with no steps)
    valid_raises: bool = False
    #: regression cases tried before the random ones: each maps some arguments to junk (the rest stay valid)
    cases: tuple[Mapping[str, Callable[[], Any]], ...] = ()
    #: exception types the cases' own callables (a user's factory, client or executor) raise: passed on unchanged
    own_errors: tuple[type[BaseException], ...] = ()

    @property
    def slots(self) -> tuple[str, ...]:
        return self.fuzz if self.fuzz is not None else tuple(self.valid)


def arguments(entry: Entry) -> st.SearchStrategy[dict[str, Any]]:
    """Valid arguments with one of them (one case in five: every fuzzed one) replaced by junk."""

    @st.composite
    def draw_arguments(draw: Any) -> dict[str, Any]:
        kwargs = {name: make() for name, make in entry.valid.items()}
        slots = entry.slots
        every = len(slots) > 1 and draw(st.integers(0, 4)) == 0
        chosen = slots if every else (draw(st.sampled_from(slots)),)
        for name in chosen:
            strategy = junk()
            if name in entry.only:
                strategy = strategy.filter(entry.only[name])
            kwargs[name] = draw(strategy)
        return kwargs

    return draw_arguments()


def inside(folder: Path) -> Callable[[Any], bool]:
    """A filter for junk paths: no str, bytes or path that would point outside ``folder`` (the suite may run as root)."""

    def ok(value: Any) -> bool:
        if isinstance(value, bytes):
            value = value.decode("utf-8", "surrogateescape")
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if isinstance(value, bytes):
            value = value.decode("utf-8", "surrogateescape")
        if not isinstance(value, str):
            return True
        if value.startswith(("/", "~", "\\")):
            return False
        resolved = os.path.normpath(os.path.join(str(folder), value))
        return resolved == str(folder) or resolved.startswith(str(folder) + os.sep)

    return ok


def fingerprint(value: Any, _seen: frozenset[int] = frozenset()) -> Any:
    """A comparable picture of a value's contents, without calling any of its own methods.

    Containers are walked; floats compare by repr (so NaN equals NaN); a Trace by
    its JSON; any other object by identity (it may be hostile, its == cannot be trusted).
    """
    from stmviz import Trace

    if id(value) in _seen:
        return ("cycle",)
    seen = _seen | {id(value)}
    kind = type(value)
    if value is None or kind in (bool, int, str, bytes, complex):
        return (kind.__name__, value)
    if kind is float:
        return ("float", repr(value))
    if kind is bytearray:
        return ("bytearray", bytes(value))
    if kind in (list, tuple):
        return (kind.__name__, tuple(fingerprint(v, seen) for v in value))
    if kind is dict:
        return ("dict", tuple((fingerprint(k, seen), fingerprint(v, seen)) for k, v in value.items()))
    if kind in (set, frozenset):
        return (kind.__name__, tuple(sorted(repr(fingerprint(v, seen)) for v in value)))
    if np is not None and kind is np.ndarray:
        return ("ndarray", str(value.dtype), value.shape, value.tobytes())
    if kind is Trace:
        return ("trace", len(value), value.to_json())
    return ("object", id(value))


@dataclass
class Verdict:
    kind: str  # returned | STMError | user error | other | hang | mutated
    detail: str = ""
    arguments: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.kind in ("returned", "STMError", "user error")


def _describe(value: Any) -> str:
    try:
        text = repr(value)
    except BaseException:
        text = f"<{type(value).__name__} whose repr raises>"
    return text if len(text) <= 120 else text[:117] + "..."


def check_call(entry: Entry, kwargs: dict[str, Any], record: bool = True) -> Verdict:
    """Run ``entry.call(**kwargs)`` in a thread; the verdict says how it ended."""
    before = {name: fingerprint(value) for name, value in kwargs.items()}
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["result"] = entry.call(**kwargs)
        except BaseException as exc:  # noqa: BLE001 - the verdict classifies it
            outcome["error"] = exc

    thread = threading.Thread(target=target, name=f"fuzz {entry.name}", daemon=True)
    thread.start()
    thread.join(HANG_SECONDS)
    shown = {name: _describe(value) for name, value in kwargs.items() if name in entry.slots}
    if thread.is_alive():
        verdict = Verdict("hang", f"still running after {HANG_SECONDS:g} s", shown)
    else:
        error = outcome.get("error")
        if error is None:
            verdict = Verdict("returned", "", shown)
        elif isinstance(error, STMError):
            verdict = Verdict("STMError", f"{type(error).__name__}: {str(error)[:200]}", shown)
        elif entry.own_errors and isinstance(error, entry.own_errors):
            verdict = Verdict("user error", f"{type(error).__name__}: {_describe(str(error))}", shown)
        else:
            verdict = Verdict("other", f"{type(error).__module__}.{type(error).__name__}: {_describe(str(error))}", shown)
        if verdict.ok:
            changed = [name for name, value in kwargs.items() if fingerprint(value) != before[name]]
            if changed:
                verdict = Verdict("mutated", f"changed argument(s) {changed} ({verdict.kind})", shown)
    if RECORD and record:
        with open(RECORD, "a", encoding="utf-8") as f:
            f.write(json.dumps({"entry": entry.name, "verdict": verdict.kind, "detail": verdict.detail,
                                "arguments": verdict.arguments}, ensure_ascii=True) + "\n")
    return verdict


def assert_ok(entry: Entry, kwargs: dict[str, Any]) -> None:
    """The fuzz property: the call returns or raises an STMError, in time, leaving its arguments as they were."""
    verdict = check_call(entry, kwargs)
    if RECORD:
        return
    assert verdict.ok, f"{entry.name}: {verdict.kind}: {verdict.detail}\n  arguments: {verdict.arguments}"
