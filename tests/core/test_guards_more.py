"""The guards the layers above the core share (issue 32, boundaries): instance, labelled, nonempty, probe.

Each replaced hand-written checks that several modules repeated, with messages of
their own wording: these pin what the one wording says (the argument, its value,
the fix, where) and what the guards refuse that the hand-written checks let through.
"""

from __future__ import annotations

import numpy as np
import pytest

from stmviz import Element, FIFOWindow, StateSpace, Trace, run, sizes
from stmviz.core import guards
from stmviz.errors import InvalidArgumentError, STMError
from stmviz.scenarios import Probe


class HostileRepr:
    """An object whose repr and str raise: a message must still name it."""

    def __repr__(self) -> str:
        raise RuntimeError("hostile repr")

    __str__ = __repr__


class BrokenMapping(dict):
    """A mapping whose items() raises."""

    def items(self):  # type: ignore[override]
        raise RuntimeError("no items")


def broken_generator():
    yield 1
    raise RuntimeError("broken")


@pytest.fixture(scope="module")
def trace() -> Trace:
    return run(FIFOWindow(StateSpace(sizes.words, 50)), ["a b", "c d", "e f"])


# -- instance ------------------------------------------------------------------------------------


def test_instance_returns_the_value_of_the_classes_given():
    assert guards.instance("x", "name", str) == "x"
    assert guards.instance(3, "n", (str, int)) == 3
    assert guards.instance(None, "mechanism", str, none_ok=True) is None


def test_instance_names_the_argument_the_value_the_classes_and_where():
    with pytest.raises(InvalidArgumentError) as caught:
        guards.instance(3, "trace", (str, Element), where="loop_figure", fix="; pass what run() returns")
    assert str(caught.value) == "loop_figure: trace must be a str or an Element, got int 3; pass what run() returns"


def test_instance_says_what_in_words_and_that_none_is_allowed():
    with pytest.raises(InvalidArgumentError, match=r"^figure_widget: figure must be a plotly Figure or None, got list \[\]$"):
        guards.instance([], "figure", dict, where="figure_widget", what="a plotly Figure", none_ok=True)


def test_instance_refuses_none_unless_told():
    with pytest.raises(InvalidArgumentError, match="got NoneType None"):
        guards.instance(None, "text", str)


def test_instance_names_a_value_whose_repr_fails():
    with pytest.raises(InvalidArgumentError, match=r"got a HostileRepr \(its repr fails\)"):
        guards.instance(HostileRepr(), "graph", dict)


# -- labelled ------------------------------------------------------------------------------------


def test_labelled_gives_a_list_unlabelled_and_a_dict_by_its_keys_in_order():
    assert guards.labelled(["a", "b"], "runs") == [(None, "a"), (None, "b")]
    assert guards.labelled({"x": 1, "y": 2}, "runs") == [("x", 1), ("y", 2)]
    assert guards.labelled((i for i in range(2)), "runs") == [(None, 0), (None, 1)]


def test_labelled_names_a_key_that_is_not_a_str_safely():
    assert guards.labelled({3: "a", None: "b"}, "runs") == [("3", "a"), ("None", "b")]
    [(label, value)] = guards.labelled({HostileRepr(): "a"}, "runs")
    assert label == "a HostileRepr (its repr fails)" and value == "a"


@pytest.mark.parametrize("value", ["ab", b"ab", 3, None])
def test_labelled_refuses_what_is_no_collection(value):
    with pytest.raises(InvalidArgumentError, match=r"^compare: mechanisms must be a list of mechanisms \(or a dict that names each\)"):
        guards.labelled(value, "mechanisms", where="compare", what="mechanisms")


def test_labelled_reports_a_mapping_or_an_iterable_that_fails_while_read():
    with pytest.raises(InvalidArgumentError, match=r"runs could not be read: its items\(\) raised RuntimeError"):
        guards.labelled(BrokenMapping(), "runs")
    with pytest.raises(InvalidArgumentError, match="iterating it raised RuntimeError"):
        guards.labelled(broken_generator(), "runs")


def test_labelled_refuses_an_empty_collection_only_when_told():
    assert guards.labelled([], "runs") == [] and guards.labelled({}, "runs") == []
    with pytest.raises(InvalidArgumentError, match=r"^compare_player: traces is empty; pass at least one of the Traces$"):
        guards.labelled({}, "traces", where="compare_player", what="Traces", empty_ok=False)


# -- nonempty ------------------------------------------------------------------------------------


def test_nonempty_gives_the_items_and_refuses_none_at_all():
    assert guards.nonempty((1, 2), "v_max") == [1, 2]
    with pytest.raises(InvalidArgumentError) as caught:
        guards.nonempty([], "v_max", where="sweep", what="capacities V_max", fix="; e.g. v_max=[1024]")
    assert str(caught.value) == "sweep: v_max is empty; pass at least one of the capacities V_max; e.g. v_max=[1024]"


def test_nonempty_refuses_what_items_refuses():
    with pytest.raises(InvalidArgumentError, match="must be a list"):
        guards.nonempty("abc", "scenarios")


# -- probe ---------------------------------------------------------------------------------------


def test_a_probe_asked_at_a_state_of_the_trace_passes(trace):
    probe = Probe(3, "What came last?", "e", 2)
    assert guards.probe(probe, "probe", trace) is probe
    assert guards.probe(Probe(1, "q", "a", 0), "probe", trace) is not None


def test_a_probe_t_may_be_a_numpy_integer(trace):
    class Asked:
        t, question, answer = np.int64(2), "q", "a"

    assert guards.probe(Asked(), "probe", trace).t == 2


@pytest.mark.parametrize("t", [4, -1, 10**30])
def test_a_probe_beyond_the_trace_or_before_it_is_refused(trace, t):
    class Asked:
        question, answer = "Where?", "here"

    Asked.t = t
    with pytest.raises(InvalidArgumentError) as caught:
        guards.probe(Asked(), "probes[2]", trace, where="retention")
    message = str(caught.value)
    assert message.startswith(f"retention: probes[2] 'Where?' is asked at t = {t}, but the trace has states ω_0 … ω_3")
    assert "drop probes after step 3" in message


@pytest.mark.parametrize("value", ["a probe", 3, None, ("t", 1), HostileRepr()])
def test_what_is_no_probe_is_refused_with_the_fields_a_probe_has(trace, value):
    with pytest.raises(InvalidArgumentError) as caught:
        guards.probe(value, "probe", trace, where="why_forgotten")
    message = str(caught.value)
    assert message.startswith("why_forgotten: probe must be a Probe (t: int, question: str, answer: str), got ")
    assert "Probe(t, question, answer, evidence_step)" in message


def test_a_probe_t_that_is_no_whole_number_is_refused(trace):
    for t in (1.0, True, "1"):
        probe = type("Asked", (), {"t": t, "question": "q", "answer": "a"})()
        with pytest.raises(InvalidArgumentError, match="must be a Probe"):
            guards.probe(probe, "probe", trace)


def test_a_probe_names_what_a_measure_needs_of_it(trace):
    bare = type("Asked", (), {"t": 1})()
    assert guards.probe(bare, "probe", trace, texts=()) is bare
    with pytest.raises(InvalidArgumentError, match=r"must be a Probe \(t: int, evidence_steps\)"):
        guards.probe(bare, "probe", trace, texts=(), needs=("evidence_steps",))


def test_a_probe_whose_attributes_fail_is_no_probe(trace):
    class Hostile:
        def __getattr__(self, name):
            raise RuntimeError(name)

    with pytest.raises(STMError, match="must be a Probe"):
        guards.probe(Hostile(), "probe", trace)
