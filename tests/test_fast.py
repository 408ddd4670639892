"""The private fast path (stmviz._fast) is held equal to the plain definitions it stands for."""

from __future__ import annotations

import random

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


# -- views of ω (stmviz._fast.views): HiAgent and AgentFold read ω through them ------------------------------

from stmviz import Element, State  # noqa: E402
from stmviz._fast.lines import Tally  # noqa: E402
from stmviz._fast.ranking import StreamMatrix  # noqa: E402
from stmviz._fast.views import SubgoalView, View, ViewIndex  # noqa: E402
from stmviz.text import cosine  # noqa: E402

_KINDS = ("task", "subgoal", "summary", "pair", "retrieved", "block", "latest")


@st.composite
def _element(draw):
    kind = draw(st.sampled_from(_KINDS))
    meta = {"t": draw(st.sampled_from([-1, 0, 0.1, 0.5, 1, 1.2, 2, 3, 3.5, 4, 7, 9])), "type": kind}
    if kind in ("subgoal", "summary", "pair", "retrieved"):
        meta["subgoal"] = draw(st.integers(1, 6))
    if kind == "subgoal":
        meta["current"] = draw(st.booleans())
    return Element(draw(st.sampled_from(["a", "b", "key", "door", "the mat"])), meta)


@st.composite
def _states(draw):
    """A sequence of states, each a few elements away from the one before (as from step to step), now and then far away."""
    state = State(draw(st.lists(_element(), max_size=8)))
    states = [state]
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.integers(0, 9)) == 0:
            state = State(draw(st.lists(_element(), max_size=12)))  # a jump: the view is built afresh
        else:
            ordered = state.ordered()
            gone = draw(st.lists(st.sampled_from(ordered), max_size=3, unique=True)) if ordered else []
            state = (state - gone) | draw(st.lists(_element(), max_size=3))
        states.append(state)
    return states


def _plain_groups(state: State) -> dict[str, tuple[Element, ...]]:
    """ω grouped by type by definition: one pass over ω in canonical order."""
    groups: dict[str, tuple[Element, ...]] = {}
    for e in state.ordered():
        groups[e.type] = groups.get(e.type, ()) + (e,)
    return groups


@settings(max_examples=150, deadline=None)
@given(_states())
def test_a_derived_view_equals_omega_read_afresh(states):
    """View/ViewIndex: the groups of a view derived from the previous ω are ω's groups read by definition."""
    index = ViewIndex(View)
    for state in states + states[::-1]:
        assert index(state).groups == _plain_groups(state)


@settings(max_examples=150, deadline=None)
@given(_states())
def test_a_derived_subgoal_view_equals_its_definitions(states):
    """SubgoalView: the current subgoal and the largest subgoal id, carried from view to view, are their definitions."""
    index = ViewIndex(SubgoalView)
    for state in states + states[::-1]:
        view = index(state)
        ordered = state.ordered()
        assert view.groups == _plain_groups(state)
        assert view.current == next((e for e in ordered if e.type == "subgoal" and e.meta.get("current")), None)
        ids = [e.meta["subgoal"] for e in ordered if e.type in ("subgoal", "summary")]
        assert view.top() == (max(ids) if ids else None)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.frozensets(st.text(max_size=6), max_size=8), min_size=1, max_size=12))
def test_a_carried_sum_equals_the_sum_computed_afresh(sets):
    """Tally: Σ over ω carried by the elements that changed equals Σ computed over ω."""
    tally = Tally()
    for elements in sets + sets[::-1]:
        assert tally(elements, len) == sum(map(len, elements))


# -- SCM's ranking (stmviz._fast.ranking) -------------------------------------------------------------------


def _plain_top(stream, last, query, t, k, skip, weights):
    """SCM's ranking by definition: the top k of candidates 0 … last−1 by score, then the newest."""
    rw, lw, decay = weights
    scored = [
        (-(rw * decay ** (t - i) + lw * (cosine(query, stream[i][1][2]) if query else 0.0)), -i)
        for i in range(last)
        if stream[i][1] is not None and i not in skip
    ]
    return [-i for _, i in sorted(scored)[:k]], {-i: -s for s, i in scored}


@st.composite
def _ranking_case(draw):
    n = draw(st.integers(1, 400))
    rng = random.Random(draw(st.integers(0, 10**6)))
    dim = draw(st.sampled_from([3, 8, 64]))
    levels = [0.0, 0.5, 1.0, -1.0, 2.0]  # few values: many candidates tie
    stream = []
    for i in range(n):
        if rng.random() < 0.05:
            stream.append((i, None))  # an empty interaction
        else:
            vector = tuple(rng.choice(levels) if rng.random() < 0.5 else rng.uniform(-1, 1) for _ in range(dim))
            stream.append((i, ("full", "raw", vector)))
    last = draw(st.integers(1, n))
    query = draw(st.one_of(st.none(), st.just(tuple(rng.uniform(-1, 1) for _ in range(dim))), st.just((0.0,) * dim)))
    skip = set(rng.sample(range(last), min(last, draw(st.integers(0, 4)))))
    weights = (draw(st.sampled_from([0.0, 0.5, 1.0])), draw(st.sampled_from([0.0, 0.5, 1.0])), draw(st.sampled_from([0.5, 0.9, 0.99, 1.0])))
    return stream, last, query, last - 1 + draw(st.integers(0, 3)), draw(st.integers(1, 9)), skip, weights


@settings(max_examples=150, deadline=None)
@given(_ranking_case())
def test_the_matrix_ranking_gives_the_top_k_of_the_definition(case):
    """StreamMatrix.top: the top k by score, newest first on ties, as SCM._rank_by_definition defines them.

    Cosines computed by a matrix–vector product and one by one may differ in the last bit, so two
    candidates whose scores tie up to rounding may come in either order; apart from those, the lists
    are equal, and the scores picked are the definition's top-k scores.
    """
    stream, last, query, t, k, skip, weights = case
    fast = StreamMatrix().top(stream, last, query, t, k, skip, weights)
    plain, score = _plain_top(stream, last, query, t, k, skip, weights)
    assert len(fast) == len(plain) and not set(fast) & skip
    assert all(stream[i][1] is not None for i in fast)
    close = sorted(score.values(), reverse=True)
    near_ties = any(abs(a - b) < 1e-9 for a, b in zip(close, close[1:]))
    if not near_ties:
        assert fast == plain
    for i, j in zip(fast, plain):
        assert abs(score[i] - score[j]) <= 1e-12 * max(1.0, abs(score[j]))


@settings(max_examples=40, deadline=None)
@given(_ranking_case())
def test_matrix_rows_kept_between_steps_give_what_a_fresh_matrix_gives(case):
    """StreamMatrix keeps its rows as the stream grows: each step's top k is bit-for-bit a fresh matrix's."""
    stream, _, query, _, k, skip, weights = case
    kept = StreamMatrix()
    for last in sorted({1, len(stream) // 3, len(stream) // 2, len(stream)} - {0}):
        grown = stream[:last]
        skip_now = {i for i in skip if i < last}
        assert kept.top(grown, last, query, last, k, skip_now, weights) == StreamMatrix().top(
            grown, last, query, last, k, skip_now, weights
        )
    kept.forget_rows()  # another stream: the rows are rebuilt
    other = [(i, row) for i, row in reversed(stream)]
    assert kept.top(other, len(other), query, len(other), k, set(), weights) == StreamMatrix().top(
        other, len(other), query, len(other), k, set(), weights
    )

def test_rows_kept_after_only_empty_interactions_take_the_width_of_the_first_vector():
    """A stream that starts with an empty interaction, ranked without a query, then grown: no width is guessed.

    Found by hypothesis on the merged tree: the kept matrix took width 1 from a stream with no vector yet,
    and the next step's 3-dimensional embedding was refused as a mismatch.
    """
    stream = [(0, None), (1, ("full", "raw", (1.0, 0.3, 0.5))), (2, ("full", "raw", (0.0, 1.0, 0.0)))]
    kept = StreamMatrix()
    weights = (1.0, 0.5, 0.9)
    for last in (1, 2, 3):
        assert kept.top(stream[:last], last, None, last, 2, set(), weights) == StreamMatrix().top(
            stream[:last], last, None, last, 2, set(), weights
        )
    query = (1.0, 0.0, 0.0)
    assert kept.top(stream, 3, query, 3, 2, set(), weights) == StreamMatrix().top(stream, 3, query, 3, 2, set(), weights)


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
