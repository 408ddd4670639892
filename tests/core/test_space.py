"""The state space Ω_STM and states ω (Definition 1)."""

import math
import pickle

import pytest

from stmviz import Element, State, StateSpace, sizes
from stmviz.errors import CapacityError, InvalidArgumentError, STMError


def els(*texts):
    return [Element(t, {"t": i}) for i, t in enumerate(texts)]


def test_empty_state():
    assert len(State()) == 0 and not State() and State() == set()
    assert State() in StateSpace(sizes.words, 1)


def test_state_is_a_set_with_canonical_order():
    a, b, c = els("a", "b", "c")
    assert State([c, a, b]) == State([a, b, c]) == {a, b, c}
    assert [e.text for e in State([c, b, a])] == ["a", "b", "c"]
    assert len(State([a, a, b])) == 2
    no_t = Element("zzz")
    assert list(State([no_t, a]))[-1] is no_t  # elements without t come last


def test_state_is_immutable_and_operations_return_new_states():
    a, b = els("a", "b")
    s = State([a])
    s2 = s | {b}
    assert s == {a} and s2 == {a, b}
    assert s2 - {a} == {b}
    assert s2 - {a} == {b} and s | {b} == s2
    with pytest.warns(DeprecationWarning, match=r"use state - \{e\}"):
        assert s2.remove(a) == {b}
    with pytest.warns(DeprecationWarning, match=r"use state \| \{e\}"):
        assert s.add(b) == s2
    assert s2.replace([a], [Element("c", {"t": 9})]) == {b, Element("c", {"t": 9})}
    with pytest.raises(AttributeError):
        s.x = 1  # type: ignore[attr-defined]


def test_state_hash_and_pickle():
    a, b = els("a", "b")
    assert hash(State([a, b])) == hash(State([b, a]))
    assert pickle.loads(pickle.dumps(State([a, b]))) == State([a, b])


@pytest.mark.parametrize("bad", ["text", Element("x"), [1, 2], [Element("x"), "y"], 5])
def test_bad_states(bad):
    with pytest.raises(InvalidArgumentError):
        State(bad)


def test_size_free_contains_check():
    space = StateSpace(sizes.words, v_max=5)
    s = State(els("one two three", "four five"))
    assert space.size(s) == 5 and space.free(s) == 0
    assert s in space
    with pytest.warns(DeprecationWarning, match="ω in space"):
        assert space.contains(s)
    big = s | {Element("six", {"t": 9})}
    assert big not in space
    with pytest.raises(CapacityError) as info:
        space.check(big)
    msg = str(info.value)
    assert "Σμ = 6 > V_max = 5" in msg and "over by 1" in msg and "evict" in msg


def test_contains_never_raises():
    space = StateSpace(lambda e: -1, v_max=5)
    assert State(els("x")) not in space
    assert "not a state" not in space
    assert [1, 2, 3] not in space
    assert {Element("a b")} in StateSpace(sizes.words, 5)


@pytest.mark.parametrize("v_max", [0, -1, math.nan, math.inf, -math.inf, "100", None, True, [4096]])
def test_bad_v_max(v_max):
    with pytest.raises(InvalidArgumentError) as info:
        StateSpace(sizes.words, v_max)
    assert "V_max" in str(info.value) and isinstance(info.value, STMError)


def test_an_element_that_alone_exceeds_v_max():
    space = StateSpace(sizes.words, 3)
    e = Element("one two three four")
    assert not space.fits(e)
    with pytest.raises(CapacityError, match="alone has μ = 4 > V_max = 3"):
        space.check_element(e)


def test_size_names_and_repr():
    assert "words" in repr(StateSpace("words", 10))
    assert StateSpace("tokens", 10).counts_tokens
    assert not StateSpace("chars", 10).counts_tokens
    with pytest.raises(STMError, match="unknown size function"):
        StateSpace("bytes", 10)


def test_where_and_by_id():
    a = Element("a", {"t": 1, "type": "block"})
    b = Element("b", {"t": 2, "type": "latest"})
    s = State([a, b])
    assert s.where(type="block") == (a,)
    assert s.by_id(b.id[:6]) == b
    with pytest.raises(KeyError):
        s.by_id("zzzz")


def test_size_of_a_one_shot_iterator_counts_every_element():
    """Σμ over an iterator whose later element μ has not measured yet: the fast sum used to consume it, leaving the plain sum too little."""
    space = StateSpace(sizes.chars, v_max=100)
    first, second = Element("abc"), Element("defgh")
    space.measure(first)
    assert space.size(iter([first, second])) == 8
    assert space.size(e for e in [second, first]) == 8
