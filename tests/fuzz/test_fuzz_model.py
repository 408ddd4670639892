"""Fuzz the objects of Definition 1 and the reading of a trace: junk gives a result or an STMError.

Elements, contexts, run() and the mechanisms are fuzzed in ``test_fuzz_core.py``
(other branches fix what fails there); this module covers the rest of the core:
states, state spaces and μ, operations, model inputs, and ``Trace.state_at`` /
``project`` / ``size_at``.
"""

from __future__ import annotations

import pytest

from stmviz import Element, Operation, State, StateSpace, sizes
from stmviz.core.model_input import Message, ModelInput

from _harness import Entry
from _run import fuzz, ids
from _traces import trace

fifo = lambda: trace("FIFOWindow")  # noqa: E731
words = lambda: StateSpace(sizes.words, v_max=20)  # noqa: E731

ENTRIES = [
    Entry("State", State, {"elements": lambda: [Element("a"), Element("b")]}, max_examples=40),
    Entry("StateSpace", StateSpace, {"size": lambda: "tokens", "v_max": lambda: 100}, max_examples=50),
    Entry("StateSpace.measure", lambda element: words().measure(element), {"element": lambda: Element("a b")},
          max_examples=30),
    Entry("sizes.tokens", sizes.tokens, {"encoding": lambda: "cl100k_base", "overhead": lambda: 0}, max_examples=30),
    Entry("sizes.count_tokens", sizes.count_tokens, {"text": lambda: "hello", "encoding": lambda: "cl100k_base"},
          max_examples=30),
    Entry("Operation", Operation, {"type": lambda: "append", "params": lambda: {"k": 1}, "reason": lambda: "why"},
          max_examples=40),
    Entry("Message", Message, {"role": lambda: "user", "content": lambda: "hi", "name": lambda: None}, max_examples=30),
    Entry("ModelInput", ModelInput, {"messages": lambda: [Message("user", "hi")]}, max_examples=30),
    Entry("Trace.state_at", lambda t: fifo().state_at(t), {"t": lambda: 3}, max_examples=30),
    Entry("Trace.project", lambda t: fifo().project(t), {"t": lambda: 3}, max_examples=30),
    Entry("Trace.size_at", lambda t: fifo().size_at(t), {"t": lambda: 3}, max_examples=30),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=ids(ENTRIES))
def test_fuzz_model(entry):
    fuzz(entry)
