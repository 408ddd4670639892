"""Fuzz the core (Definitions 1 and 2), run(), the mechanisms and the file loaders and savers.

These entry points belong to the parts of issue 17 that other branches fix
(A: Element metadata, Context and run() arguments, trace JSON, files; B: the
mechanism constructors, make_mechanism, check_mechanism). Their failing cases
here are the regression tests those branches must turn green: this module is
expected to fail until they are merged.
"""

from __future__ import annotations

import atexit
import json
import math
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

from stmviz import (
    SCM,
    AgentFold,
    AgentStep,
    Context,
    Element,
    FIFOWindow,
    HiAgent,
    Scenario,
    State,
    StateSpace,
    Trace,
    check_mechanism,
    load_scenario,
    make_mechanism,
    run,
    sizes,
)
from stmviz.errors import STMError
from stmviz.core.context import History
from stmviz.core.mechanism import ExampleMechanism
from stmviz.scenarios import from_dialogue, load_chat_log

from _harness import Entry, inside
from _run import fuzz, ids
from _traces import steps, trace

_TOP = Path(tempfile.mkdtemp(prefix="stmviz-fuzz-core-")).resolve()
atexit.register(shutil.rmtree, _TOP, True)
SANDBOX = _TOP / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "h"
SANDBOX.mkdir(parents=True)
(SANDBOX / "chat.json").write_text('[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]')

fifo = lambda: trace("FIFOWindow")  # noqa: E731
space = lambda: StateSpace(sizes.tokens(), v_max=120)  # noqa: E731
words = lambda: StateSpace(sizes.words, v_max=20)  # noqa: E731


def _in_language(lang):
    import stmviz
    from stmviz.core.i18n import gettext

    with stmviz.language(lang):
        text = gettext("hint: {hint}")
    assert stmviz.get_language() == "en", "the language block did not restore English"
    return text


def _export(title):
    from stmviz.viz import export_html

    return export_html(trace("FIFOWindow"), "page.html", title=title)


def _round_trip(value):
    """An element whose metadata holds ``value``, through a trace's JSON and back."""
    initial = State([Element("pinned fact", {"t": -1, "k": value})])
    text = run(ExampleMechanism(StateSpace(sizes.words, v_max=20)), ["a b"], initial=initial).to_json()
    return Trace.from_json(text)


class Keeper(ExampleMechanism):
    """A mechanism that holds a defaultdict (the issue: check_mechanism crashed on it)."""

    def __init__(self, space):
        super().__init__(space)
        self.seen = defaultdict(list)


#: the hostile inputs the issue names, tried every run (lone surrogate, NaN / Element / 5,000-digit int in metadata,
#: deep JSON nesting, 400-digit numbers, bytes that are not UTF-8)
SURROGATE = "cut \ud83d"
HOSTILE_JSON = ("[" * 100_000, '{"format": "stmviz-trace", "version": 1, "v_max": 1' + "0" * 400 + "}",
                b"\xff\xfe{}", b'{"a": "\xed\xa0\xbd"}')


def _no_fd(check):
    """Junk paths minus whole numbers: open(0) reads this process's stdin, open(True) writes and closes its stdout.

    That a file function takes a number as a file descriptor is itself a bug (test_no_file_function_takes_a_descriptor
    tries it on a pipe); the random cases must not close the test run's own streams.
    """
    import operator

    def ok(value):
        try:
            operator.index(value)
        except Exception:
            return check(value)
        return False

    return ok


def _update(state, operation, context):
    return state | {Element(context.observation or "-", {"t": context.t})}


ENTRIES = [
    # Definition 1
    Entry("Element", Element, {"content": lambda: "the user is Ada", "meta": lambda: {"t": 0, "type": "user"}},
          max_examples=30),
    Entry("Element(meta value)", lambda value: Element("x", {"t": 1, "k": value}).id, {"value": lambda: 1},
          max_examples=30),
    Entry("Element metadata → trace JSON → Trace", _round_trip, {"value": lambda: 1}, max_examples=30,
          cases=({"value": lambda: math.nan}, {"value": lambda: Element("inner")}, {"value": lambda: 10**5000},
                 {"value": lambda: SURROGATE})),
    # Definition 2
    Entry("AgentStep", AgentStep, {"thought": lambda: "t", "action": lambda: "a", "observation": lambda: "o",
                                   "directives": lambda: {}, "meta": lambda: {"priority": "high"}}, max_examples=30),
    Entry("Context", Context, {"t": lambda: 0, "step": lambda: AgentStep(observation="o"), "query": lambda: "q",
                               "tools": lambda: ("search",), "history": lambda: History(), "meta": lambda: {}},
          max_examples=30),
    # the language of what a student reads: any junk is refused, and the language before it is back after the block
    Entry("language", _in_language, {"lang": lambda: "ru"}, max_examples=30,
          cases=({"lang": lambda: "RU"}, {"lang": lambda: "ru\x00"}, {"lang": lambda: ["ru"]})),
    Entry("make_mechanism", lambda space, operations, update, name: make_mechanism(
        space, operations=operations, update=update, name=name),
        {"space": words, "operations": lambda: ["append"], "update": lambda: _update, "name": lambda: "m"},
        max_examples=30),
    Entry("run", lambda mechanism, steps, query, tools, meta, checkpoint_every: run(
        mechanism, steps, query=query, tools=tools, meta=meta, checkpoint_every=checkpoint_every),
        {"mechanism": lambda: ExampleMechanism(words()), "steps": lambda: ["one two", "three"], "query": lambda: "q",
         "tools": lambda: ["search"], "meta": lambda: {"k": 1}, "checkpoint_every": lambda: 4}, max_examples=30),
    Entry("run(step)", lambda step: run(FIFOWindow(space()), [AgentStep(observation="a"), step]),
          {"step": lambda: AgentStep(observation="b")}, max_examples=30),
    Entry("check_mechanism", lambda mechanism, steps, query, tools: check_mechanism(
        mechanism, steps, query=query, tools=tools),
        {"mechanism": lambda: ExampleMechanism(words()), "steps": lambda: None, "query": lambda: "q",
         "tools": lambda: ["search"]}, max_examples=30, cases=({"mechanism": lambda: Keeper(words())},)),
    # Trace
    Entry("Trace.to_json", lambda indent: fifo().to_json(indent=indent), {"indent": lambda: 2}, max_examples=20),
    Entry("Trace.save", lambda path: fifo().save(path), {"path": lambda: "t.json"}, only={"path": _no_fd(inside(SANDBOX))},
          max_examples=30),
    Entry("Trace.save(content)", lambda text: run(FIFOWindow(space()), [text]).save("content.json"),
          {"text": lambda: "hello"}, only={"text": lambda v: isinstance(v, str)}, max_examples=20,
          cases=({"text": lambda: SURROGATE},)),
    Entry("Trace.from_json", Trace.from_json, {"text": lambda: fifo().to_json(), "mechanism": lambda: None},
          max_examples=30, cases=tuple({"text": lambda h=h: h} for h in HOSTILE_JSON)),
    Entry("Scenario.from_json(hostile JSON)", Scenario.from_json, {"text": lambda: load_scenario("tool_chat").to_json()},
          only={"text": lambda v: isinstance(v, (str, bytes))}, max_examples=20,
          cases=tuple({"text": lambda h=h: h} for h in HOSTILE_JSON)),
    Entry("Trace.to_json(step meta)", lambda value: run(FIFOWindow(space()), [AgentStep(observation="a", meta={
        "k": value})]).to_json(), {"value": lambda: 1}, max_examples=30,
        cases=({"value": lambda: math.nan}, {"value": lambda: Element("inner")}, {"value": lambda: 10**5000})),
    # the mechanisms of Section 4
    Entry("FIFOWindow", lambda space, system, pinned, keep_tool_pairs, oversize: FIFOWindow(
        space, system=system, pinned=pinned, keep_tool_pairs=keep_tool_pairs, oversize=oversize),
        {"space": space, "system": lambda: "be brief", "pinned": lambda: (), "keep_tool_pairs": lambda: True,
         "oversize": lambda: "error"}, max_examples=30),
    Entry("SCM", lambda space, k, flash_size, ranking, recency_weight, flash_threshold, summary_budget, recency_decay: SCM(
        space, k=k, flash_size=flash_size, ranking=ranking, recency_weight=recency_weight,
        flash_threshold=flash_threshold, summary_budget=summary_budget, recency_decay=recency_decay),
        {"space": space, "k": lambda: 3, "flash_size": lambda: 1, "ranking": lambda: "relevance",
         "recency_weight": lambda: 0.5, "flash_threshold": lambda: 500, "summary_budget": lambda: 64,
         "recency_decay": lambda: 0.99}, max_examples=30),
    Entry("HiAgent", lambda space, summary_budget, keep_pairs, subgoal_every: HiAgent(
        space, summary_budget=summary_budget, keep_pairs=keep_pairs, subgoal_every=subgoal_every),
        {"space": space, "summary_budget": lambda: 64, "keep_pairs": lambda: None, "subgoal_every": lambda: None},
        max_examples=30),
    Entry("AgentFold", lambda space, block_budget, controller_rule, share, max_blocks: AgentFold(
        space, block_budget=block_budget, controller_rule=controller_rule, share=share, max_blocks=max_blocks),
        {"space": space, "block_budget": lambda: 48, "controller_rule": lambda: "lsm", "share": lambda: 0.5,
         "max_blocks": lambda: 12}, max_examples=30),
    Entry("mechanism.run(steps)", lambda mechanism, steps: run(mechanism, steps),
          {"mechanism": lambda: AgentFold(space()), "steps": lambda: steps(3)}, fuzz=("steps",), max_examples=30),
    # files
    Entry("load_scenario(path)", load_scenario, {"name_or_path": lambda: "tool_chat"},
          only={"name_or_path": _no_fd(inside(SANDBOX))}, max_examples=30),
    Entry("load_chat_log", lambda path, name: load_chat_log(path, name), {"path": lambda: "chat.json",
                                                                         "name": lambda: None},
          only={"path": _no_fd(inside(SANDBOX))}, max_examples=30),
    Entry("export_html(title)", lambda title: _export(title), {"title": lambda: "run <1>"}, max_examples=30,
          cases=({"title": lambda: SURROGATE},)),
    Entry("Scenario.to_json(indent)", lambda indent: load_scenario("tool_chat").to_json(indent=indent),
          {"indent": lambda: 2}, max_examples=20),
    Entry("Scenario.to_json(path)", lambda path: load_scenario("tool_chat").to_json(path), {"path": lambda: "s.json"},
          only={"path": _no_fd(inside(SANDBOX))}, max_examples=20),
]


@pytest.mark.parametrize("entry", ENTRIES, ids=ids(ENTRIES))
def test_fuzz_core(entry, monkeypatch):
    monkeypatch.chdir(SANDBOX)
    fuzz(entry)


def test_a_failed_save_keeps_the_old_file():
    """The issue: a trace holding half an emoji could not be saved, and the failed save left t.json at 0 bytes."""
    target = SANDBOX / "kept.json"
    target.write_text('{"old": true}', encoding="utf-8")
    trace = run(FIFOWindow(space()), from_dialogue([SURROGATE, "ok"]))
    try:
        trace.save(target)
    except STMError:
        assert json.loads(target.read_text(encoding="utf-8")) == {"old": True}
    else:
        assert Trace.load(target).final == trace.final


@pytest.mark.parametrize("kwargs", [{"tools": "search"}, {"query": 123}, {"checkpoint_every": 1.5}])
def test_run_takes_no_bad_argument_silently(kwargs):
    """The issue: tools="search" became six one-letter tools; query=123 saved a trace that could not be read back."""
    try:
        trace = run(ExampleMechanism(words()), ["a b", "c"], **kwargs)
    except STMError:
        return
    assert trace.tools in ((), ("search",)) and isinstance(trace.query, str)
    assert Trace.from_json(trace.to_json()).final == trace.final
    trace.state_at(1)


@pytest.mark.parametrize("call", [
    lambda fd: trace("FIFOWindow").save(fd),
    lambda fd: trace("FIFOWindow").to_json(fd),
    lambda fd: load_scenario("tool_chat").to_json(fd),
    lambda fd: Trace.load(fd),
    lambda fd: load_chat_log(fd),
    lambda fd: load_scenario(fd),
], ids=["Trace.save", "Trace.to_json", "Scenario.to_json", "Trace.load", "load_chat_log", "load_scenario"])
def test_no_file_function_takes_a_descriptor(call):
    """A path that is a number is refused, not opened as a file descriptor (here one end of a pipe of our own)."""
    import os

    read_end, write_end = os.pipe()
    os.close(write_end)  # a read then sees end of file at once: nothing here can block
    try:
        with pytest.raises(STMError):
            call(read_end)
    finally:
        try:
            os.close(read_end)
        except OSError:
            pass
