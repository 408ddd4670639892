"""Tables show as much as the caller asks (width), never cut the why column, and say "1 step", not "1 steps"."""

from __future__ import annotations

import pytest

from stmviz import StateSpace, run, sizes
from stmviz.core.errors import CapacityError, InvalidArgumentError
from stmviz.core.formatting import plural
from stmviz.core.mechanism import ExampleMechanism
from stmviz.mechanisms.fifo import FIFOWindow
from stmviz.tables import Table, table

LONG = "Observation: the parcel BH-58213-K left the depot at 06:05 and reached ParcelWise Hollinsby"


@pytest.fixture()
def trace():
    steps = [LONG, "Observation: a short one", "Observation: another long text that pushes the first one out of ω"]
    return run(ExampleMechanism(StateSpace(sizes.words, v_max=20)), steps)


def test_width_zero_or_none_shows_whole_texts(trace):
    for width in (0, None):
        text = trace.table(width=width)
        assert f"'{LONG}'" in text  # the whole element text, not 'Observation: …'


def test_width_cuts_each_element_text_to_the_callers_width(trace):
    text = trace.table(width=20)
    assert "'Observation: the pa…'" in text and LONG not in text
    assert "'Observation: the parcel BH" in trace.table(width=30)


def test_the_why_column_is_never_cut(trace):
    why = "; ".join(trace[2].reasons)
    assert len(why) > 20
    assert why in trace.table(width=5)


def test_limit_and_bad_arguments(trace):
    assert len(trace.table(limit=1).splitlines()) == 4  # header (two lines), rule, one step
    for bad in (-1, 2.5, True, "wide"):
        with pytest.raises(InvalidArgumentError, match="width"):
            trace.table(width=bad)
    with pytest.raises(InvalidArgumentError, match="limit"):
        trace.table(limit=-2)


def test_records_width(trace):
    assert LONG in trace.to_records(width=0)[0]["added"]
    assert LONG not in trace.to_records()[0]["added"]  # the default stays a short label
    assert trace.to_records(width=12)[0]["added"].endswith("'Observation…'")


def test_table_width_cuts_cells_but_not_the_explaining_columns():
    rows = [{"text": LONG, "why": LONG + " why", "explanation": LONG + " explained", "n": 3}]
    whole = str(table(rows))
    assert LONG + " why" in whole and LONG + " explained" in whole and f"{LONG}  " in whole
    cut = table(rows, width=10)
    text = str(cut)
    assert "Observati…" in text and LONG + " why" in text and LONG + " explained" in text
    page = cut._repr_html_()
    assert "Observati…" in page and LONG + " why" in page
    with pytest.raises(InvalidArgumentError, match="width"):
        Table(rows, width=-1)


def test_table_cells_are_one_line_in_text_and_escaped_in_html():
    rows = [{"text": "<b>two\nlines</b>", "why": "a\nb"}]
    assert "<b>two lines</b>" in str(table(rows))
    page = table(rows)._repr_html_()
    assert "<b>two" not in page and "&lt;b&gt;two" in page


def test_plural_and_singular_in_text_outputs():
    assert plural(1, "element") == "1 element" and plural(2, "element") == "2 elements"
    one = run(ExampleMechanism(StateSpace(sizes.words, v_max=20)), ["hello"])
    assert "1 step," in repr(one) and "1 steps" not in repr(one)
    assert "(1 token)" in one.describe(1)
    two = run(ExampleMechanism(StateSpace(sizes.words, v_max=20)), ["hello", {"thought": "hi", "observation": "you"}])
    assert "(1 token)" in two[1].describe()


def test_fifo_says_the_room_of_the_window_sensibly():
    steps = [{"observation": "one two three four five six seven eight nine ten eleven"}]
    with pytest.raises(CapacityError) as bare:
        run(FIFOWindow(StateSpace(sizes.words, 8)), steps)
    assert "(V_max = 8, nothing pinned)" in str(bare.value) and "Σμ(pinned)" not in str(bare.value)
    with pytest.raises(CapacityError) as pinned:
        run(FIFOWindow(StateSpace(sizes.words, 8), system="Be brief please."), steps)
    assert "V_max − Σμ(pinned) = 8 − 3 = 5" in str(pinned.value)
