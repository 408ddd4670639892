"""The mechanism (O, E, Ω_STM, C, U, X, π) of Definition 2, and check_mechanism."""

import pytest

from stmviz import (
    AgentStep,
    Context,
    Element,
    Mechanism,
    ModelInput,
    Operation,
    OperationSet,
    State,
    StateSpace,
    check_mechanism,
    make_mechanism,
    run,
    sizes,
)
from stmviz.core.mechanism import ExampleMechanism
from stmviz.errors import CapacityError, ContractError, InvalidArgumentError, UnsupportedOperationError


def ctx(text="hello", t=0):
    return Context(t=t, step=AgentStep(observation=text))


def test_operation_types_and_sets():
    o = Operation("evict", {"count": 2}, reason="overflow")
    assert o.type == "evict" and o["count"] == 2 and o.reason == "overflow"
    assert hash(o) == hash(Operation("evict", {"count": 2}, reason="overflow"))
    assert str(o) == "evict(count=2)"
    O = OperationSet({"append": "add", "evict": "drop"})
    assert O.types == ("append", "evict") and o in O and Operation("fold") not in O
    assert "append: add" in O.describe()
    with pytest.raises(InvalidArgumentError):
        Operation("not a name!")
    with pytest.raises(InvalidArgumentError):
        Operation("x", params=[1])  # type: ignore[arg-type]
    with pytest.raises(UnsupportedOperationError, match="τ"):
        O.require(Operation("fold"))


def test_context_is_not_the_context_window():
    c = Context(t=3, step={"thought": "I will search", "action": "search('x')", "observation": "found"},
                query="Q", tools=["search"], meta={"user": "u1"}, extra={"summary": "s"})
    assert c.observation == "found" and c.action == "search('x')" and c.tools == ("search",)
    assert c["summary"] == "s" and c["user"] == "u1"
    assert c.step.output == "I will search\nsearch('x')"
    assert c.replace(t=4).t == 4 and c.t == 3


def test_a_subclass_in_a_few_lines_runs():
    class KeepNewest(Mechanism):
        operations = {"append": "add, evicting the oldest"}

        def update(self, state, operation, context):
            state = state | {Element(context.observation, {"t": context.t})}
            while state not in self.space:
                state = state - {state.ordered()[0]}
            return state

    m = KeepNewest(StateSpace(sizes.words, 4))
    assert isinstance(m.operations, OperationSet)
    trace = run(m, ["a b", "c d", "e"])
    assert [e.text for e in trace.final] == ["c d", "e"]
    assert check_mechanism(m)


def test_update_leaving_the_space_names_mechanism_operation_and_sizes():
    def add(m, state, op, c):
        return state | {Element(c.observation, {"t": c.t})}

    m = make_mechanism(StateSpace(sizes.words, 3), operations=["add"], update=add, name="greedy")
    with pytest.raises(CapacityError) as info:
        run(m, ["a b", "c d"])
    msg = str(info.value)
    assert "step 1" in msg and "greedy" in msg and "add" in msg and "Σμ = 4 > V_max = 3" in msg
    assert len(info.value.trace) == 1  # the steps before the failure are kept


def test_update_returning_a_non_state():
    m = make_mechanism(StateSpace(sizes.words, 3), operations=["add"], update=lambda m, s, o, c: {Element("x")})
    with pytest.raises(ContractError, match="must return a State"):
        run(m, ["a"])


def test_undeclared_operation_type():
    m = make_mechanism(StateSpace(sizes.words, 3), operations=["add"], update=lambda m, s, o, c: s,
                       controller=lambda m, s, c: Operation("fold"))
    with pytest.raises(UnsupportedOperationError, match="'fold' ∉ τ"):
        run(m, ["a"])
    with pytest.raises(UnsupportedOperationError):
        m.apply(State(), Operation("fold"), ctx())


def test_controller_must_return_operations():
    m = make_mechanism(StateSpace(sizes.words, 3), operations=["add"], update=lambda m, s, o, c: s,
                       controller=lambda m, s, c: "add")
    with pytest.raises(ContractError):
        run(m, ["a"])
    two = make_mechanism(StateSpace(sizes.words, 3), operations=["a", "b"], update=lambda m, s, o, c: s)
    with pytest.raises(ContractError, match="must\\s+define controller"):
        run(two, ["a"])


def test_transition_reasons_are_recorded():
    trace = run(ExampleMechanism(StateSpace(sizes.words, 3)), ["a b", "c d"])
    assert trace[1].why == {trace[0].added[0]: "oldest element; Σμ exceeded V_max"}


def test_projection_and_its_size():
    m = ExampleMechanism(StateSpace(sizes.tokens(), 100))
    trace = run(m, ["hello world", "hello again"])
    assert trace[0].input_size == 0  # π(ω_0) of the empty state
    assert trace[1].input_size == sizes.count_tokens("hello world")
    assert trace.final_input_size == sizes.count_tokens("hello world") + sizes.count_tokens("hello again")
    assert isinstance(m.input(trace.final), ModelInput)

    class Joined(ExampleMechanism):
        def project(self, state):
            return "\n".join(e.text for e in state)

        projection_size = Mechanism.projection_size  # the default: tokenize π(ω)

    joined = run(Joined(StateSpace(sizes.tokens(), 100)), ["hello world", "hello again"])
    assert joined.final_input_size == sizes.count_tokens("hello world\nhello again")


def test_check_mechanism_reports_impurity():
    class Counter(Mechanism):
        operations = {"add": "add"}

        def __init__(self, space):
            super().__init__(space)
            self.seen = []

        def update(self, state, operation, context):
            self.seen.append(context.t)  # hidden state: U is not a function of (ω, o, c)
            return state

    report = check_mechanism(Counter(StateSpace(sizes.words, 10)))
    assert not report.ok
    assert "purity" in str(report) and "seen" in str(report)
    with pytest.raises(ContractError):
        report.raise_if_failed()


def test_check_mechanism_reports_nondeterminism_and_closure():
    import itertools

    counter = itertools.count()

    class Random(Mechanism):
        operations = {"add": "add"}

        def update(self, state, operation, context):
            return State([Element(str(next(counter)))])

    assert "different states" in str(check_mechanism(Random(StateSpace(sizes.words, 10))))

    class Overflow(Mechanism):
        operations = {"add": "add"}

        def update(self, state, operation, context):
            return state | {Element(context.observation, {"t": context.t})}

    report = check_mechanism(Overflow(StateSpace(sizes.words, 10)))
    assert not report.ok and "closure" in str(report) and "V_max" in str(report)


def test_check_mechanism_reports_unhandled_types():
    class Partial(Mechanism):
        operations = {"add": "add", "drop": "drop"}

        def controller(self, state, context):
            return Operation("add")

        def update(self, state, operation, context):
            if operation.type == "add":
                return state
            raise NotImplementedError("drop is not written yet")

    report = check_mechanism(Partial(StateSpace(sizes.words, 10)))
    assert not report.ok
    assert any(r.name == "type 'drop' handled" and not r.passed for r in report.results)


def test_check_mechanism_nondeterministic_projection():
    import itertools

    counter = itertools.count()

    class Flaky(ExampleMechanism):
        def project(self, state):
            return str(next(counter))

    report = check_mechanism(Flaky(StateSpace(sizes.words, 10)))
    assert any(r.name == "deterministic π" and not r.passed for r in report.results)


def test_summarizer_failure_leaves_state_and_names_the_step():
    from stmviz.errors import UpdateFailedError

    class Summarizing(ExampleMechanism):
        def update(self, state, operation, context):
            if context.t == 2:
                raise RuntimeError("the summarizer is down")
            return super().update(state, operation, context)

    with pytest.raises(UpdateFailedError) as info:
        run(Summarizing(StateSpace(sizes.words, 10)), ["a", "b", "c", "d"])
    assert info.value.step == 2 and "step 2" in str(info.value) and "summarizer is down" in str(info.value)
    assert len(info.value.trace) == 2 and [e.text for e in info.value.trace.final] == ["a", "b"]


def test_mechanism_needs_a_space():
    with pytest.raises(TypeError, match="StateSpace"):
        ExampleMechanism(4096)  # type: ignore[arg-type]
