"""The examples that stood in the docstrings of core/element.py and core/sizes.py (issue 24 moved them here).

Each check is the doctest it replaces, as a plain assert, so that no example's check is lost
when the paper's modules keep only short docstrings.
"""

from stmviz.core.element import Element, ImagePart, Meta, element_id, order_key
from stmviz.core.sizes import (
    available_encodings,
    chars,
    count_tokens,
    encode_tokens,
    get_encoding,
    image_tokens,
    part_tokens,
    words,
)


# -- core/element.py ------------------------------------------------------------------------------


def test_meta_is_a_hashable_mapping_of_components():
    d = Meta({"priority": "high", "source": "user"})
    assert d["priority"] == "high"
    assert hash(d) == hash(Meta({"source": "user", "priority": "high"}))


def test_image_part_repr():
    assert repr(ImagePart("chart.png", width=1024, height=768)) == (
        "ImagePart(ref='chart.png', width=1024, height=768, detail='auto')"
    )


def test_element_is_a_pair_with_set_semantics():
    e = Element("The user is allergic to peanuts.", {"t": 3, "priority": "high", "source": "user"})
    assert e.meta["priority"] == "high"
    assert e == Element("The user is allergic to peanuts.", {"source": "user", "t": 3, "priority": "high"})
    assert len({e, e}) == 1


def test_element_id_is_stable_and_equal_for_equal_elements():
    assert Element("hello", {"t": 1}).id == Element("hello", {"t": 1.0}).id
    assert element_id(Element("hello")) == "9ca5afd6eb03"


def test_order_key_orders_by_time_then_id():
    a, b, c = Element("a", {"t": 2}), Element("b", {"t": 1}), Element("c")
    assert [e.text for e in sorted([a, b, c], key=order_key)] == ["b", "a", "c"]


# -- core/sizes.py ----------------------------------------------------------------------------------

def test_cl100k_base_loads_offline():
    assert "cl100k_base" in available_encodings()
    assert get_encoding("gpt-4").encode("hello world") == [15339, 1917]


def test_image_tokens_by_the_tile_formula():
    assert image_tokens(1024, 1024) == 765
    assert image_tokens(2048, 4096) == 1105
    assert image_tokens(4096, 8192, detail="low") == 85


def test_count_and_encode_tokens():
    assert count_tokens("hello world") == 2
    assert encode_tokens("hello world") == [15339, 1917]


def test_part_tokens_of_text_and_image():
    assert (part_tokens("hello world", count_tokens), part_tokens(ImagePart("cat.png", 512, 512), count_tokens)) == (2, 255)


def test_chars_and_words():
    assert chars(Element("hello")) == 5
    assert words(Element("hello big world")) == 3
