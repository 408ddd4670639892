"""Fuzz the surface added since issue 17 (issue 33): importers, benchmark loaders, generators, sweep(), metrics,
forgetting, LoCoMo scoring, the CLI's replay, the recorded-compaction marks and the placement figure.

The issue's own hostile inputs are explicit ``cases`` of their entry points: JSON nested thousands deep inside a
string field (OTel message attributes, infer.py's ``<tool_call>`` and ``<compress>``), huge integers, NaN and
infinity as V_max, hand-edited recorded-compaction metadata, options of the wrong type read by truthiness, a
device file or a named pipe given to a loader, executors that misbehave.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path

import pytest

from stmviz import AgentStep, ClearToolUses, FIFOWindow, StateSpace, run, sizes
from stmviz import forgetting, locomo_eval, metrics
from stmviz.scenarios import (
    detect_format,
    from_locomo,
    from_longmemeval,
    from_transcript,
    generate_agent,
    generate_dialogue,
    load_locomo,
    load_longmemeval,
    load_transcript,
)
from stmviz.scenarios.agentfold_log import from_infer_trajectory
from stmviz.scenarios.transcripts import RecordedCompaction, recorded_compactions
from stmviz.sweep import sweep

from _harness import BadEverything, BadMapping, BadRepr, Entry, inside
from _run import fuzz, params

FIXTURES = Path(__file__).resolve().parents[1] / "scenarios" / "fixtures"
SANDBOX = Path(os.environ.get("STMVIZ_FUZZ_SANDBOX", "/tmp")) / "stmviz-fuzz-g2" / "a" / "b" / "c" / "d" / "e" / "f" / "g"
SANDBOX.mkdir(parents=True, exist_ok=True)

DEEP = 5000  # JSON nested this deep inside a string field


def deep_json(depth: int = DEEP) -> str:
    return "[" * depth + "]" * depth


def _json(name: str):
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _locomo_text() -> str:
    return (FIXTURES / "locomo_small.json").read_text(encoding="utf-8")


def locomo():
    return json.loads(_locomo_text())


def longmemeval():
    return _json("longmemeval_small.json")


def otel():
    return _json("transcripts/otel_otlp.json")


def otel_deep():
    doc = otel()
    attrs = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"]
    for a in attrs:
        if a["key"] == "gen_ai.input.messages":
            a["value"]["stringValue"] = deep_json()
    return doc


def infer_traj() -> str:
    line = (FIXTURES / "agentfold_infer_small.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return json.loads(line)["full_traj"]


def infer_deep(tag: str) -> str:
    return infer_traj().replace(f"<{tag}>{{", f"<{tag}>{'[' * DEEP}{{", 1)


# ----------------------------------------------------------------------------- special files


def special_file(kind: str) -> str:
    """A path to a device (/dev/zero: endless bytes) or a named pipe nobody writes to (a read would block)."""
    if kind == "device":
        return "/dev/zero"
    path = SANDBOX / "pipe.json"
    if not path.exists():
        os.mkfifo(path)
    return str(path)


def file_of(text: str, name: str) -> str:
    path = SANDBOX / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# ----------------------------------------------------------------------------- executors that misbehave


class HostileUserError(Exception):
    """A user's own error, with a two-argument __init__ (type(exc)(msg) cannot rebuild it)."""

    def __init__(self, code: int, why: str) -> None:
        super().__init__(f"{code}: {why}")
        self.code = code


class RaisingSubmit(Executor):
    def submit(self, fn, /, *args, **kwargs):
        raise HostileUserError(7, "the cluster is down")


class NoneSubmit(Executor):
    def submit(self, fn, /, *args, **kwargs):
        return None


class FailingFutures(Executor):
    def submit(self, fn, /, *args, **kwargs):
        future: Future = Future()
        future.set_exception(HostileUserError(9, "worker lost"))
        return future


def shut_pool() -> Executor:
    pool = ThreadPoolExecutor(1)
    pool.shutdown()
    return pool


def failing_factory(space, **kwargs):
    raise HostileUserError(3, "my factory failed")


class TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(f"{a} {b}")


def two_arg_stm_factory(space, **kwargs):
    from stmviz.errors import CapacityError

    class MyCapacityError(CapacityError):
        def __init__(self, a, b):
            super().__init__(f"{a} {b}")

    raise MyCapacityError("custom", "error")


# ----------------------------------------------------------------------------- valid arguments


def small_scenario():
    return generate_dialogue(12, facts=2, seed=1)


@lru_cache(maxsize=None)
def _trace():
    s = small_scenario()
    return run(FIFOWindow(StateSpace(sizes.words, 60)), s), s


def trace():
    return _trace()[0]


def probes():
    return list(_trace()[1].probes)


def probe():
    return _trace()[1].probes[0]


def odd_probe(step):
    """A probe-like object (not a Probe, which refuses it) whose evidence step is ``step``."""
    from types import SimpleNamespace

    return SimpleNamespace(t=3, question="where?", answer="PW769074391", evidence_step=step, evidence_steps=(step,),
                           reference=None, reference_answer="PW769074391")


def replay(source, mechanism, v_max, format):
    """The CLI's replay: its exit status and output (argparse's usage error, exit status 2, is a clear refusal)."""
    from stmviz.cli import main

    argv = ["replay", source, "--mechanism", mechanism, "--v-max", v_max]
    if format is not None:
        argv += ["--format", format]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            if exc.code != 2:
                raise
            code = 2
    if "Traceback" in err.getvalue():
        raise AssertionError(f"a traceback on stderr: {err.getvalue()[-300:]}")
    return code


def figure():
    import plotly.graph_objects as go

    return go.Figure(go.Scatter(x=[0, 1, 2], y=[1, 2, 3]))


def mark(figure, compactions):
    from stmviz.viz.recorded import mark_recorded_compactions

    return mark_recorded_compactions(figure, compactions)


def mark_one(t, system, trigger, pre_tokens, summary):
    return mark(figure(), [RecordedCompaction(t=t, system=system, trigger=trigger, pre_tokens=pre_tokens, summary=summary)])


def compaction_steps(event):
    return [AgentStep(observation="hello"), AgentStep(thought="hi", meta={"recorded_compaction": [event]})]


def marks_of_meta(event):
    from stmviz.viz.recorded import mark_recorded_compactions

    return mark_recorded_compactions(figure(), recorded_compactions(compaction_steps(event)))


def placement(mechanisms, title):
    from stmviz.viz.placement import placement_figure

    return placement_figure(mechanisms, title=title)


def good_event():
    return {"t": 1, "system": "Claude Code", "trigger": "auto", "pre_tokens": 1611, "summary": "s", "where": "line 3"}


SANDBOXED = inside(SANDBOX)

ENTRIES = [
    # ------------------------------------------------------------------ importers
    Entry("from_infer_trajectory", lambda full_traj, name, question, reference, v_max: from_infer_trajectory(
        full_traj, name, question=question, reference=reference, v_max=v_max),
        {"full_traj": infer_traj, "name": lambda: "run", "question": lambda: None, "reference": lambda: None,
         "v_max": lambda: None}, max_examples=40,
        cases=({"full_traj": lambda: infer_deep("tool_call")}, {"full_traj": lambda: infer_deep("compress")},
               {"v_max": lambda: math.nan}, {"v_max": lambda: 10**400})),
    Entry("from_transcript(otel, deep string)", lambda data, v_max: from_transcript(data, "otel", v_max=v_max),
          {"data": otel, "v_max": lambda: None}, max_examples=20,
          cases=({"data": otel_deep}, {"v_max": lambda: math.nan}, {"v_max": lambda: math.inf}, {"v_max": lambda: 10**400})),
    Entry("detect_format", lambda path: detect_format(path),
          {"path": lambda: str(FIXTURES / "transcripts" / "otel_otlp.json")}, max_examples=30,
          only={"path": SANDBOXED},
          cases=({"path": lambda: special_file("device")}, {"path": lambda: special_file("pipe")})),
    Entry("load_transcript(special files)", lambda path, format: load_transcript(path, format),
          {"path": lambda: str(FIXTURES / "transcripts" / "otel_otlp.json"), "format": lambda: None}, max_examples=30,
          only={"path": SANDBOXED},
          cases=({"path": lambda: special_file("device")}, {"path": lambda: special_file("pipe")},
                 {"path": lambda: special_file("device"), "format": lambda: "otel"},
                 {"path": lambda: special_file("pipe"), "format": lambda: "claude_code"},
                 {"path": lambda: file_of(json.dumps(otel_deep()), "deep_otel.json")})),
    Entry("recorded_compactions(meta)", lambda event: recorded_compactions(compaction_steps(event)),
          {"event": good_event}, max_examples=30,
          cases=({"event": lambda: {k: v for k, v in good_event().items() if k != "t"}},
                 {"event": lambda: {**good_event(), "t": "three"}}, {"event": lambda: {**good_event(), "t": math.nan}},
                 {"event": lambda: {**good_event(), "pre_tokens": "many"}},
                 {"event": lambda: {**good_event(), "pre_tokens": math.nan}}, {"event": lambda: "compacted"})),
    # ------------------------------------------------------------------ benchmark loaders and generators
    Entry("from_locomo", lambda data, source, sample, assistant, questions, categories, strict: from_locomo(
        data, source=source, sample=sample, assistant=assistant, questions=questions, categories=categories, strict=strict),
        {"data": locomo, "source": lambda: "locomo", "sample": lambda: None, "assistant": lambda: None,
         "questions": lambda: "appended", "categories": lambda: None, "strict": lambda: False}, max_examples=50,
        cases=({"strict": lambda: "no"}, {"categories": lambda: [1, "2"]}, {"categories": lambda: [99]},
               {"sample": lambda: -1}, {"sample": lambda: 10**400}, {"categories": lambda: [10**400]})),
    Entry("load_locomo", lambda path, sample, strict, max_bytes: load_locomo(path, sample=sample, strict=strict,
                                                                             max_bytes=max_bytes),
          {"path": lambda: str(FIXTURES / "locomo_small.json"), "sample": lambda: None, "strict": lambda: False,
           "max_bytes": lambda: 2**30}, max_examples=30, only={"path": SANDBOXED},
          cases=({"path": lambda: special_file("device")}, {"path": lambda: special_file("pipe")},
                 {"max_bytes": lambda: 10**400}, {"strict": lambda: "no"})),
    Entry("from_longmemeval", lambda data, source, limit, question_ids, sort_sessions, strict: from_longmemeval(
        data, source=source, limit=limit, question_ids=question_ids, sort_sessions=sort_sessions, strict=strict),
        {"data": longmemeval, "source": lambda: "lme", "limit": lambda: None, "question_ids": lambda: None,
         "sort_sessions": lambda: False, "strict": lambda: False}, max_examples=50,
        cases=({"question_ids": lambda: "a1b2c3d4"}, {"question_ids": lambda: ["nope"]}, {"question_ids": lambda: [1, 2]},
               {"strict": lambda: "no"}, {"sort_sessions": lambda: "yes"}, {"limit": lambda: 10**400})),
    Entry("load_longmemeval", lambda path, limit, strict: load_longmemeval(path, limit=limit, strict=strict),
          {"path": lambda: str(FIXTURES / "longmemeval_small.json"), "limit": lambda: None, "strict": lambda: False},
          max_examples=30, only={"path": SANDBOXED},
          cases=({"path": lambda: special_file("device")}, {"path": lambda: special_file("pipe")})),
    Entry("generate_dialogue", lambda n_steps, facts, distances, distractors, seed, name, v_max, mechanism: generate_dialogue(
        n_steps, facts=facts, distances=distances, distractors=distractors, seed=seed, name=name, v_max=v_max,
        mechanism=mechanism),
        {"n_steps": lambda: 12, "facts": lambda: 2, "distances": lambda: None, "distractors": lambda: None,
         "seed": lambda: 0, "name": lambda: None, "v_max": lambda: None, "mechanism": lambda: "SCM"}, max_examples=50,
        cases=({"v_max": lambda: math.nan}, {"v_max": lambda: math.inf}, {"v_max": lambda: 10**400},
               {"n_steps": lambda: 10**400}, {"seed": lambda: 10**400}, {"distances": lambda: [10**400]})),
    Entry("generate_agent", lambda n_steps, facts, phase, seed, v_max: generate_agent(
        n_steps, facts=facts, phase=phase, seed=seed, v_max=v_max),
        {"n_steps": lambda: 12, "facts": lambda: 2, "phase": lambda: 5, "seed": lambda: 0, "v_max": lambda: None},
        max_examples=40, cases=({"v_max": lambda: math.nan}, {"phase": lambda: 10**400})),
    # ------------------------------------------------------------------ sweep
    Entry("sweep", lambda mechanisms, scenarios, v_max, errors, progress, size: sweep(
        mechanisms, scenarios, v_max, errors=errors, progress=progress, size=size),
        {"mechanisms": lambda: [FIFOWindow], "scenarios": small_scenario, "v_max": lambda: [80],
         "errors": lambda: "raise", "progress": lambda: False, "size": lambda: "words"}, max_examples=50,
        cases=({"v_max": lambda: 10**400}, {"v_max": lambda: [10**400]}, {"v_max": lambda: math.nan},
               {"v_max": lambda: [math.inf]}, {"v_max": lambda: [BadEverything()]}, {"progress": lambda: "no"},
               {"mechanisms": lambda: [failing_factory]}, {"mechanisms": lambda: [two_arg_stm_factory]}),
        own_errors=(HostileUserError,)),
    Entry("sweep(grid)", lambda system: sweep([FIFOWindow], small_scenario(), [80], progress=False, system=system),
          {"system": lambda: ["be brief"]}, max_examples=20,
          cases=({"system": lambda: [BadRepr()]}, {"system": lambda: [BadEverything()]})),
    Entry("sweep(executor)", lambda executor: sweep([FIFOWindow], small_scenario(), [80], executor=executor, progress=False),
          {"executor": lambda: ThreadPoolExecutor(1)}, max_examples=20,
          cases=({"executor": RaisingSubmit}, {"executor": NoneSubmit}, {"executor": FailingFutures},
                 {"executor": shut_pool}), own_errors=(HostileUserError,)),
    # ------------------------------------------------------------------ metrics, forgetting, LoCoMo scoring
    Entry("metrics.run_metrics", lambda trace, probes: metrics.run_metrics(trace, probes),
          {"trace": trace, "probes": probes}, max_examples=30),
    Entry("metrics.evidence_recall", lambda trace, probe, n: metrics.evidence_recall(trace, probe, n),
          {"trace": trace, "probe": probe, "n": lambda: 3}, max_examples=30,
          cases=({"probe": lambda: odd_probe(-1)}, {"probe": lambda: odd_probe(99)}, {"n": lambda: 10**400})),
    Entry("metrics.token_f1", lambda prediction, reference: metrics.token_f1(prediction, reference),
          {"prediction": lambda: "the blue mat", "reference": lambda: "a blue mat"}, max_examples=25),
    Entry("metrics.cost_at", lambda trace, t: metrics.cost_at(trace, t), {"trace": trace, "t": lambda: 2},
          max_examples=25, cases=({"t": lambda: -1}, {"t": lambda: math.nan}, {"t": lambda: 10**400})),
    Entry("metrics.probe_metrics", lambda trace, probes: metrics.probe_metrics(trace, probes),
          {"trace": trace, "probes": probes}, max_examples=25,
          cases=({"probes": lambda: [odd_probe(-1)]},)),
    Entry("forgetting.why_forgotten", lambda trace, probe: forgetting.why_forgotten(trace, probe),
          {"trace": trace, "probe": probe}, max_examples=30,
          cases=({"probe": lambda: odd_probe(-1)},)),
    Entry("forgetting.why_forgotten_all", lambda trace, probes: forgetting.why_forgotten_all(trace, probes),
          {"trace": trace, "probes": probes}, max_examples=25),
    Entry("locomo_f1", lambda prediction, reference, category: locomo_eval.locomo_f1(prediction, reference, category),
          {"prediction": lambda: "Lisbon", "reference": lambda: "Lisbon", "category": lambda: 1}, max_examples=30),
    Entry("by_category", lambda records: locomo_eval.by_category(records),
          {"records": lambda: [{"category": "multi-hop", "category_id": 1, "f1": 0.5},
                               {"category": "temporal", "category_id": 2, "f1": 1.0}]}, max_examples=30,
          cases=({"records": lambda: [{"category": "a", "category_id": 1, "f1": 0.5},
                                      {"category": "a", "category_id": "1", "f1": 1.0}]},
                 {"records": lambda: [{"category": "a", "category_id": 1, "f1": math.nan}]},
                 {"records": lambda: [BadMapping()]},
                 {"records": lambda: [{"category": "a", "category_id": 1, "f1": BadEverything()}]})),
    # ------------------------------------------------------------------ CLI, recorded marks, placement
    Entry("cli replay", replay, {"source": lambda: str(FIXTURES / "transcripts" / "otel_otlp.json"),
                                 "mechanism": lambda: "fifo", "v_max": lambda: "500", "format": lambda: None},
          max_examples=30, only={"source": lambda v: isinstance(v, str) and SANDBOXED(v),
                                 "mechanism": lambda v: isinstance(v, str), "v_max": lambda v: isinstance(v, str),
                                 "format": lambda v: v is None or isinstance(v, str)},
          cases=({"v_max": lambda: "nan"}, {"v_max": lambda: "inf"}, {"v_max": lambda: "1" + "0" * 400},
                 {"source": lambda: special_file("pipe")}, {"source": lambda: special_file("device")})),
    Entry("mark_recorded_compactions", mark, {"figure": figure, "compactions": lambda: [RecordedCompaction(1, "Claude Code")]},
          max_examples=30),
    Entry("mark_recorded_compactions(event)", mark_one,
          {"t": lambda: 1, "system": lambda: "Claude Code", "trigger": lambda: "auto", "pre_tokens": lambda: 1611.0,
           "summary": lambda: "the summary"}, max_examples=40,
          cases=({"t": lambda: math.nan}, {"t": lambda: "3"}, {"pre_tokens": lambda: math.nan},
                 {"pre_tokens": lambda: "many"}, {"system": lambda: "<script>alert(1)</script>"})),
    Entry("mark_recorded_compactions(meta)", marks_of_meta, {"event": good_event}, max_examples=30,
          cases=({"event": lambda: {k: v for k, v in good_event().items() if k != "t"}},
                 {"event": lambda: {**good_event(), "t": "three"}}, {"event": lambda: {**good_event(), "pre_tokens": "x"}},
                 {"event": lambda: {**good_event(), "pre_tokens": math.nan}})),
    Entry("placement_figure", placement, {"mechanisms": lambda: [ClearToolUses], "title": lambda: "where"}, max_examples=40,
          cases=({"mechanisms": lambda: [type("Odd", (), {"placement": {"<b>x</b>": "U"}})]},
                 {"mechanisms": lambda: [type("Odd", (), {"placement": {"a": "X"}})]},
                 {"mechanisms": lambda: [type("Odd", (), {"placement": {1: "U"}})]},
                 {"mechanisms": lambda: [BadEverything()]},
                 {"mechanisms": lambda: [type("Odd", (), {"placement": BadMapping()})]})),
]


@pytest.mark.parametrize("entry", params(ENTRIES))
def test_fuzz_new_surface(entry):
    fuzz(entry)
