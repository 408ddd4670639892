"""Elements e = (i, d) ∈ E = I × D (Definition 1)."""

import pickle

import pytest

from stmviz import AudioPart, Element, ImagePart, Meta
from stmviz.errors import InvalidElementError, STMError


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
    with pytest.raises(InvalidElementError) as info:
        Element(content)
    assert isinstance(info.value, TypeError) and isinstance(info.value, STMError)
    assert "content" in str(info.value)


@pytest.mark.parametrize("meta", [{1: "x"}, {("a",): 1}, {None: 1}])
def test_non_string_metadata_keys_are_refused(meta):
    with pytest.raises(InvalidElementError, match="metadata key"):
        Element("x", meta)


def test_unhashable_metadata_values_are_refused():
    with pytest.raises(InvalidElementError, match="cannot be frozen"):
        Element("x", {"f": object()})
    with pytest.raises(InvalidElementError, match="mapping"):
        Element("x", ["not", "a", "mapping"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs",
    [dict(ref="", width=1, height=1), dict(ref="a", width=0, height=1), dict(ref="a", width=1, height=-2),
     dict(ref="a", width=1.5, height=1), dict(ref="a", width=1, height=1, detail="ultra")],
)
def test_bad_image_parts(kwargs):
    with pytest.raises(InvalidElementError):
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
