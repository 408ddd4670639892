"""The private fast path (stmviz._fast) is held equal to the plain definitions it stands for."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz._fast.memo import Memo
from stmviz.core.sizes import count_tokens


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=30), st.integers(min_value=1, max_value=8))
def test_a_memoized_count_equals_the_count_computed_afresh(texts, maxsize):
    """Memo: a value looked up (kept, forgotten when full, recomputed) equals μ computed without it."""
    memo = Memo(maxsize)
    for text in texts + texts[::-1]:
        assert memo.lookup(text, count_tokens) == count_tokens(text)
    assert len(memo) <= maxsize


# -- stmviz._fast.tokens: μ = tokens without the wait ---------------------------------------------

_PROSE = st.text(alphabet=st.sampled_from(list("abcdefgh ,.\n0123456789é漢🙂")), max_size=300)


@settings(max_examples=60, deadline=None)
@given(st.lists(_PROSE, min_size=1, max_size=8), st.integers(min_value=1, max_value=64))
def test_the_token_counter_counts_and_encodes_as_tiktoken_does(texts, size):
    """TokenCounter (cached, long texts in segments) = tiktoken's encode_ordinary; the segments rejoin the text."""
    from stmviz._fast.tokens import TokenCounter, segments
    from stmviz.core.tokenizer import get_encoding

    encoding = get_encoding("cl100k_base")
    counter = TokenCounter("cl100k_base", encoding)
    text = "".join(texts)
    plain = encoding.encode_ordinary(text)
    assert counter.count(text) == len(plain) == counter.count(text)  # the second count comes from the cache
    assert counter.encode(text) == plain
    pieces = list(segments(text, size=size, reach=len(text) + 1))
    assert "".join(pieces) == text
    assert sum(len(encoding.encode_ordinary(p)) for p in pieces) == len(plain)  # cut only where no token spans


def test_a_long_text_is_counted_in_segments_as_tiktoken_counts_it_whole():
    from stmviz._fast.tokens import SEGMENT, TokenCounter
    from stmviz.core.tokenizer import get_encoding

    encoding = get_encoding("cl100k_base")
    text = " ".join(f"word{i % 97} and, more: {i}\n" for i in range(SEGMENT // 4))
    assert len(text) > 3 * SEGMENT
    counter = TokenCounter("cl100k_base", encoding)
    assert counter.count(text) == len(encoding.encode_ordinary(text))
    assert counter.encode(text) == encoding.encode_ordinary(text)
    assert counter.encode(text, limit=10)[:10] == encoding.encode_ordinary(text)[:10]


# -- stmviz._fast.carry: a state's order and Σμ carried ---------------------------------------------

_POOL = list(range(40))
_KEY = {e: (e * 7919) % 101 for e in _POOL}  # an order that is not the elements' own


@settings(max_examples=200, deadline=None)
@given(st.sets(st.sampled_from(_POOL)), st.sets(st.sampled_from(_POOL)), st.sets(st.sampled_from(_POOL)), st.booleans())
def test_the_carried_order_and_sum_are_the_sorted_order_and_the_plain_sum(omega, old, new, known):
    """carried_order: sorting (ω ∖ leaving) ∪ arriving, or None; carried_sum: Σμ over it (a KeyError if μ is unknown)."""
    import pytest

    from stmviz._fast.carry import carried_order, carried_sum

    omega = frozenset(omega)
    leaving, arriving = (frozenset(old) & omega) - frozenset(new), frozenset(new) - omega
    after = (omega - leaving) | arriving
    ordered = tuple(sorted(omega, key=_KEY.__getitem__)) if known else None
    carried = carried_order(ordered, leaving, arriving, _KEY.__getitem__)
    assert carried is None or carried == tuple(sorted(after, key=_KEY.__getitem__))
    sizes = {e: 1 + e / 3 for e in _POOL}
    assert carried_sum(sum(sizes[e] for e in omega), sizes, leaving, arriving) == pytest.approx(sum(sizes[e] for e in after))
    if arriving:
        with pytest.raises(KeyError):
            carried_sum(0.0, {}, leaving, arriving)


def test_a_window_step_keeps_the_order_without_sorting():
    """The usual step of a window (the oldest leave, newer ones arrive) carries the order: never None."""
    from stmviz._fast.carry import carried_order

    ordered = tuple(range(10))
    assert carried_order(ordered, frozenset({0, 1}), frozenset({10, 11}), int) == tuple(range(2, 12))
    assert carried_order(ordered, frozenset(), frozenset({-1}), int) is None  # a new first element: sort when asked
