"""Junk in every constructor parameter of the mechanisms and their helpers: a clear STMError, never a raw error.

Each case builds one object with one parameter replaced by a junk value of
some type (a str for a number, a bool for a whole number, NaN, ∞, a negative
number, zero, None, a list, a dict, an object, bytes, a 400-digit int). A
value the parameter accepts must build; any other must raise an
:class:`~stmviz.errors.STMError` whose message names the parameter — never a
``TypeError``/``ValueError``/``KeyError``/``OverflowError`` from deep inside,
and never later, at run time.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import pytest

from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, StateSpace, make_mechanism, sizes
from stmviz.errors import STMError
from stmviz.text.subgoal_summary import ObservationSummarizer
from stmviz.text.scm_judges import OverlapJudge, RecallHeuristic
from stmviz.text import (
    ExtractiveSummarizer,
    HashingEmbedder,
    OpenAIEmbedder,
    OpenAIMemoryController,
    OpenAIMemoryJudge,
    OpenAISubgoalSummarizer,
    OpenAISummarizer,
)

NAN, INF = float("nan"), float("inf")


class _Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


JUNK: dict[str, Any] = {
    "str": "3",
    "bool": True,
    "float": 1.5,
    "nan": NAN,
    "inf": INF,
    "negative": -1,
    "zero": 0,
    "none": None,
    "list": [],
    "dict": {},
    "object": _Opaque(),
    "bytes": b"x",
    "huge-int": 10**400,
}


# ------------------------------------------------------------------ what each kind of parameter accepts


def whole(minimum: int, optional: bool = False) -> Callable[[Any], bool]:
    def accepts(v: Any) -> bool:
        if v is None:
            return optional
        return type(v) is int and minimum <= v <= sys.maxsize

    return accepts


def number(low: float, high: float, *, low_open: bool, high_open: bool = False) -> Callable[[Any], bool]:
    def accepts(v: Any) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        try:
            v = float(v)
        except OverflowError:
            return False
        if not math.isfinite(v):
            return False
        above = v > low if low_open else v >= low
        below = v < high if high_open else v <= high
        return above and below

    return accepts


def callable_or_none(v: Any) -> bool:
    return v is None or callable(v)


def one_of(*valid: Any) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, str) and v in valid


def text(v: Any) -> bool:
    return isinstance(v, str) and bool(v.strip())


def text_or_none(v: Any) -> bool:
    return v is None or text(v)


def flag(v: Any) -> bool:
    return isinstance(v, bool)


def nothing(v: Any) -> bool:
    return False


# ------------------------------------------------------------------ the constructors and their parameters


def _space() -> StateSpace:
    return StateSpace(sizes.tokens(), v_max=4096)


class _Client:
    """An OpenAI-compatible client that is never called here."""

    chat = object()
    embeddings = object()


def _summarize(texts: Any, budget: int) -> str:
    return "s"


def _update(m: Any, state: Any, op: Any, context: Any) -> Any:
    return state


#: (constructor name, build(**override), {parameter: accepts(value)})
CONSTRUCTORS: list[tuple[str, Callable[..., Any], dict[str, Callable[[Any], bool]]]] = [
    (
        "FIFOWindow",
        lambda **kw: FIFOWindow(**{"space": _space(), **kw}),
        {
            "space": nothing,
            "system": text_or_none,
            "pinned": lambda v: v == [] or v == "3",
            "keep_tool_pairs": flag,
            "oversize": one_of("error", "skip", "truncate"),
        },
    ),
    (
        "SCM",
        lambda **kw: SCM(**{"space": _space(), **kw}),
        {
            "space": nothing,
            "k": whole(0),
            "flash_size": whole(1),
            "variant": one_of("released", "paper"),
            "ranking": lambda v: v is None or one_of("relevance", "recency+relevance")(v),
            "recency_weight": number(0, sys.float_info.max, low_open=False),
            "relevance_weight": number(0, sys.float_info.max, low_open=False),
            "flash_threshold": whole(1),
            "summary_budget": whole(1),
            "summary_threshold": whole(0, optional=True),
            "summarize": callable_or_none,
            "embed": callable_or_none,
            "recency_decay": number(0, 1, low_open=True),
            "needs_memory": callable_or_none,
            "judge": callable_or_none,
        },
    ),
    (
        "HiAgent",
        lambda **kw: HiAgent(**{"space": _space(), **kw}),
        {
            "space": nothing,
            "summary_budget": whole(1),
            "summarize": callable_or_none,
            "summarize_subgoal": callable_or_none,
            "keep_pairs": whole(1, optional=True),
            "subgoal_every": whole(1, optional=True),
        },
    ),
    (
        "AgentFold",
        lambda **kw: AgentFold(**{"space": _space(), **kw}),
        {
            "space": nothing,
            "block_budget": whole(1),
            "summarize": callable_or_none,
            "controller_rule": one_of("lsm", "share", "count", "condense"),
            "share": number(0, 1, low_open=True),
            "max_blocks": whole(2),
        },
    ),
    (
        "RecallHeuristic",
        RecallHeuristic,
        {
            "cues": lambda v: v == [],
            "min_shared": whole(1),
            "min_fraction": number(0, 1, low_open=False),
            "max_shared": lambda v: whole(2)(v),  # ≥ min_shared = 2
        },
    ),
    ("ObservationSummarizer", ObservationSummarizer, {"summarize": callable_or_none}),
    ("ExtractiveSummarizer", ExtractiveSummarizer, {"encoding": nothing}),  # "3" names no encoding
    ("HashingEmbedder", HashingEmbedder, {"dimensions": whole(2), "digits": lambda v: v is None or (whole(0)(v) and v <= 17)}),
    (
        "OpenAISummarizer",
        lambda **kw: OpenAISummarizer(**{"client": _Client(), "model": "m", **kw}),
        {"client": nothing, "model": text, "prompt": text, "encoding": nothing},
    ),
    (
        "OpenAIEmbedder",
        lambda **kw: OpenAIEmbedder(**{"client": _Client(), "model": "m", **kw}),
        {"client": nothing, "model": text},
    ),
    (
        "OpenAIMemoryController",
        lambda **kw: OpenAIMemoryController(**{"client": _Client(), "model": "m", **kw}),
        {"client": nothing, "model": text, "prompt": text},
    ),
    (
        "OpenAIMemoryJudge",
        lambda **kw: OpenAIMemoryJudge(**{"client": _Client(), "model": "m", **kw}),
        {"client": nothing, "model": text, "prompt": text},
    ),
    (
        "OpenAISubgoalSummarizer",
        lambda **kw: OpenAISubgoalSummarizer(**{"client": _Client(), "model": "m", **kw}),
        {"client": nothing, "model": text, "prompt": text, "encoding": nothing},
    ),
    (
        "make_mechanism",
        lambda **kw: make_mechanism(**{"space": _space(), "operations": {"add": "add"}, "update": _update, **kw}),
        {
            "space": nothing,
            "operations": nothing,  # "3" is no operation name (names start with a letter)
            "update": nothing,
            "project": callable_or_none,
            "controller": callable_or_none,
            "initial": callable_or_none,
            "name": text,
        },
    ),
]

CASES = [
    pytest.param(build, parameter, value, accepts(value), id=f"{name}-{parameter}-{kind}")
    for name, build, parameters in CONSTRUCTORS
    for parameter, accepts in parameters.items()
    for kind, value in JUNK.items()
]


@pytest.mark.parametrize(("build", "parameter", "value", "valid"), CASES)
def test_junk_in_a_constructor_parameter(build, parameter, value, valid):
    if valid:
        build(**{parameter: value})
        return
    with pytest.raises(STMError) as caught:
        build(**{parameter: value})
    assert parameter in str(caught.value), f"the message does not name {parameter!r}: {caught.value}"


# ------------------------------------------------------------------ values of the right type that are still wrong


@pytest.mark.parametrize(
    ("build", "parameter", "value", "says"),
    [
        (lambda **kw: SCM(_space(), **kw), "ranking", "recency", "'recency+relevance'"),
        (lambda **kw: AgentFold(_space(), **kw), "controller_rule", "LSM", "'condense'"),
        (lambda **kw: AgentFold(_space(), **kw), "controller_rule", ["lsm"], "'share'"),
        (lambda **kw: FIFOWindow(_space(), **kw), "oversize", "cut", "'truncate'"),
        (lambda **kw: SCM(_space(), **kw), "recency_weight", 10**400, "finite"),
        (lambda **kw: SCM(_space(), **kw), "k", 2**70, "≤"),
        (lambda **kw: HashingEmbedder(**kw), "digits", 99, "≤"),
        (lambda **kw: RecallHeuristic(**kw), "cues", ["recall", ""], "non-empty"),
        (lambda **kw: RecallHeuristic(**kw), "cues", ("recall", 3), "non-empty"),
        (lambda **kw: RecallHeuristic(**kw), "max_shared", 1, "min_shared"),
        (lambda **kw: ExtractiveSummarizer(**kw), "encoding", "no_such_encoding", "cl100k_base"),
        (lambda **kw: OpenAISummarizer(_Client(), "m", **kw), "prompt", "Summarize {txt}", "{budget}"),
        (lambda **kw: OpenAISummarizer(_Client(), "m", **kw), "prompt", "Summarize {", "{budget}"),
        (lambda **kw: OpenAIMemoryJudge(_Client(), "m", **kw), "prompt", "{content} {nope}", "{message}"),
        (lambda **kw: OpenAISubgoalSummarizer(_Client(), "m", **kw), "prompt", "{0}", "{trajectory}"),
        (lambda **kw: make_mechanism(_space(), update=_update, **kw), "operations", "add", "a list"),
        (lambda **kw: make_mechanism(_space(), update=_update, **kw), "operations", [], "at least one"),
        (lambda **kw: make_mechanism(_space(), operations=["add"], update=_update, **kw), "name", "", "name"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_wrong_value_is_named_with_the_fix(build, parameter, value, says):
    with pytest.raises(STMError) as caught:
        build(**{parameter: value})
    message = str(caught.value)
    assert parameter in message and says in message, message


def test_a_valid_choice_still_builds():
    """The checks refuse junk only: every documented value builds."""
    for ranking in ("relevance", "recency+relevance"):
        SCM(_space(), ranking=ranking)
    for rule in ("lsm", "share", "count", "condense"):
        AgentFold(_space(), controller_rule=rule)
    OpenAISummarizer(_Client(), "m", prompt="Summarize in {budget} tokens: {text}")
    OpenAIMemoryController(_Client(), "m", prompt="{message} ({count} earlier)")
    RecallHeuristic(("remember", "last time"), min_shared=1, min_fraction=0.0, max_shared=1)
    HashingEmbedder(8, digits=0)
    ObservationSummarizer(_summarize)
    OverlapJudge()
    make_mechanism(_space(), operations=["add"], update=_update, project=None, name="x")


# ------------------------------------------------------------------ the text helpers' call arguments

from stmviz.core.sizes import count_tokens, encode_tokens  # noqa: E402
from stmviz.text import embed, summarize, truncate_to_tokens  # noqa: E402

_TEXT_CALLS = {
    "embed": lambda v: embed(v),
    "HashingEmbedder()": lambda v: HashingEmbedder(8)(v),
    "summarize-texts": lambda v: summarize(v, 20),
    "summarize-items": lambda v: summarize(["a text.", v], 20),
    "summarize-budget": lambda v: summarize("A text. Another one.", v),
    "truncate_to_tokens-text": lambda v: truncate_to_tokens(v, 3),
    "truncate_to_tokens-budget": lambda v: truncate_to_tokens("one two three four five", v),
    "count_tokens": lambda v: count_tokens(v),
    "encode_tokens": lambda v: encode_tokens(v),
}
#: the junk each call accepts: a str is a text, a whole number a budget, an empty list no texts
_ACCEPTED = {
    "summarize-texts": {"str", "list"},
    "summarize-items": {"str"},
    "summarize-budget": {"huge-int"},  # a budget larger than any text: the text is returned whole
    "truncate_to_tokens-budget": {"zero", "negative", "huge-int"},
}


@pytest.mark.parametrize(
    ("call", "kind"),
    [(call, kind) for call in _TEXT_CALLS for kind in JUNK],
    ids=[f"{call}-{kind}" for call in _TEXT_CALLS for kind in JUNK],
)
def test_junk_in_a_text_helper_call(call, kind):
    value = JUNK[kind]
    accepted = _ACCEPTED.get(call, {"str"} if not call.endswith("budget") else set())
    if kind in accepted:
        _TEXT_CALLS[call](value)
        return
    with pytest.raises(STMError):
        _TEXT_CALLS[call](value)
