"""Elements e = (i, d) ∈ E = I × D (Definition 1)."""

import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stmviz import AudioPart, Element, ImagePart, Meta
from stmviz.core.element import freeze
from stmviz.errors import InvalidArgumentError, STMError


def test_element_is_content_and_frozen_meta():
    e = Element("The user is allergic to peanuts.", {"priority": "high", "source": "user", "tags": ["a", "b"]})
    assert e.content == "The user is allergic to peanuts."
    assert isinstance(e.meta, Meta)
    assert e.meta["tags"] == ("a", "b")  # lists are frozen into tuples
    with pytest.raises(AttributeError):
        e.content = "changed"  # type: ignore[misc]
    with pytest.raises(TypeError):
        e.meta["priority"] = "low"  # type: ignore[index]


def test_equal_content_and_meta_is_the_same_element():
    a = Element("x", {"t": 1, "nested": {"k": [1, 2]}})
    b = Element("x", {"nested": {"k": (1, 2)}, "t": 1})
    assert a == b and hash(a) == hash(b) and a.id == b.id
    assert len({a, b}) == 1
    assert Element("x", {"t": 2}) != a


def test_meta_is_not_aliased_to_the_callers_dict():
    meta = {"t": 1, "tags": ["x"]}
    e = Element("x", meta)
    meta["t"] = 99
    meta["tags"].append("y")
    assert e.meta["t"] == 1 and e.meta["tags"] == ("x",)


def test_id_is_stable_and_short():
    e = Element("hello", {"t": 0})
    assert len(e.id) == 12
    # a fixed value: the id must not depend on the process (unlike hash())
    assert e.id == Element("hello", {"t": 0}).id
    assert e.id != Element("hello", {"t": 1}).id


def test_multimodal_content():
    img = ImagePart("chart.png", width=1024, height=768)
    e = Element(("Look at this chart:", img), {"source": "user"})
    assert e.content[1] is img
    assert "chart.png" in e.text
    assert Element(AudioPart("clip.wav", 2.5)).text == "[audio clip.wav 2.5s]"


@pytest.mark.parametrize(
    "content",
    [b"bytes", 42, None, 3.5, {"a": 1}, object(), (), ("ok", 5)],
)
def test_unsupported_content_is_refused_clearly(content):
    with pytest.raises(InvalidArgumentError) as info:
        Element(content)
    assert isinstance(info.value, TypeError) and isinstance(info.value, STMError)
    assert "content" in str(info.value)


@pytest.mark.parametrize("meta", [{1: "x"}, {("a",): 1}, {None: 1}])
def test_non_string_metadata_keys_are_refused(meta):
    with pytest.raises(InvalidArgumentError, match="metadata key"):
        Element("x", meta)


def test_unhashable_metadata_values_are_refused():
    with pytest.raises(InvalidArgumentError, match="cannot be frozen"):
        Element("x", {"f": object()})
    with pytest.raises(InvalidArgumentError, match="mapping"):
        Element("x", ["not", "a", "mapping"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [dict(ref="", width=1, height=1), dict(ref="a", width=0, height=1), dict(ref="a", width=1, height=-2),
     dict(ref="a", width=1.5, height=1), dict(ref="a", width=1, height=1, detail="ultra")],
)
def test_bad_image_parts(kwargs):
    with pytest.raises(InvalidArgumentError):
        ImagePart(**kwargs)


def test_with_meta_returns_a_new_element():
    e = Element("x", {"t": 1, "priority": "low"})
    f = e.with_meta(priority="high")
    assert e.meta["priority"] == "low" and f.meta["priority"] == "high" and f.content == "x"


def test_json_and_pickle_round_trip():
    e = Element(("see", ImagePart("a.png", 10, 20, "low"), AudioPart("b.wav", 1.0)), {"t": 3, "x": {"y": [1]}})
    assert Element.from_json(e.to_json()) == e
    assert pickle.loads(pickle.dumps(e)) == e


def test_label_shortens_content():
    e = Element("word " * 100)
    assert len(e.label()) < 60 and e.label().startswith("e#")


def _freeze_by_definition(value):
    """freeze's definition, item by item: lists and tuples become tuples of frozen items."""
    if isinstance(value, (list, tuple)):
        return tuple(_freeze_by_definition(v) for v in value)
    if isinstance(value, dict):
        return Meta({k: _freeze_by_definition(v) for k, v in value.items()})
    return value


_scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5))
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.lists(inner, max_size=4).map(tuple),
                            st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=12,
)


@given(_value)
def test_freezing_a_sequence_of_scalars_takes_no_shortcut_in_meaning(value):
    frozen = freeze(value)
    assert frozen == _freeze_by_definition(value)
    assert type(frozen) is type(_freeze_by_definition(value))
    hash(frozen)


def test_sequences_are_frozen_to_plain_tuples_and_their_bad_items_are_named():
    from collections import namedtuple

    point = namedtuple("point", "x y")(1, 2)
    assert type(freeze(point)) is tuple and freeze(point) == (1, 2)
    assert type(freeze([0.5, 1.5])) is tuple
    embedding = (0.1, -0.2, 0.0)
    assert freeze(embedding) is embedding  # already immutable: kept
    with pytest.raises(InvalidArgumentError, match=r"meta\['v'\]\[2\]"):
        Element("x", {"v": [1.0, 2.0, object()]})


def test_an_element_is_freed_without_the_cyclic_collector():
    import gc

    from stmviz.core.element import order_key

    gc.collect()
    gc.disable()
    try:
        for i in range(50):
            a, b = Element(f"a{i}", {"t": 1}), Element(f"b{i}", {"t": 1})
            assert sorted([b, a], key=order_key) == sorted([a, b], key=lambda e: e.id)  # a tie on t: by id
        del a, b
        assert gc.collect() == 0  # nothing was left in a reference cycle
    finally:
        gc.enable()


def test_the_order_key_is_time_then_id():
    from stmviz.core.element import element_id, order_key

    a, b = Element("same t", {"t": 3}), Element("same t too", {"t": 3})
    assert order_key(a) < order_key(b) or order_key(b) < order_key(a)
    assert order_key(a) == (0, 3, a.id) and a.id == element_id(a)
    assert order_key(Element("no time")) == (1, 0, Element("no time").id)  # elements without t come last
    assert Element("x", {"t": 1}).id == Element("x", {"t": 1.0}).id  # 1 and 1.0: one element, one id
