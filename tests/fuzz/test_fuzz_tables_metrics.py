"""Fuzz stmviz.tables, stmviz.metrics and stmviz.exercises: junk gives a result or an STMError, never anything else."""

from __future__ import annotations

from functools import lru_cache

import pytest

from stmviz import FIFOWindow, Mechanism, metrics
from stmviz.core.mechanism import ExampleMechanism
from stmviz.exercises import check_priority_memory
from stmviz.scenarios import Probe, from_dialogue
from stmviz.tables import table

from _harness import Entry
from _run import fuzz, ids
from _traces import trace

fifo = lambda: trace("FIFOWindow")  # noqa: E731
fold = lambda: trace("AgentFold")  # noqa: E731


@lru_cache(maxsize=None)
def _scenario():
    turns = [f"turn {i}: the code word is w{i}" for i in range(6)]
    return from_dialogue(turns, v_max=80, probes=[Probe(t=4, question="code word?", answer="w0", evidence_step=0)])


def _table(records, columns, digits):
    """A table is only useful printed: build it, then render it both ways."""
    result = table(records, columns, digits)
    return str(result), result._repr_html_()


def _trace_table(width, limit):
    return fifo().table(width=width, limit=limit)


ENTRIES = [
    Entry("tables.table", _table, {"records": lambda: [{"mechanism": "fifo", "retention": 0.5, "ok": True},
                                                      {"mechanism": "scm", "retention": None}],
                                   "columns": lambda: ["mechanism", "retention"], "digits": lambda: 2}, max_examples=40),
    Entry("tables.table(to_records)", _table, {"records": lambda: fifo().to_records(), "columns": lambda: None,
                                               "digits": lambda: 3}, max_examples=30),
    Entry("Trace.table", _trace_table, {"width": lambda: 100, "limit": lambda: 5}, max_examples=40),
    Entry("Trace.describe", lambda t, width: fifo().describe(t, width), {"t": lambda: 2, "width": lambda: 80},
          max_examples=40),
    Entry("metrics.occupancy", metrics.occupancy, {"trace": fifo}, max_examples=20),
    Entry("metrics.prompt_tokens", metrics.prompt_tokens, {"trace": fifo}, max_examples=20),
    Entry("metrics.evictions", metrics.evictions, {"trace": fold}, max_examples=20),
    Entry("metrics.summarizer_calls", metrics.summarizer_calls, {"trace": fold}, max_examples=20),
    Entry("metrics.is_summary", metrics.is_summary, {"element": lambda: fold().final.ordered()[0],
                                                     "types": lambda: fold().mechanism}, max_examples=30),
    Entry("metrics.retention", metrics.retention, {"trace": fifo, "probes": lambda: list(_scenario().probes)},
          max_examples=40),
    Entry("metrics.summary", metrics.summary, {"trace": fifo, "probes": lambda: list(_scenario().probes)},
          max_examples=40),
    Entry("metrics.compare", metrics.compare, {"mechanisms": lambda: [FIFOWindow], "scenario": _scenario},
          max_examples=40),
    Entry("exercises.check_priority_memory", check_priority_memory, {"make": lambda: ExampleMechanism, "v_max": lambda: 24},
          max_examples=25),
]

assert issubclass(ExampleMechanism, Mechanism)


@pytest.mark.parametrize("entry", ENTRIES, ids=ids(ENTRIES))
def test_fuzz_tables_metrics(entry):
    fuzz(entry)
