"""The examples that the docstrings of :mod:`stmviz.core.trace` used to carry, as tests.

The loop's module keeps one example (``run``); these were moved here when the
reading helpers of ``Step`` and ``Trace`` left the module for a while (issue 24), so
no example's check is lost; since issue 32 the methods are back in ``Trace`` and ``Step``.
"""

from __future__ import annotations

from stmviz import StateSpace, run, sizes
from stmviz.core.mechanism import ExampleMechanism


def test_step_describe_says_the_output_then_the_input():
    trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=50)), [
        {"observation": "Hi, my code is 7391.", "meta": {"role": "user"}},
        {"thought": "Noted.", "observation": "What is my code?", "meta": {"role": "user"}},
        {"thought": "It is 7391."}])
    assert trace[0].describe() == (
        "step 0: no model call at this step: the user spoke first; "
        "then arrived the user message “Hi, my code is 7391.”, seen from π(ω_1) on"
    )
    assert trace[1].describe() == (
        "step 1: the model saw π(ω_1) (9 tokens) and answered “Noted.”; "
        "then arrived the user message “What is my code?”, seen from π(ω_2) on"
    )
    assert trace[2].describe() == (
        "step 2: the model saw π(ω_2) (17 tokens) and answered “It is 7391.”; no input arrived after it"
    )


def test_trace_describe_at_n_is_the_final_state():
    trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=50)), [{"thought": "Hello.", "observation": "Hi!"}])
    assert trace.describe(1) == "ω_1 is the final state: the next model call would see π(ω_1) (4 tokens)"


def test_trace_table_cuts_the_element_texts_to_width():
    trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two three", "four five"])
    assert trace.table(width=8) == "\n".join([
        "t  operation  Σμ / V_max:  added       removed     why",
        "              ω_t → ω_t+1",
        "─  ─────────  ───────────  ──────────  ──────────  ─────────────────────────────────",
        "0  append     0 → 3 / 4    'one two…'  —           —",
        "1  append     3 → 2 / 4    'four fi…'  'one two…'  oldest element; Σμ exceeded V_max",
    ])


def test_trace_table_row_t_names_the_state_the_chart_shows_at_t_and_the_next():
    """Row t of the table is step t: Σμ(ω_t), the value the occupancy chart shows at t, then Σμ(ω_{t+1})."""
    trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two three", "four five"])
    rows = trace.table(width=8).splitlines()[3:]
    for t, row in enumerate(rows):
        assert row.split()[2:5] == [str(trace.size_at(t)), "→", str(trace.size_at(t + 1))], row


def test_run_keeps_what_fits_and_says_why_the_rest_left():
    trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    assert len(trace) == 3 and [e.text for e in trace.final] == ["three", "four five"]
    assert trace[2].reasons == ("oldest element; Σμ exceeded V_max",)


def test_text_table_of_rows_without_cells():
    """A table of no columns prints as it did before cells could hold several lines (tables.table([]) broke)."""
    from stmviz.core.formatting import text_table
    from stmviz.tables import table

    assert text_table([[]]) == "\n" and str(table([], None, 3)) == "\n"
