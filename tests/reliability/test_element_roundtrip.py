"""What an element holds, it can save: any Element the constructor accepts survives a trace file (issue 17).

The property: for any content and metadata, ``Element(content, meta)`` either
raises :class:`InvalidArgumentError` at once, or the element comes back from
``to_json`` → JSON text → ``from_json`` equal, with the same id and the same
canonical order key. Metadata is drawn from everything a careless user
passes: NaN and infinities, huge whole numbers, elements, parts and sets
inside metadata, bools next to ints, tuples and lists, lone surrogates, enum
members, deep nesting.
"""

from __future__ import annotations

import enum
import json
import math
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AudioPart, Element, ImagePart, State, StateSpace, Trace, run, sizes
from stmviz.core.element import MAX_NESTING, MAX_SAFE_INT, order_key
from stmviz.core.errors import InvalidArgumentError
from stmviz.io.files import json_text
from stmviz.mechanisms import FIFOWindow


class Colour(enum.IntEnum):
    RED = 1


class Mood(str, enum.Enum):
    CALM = "calm"


# text with lone surrogates, but never a high surrogate right before a low one (JSON reads such a pair
# as the one character it encodes, as Element's docstring says)
_chars = st.characters(codec=None, exclude_categories=()) | st.sampled_from(["\ud83d", "\ude00", "\udfff", "é", "😀"])
texts = st.lists(_chars, max_size=8).map("".join).filter(lambda s: "\ud83d\ude00" not in s and not any(
    "\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff" for a, b in zip(s, s[1:])
))
numbers = (
    st.integers(-(2**60), 2**60)
    | st.sampled_from([0, -0.0, 1.0, True, False, MAX_SAFE_INT, -MAX_SAFE_INT, MAX_SAFE_INT + 1, 10**400])
    | st.builds(pow, st.just(10), st.just(5000))  # built, not listed: hypothesis cannot repr a 5,000-digit int
    | st.floats(allow_nan=True, allow_infinity=True)
)
scalars = numbers | texts | st.none() | st.sampled_from([Colour.RED, Mood.CALM])
others = st.sampled_from([Element("inner"), ImagePart("a.png", 2, 3), AudioPart("b.wav", 1), frozenset({1, 2}), {3}, object()])
values = st.recursive(
    scalars | others,
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=8,
)
keys = st.sampled_from(["t", "type", "role", "step", "range", "x"]) | texts | st.integers(0, 3)
metas = st.dictionaries(keys, values, max_size=4)
contents = texts | st.tuples(texts, st.sampled_from([ImagePart("c.png", 4, 4, "low"), AudioPart("d.wav", 2.5)])) | st.just(["a", "b"])


def _round_trip(element: Element) -> Element:
    """The element through JSON text, as a trace file holds it."""
    return Element.from_json(json.loads(json_text(element.to_json()).encode("utf-8")))


@settings(max_examples=400, deadline=None)
@given(contents, metas)
def test_an_element_is_refused_at_once_or_survives_its_json(content, meta):
    try:
        element = Element(content, meta)
    except InvalidArgumentError:
        return
    again = _round_trip(element)
    assert again == element
    assert again.id == element.id
    assert order_key(again) == order_key(element)
    assert hash(again) == hash(element)


@settings(max_examples=200, deadline=None)
@given(contents, metas)
def test_an_accepted_element_survives_a_whole_trace_file(content, meta):
    try:
        element = Element(content, meta)
    except InvalidArgumentError:
        return
    space = StateSpace(sizes.tokens(overhead=4), 10**6)  # sizes empty texts and image parts too
    trace = run(FIFOWindow(space), ["x"], initial=State([element]))
    again = Trace.from_json(trace.to_json())
    assert again.initial == trace.initial and [e.id for e in again.initial] == [e.id for e in trace.initial]


@pytest.mark.parametrize(
    "meta, where",
    [
        ({"t": float("nan")}, "meta['t']"),
        ({"t": float("inf")}, "meta['t']"),
        ({"t": "3"}, "meta['t']"),
        ({"t": None}, "meta['t']"),
        ({"t": True}, "meta['t']"),
        ({"t": 2**60}, "meta['t']"),
        ({"score": float("nan")}, "meta['score']"),
        ({"v": [1.0, float("-inf")]}, "meta['v'][1]"),
        ({"n": 10**5000}, "meta['n']"),
        ({"n": MAX_SAFE_INT + 1}, "meta['n']"),
        ({"parent": Element("p")}, "meta['parent']"),
        ({"img": ImagePart("a.png", 1, 1)}, "meta['img']"),
        ({"tags": {"a", "b"}}, "meta['tags']"),
        ({"x": {"y": {"z": float("nan")}}}, "meta['x']['y']['z']"),
        ({3: "x"}, "metadata key 3"),
    ],
)
def test_what_is_refused_and_where(meta, where):
    with pytest.raises(InvalidArgumentError) as info:
        Element("e", meta)
    assert where in str(info.value)


def test_nesting_deeper_than_the_limit_is_refused_not_a_recursion_error():
    value: Any = 1
    for _ in range(MAX_NESTING + 1):
        value = [value]
    with pytest.raises(InvalidArgumentError, match="nested more than 64 levels"):
        Element("e", {"deep": value})
    for _ in range(10_000):
        value = {"k": value}
    with pytest.raises(InvalidArgumentError, match="nested more than"):
        Element("e", {"deep": value})


def test_nan_time_no_longer_makes_two_equal_elements_with_one_id():
    """issue 17: meta['t'] = nan gave two 'equal' elements with the same id in one State."""
    with pytest.raises(InvalidArgumentError):
        State([Element("a", {"t": float("nan")}), Element("a", {"t": float("nan")})])


def test_true_and_one_are_one_element_with_one_id_whichever_comes_first():
    a, b = Element("x", {"flag": True}), Element("x", {"flag": 1})
    assert a == b and a.id == b.id and len(State([a, b])) == 1


def test_enum_members_and_str_subclasses_are_stored_as_their_plain_values():
    e = Element(Mood.CALM, {"colour": Colour.RED, "mood": Mood.CALM})
    assert type(e.content) is str and type(e.meta["colour"]) is int and type(e.meta["mood"]) is str
    assert _round_trip(e) == e and _round_trip(e).id == e.id


def test_an_audio_part_of_2_and_2_0_seconds_is_one_part_with_one_id():
    assert Element(AudioPart("a.wav", 2)).id == Element(AudioPart("a.wav", 2.0)).id


def test_the_canonical_order_does_not_depend_on_the_hash_seed():
    script = textwrap.dedent(
        """
        from stmviz import Element, State
        elements = [Element(f"e{k % 7}", {"t": k % 3, "x": [k, {"y": k % 2 == 0}], "s": str(k)}) for k in range(40)]
        print([e.id for e in State(elements).ordered()])
        """
    )
    seen = set()
    for seed in ("0", "1", "12345"):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                             env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout
        seen.add(out)
    assert len(seen) == 1


def test_an_embedding_of_floats_is_checked_quickly_and_exactly():
    vector = tuple(math.sin(k) for k in range(1536))
    e = Element("text", {"embedding": vector})
    assert _round_trip(e) == e
    with pytest.raises(InvalidArgumentError, match=r"meta\['embedding'\]\[700\]"):
        Element("text", {"embedding": vector[:700] + (float("nan"),) + vector[701:]})
