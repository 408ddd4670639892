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


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4), max_size=30))
def test_the_last_call_kept_equals_the_call_made_afresh(asked):
    """LastCall: the result kept for the last context equals a fresh computation; it computes once per run of one context."""
    from stmviz._fast.last_call import LastCall

    contexts = [object() for _ in range(5)]  # told apart by identity, as the FIFO window's contexts are
    last, computed = LastCall(), []

    def plain(context):
        return [contexts.index(context), id(context)]

    def counted(context):
        computed.append(context)
        return plain(context)

    for k in asked:
        assert last(contexts[k], counted) == plain(contexts[k])
    assert len(computed) == sum(1 for i, k in enumerate(asked) if i == 0 or asked[i - 1] != k)
