"""Property tests (hypothesis) of the core's invariants."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, Element, Mechanism, State, StateSpace, Trace, Transition, run, sizes
from stmviz.core.element import thaw

WORDS = st.sampled_from("alpha beta gamma delta eps zeta eta theta iota kappa".split())
texts = st.lists(WORDS, min_size=1, max_size=25).map(" ".join)
meta_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
metas = st.dictionaries(st.text(min_size=1, max_size=4).filter(lambda k: k != "t"), meta_values, max_size=4)  # t must be a number


class Priority(Mechanism):
    """A small reference mechanism: keep high-priority elements longest, evict by (priority, age)."""

    operations = {"add": "add the observation", "skip": "ignore an element that can never fit"}
    RANK = {"low": 0, "medium": 1, "high": 2}

    def controller(self, state, context):
        element = self._element(context)
        from stmviz import Operation

        return Operation("add" if self.space.fits(element) else "skip")

    def _element(self, context):
        return Element(context.observation, {"t": context.t, "priority": context.step.meta.get("priority", "low")})

    def update(self, state, operation, context):
        if operation.type == "skip":
            return state
        new = state | {self._element(context)}
        victims = sorted(new, key=lambda e: (self.RANK[e.meta["priority"]], e.meta["t"]))
        reasons = {}
        total = self.space.size(new)
        for victim in victims:
            if total <= self.space.v_max:
                break
            reasons[victim] = f"lowest priority ({victim.meta['priority']}), oldest"
            total -= self.space.measure(victim)
        return Transition(new - reasons.keys(), reasons)


streams = st.lists(
    st.tuples(texts, st.sampled_from(["low", "medium", "high"])).map(
        lambda p: AgentStep(observation=p[0], meta={"priority": p[1]})
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams, st.integers(1, 80), st.sampled_from([sizes.words, sizes.chars]), st.integers(1, 10))
def test_the_reference_mechanism_never_leaves_the_space(steps, v_max, mu, every):
    m = Priority(StateSpace(mu, v_max))
    trace = run(m, steps, checkpoint_every=every)
    replay = list(trace.states())
    for t, state in enumerate(replay):
        assert state in m.space
        assert trace.state_at(t) == state  # checkpoints + diffs rebuild ω_t exactly
        assert trace.size_at(t) == m.space.size(state)
    assert Trace.from_json(trace.to_json()) == trace


@settings(max_examples=40, deadline=None)
@given(streams, st.integers(5, 60))
def test_update_never_mutates_its_inputs(steps, v_max):
    from stmviz import Context, History

    m = Priority(StateSpace(sizes.words, v_max))
    state = State()
    history = []
    for t, step in enumerate(steps):
        c = Context(t=t, step=step, history=History(history, t))
        frozen_elements = state.elements
        snapshot = [(e.content, thaw(e.meta)) for e in state]
        for op in m.choose(state, c):
            new = m.apply(state, op, c).state
            assert state.elements is frozen_elements
            assert [(e.content, thaw(e.meta)) for e in state] == snapshot
            assert m.apply(state, op, c).state == new  # same inputs, same result
            state = new
        history.append(step)


@settings(max_examples=80, deadline=None)
@given(texts, metas)
def test_element_json_round_trip_and_identity(text, meta):
    e = Element(text, meta)
    again = Element.from_json(e.to_json())
    assert again == e and hash(again) == hash(e) and again.id == e.id


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(texts, st.integers(0, 30)), max_size=20))
def test_state_is_a_set_whatever_the_insertion_order(items):
    elements = [Element(text, {"t": t}) for text, t in items]
    forward, backward = State(elements), State(reversed(elements))
    assert forward == backward and list(forward) == list(backward)
    assert len(forward) == len(set(elements))


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(0, 12), texts), min_size=1, max_size=40),
)
def test_incremental_order_and_size_caches_agree_with_a_fresh_computation(ops):
    """State keeps its canonical order and Σμ incrementally through | and −; both must equal a recomputation."""
    space = StateSpace(sizes.words, 10**6)
    state = State()
    space.size(state)
    list(state)
    for add, t, text in ops:
        element = Element(text, {"t": t})
        space.measure(element)
        state = state | {element} if add else state - {element}
        fresh = State(state.elements)
        assert list(state) == list(fresh)
        assert space.size(state) == StateSpace(sizes.words, 10**6).size(fresh)


_pool = st.lists(st.tuples(st.integers(0, 12), texts), min_size=1, max_size=12)


@settings(max_examples=120, deadline=None)
@given(
    _pool,
    st.lists(
        st.tuples(st.sampled_from(["|", "-", "replace"]), st.sets(st.integers(0, 11)), st.sets(st.integers(0, 11)), st.booleans()),
        min_size=1,
        max_size=25,
    ),
)
def test_many_element_updates_carry_order_and_size_exactly(pool, ops):
    """|, − and replace with several elements (overlapping, absent, not yet measured) keep the canonical order and Σμ right."""
    space = StateSpace(sizes.words, 10**6)
    elements = [Element(text, {"t": t}) for t, text in pool]
    state = State()
    space.size(state)
    list(state)
    for op, first, second, measured in ops:
        a = [elements[i % len(elements)] for i in first]
        b = [elements[i % len(elements)] for i in second]
        if measured:
            for e in a + b:
                space.measure(e)
        if op == "|":
            state, expected = state | a, state.elements | set(a)
        elif op == "-":
            state, expected = state - a, state.elements - set(a)
        else:
            state, expected = state.replace(a, b), (state.elements - set(a)) | set(b)
        assert state.elements == expected
        fresh = State(expected)
        assert list(state) == list(fresh)
        assert space.size(state) == StateSpace(sizes.words, 10**6).size(fresh)
