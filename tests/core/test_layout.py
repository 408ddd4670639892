"""The core reads next to the paper: one module per symbol, plain definitions, STMErrors."""

import importlib
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import AgentStep, Element, History, State
from stmviz.core.element import element_id, order_key
from stmviz.errors import ElementNotFoundError, InvalidArgumentError, STMError

#: paper symbol → (module, the names it holds)
HOMES = {
    "e = (i, d) ∈ E = I × D": ("element", ["Element", "Meta", "ImagePart", "AudioPart"]),
    "μ : E → ℝ⁺": ("sizes", ["tokens", "chars", "words", "image_tokens", "part_tokens"]),
    "ω, Ω_STM, V_max": ("space", ["State", "StateSpace"]),
    "O = ⋃ O_a": ("operation", ["Operation", "OperationType", "OperationSet"]),
    "c ∈ C": ("context", ["Context", "AgentStep", "History"]),
    "x ∈ X": ("model_input", ["ModelInput", "Message"]),
    "(O, E, Ω, C, U, X, π)": ("mechanism", ["Mechanism", "Transition", "make_mechanism"]),
    "the contract": ("stmviz.contract", ["check_mechanism", "CheckReport", "CheckResult", "sample_steps"]),
    "Figure 1's loop": ("trace", ["run", "Step", "Trace"]),
    "the trace's JSON": ("stmviz.io.serialize", ["trace_to_dict", "trace_from_json", "TRACE_VERSION"]),
}


@pytest.mark.parametrize("symbol", list(HOMES))
def test_each_paper_symbol_has_its_module(symbol):
    module_name, names = HOMES[symbol]
    module = importlib.import_module(module_name if "." in module_name else f"stmviz.core.{module_name}")
    assert module.__doc__ and len(module.__doc__.split()) > 20, f"{module_name} opens with the paper's words"
    for name in names:
        obj = getattr(module, name)
        assert getattr(obj, "__module__", module.__name__) == module.__name__, f"{name} lives in {module_name}"
        assert name in module.__all__


def test_public_names_keep_their_homes_in_stmviz_and_stmviz_core():
    import stmviz
    import stmviz.core

    for name in stmviz.core.__all__:
        assert getattr(stmviz, name) is getattr(stmviz.core, name)


@pytest.mark.parametrize(
    "first", ["import stmviz.sizes", "import stmviz.core.sizes", "from stmviz.errors import STMError", "import stmviz"]
)
def test_stmviz_sizes_and_errors_are_the_core_modules_whatever_the_import_order(first):
    code = (
        f"{first}\n"
        "import stmviz.sizes, stmviz.errors, stmviz.core.sizes, stmviz.core.errors, sys\n"
        "assert stmviz.sizes is stmviz.core.sizes and stmviz.errors is stmviz.core.errors\n"
        "from stmviz.errors import STMError\n"
        "assert STMError is stmviz.core.errors.STMError\n"
        "assert 'plotly' not in sys.modules\n"
        "assert callable(stmviz.export_html) and 'plotly' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_core_does_not_import_the_figures():
    code = "import stmviz.core, sys; assert not [m for m in sys.modules if m.startswith(('stmviz.viz', 'stmviz.widgets'))]"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_shared_shorten_is_not_re_exported_by_the_errors():
    import stmviz.core.errors

    assert not hasattr(stmviz.core.errors, "shorten")


# -- the element: plain definitions ------------------------------------------

texts = st.text(max_size=12)
metas = st.dictionaries(st.sampled_from(["t", "type", "role", "priority"]), st.integers(-3, 3) | st.text(max_size=3), max_size=3).filter(
    lambda m: not isinstance(m.get("t", 0), str)  # Element refuses a t that is not a finite number (issue 17)
)


@settings(max_examples=100, deadline=None)
@given(texts, metas)
def test_the_hash_kept_on_an_element_is_the_plain_one(content, meta):
    e = Element(content, meta)
    assert hash(e) == hash((e.content, e.meta)) == hash(Element(content, dict(meta)))


@settings(max_examples=100, deadline=None)
@given(texts, metas)
def test_the_order_key_is_time_then_id(content, meta):
    e = Element(content, meta)
    t = meta.get("t")
    expected = (0, t, element_id(e)) if isinstance(t, int) else (1, 0, element_id(e))
    assert order_key(e) == expected and e.id == element_id(e) and len(e.id) == 12


# -- the state: a set -----------------------------------------------------------

pool = [Element(f"e{i}", {"t": i % 4}) for i in range(10)]
subsets = st.sets(st.sampled_from(pool))


@settings(max_examples=150, deadline=None)
@given(subsets, subsets)
def test_state_algebra_is_frozenset_algebra(a, b):
    A, B = frozenset(a), frozenset(b)
    sa = State(a)
    assert (sa | b).elements == A | B
    assert (sa - b).elements == A - B
    assert (sa & b).elements == A & B
    assert sa.replace(b, a).elements == (A - B) | A
    assert (sa <= State(b)) == (A <= B) and (sa >= State(b)) == (A >= B)
    assert sa.filter(lambda e: e.t == 1).elements == frozenset(e for e in A if e.t == 1)
    assert (sa == State(b)) == (A == B) and (hash(sa) == hash(State(b))) >= (A == B)
    assert list(sa | b) == sorted(A | B, key=order_key)


def test_by_id_raises_an_stm_error_that_is_a_key_error():
    state = State(pool)
    assert state.by_id(pool[3].id[:8]) is pool[3]
    with pytest.raises(ElementNotFoundError, match="no element") as info:
        state.by_id("zzzz")
    assert isinstance(info.value, KeyError) and isinstance(info.value, STMError)
    with pytest.raises(KeyError):
        state.by_id("")  # every id starts with '': more than one match


# -- the context: History.steps() --------------------------------------------------


def test_history_steps_is_the_shared_record_of_the_run():
    record = [AgentStep(observation="a"), AgentStep(observation="b")]
    early, late = History(record, 1), History(record, 2)
    assert early.steps() is late.steps() is record
    assert list(early) == record[:1] and list(late) == record
    with pytest.raises(IndexError):
        early[1]


def test_bad_arguments_of_the_loop_are_invalid_argument_errors():
    from stmviz import ModelInput, StateSpace, Trace, check_mechanism, run, sizes
    from stmviz.core.mechanism import ExampleMechanism

    with pytest.raises(InvalidArgumentError, match="StateSpace"):
        ExampleMechanism("not a space")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="Mechanism"):
        run("not a mechanism", [])  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="single string"):
        run(ExampleMechanism(StateSpace(sizes.words, 5)), "one step")
    with pytest.raises(InvalidArgumentError, match="Mechanism"):
        check_mechanism(object())  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="model input"):
        ModelInput.coerce(5)
    with pytest.raises(InvalidArgumentError, match="checkpoint_every"):
        run(ExampleMechanism(StateSpace(sizes.words, 5)), ["a"], checkpoint_every=0)
    assert issubclass(InvalidArgumentError, TypeError) and not hasattr(Trace, "to_html")
