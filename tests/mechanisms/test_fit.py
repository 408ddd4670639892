"""The one cut-to-fit of the mechanisms (stmviz.text.fit): μ(e′) ≤ room, cut the way μ counts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import Element, StateSpace, sizes
from stmviz._fast.memo import Memo
from stmviz.text.fit import ELLIPSIS, fit_text

TEXT = "The quick brown fox jumps over the lazy dog, then naps under an old oak tree until dusk."


@pytest.mark.parametrize("mu", [sizes.chars, sizes.words, sizes.tokens()], ids=["chars", "words", "tokens"])
@settings(max_examples=40, deadline=None)
@given(room=st.integers(min_value=1, max_value=40))
def test_the_cut_fits_and_is_the_longest_that_does(mu, room):
    space = StateSpace(mu, v_max=1000)
    element = Element(TEXT, {"t": 3, "type": "note"})
    cut = fit_text(space, element, room)
    if cut is None:
        assert space.measure(Element(ELLIPSIS, {"t": 3})) > room or mu is sizes.words
        return
    assert space.measure(cut) <= room
    if cut is element:
        assert space.measure(element) <= room
        return
    assert cut.text.endswith(ELLIPSIS) and TEXT.startswith(cut.text[:-1].rstrip())
    assert cut.meta["truncated"] is True and cut.meta["original_size"] == space.measure(element)
    assert cut.meta["type"] == "note" and cut.meta["t"] == 3  # the rest of the metadata is kept


def test_chars_cut_is_maximal():
    space = StateSpace(sizes.chars, v_max=1000)
    cut = fit_text(space, Element(TEXT, {"t": 0}), 20)
    assert cut is not None and space.measure(cut) == 20 and cut.text == TEXT[:19].rstrip() + ELLIPSIS


def test_tokens_cut_uses_mus_encoding():
    space = StateSpace(sizes.tokens("cl100k_base"), v_max=1000)
    cut = fit_text(space, Element(TEXT, {"t": 0}), 6)
    assert cut is not None and space.measure(cut) <= 6
    assert fit_text(space, Element(TEXT, {"t": 0}), 7).text.startswith(cut.text[:-1])


def test_an_element_that_fits_is_returned_and_size_recording_is_optional():
    space = StateSpace(sizes.words, v_max=1000)
    short = Element("two words", {"t": 0})
    assert fit_text(space, short, 5) is short
    cut = fit_text(space, Element(TEXT, {"t": 0}), 4, record_size=False)
    assert cut is not None and "original_size" not in cut.meta and cut.meta["truncated"] is True


def test_memo_is_bounded_and_keeps_identity():
    memo = Memo(maxsize=3)
    calls = []

    def compute(key):
        calls.append(key)
        return key * 2

    assert [memo.lookup(k, compute) for k in (1, 2, 1, 3)] == [2, 4, 2, 6] and calls == [1, 2, 3]
    memo.lookup(4, compute)  # full: starts afresh
    assert len(memo) == 1 and 4 in memo and memo.get(1) is None
