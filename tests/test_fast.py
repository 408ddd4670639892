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
