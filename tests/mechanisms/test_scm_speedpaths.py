"""SCM's fast paths give exactly what the plain definitions give.

- the built-in embedder embeds an interaction from the term frequencies of its parts
  (response, observation), reusing the observation's for the query: it must equal
  ``embed(raw text)`` and ``embed(observation)``, whatever the parts hold;
- ``HashingEmbedder.from_frequencies`` rounds by arithmetic and a table of values, not by
  ``round(x, digits)``: it must give the same floats, signed zeros included;
- the ranking selects the top k from the m-th best score, and the controller, the memory
  stream and the embedding matrix are kept between steps: runs must equal runs through the
  plain paths (a wrapped embedder takes none of the embedder shortcuts).
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import SCM, AgentStep, Context, Operation, StateSpace, run, sizes
from stmviz.core.context import History
from stmviz.mechanisms.scm import interaction_text
from stmviz.text.scm_judges import always_needs_memory
from stmviz.text import HashingEmbedder, cosine, embed
from stmviz.text.embed import _default, hashing_embedder, joined_frequencies

_PIECES = [
    "the", "The", "agent", "searches", "searched", "searching", "memory", "Lisbon", "Kraków", "café",
    "\u212a", "KELVIN", "42", "don't", "well-known", 'search(query="x")', "ünïcödé", "日本語", "cities",
    "flies", "İstanbul", "ΣΟΦΙΑΣ", "straße", "x_y", "tool", "RESULT", "a", "of", "and",
]
_text = st.lists(st.sampled_from(_PIECES), max_size=30).map(" ".join)


def plain_round(vector: list[float], digits) -> tuple:
    norm = math.sqrt(sum([v * v for v in vector]))
    if norm == 0:
        return tuple(vector)
    return tuple(round(v / norm, digits) for v in vector)


def same(a, b) -> bool:
    """Equal floats with equal signs (0.0 and −0.0 differ here)."""
    return len(a) == len(b) and all(repr(x) == repr(y) for x, y in zip(a, b))


# -- the embedder ---------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(_text, min_size=1, max_size=4))
def test_joined_frequencies_are_the_frequencies_of_the_joined_text(parts):
    embedder = HashingEmbedder()
    tfs = [embedder.frequencies(p) for p in parts]
    copies = [list(tf.items()) for tf in tfs]
    joined = joined_frequencies(tfs)
    text = "\n".join(parts)
    assert list(joined.items()) == list(embedder.frequencies(text).items())  # counts and order
    assert [list(tf.items()) for tf in tfs] == copies  # the parts' frequencies are left as they were
    assert same(embedder.from_frequencies(joined), embedder(text))


def test_counts_past_the_table_of_dampened_weights():
    text = "agent " * 70 + "memory " * 64 + "tool " * 63 + "café " * 65
    parts = [text, "agent memory"]
    embedder = HashingEmbedder()
    assert same(embedder.from_frequencies(joined_frequencies([embedder.frequencies(p) for p in parts])), embed("\n".join(parts)))


@pytest.mark.parametrize("digits", [0, 1, 2, 3, 4, 5, 6, None])
def test_rounding_by_table_equals_round(digits):
    rng = random.Random(digits or 0)
    embedder = HashingEmbedder(dimensions=8, digits=digits)
    for _ in range(3000):
        vector = [rng.choice([0.0, rng.uniform(-3, 3), rng.choice([-1, 1]) * 10.0 ** -rng.randint(1, 9)]) for _ in range(8)]
        if rng.random() < 0.5 and digits is not None:  # a coordinate at or next to a tie of the rounding
            norm = math.sqrt(sum([v * v for v in vector])) or 1.0
            tie = (rng.randint(-(10**digits), 10**digits - 1) + 0.5) / 10**digits
            vector[rng.randrange(8)] = tie * norm
        got = _vector_through_buckets(embedder, vector)
        assert same(got, plain_round(vector, digits)), (vector, digits)


def _vector_through_buckets(embedder: HashingEmbedder, vector: list[float]) -> tuple:
    """from_frequencies' rounding, applied to a given bucket vector (via a stand-in bucket table)."""
    weights = {f"w{i}": (i, 1.0, [0.0, v]) for i, v in enumerate(vector)}
    saved = embedder._buckets
    embedder._buckets = weights
    try:
        return embedder.from_frequencies({f"w{i}": 1 for i in range(len(vector))})
    finally:
        embedder._buckets = saved


def test_negative_coordinates_that_round_to_zero_stay_negative():
    vector = [1.0, -0.00001, 0.00001, 0.0]
    assert same(_vector_through_buckets(HashingEmbedder(dimensions=4), vector), plain_round(vector, 4))
    assert repr(_vector_through_buckets(HashingEmbedder(dimensions=4), vector)[1]) == "-0.0"


def test_which_embedders_take_the_frequency_path():
    assert hashing_embedder(embed) is _default
    mine = HashingEmbedder(32)
    assert hashing_embedder(mine) is mine

    class Shouting(HashingEmbedder):
        def __call__(self, text):
            return super().__call__(text.upper())

    assert hashing_embedder(Shouting()) is None
    assert hashing_embedder(lambda text: embed(text)) is None


# -- SCM through the fast paths equals SCM through the plain ones ----------------------------------

_step = st.builds(
    AgentStep,
    thought=st.one_of(st.just(""), _text),
    action=st.sampled_from(["", "", 'search("Kraków café")', "open(x)"]),
    observation=st.one_of(st.just(""), _text),
)


@settings(max_examples=40, deadline=None)
@given(steps=st.lists(_step, max_size=30), v_max=st.integers(20, 600), k=st.integers(0, 4), flash=st.integers(1, 3))
def test_fast_embedding_equals_the_plain_embedder(steps, v_max, k, flash):
    fast = run(SCM(StateSpace(sizes.tokens(), v_max), k=k, flash_size=flash, summary_budget=16), steps)
    plain = run(
        SCM(StateSpace(sizes.tokens(), v_max), k=k, flash_size=flash, summary_budget=16, embed=lambda text: embed(text)),
        steps,
    )
    assert fast.to_json() == plain.to_json()


def _stream(n: int, seed: int) -> list[AgentStep]:
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "delta", "Lisbon", "Porto", "café", "agent", "memory", "tool", "code", "7391"]
    steps = []
    for t in range(n):
        action = rng.choice(["", f"search({rng.choice(words)})"])
        observation = "" if t % 37 == 5 else " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        thought = "" if t % 53 == 7 else " ".join(rng.choice(words) for _ in range(rng.randint(0, 6)))
        steps.append(AgentStep(thought=thought, action=action, observation=observation))
    return steps


@pytest.mark.parametrize(
    "kwargs",
    [
        {"k": 3},
        {"k": 8, "recency_weight": 0, "relevance_weight": 1},  # many ties: the newest wins
        {"k": 9, "recency_weight": 0, "relevance_weight": 1},  # past 8: the partition path
        {"k": 5, "flash_size": 4, "recency_decay": 1.0, "ranking": "recency+relevance"},
        {"k": 2, "recency_weight": 1, "relevance_weight": 0, "ranking": "recency+relevance"},
        {"k": 3, "flash_size": 2, "ranking": "recency+relevance", "needs_memory": always_needs_memory},
        {"k": 4, "needs_memory": always_needs_memory},
    ],
)
def test_long_runs_equal_the_plain_embedder(kwargs):
    steps = _stream(420, seed=len(kwargs))
    fast = run(SCM(StateSpace(sizes.tokens(), 1500), **kwargs), steps)
    plain = run(SCM(StateSpace(sizes.tokens(), 1500), embed=lambda text: embed(text), **kwargs), steps)
    assert fast.to_json() == plain.to_json()


@pytest.mark.parametrize("k", [1, 3, 8, 9])
def test_ranking_takes_the_first_k_by_score_then_newest(k):
    """The top k by score among all candidates, ties to the newest, with the scores the ranking computes."""
    import numpy as np

    rng = random.Random(k)
    words = ["alpha", "beta", "gamma", "Lisbon", "café"]  # few words: many interactions tie
    steps = [
        AgentStep(thought=rng.choice(["", "ok"]), observation=" ".join(rng.sample(words, rng.randint(1, 2))))
        for _ in range(400)
    ]
    scm = SCM(StateSpace(sizes.tokens(), 4000), k=k, needs_memory=always_needs_memory)  # score = cosine
    trace = run(scm, steps)

    def unit(vector):
        array = np.fromiter(vector, float, len(vector))
        norm = float(np.sqrt(array @ array))
        return array / norm if norm > 0 else array

    rows = [interaction_text(s, steps[i - 1] if i else None) for i, s in enumerate(steps)]  # filed at step i
    data = np.array([unit(embed(raw)) if full else np.zeros(64) for full, raw in rows])
    for t in (100, 257, 333, 399):
        last = t - scm.flash_size + 1
        query = unit(embed(steps[t].observation or rows[t][1]))
        score = (data[:last] @ query).tolist()
        candidates = [i for i in range(last) if rows[i][0]]
        expected = sorted(candidates, key=lambda i: (-score[i], -i))[:k]
        got = {e.meta["index"] for e in trace.state_at(t + 1).where(type="activation")}
        assert sorted(score[i] for i in got) == sorted(score[i] for i in expected), t
        assert got == set(expected), (t, sorted(got), sorted(expected))  # ties to the newest, at every k


@pytest.mark.parametrize("order", [(600, 4000, 1200), (4000, 600, 1200)])
def test_rankings_kept_by_content_serve_runs_at_other_capacities(order):
    """A ranking kept for one run (to the depth its ω needed) gives another V_max's run its own top-k."""
    from stmviz.sweep import SharedCaches

    steps = _stream(300, seed=11)
    caches = SharedCaches()
    for v_max in order:
        kwargs = dict(k=3, flash_size=2, needs_memory=always_needs_memory)
        shared = caches.share(SCM(StateSpace(sizes.tokens(), v_max), **kwargs))
        alone = SCM(StateSpace(sizes.tokens(), v_max), **kwargs)
        assert run(shared, steps).to_json() == run(alone, steps).to_json(), v_max
    assert caches.stats()["SCM rankings"] > 0


def test_the_controller_follows_k():
    scm = SCM(StateSpace(sizes.tokens(), 500), k=2, flash_size=1, needs_memory=always_needs_memory)
    context = Context(t=3, step=AgentStep(observation="hi"), history=History([AgentStep(observation="a")] * 3))
    first = scm.controller(None, context)
    assert [o.type for o in first] == ["add_interaction", "activate_memory"]
    assert (first[1]["k"], first[1]["form"]) == (2, "auto")
    assert first == scm.controller(None, context)  # the same decision, every time
    scm.k = 4
    assert scm.controller(None, context)[1]["k"] == 4
    scm.k = 0
    assert scm.controller(None, context) == [Operation("add_interaction")]


def test_the_memory_stream_follows_a_changed_history():
    steps = _stream(120, seed=5)
    other = _stream(120, seed=6)
    scm = SCM(StateSpace(sizes.tokens(), 1500), k=3)
    reference = SCM(StateSpace(sizes.tokens(), 1500), k=3)
    trace = run(scm, steps)
    # the same mechanism, now given another history (a fresh list, then one with an edited step)
    for history in (other[:100], steps[:99] + [other[99]]):
        t = len(history)
        context = Context(t=t, step=other[t], history=History(list(history)))
        state = trace.state_at(t)
        for op in scm.choose(state, context):
            state = scm.apply(state, op, context).state
        expected = trace.state_at(t)
        for op in reference.choose(expected, context):
            expected = reference.apply(expected, op, context).state
        assert state == expected
        reference = SCM(StateSpace(sizes.tokens(), 1500), k=3)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(65, 400),
    st.integers(1, 9),
    st.sampled_from(["relevance", "recency+relevance"]),
    st.integers(0, 10_000),
)
def test_the_fast_ranking_equals_the_definition(last, k, ranking, seed):
    """``_rank`` (a matrix–vector product, newest candidates first) gives ``_rank_by_definition``'s top k."""
    rng = random.Random(seed)
    words = ["alpha", "beta", "gamma", "Lisbon", "café", "tool", "RESULT"]
    steps = [AgentStep(thought="ok", observation=" ".join(rng.sample(words, rng.randint(0, 3)))) for _ in range(last + 1)]
    scm = SCM(StateSpace(sizes.tokens(), 4000), k=k, ranking=ranking, recency_decay=rng.choice([0.5, 0.9, 0.99, 1.0]))
    history = History(steps)
    context = Context(step=steps[last], t=last, history=history)
    stream = scm._stream(context)
    query = scm._embedding(steps[last].observation, context) if steps[last].observation else None
    skip = set(rng.sample(range(last), min(3, last)))
    fast = scm._rank(stream, last, query, last, k, skip)
    plain = scm._rank_by_definition(stream, last, query, last, k, skip)
    if fast != plain:
        # Only a tie up to rounding may break differently: the matrix–vector product and the
        # definition's cosine can differ in the last bit (hypothesis found 0.25 + 0.5·0.5 against
        # 0 + 0.5·1.0). The scores the fast path picked must be the definition's top-k scores.
        rw, lw, decay = scm._weights()

        def score(i):
            return rw * decay ** (last - i) + lw * (cosine(query, stream[i][1][2]) if query else 0.0)

        assert len(fast) == len(plain) and not set(fast) & skip
        assert [score(i) for i in fast] == pytest.approx([score(i) for i in plain], rel=1e-12, abs=1e-12)
