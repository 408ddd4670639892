"""The examples that used to sit in the docstrings of space.py, operation.py and model_input.py (issue 24).

The paper modules keep one short example each; every other example moved here, checked as before.
"""

import pytest

from stmviz import Element, Message, ModelInput, Operation, OperationSet, State, StateSpace, sizes
from stmviz.errors import CapacityError


# -- space.py: State ------------------------------------------------------------


def test_a_state_is_a_set_in_canonical_order():
    a, b = Element("first", {"t": 1}), Element("second", {"t": 2})
    assert State([b, a]) == State([a, b])
    assert [e.text for e in State([b, a])] == ["first", "second"]
    assert len(State()) == 0
    assert (State([a]) | {b}) - {a} == State([b])


def test_replace_is_remove_then_add():
    a, b, c = (Element(x, {"t": i}) for i, x in enumerate("abc"))
    assert [e.text for e in State([a, b]).replace([a], [c])] == ["b", "c"]


def test_where_selects_by_metadata():
    s = State([Element("a", {"t": 1, "type": "block"}), Element("b", {"t": 2, "type": "latest"})])
    assert [e.text for e in s.where(type="block")] == ["a"]


# -- space.py: StateSpace ---------------------------------------------------------


def test_a_state_space_measures_and_decides_membership():
    space = StateSpace(sizes.words, v_max=5)
    omega = State([Element("one two three", {"t": 0}), Element("four five", {"t": 1})])
    assert (space.size(omega), space.free(omega), omega in space) == (5, 0, True)
    assert (omega | {Element("six", {"t": 2})} in space) is False
    with pytest.raises(CapacityError) as info:
        space.check(omega | {Element("six", {"t": 2})})
    assert str(info.value) == "state exceeds capacity: Σμ = 6 > V_max = 5 (over by 1); evict elements or raise v_max"


# -- operation.py -------------------------------------------------------------------


def test_an_operation_is_a_value():
    o = Operation("consolidate", {"start": 3, "end": 7}, reason="steps 3–7 finished one sub-task")
    assert (o.type, o["start"], o.get("missing", 0)) == ("consolidate", 3, 0)
    assert o == Operation("consolidate", {"end": 7, "start": 3}, reason="steps 3–7 finished one sub-task")


def test_an_operation_set_groups_by_type():
    O = OperationSet({"append": "add the new message", "evict": "drop the oldest message"})
    assert list(O.types) == ["append", "evict"]
    assert (Operation("append") in O, Operation("fold") in O) == (True, False)


# -- model_input.py -------------------------------------------------------------------


def test_a_message_in_the_chat_format():
    assert Message("user", "Hi").to_dict() == {"role": "user", "content": "Hi"}


def test_a_model_input_from_what_pi_returned():
    assert ModelInput.coerce("Hello").text() == "Hello"
    x = ModelInput.coerce([{"role": "system", "content": "Be brief."}, "Hi"])
    assert x.to_messages() == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    assert x.text() == "Be brief.\n\nHi" and len(x) == 2 and x[1] == Message("user", "Hi")
    assert hash(x) == hash(ModelInput(list(x))) and x == ModelInput(list(x))
