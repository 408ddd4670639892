"""stmviz.sweep: every combination run once, records in a fixed order, traces equal to independent runs."""

from __future__ import annotations

import functools

import pytest

from stmviz import SCM, AgentFold, Element, FIFOWindow, HiAgent, StateSpace, load_scenario, run, sizes
from stmviz import metrics
from stmviz.core.errors import InvalidArgumentError
from stmviz.sweep import SharedCaches, parameter_names, sweep

from golden.canonical import agent_stream, fingerprint

ALL = [FIFOWindow, SCM, HiAgent, AgentFold]


def independent(cls, scenario, v_max, **params):
    return run(cls(StateSpace(sizes.tokens(), v_max=v_max), **params), scenario)


@pytest.mark.parametrize("name", ["long_dialogue", "household", "web_research", "tool_chat"])
def test_traces_equal_independent_runs(name):
    scenario = load_scenario(name)
    records = sweep(ALL, scenario, v_max=[scenario.v_max // 2, scenario.v_max], keep_traces=True)
    assert [(r["mechanism"], r["v_max"]) for r in records] == [
        (cls.name, v) for cls in ALL for v in (scenario.v_max // 2, scenario.v_max)
    ]
    for record, cls in zip(records, [c for c in ALL for _ in range(2)]):
        alone = independent(cls, scenario, record["v_max"])
        assert fingerprint(record["trace"]) == fingerprint(alone), (name, record["mechanism"], record["v_max"])
        expected = metrics.run_metrics(alone, scenario.probes)
        for key in ("retention", "evidence_recall", "whole_turns", "answer_recall", "cost", "evictions"):
            assert record[key] == expected[key]


def test_long_agent_stream_with_a_grid_equals_independent_runs():
    """A stream whose summaries, folds and subgoals recur across V_max (the shared tables are used)."""
    from stmviz.scenarios import Scenario

    scenario = Scenario(name="stream", query="Collect the prices.", tools=("search", "open"), steps=tuple(agent_stream(150, 3)))
    caches = SharedCaches()
    records = sweep(ALL, scenario, v_max=[400, 900, 2000], k=[1, 3], keep_traces=True, caches=caches)
    stats = caches.stats()
    assert stats["sizes"] > 0 and stats["SCM embeddings"] > 0 and stats["AgentFold line tokens"] > 0
    assert len(records) == 3 + 6 + 3 + 3
    for record in records:
        cls = {c.name: c for c in ALL}[record["mechanism"]]
        params = {"k": record["k"]} if cls is SCM else {}
        assert (record["k"] is None) == (cls is not SCM)
        alone = independent(cls, scenario, record["v_max"], **params)
        assert fingerprint(record["trace"]) == fingerprint(alone), (record["mechanism"], record["v_max"], params)


def test_record_fields_and_order():
    records = sweep({"window": FIFOWindow, "scm": SCM}, ["tool_chat", "long_dialogue"], v_max=[300, 600], k=[1, 2])
    order = [(r["scenario"], r["mechanism"], r["k"], r["v_max"]) for r in records]
    assert order == [
        (s, m, k, v)
        for s in ("tool_chat", "long_dialogue")
        for m, ks in (("window", [None]), ("scm", [1, 2]))
        for k in ks
        for v in (300, 600)
    ]
    assert list(records[0])[:4] == ["scenario", "mechanism", "v_max", "k"]
    for key in ("retention", "evidence_recall", "whole_turns", "answer_recall", "cost", "probes", "steps"):
        assert key in records[0]
    assert "trace" not in records[0]


def test_scenario_v_max_is_the_default():
    records = sweep([FIFOWindow], "tool_chat")
    assert [r["v_max"] for r in records] == [load_scenario("tool_chat").v_max]


def test_processes_give_the_sequential_records():
    kwargs = dict(v_max=[300, 800], k=[1, 2])
    sequential = sweep([FIFOWindow, SCM, functools.partial(HiAgent, summary_budget=32)], "household", **kwargs)
    parallel = sweep([FIFOWindow, SCM, functools.partial(HiAgent, summary_budget=32)], "household", processes=2, **kwargs)
    assert parallel == sequential


def test_partial_and_user_summarizer_are_respected():
    calls = []

    def summarize(texts, budget):
        calls.append(budget)
        return "short summary"

    scenario = load_scenario("web_research")
    records = sweep({"af": functools.partial(AgentFold, summarize=summarize)}, scenario, v_max=[500], keep_traces=True)
    alone = run(AgentFold(StateSpace(sizes.tokens(), v_max=500), summarize=summarize), scenario)
    assert calls and fingerprint(records[0]["trace"]) == fingerprint(alone)


def test_grid_key_no_mechanism_takes_is_an_error():
    with pytest.raises(InvalidArgumentError, match="no mechanism of the sweep takes a parameter 'flash'.*SCM: .*flash_size"):
        sweep([FIFOWindow, SCM], "tool_chat", v_max=[500], flash=[1, 2])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(mechanisms=[FIFOWindow(StateSpace("tokens", 100))]), "needs the class"),
        (dict(mechanisms=[]), "sweep: mechanisms is empty; pass at least one"),
        (dict(mechanisms=[FIFOWindow, FIFOWindow]), "same label"),
        (dict(v_max=[]), "sweep: v_max is empty; pass at least one of the capacities V_max"),
        (dict(v_max=[100, -1]), "every V_max in v_max must be a finite number > 0, got int -1"),
        (dict(v_max="100"), "list of numbers"),
        (dict(k="3"), r"k must be a list \(or another iterable\) of values to try"),
        (dict(k=[]), "sweep: k is empty; pass at least one of the values to try"),
        (dict(processes=0), "processes"),
        (dict(processes=2, keep_traces=True), "keep_traces"),
        (dict(mechanisms={"x": lambda space: FIFOWindow(space)}, processes=2), "worker process"),
        (dict(mechanisms={"x": lambda space: "no"}), "returned must be a Mechanism, got str 'no'"),
        (dict(scenarios=[]), "sweep: scenarios is empty; pass at least one of the scenarios"),
        (dict(size="bytes"), "unknown size"),
    ],
)
def test_bad_arguments(kwargs, match):
    args = {"mechanisms": [FIFOWindow, SCM], "scenarios": "tool_chat", "v_max": [300]}
    args.update(kwargs)
    with pytest.raises(Exception, match=match) as info:
        sweep(args.pop("mechanisms"), args.pop("scenarios"), **args)
    from stmviz.core.errors import STMError

    assert isinstance(info.value, STMError)


def test_scenario_without_v_max_needs_one():
    from stmviz.scenarios import Scenario

    scenario = Scenario(name="bare", steps=({"observation": "hello there"},))
    with pytest.raises(InvalidArgumentError, match="no v_max"):
        sweep([FIFOWindow], scenario)
    assert sweep([FIFOWindow], scenario, v_max=50)[0]["steps"] == 1


def test_shared_summarizer_calls_once_per_content():
    calls = []

    def summarize(texts, budget):
        calls.append((tuple(texts), budget))
        return texts[0][:5]

    shared = SharedCaches().summarizer(summarize)
    assert shared(["abcdefgh"], 3) == shared(("abcdefgh",), 3) == "abcde"
    shared(["abcdefgh"], 4)
    assert calls == [(("abcdefgh",), 3), (("abcdefgh",), 4)]


def test_shared_size_keeps_name_and_encoding():
    caches = SharedCaches()
    mu = caches.size("tokens")
    assert mu is caches.size("tokens")
    assert mu.name == sizes.tokens().name and mu.encoding == "cl100k_base"
    assert mu(Element("hello world")) == 2
    assert caches.size(sizes.words) is sizes.words  # μ that count no tokens are left as they are


def test_parameter_names():
    assert "k" in parameter_names(SCM) and "space" not in parameter_names(SCM)
    assert parameter_names(FIFOWindow) >= set()
    assert parameter_names(lambda space, **kw: None) is None


def test_a_failing_run_is_named_or_recorded():
    from stmviz.core.errors import CapacityError

    with pytest.raises(CapacityError, match=r"sweep: FIFOWindow at V_max = 200 on 'tool_chat': step 3"):
        sweep([FIFOWindow], "tool_chat", v_max=[200, 500])
    records = sweep([FIFOWindow], "tool_chat", v_max=[200, 500], errors="record")
    assert records[0]["error"].startswith("CapacityError: step 3") and "retention" not in records[0]
    assert "error" not in records[1] and records[1]["steps"] == 25
    with pytest.raises(InvalidArgumentError, match="errors"):
        sweep([FIFOWindow], "tool_chat", v_max=[500], errors="ignore")


# ----------------------------------------------------------------------------- scale: progress, records, executors

KWARGS = dict(v_max=[300, 800], k=[1, 2])
FACTORIES = [FIFOWindow, SCM, functools.partial(HiAgent, summary_budget=32)]


def test_a_progress_bar_counts_the_runs_and_can_be_hidden(capsys, monkeypatch):
    sweep([FIFOWindow, SCM], "tool_chat", v_max=[300, 600, 900])
    shown = capsys.readouterr().err
    assert "sweep:" in shown and "/6 [" in shown and "run/s" in shown  # tqdm on stderr outside a notebook
    import tqdm.auto

    bars = []

    class Bar(tqdm.auto.tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            bars.append(self)

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    from concurrent.futures import ThreadPoolExecutor

    sweep([FIFOWindow, SCM], "tool_chat", v_max=[300, 600, 900], k=[1, 2])
    with ThreadPoolExecutor(2) as pool:
        sweep([FIFOWindow, SCM], "tool_chat", v_max=[300, 600, 900], k=[1, 2], executor=pool)
    assert [(bar.total, bar.n) for bar in bars] == [(9, 9), (9, 9)]  # every run counted, in this process or not
    capsys.readouterr()
    sweep([FIFOWindow, SCM], "tool_chat", v_max=[300, 600, 900], progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(InvalidArgumentError, match="progress must be True or False"):
        sweep([FIFOWindow], "tool_chat", progress="yes")


def test_records_are_a_list_of_dicts_that_pandas_reads(monkeypatch):
    import sys
    import types

    records = sweep([FIFOWindow, SCM], "tool_chat", v_max=[300, 600], progress=False)
    assert isinstance(records, list) and all(type(r) is dict for r in records)
    assert len({tuple(r) for r in records}) == 1  # the same keys in every record: one column each
    seen = []
    fake = types.ModuleType("pandas")
    fake.DataFrame = lambda rows: seen.append(rows) or "frame"  # what pandas.DataFrame is handed
    monkeypatch.setitem(sys.modules, "pandas", fake)
    assert records.to_pandas() == "frame" and seen == [list(records)] and type(seen[0]) is list
    monkeypatch.setitem(sys.modules, "pandas", None)  # pandas not installed
    with pytest.raises(ImportError, match=r"to_pandas\(\) needs pandas.*pip install pandas"):
        records.to_pandas()


def test_any_executor_gives_the_sequential_records():
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    sequential = sweep(FACTORIES, "household", progress=False, **KWARGS)
    with ThreadPoolExecutor(2) as threads:
        assert sweep(FACTORIES, "household", executor=threads, **KWARGS) == sequential
    with ProcessPoolExecutor(1) as processes:
        assert sweep(FACTORIES, "household", executor=processes, progress=False, **KWARGS) == sequential


BUILT_IN: list[str] = []  # the threads that built a FIFOWindow for the sweep below


def fifo_noting_its_thread(space):
    """A FIFOWindow factory that notes the thread it runs in (a module-level function: it pickles)."""
    import threading

    BUILT_IN.append(threading.current_thread().name)
    return FIFOWindow(space)


def test_a_local_dask_cluster_runs_the_sweep_unchanged():
    distributed = pytest.importorskip("distributed", reason="the optional extra 'dask' (pip install 'stmviz[dask]')")
    mechanisms = {"FIFOWindow": fifo_noting_its_thread, "SCM": SCM}
    sequential = sweep(mechanisms, "household", progress=False, **KWARGS)
    BUILT_IN.clear()
    # one worker with two threads in this process: a cluster that spares the machine's cores
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            records = sweep(mechanisms, "household", executor=client.get_executor(), progress=False, **KWARGS)
    assert records == sequential
    assert len(BUILT_IN) == 2 and all(name != "MainThread" for name in BUILT_IN)  # built on the cluster's worker


def test_executor_arguments_are_checked():
    from concurrent.futures import ThreadPoolExecutor

    with pytest.raises(InvalidArgumentError, match="concurrent.futures.Executor"):
        sweep([FIFOWindow], "tool_chat", executor="dask")
    with ThreadPoolExecutor(1) as pool:
        with pytest.raises(InvalidArgumentError, match="not both"):
            sweep([FIFOWindow], "tool_chat", executor=pool, processes=2)
        with pytest.raises(InvalidArgumentError, match="keep_traces"):
            sweep([FIFOWindow], "tool_chat", executor=pool, keep_traces=True)


def test_keep_traces_and_progress_are_flags():
    """keep_traces="no" was read as true: every record held its trace."""
    with pytest.raises(InvalidArgumentError, match="sweep: keep_traces must be True or False, got str 'no'"):
        sweep([FIFOWindow], "tool_chat", v_max=[400], keep_traces="no", progress=False)
    with pytest.raises(InvalidArgumentError, match="sweep: caches must be a SharedCaches or None, got dict"):
        sweep([FIFOWindow], "tool_chat", v_max=[400], caches={}, progress=False)
    with pytest.raises(InvalidArgumentError, match="SharedCaches.share: default_summarizer must be True or False"):
        SharedCaches().share(FIFOWindow(StateSpace("tokens", 400)), default_summarizer="yes")


def test_a_mapping_of_mechanisms_is_read_as_labels_and_a_generator_as_a_list():
    records = sweep({"window": FIFOWindow}, "tool_chat", v_max=[400], progress=False)
    assert [r["mechanism"] for r in records] == ["window"]
    records = sweep((m for m in [FIFOWindow]), "tool_chat", v_max=(v for v in [400]), progress=False)
    assert [r["v_max"] for r in records] == [400]
