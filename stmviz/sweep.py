"""Sweeps: every mechanism × scenario × V_max × parameter value, run and measured, with work shared.

The paper names the systematic comparison of mechanisms within one formal
model as the first direction its definitions open. :func:`sweep` runs it:
for every scenario, every mechanism, every combination of the parameter
grids the mechanism accepts and every capacity V_max, it builds the
mechanism on Ω_STM = (μ, V_max), runs :func:`stmviz.run` on the scenario and
keeps one record of :func:`stmviz.metrics.run_metrics` (key-string
retention, evidence recall, whole-turn presence, answer recall, cost …)
with the parameters that produced it.

What is shared, and why results do not change
---------------------------------------------
Runs of one sweep see the same texts again and again: the same scenario's
steps at every V_max, the same summaries of the same steps. A
:class:`SharedCaches` object (one per mechanism and scenario; one per worker process),
keeps what is a pure function of its input and hands it to every run of
one mechanism on one scenario (all its parameter sets and capacities):

- **μ by element**: the sizes μ(e) of a token-counting μ, kept in one table
  keyed by the element (content and metadata) for every Ω_STM of the sweep,
  so an element built again at another V_max is not counted again
  (:class:`~stmviz.StateSpace` keeps μ(e) per space, and tiktoken's counts
  are kept per process for at most 65,536 recent strings, see
  :mod:`stmviz.core.sizes`);
- **summaries by content**: ``summarize(texts, budget)`` of the default
  extractive summarizer, kept by (texts, budget) across runs (each mechanism
  keeps its own, per instance, see :mod:`stmviz._fast.memo`);
  passed as the public ``summarize=`` argument of the mechanisms that take one;
- **the built-in mechanisms' own per-text memos** — FIFOWindow's messages
  (by t, text, role), SCM's embeddings,
  relevances (the cosine of a query's and a memory's embeddings, by the two
  texts), rankings of the memory stream (by its texts, the query's text, t
  and the weights), summaries, memory elements and judgements; HiAgent's
  embeddings, subgoal summaries and line-token counts; AgentFold's
  line-token counts and incoming interactions I_t (by t and text): each
  maps a text (or an element) to a value computed from it alone, so a memo filled by another
  run holds the very value this run would compute. They are shared only
  between mechanisms whose settings that value depends on are equal (the
  embedder, the summarizer, the judge, the budget, the encoding).

A deterministic summarizer and embedder give the same value from a memo as
computed afresh, so every trace of a sweep equals the trace of an
independent ``run()`` (tests/test_sweep.py checks it by fingerprint).

Scale and records
-----------------
The unit of work is a *group*: one mechanism with one parameter set on one
scenario, at every V_max (the runs that share the most). With
``processes=N`` the groups go to N worker processes
(:class:`concurrent.futures.ProcessPoolExecutor`); with ``executor=`` to any
:class:`concurrent.futures.Executor` — a thread or process pool, a Dask
cluster's ``Client.get_executor()``, an Executor over another cluster such
as Ray — unchanged: each group is one ``executor.submit(...)`` of a
module-level function on picklable arguments. Every worker keeps its own
:class:`SharedCaches` (one per process and thread). The records come back in
the sequential order and are equal to the sequential ones.

A progress bar (tqdm's ``tqdm.auto``: a widget in Jupyter, text on a
terminal's stderr) counts the runs as they finish; ``progress=False`` hides
it. The result, :class:`SweepRecords`, is a list of plain dicts — one per
run, the same keys in every record — that ``pandas.DataFrame(records)``
reads as it is; ``records.to_pandas()`` does so (pandas is imported then,
and only then).

>>> from stmviz import FIFOWindow
>>> records = sweep([FIFOWindow], "tool_chat", v_max=[500, 1000, 2000])
>>> [(r["v_max"], r["retention"], round(r["evidence_recall"], 2), r["cost"]) for r in records]
[(500, 0.0, 0.0, 9967), (1000, 0.4, 0.4, 18452), (2000, 1.0, 1.0, 26153)]
"""

from __future__ import annotations

import functools
import inspect
import itertools
import numbers
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from typing import Any

from .core import guards
from .core.guards import brief
from ._optional import require
from .core.errors import InvalidArgumentError, STMError
from .core.formatting import shorten
from .core.mechanism import Mechanism
from .core.sizes import SizeFunction, resolve
from ._fast.memo import Memo
from .core.space import StateSpace
from .core.trace import run
from .metrics import run_metrics

__all__ = ["sweep", "SweepRecords", "SharedCaches", "parameter_names"]


class SweepRecords(list[dict[str, Any]]):
    """The records of :func:`sweep`: a list of dicts, one per run, in the sweep's order.

    It is a plain ``list`` (``records[0]``, ``len(records)``, ``records ==
    [...]`` work as for any list); ``pandas.DataFrame(records)`` and
    :meth:`to_pandas` turn it into a table with one column per key.
    """

    def to_pandas(self) -> Any:
        """The records as a ``pandas.DataFrame`` (pandas is imported now; it is not a dependency of stmviz)."""
        pandas = require("pandas", package="pandas", extra=None, why="SweepRecords.to_pandas()")
        return pandas.DataFrame(list(self))


class _Table(Memo):
    """A memo that never forgets during a sweep (a :class:`~stmviz._fast.memo.Memo` too large to fill)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(maxsize=1 << 62)


class SharedCaches:
    """What the runs of one sweep share: μ by element, summaries by content, the mechanisms' per-text memos.

    Every table maps an input to a value computed from that input alone
    (see the module's docstring), so sharing them changes no result.

    >>> caches = SharedCaches()
    >>> mu = caches.size("tokens")
    >>> from stmviz import Element
    >>> mu(Element("hello world")), mu(Element("hello world")), caches.stats()["sizes"]
    (2, 2, 1)
    """

    def __init__(self) -> None:
        self._sizes: dict[Any, SizeFunction] = {}
        self._summarizers: dict[Any, Callable[[Sequence[str], int], str]] = {}
        self._tables: dict[Any, _Table] = {}

    def table(self, *key: Any) -> _Table:
        """The shared table named by ``key`` (created empty the first time)."""
        found = self._tables.get(key)
        if found is None:
            found = self._tables[key] = _Table()
        return found

    def size(self, size: Any) -> Any:
        """μ for a space of the sweep: a token-counting μ, with its values kept by element for the whole sweep.

        The returned size function has the same name and encoding as μ (so
        traces name the same μ); any other μ (words, chars, a user's function)
        is returned as it is.
        """
        mu = resolve(size)
        if not isinstance(mu, SizeFunction) or not mu.counts_tokens:
            return mu
        key = (mu.name, mu.encoding)
        shared = self._sizes.get(key)
        if shared is None:
            values = self.table("μ", *key)
            measure = functools.partial(values.lookup, compute=mu)
            shared = self._sizes[key] = SizeFunction(mu.name, measure, encoding=mu.encoding)
        return shared

    def summarizer(self, summarize: Callable[[Sequence[str], int], str]) -> Callable[[Sequence[str], int], str]:
        """``summarize(texts, budget)`` with its results kept by (texts, budget) for the whole sweep."""
        summarize = guards.function(summarize, "summarize", "(texts, budget) -> str", where="SharedCaches.summarizer",
                                    none_ok=False)
        found = self._summarizers.get(summarize)
        if found is None:
            table = self.table("summaries", summarize)

            def shared(texts: Sequence[str], budget: int) -> str:
                key = (tuple(texts), budget)
                value = table.get(key)
                if value is None:
                    value = table.put(key, summarize(list(texts), budget))
                return value

            shared.__wrapped__ = summarize  # type: ignore[attr-defined]
            found = self._summarizers[summarize] = shared
        return found

    def share(self, mechanism: Mechanism, default_summarizer: bool = False) -> Mechanism:
        """Point a built-in mechanism's per-text memos at the sweep's tables (other mechanisms are left as they are).

        Memos whose values depend on the summarizer are shared only when the
        mechanism uses stmviz's default summarizer (``default_summarizer``: it
        was built with :meth:`summarizer` of it), and those that depend on the
        embedder only with the default embedder: a user's summarizer may call
        a model, and two calls need not agree.
        """
        from .mechanisms import SCM, AgentFold, FIFOWindow, HiAgent
        from .text.scm_judges import OverlapJudge
        from .text import embed as default_embed

        mechanism = guards.instance(mechanism, "mechanism", Mechanism, where="SharedCaches.share")
        default_summarizer = guards.flag(default_summarizer, "default_summarizer", where="SharedCaches.share")
        encoding = mechanism.encoding
        if type(mechanism) is SCM:
            cache = getattr(mechanism, "_cache", None)
            if cache is not None and mechanism.embed is default_embed:
                cache.embeddings = self.table("SCM", "embeddings")
                cache.relevance = self.table("SCM", "relevance")
                cache.prefixes = self.table("SCM", "prefixes")
                cache.rankings = self.table("SCM", "rankings")
                if default_summarizer:
                    cache.summaries = self.table("SCM", "summaries")
                    cache.elements = self.table("SCM", "elements")
            if cache is not None and type(mechanism.judge) is OverlapJudge:  # stateless: a verdict depends on its texts
                cache.judgements = self.table("SCM", "judgements")
        elif type(mechanism) is FIFOWindow:
            _replace(mechanism, "_messages", self.table("FIFOWindow", "messages"))
        elif type(mechanism) is HiAgent:
            _replace(mechanism, "_embeddings", self.table("HiAgent", "embeddings"))
            _replace(mechanism, "_line_tokens", self.table("HiAgent", "line tokens", encoding))
            if default_summarizer and _is_default_subgoal_summarizer(mechanism):
                _replace(mechanism, "_subgoal_summaries", self.table("HiAgent", "subgoals", mechanism.summary_budget))
        elif type(mechanism) is AgentFold:
            _replace(mechanism, "_line_tokens", self.table("AgentFold", "line tokens", encoding))
            _replace(mechanism, "_incomings", self.table("AgentFold", "incoming"))
        return mechanism

    def stats(self) -> dict[str, int]:
        """How many values each kind of table holds (μ values under ``"sizes"``)."""
        counts: dict[str, int] = {}
        for key, table in self._tables.items():
            name = "sizes" if key[0] == "μ" else " ".join(str(k) for k in key[:2])
            counts[name] = counts.get(name, 0) + len(table)
        return counts


def _replace(mechanism: Mechanism, name: str, table: _Table) -> None:
    if hasattr(mechanism, name):
        setattr(mechanism, name, table)


def _is_default_subgoal_summarizer(mechanism: Any) -> bool:
    from .text.subgoal_summary import ObservationSummarizer

    return type(mechanism.summarize_subgoal) is ObservationSummarizer


# ----------------------------------------------------------------------------- the arguments


def parameter_names(factory: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword parameters a mechanism class (or factory) accepts besides the space; ``None`` if it takes ``**kwargs``.

    >>> from stmviz import SCM
    >>> sorted(parameter_names(functools.partial(SCM, k=2)))[:3]
    ['embed', 'flash_size', 'flash_threshold']
    """
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    names = set()
    parameters = list(signature.parameters.values())
    if parameters and parameters[0].kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        parameters = parameters[1:]  # the space Ω_STM
    for p in parameters:
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            return None
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            names.add(p.name)
    return frozenset(names)


def _mechanisms(mechanisms: Any) -> list[tuple[str, Callable[..., Mechanism]]]:
    if not isinstance(mechanisms, Mapping) and (isinstance(mechanisms, (type, Mechanism)) or callable(mechanisms)):
        given: list[tuple[str | None, Any]] = [(None, mechanisms)]
    else:
        given = guards.labelled(mechanisms, "mechanisms", where="sweep", empty_ok=False,
                                what="mechanism classes, e.g. [FIFOWindow, SCM, HiAgent, AgentFold]")
    items = [(label if label is not None else _label(factory), factory) for label, factory in given]
    for label, factory in items:
        if isinstance(factory, Mechanism):  # sweep's rule: it builds a fresh mechanism per V_max, from a class
            raise InvalidArgumentError(
                f"sweep() builds each mechanism for every V_max, so it needs the class, not the instance {brief(factory)}; "
                f"pass {type(factory).__name__}, or functools.partial({type(factory).__name__}, …) for fixed settings"
            )
        guards.function(factory, f"mechanisms[{label!r}]", "(space, **params) -> Mechanism (a Mechanism class or a factory)",
                        where="sweep", none_ok=False)
    labels = [label for label, _ in items]
    if len(set(labels)) != len(labels):  # sweep's rule: each record names its mechanism by label
        raise InvalidArgumentError(
            f"sweep: two mechanisms of the sweep have the same label ({', '.join(labels)}); pass a mapping label → class"
        )
    return items


def _label(factory: Any) -> str:
    target = factory.func if isinstance(factory, functools.partial) else factory
    return str(getattr(target, "name", None) or getattr(target, "__name__", None) or target)


def _scenarios(scenarios: Any) -> list[Any]:
    from .scenarios import load_scenario

    if isinstance(scenarios, str) or hasattr(scenarios, "steps"):
        scenarios = [scenarios]
    given = guards.nonempty(scenarios, "scenarios", where="sweep", what="scenarios or bundled scenarios' names",
                            fix="; e.g. 'long_dialogue' or load_scenario(...)")
    found = [load_scenario(s) if isinstance(s, str) else s for s in given]
    for k, s in enumerate(found):
        if not hasattr(s, "steps"):  # run's rule: a scenario is anything with steps
            raise InvalidArgumentError(f"sweep: scenarios[{k}] must be a scenario, which has steps; got {type(s).__name__} {brief(s)}")
    return found


def _capacities(v_max: Any, scenario: Any) -> list[float]:
    if v_max is None:
        own = getattr(scenario, "v_max", None)
        if own is None:  # the scenario's rule: it may name its own V_max, else the sweep needs one
            raise InvalidArgumentError(
                f"sweep: scenario {getattr(scenario, 'name', '')!r} has no v_max of its own; pass v_max=[…] to sweep()"
            )
        return [own]
    given = [v_max] if isinstance(v_max, numbers.Real) else guards.nonempty(
        v_max, "v_max", where="sweep", what="capacities V_max (a number or a list of numbers)",
        fix="; e.g. v_max=[1024, 4096]",
    )
    values: list[float] = []
    for value in given:
        guards.capacity(value, "every V_max in v_max", where="sweep")
        values.append(value if isinstance(value, (int, float)) else float(value))
    return values


def _grids(grids: Mapping[str, Any], mechanisms: list[tuple[str, Callable[..., Mechanism]]]) -> dict[str, list[Any]]:
    checked: dict[str, list[Any]] = {}
    accepted = {label: parameter_names(factory) for label, factory in mechanisms}
    for key, values in grids.items():
        values = guards.nonempty(values, key, where="sweep", what="values to try (a grid)", fix=f"; e.g. {key}=[1, 2] runs each")
        if not any(names is None or key in names for names in accepted.values()):  # a parameter some mechanism takes
            known = "; ".join(
                f"{label}: {', '.join(sorted(names)) if names else 'none'}" for label, names in accepted.items() if names is not None
            )
            raise InvalidArgumentError(
                f"sweep: no mechanism of the sweep takes a parameter {key!r} (grid {key}={brief(values)}); "
                f"parameters they take — {known}"
            )
        checked[key] = values
    return checked


def _combinations(factory: Callable[..., Mechanism], grids: dict[str, list[Any]]) -> list[dict[str, Any]]:
    names = parameter_names(factory)
    keys = [k for k in grids if names is None or k in names]
    return [dict(zip(keys, values)) for values in itertools.product(*(grids[k] for k in keys))]


# ----------------------------------------------------------------------------- running


def _build(factory: Callable[..., Mechanism], space: StateSpace, params: dict[str, Any], caches: SharedCaches) -> Mechanism:
    kwargs = dict(params)
    fixed = factory.keywords if isinstance(factory, functools.partial) else {}
    names = parameter_names(factory)
    injected = "summarize" not in kwargs and "summarize" not in fixed and names is not None and "summarize" in names
    if injected:
        from .text import summarize as default_summarize

        kwargs["summarize"] = caches.summarizer(default_summarize)
    mechanism = guards.instance(factory(space, **kwargs), f"what the factory {brief(factory)} returned", Mechanism,
                                where="sweep", what="a Mechanism")
    return caches.share(mechanism, default_summarizer=injected)


def _run_group(
    task: tuple[Any, ...], caches: SharedCaches | None = None, tick: Callable[[], Any] | None = None
) -> list[dict[str, Any]]:
    """The records of one mechanism with one parameter set on one scenario, at every V_max of the sweep.

    ``tick()`` is called after each run (the progress bar of a sweep in this process).
    """
    scenario, label, factory, params, capacities, size, grid_keys, keep_traces, errors = task
    caches = caches if caches is not None else _worker_caches()
    probes = tuple(getattr(scenario, "probes", ()) or ())
    records = []
    mu = caches.size(size)
    name = getattr(scenario, "name", "")
    for v_max in capacities:
        record: dict[str, Any] = {"scenario": name, "mechanism": label, "v_max": v_max}
        for key in grid_keys:
            record[key] = params.get(key)
        try:
            mechanism = _build(factory, StateSpace(mu, v_max), params, caches)
            trace = run(mechanism, scenario)
        except STMError as exc:
            settings = "".join(f", {k}={brief(v, 40)}" for k, v in params.items())
            where = f"sweep: {label}{settings} at V_max = {v_max} on {name!r}"
            if errors == "raise":
                raise _naming_the_run(exc, where) from exc
            record["error"] = f"{type(exc).__name__}: {exc}"
            records.append(record)
            if tick is not None:
                tick()
            continue
        measured = run_metrics(trace, [p for p in probes if p.t <= len(trace)])
        measured.pop("mechanism")
        measured.pop("v_max")
        record.update(measured)
        if keep_traces:
            record["trace"] = trace
        records.append(record)
        if tick is not None:
            tick()
    return records


def _naming_the_run(exc: STMError, where: str) -> STMError:
    """The error of a failed run, its message prefixed by ``where`` (the mechanism, parameters, V_max, scenario).

    Of the same class as ``exc`` when that is one of stmviz's own kinds; a user's subclass of one (whose
    ``__init__`` may take other arguments) is not rebuilt: the nearest stmviz kind it derives from is raised
    instead, and the caller chains the user's error to it (``raise … from exc``), unchanged.
    """
    kind = next(k for k in type(exc).__mro__ if issubclass(k, STMError) and k.__module__ == STMError.__module__)
    return kind(f"{where}: {exc}")


_WORKER = threading.local()


def _worker_caches() -> SharedCaches:
    """The caches of this worker (process and thread), shared by every group it runs.

    One per thread, so that the threads of one process (a thread pool, a Dask
    worker's threads) never fill one table at once.
    """
    caches = getattr(_WORKER, "caches", None)
    if caches is None:
        caches = _WORKER.caches = SharedCaches()
    return caches


def sweep(
    mechanisms: Any,
    scenarios: Any,
    v_max: Any = None,
    *,
    processes: int | None = None,
    executor: Executor | None = None,
    progress: bool = True,
    size: Any = "tokens",
    keep_traces: bool = False,
    caches: SharedCaches | None = None,
    errors: str = "raise",
    **grids: Any,
) -> SweepRecords:
    """Run every mechanism × scenario × V_max × grid combination; one record per run.

    Parameters
    ----------
    mechanisms : class, list of classes, or mapping label → class
        Mechanism classes (or factories ``factory(space, **params)``, e.g.
        ``functools.partial(SCM, k=5)``), built afresh for every run on
        ``StateSpace(size, v_max)``. Labelled by the class's ``name`` unless a
        mapping gives the labels.
    scenarios : Scenario, str, or a list of them
        Scenarios (bundled ones by name); each one's probes are scored.
    v_max : number or list of numbers, optional
        The capacities V_max; by default each scenario's own ``v_max``.
    processes : int, optional
        Run in this many worker processes (``None``: in this process). The
        records are the same, in the same order.
    executor : concurrent.futures.Executor, optional
        Run the groups on this executor instead: a ``ThreadPoolExecutor``, a
        ``ProcessPoolExecutor``, a Dask cluster's ``Client.get_executor()``
        (``pip install 'stmviz[dask]'``), … The sweep submits to it and waits;
        it does not shut it down. Not with ``processes``.
    progress : bool
        Show a progress bar of the runs (``tqdm.auto``), default ``True``.
    size : str or callable
        μ, as for :class:`~stmviz.StateSpace` (default ``"tokens"``).
    keep_traces : bool
        Put each run's :class:`~stmviz.Trace` in its record under ``"trace"``
        (only without ``processes``).
    caches : SharedCaches, optional
        The shared tables to use for every run. By default each mechanism
        gets new tables on each scenario, kept for all of its parameter sets
        and capacities (another mechanism's texts are others). Pass one
        object to share across mechanisms or across sweeps.
    errors : {"raise", "record"}
        When a run fails (a V_max too small for the scenario's inputs, say):
        raise the error, naming the mechanism, parameters and V_max
        (default), or keep a record with ``"error"`` (the message) and no
        measures, and go on.
    **grids : list
        Parameter → list of values, e.g. ``k=[1, 3]``. A mechanism gets the
        parameters its constructor accepts and runs at every combination of
        their values; a parameter no mechanism accepts is an error.

    Returns
    -------
    SweepRecords
        A list of dicts, one record per run, ordered by scenario, mechanism (in the order
        given), parameter combination, then V_max: ``scenario``,
        ``mechanism``, ``v_max``, one key per grid parameter (``None`` for a
        mechanism that does not take it), then the keys of
        :func:`stmviz.metrics.run_metrics` — ``steps``, ``mean_occupancy``,
        ``max_occupancy``, ``total_prompt_tokens``, ``max_prompt_tokens``,
        ``evictions``, ``summarizer_calls``, ``probes``, ``retained``,
        ``retention``, ``evidence_recall``, ``whole_turns``,
        ``answer_recall``, ``cost``.

    Raises
    ------
    InvalidArgumentError
        for a mechanism instance instead of a class, an empty or malformed
        list, a grid parameter no mechanism accepts, ``keep_traces`` with
        ``processes`` or ``executor``, both of these, an ``executor`` that is
        no Executor, or a factory worker processes cannot receive.
    """
    items = _mechanisms(mechanisms)
    found = _scenarios(scenarios)
    checked = _grids(grids, items)
    processes = guards.whole_number(processes, "processes", 1, where="sweep", none_ok=True)
    errors = guards.choice(errors, "errors", ("raise", "record"), where="sweep")
    progress = guards.flag(progress, "progress", where="sweep")
    keep_traces = guards.flag(keep_traces, "keep_traces", where="sweep")
    caches = guards.instance(caches, "caches", SharedCaches, where="sweep", none_ok=True)
    executor = guards.instance(executor, "executor", Executor, where="sweep", none_ok=True, what=(
        "a concurrent.futures.Executor (a ThreadPoolExecutor, ProcessPoolExecutor, or a Dask Client.get_executor())"
    ))
    if executor is not None and processes is not None:  # two ways to say where the runs go: one at a time
        raise InvalidArgumentError(
            "sweep: pass processes=N or executor=…, not both (processes=N is executor=ProcessPoolExecutor(N))"
        )
    if keep_traces and (processes is not None or executor is not None):  # a trace holds its mechanism: it stays here
        raise InvalidArgumentError(
            "sweep: keep_traces=True needs processes=None and no executor: traces hold their mechanism, which does not "
            "travel between processes"
        )
    resolve(size)  # an unknown μ fails here, before any run
    tasks = []
    for scenario in found:
        capacities = _capacities(v_max, scenario)
        for label, factory in items:
            for params in _combinations(factory, checked):
                tasks.append((scenario, label, factory, params, capacities, size, tuple(checked), keep_traces, errors))
    if processes is not None:
        _check_picklable(tasks, f"processes={processes}")
    elif executor is not None and not _in_this_process(executor):
        _check_picklable(tasks, f"executor={type(executor).__name__}")
    runs = sum(len(task[4]) for task in tasks)
    with _progress_bar(runs, progress) as bar:
        if processes is None and executor is None:
            groups = []
            shared = caches
            owner = None
            for task in tasks:
                if caches is None and (id(task[0]), task[1]) != owner:
                    # the tables of one mechanism on one scenario serve its parameter sets and capacities; the
                    # next mechanism's texts differ, so they are let go (less memory for the collector to walk)
                    shared, owner = SharedCaches(), (id(task[0]), task[1])
                assert shared is not None
                groups.append(_run_group(task, shared, bar.update))
        elif executor is not None:
            groups = _on_executor(tasks, executor, bar, f"executor={type(executor).__name__}")
        else:
            assert processes is not None
            with ProcessPoolExecutor(max_workers=processes) as pool:
                groups = _on_executor(tasks, pool, bar, f"processes={processes}")
    return SweepRecords(record for group in groups for record in group)


def _in_this_process(executor: Executor) -> bool:
    from concurrent.futures import ThreadPoolExecutor

    return isinstance(executor, ThreadPoolExecutor)


class _NoBar:
    """What a sweep with ``progress=False`` updates."""

    def update(self, n: int = 1) -> None:
        return None

    def __enter__(self) -> "_NoBar":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def _progress_bar(runs: int, progress: bool) -> Any:
    """tqdm's auto bar over the sweep's runs (a widget in Jupyter, text on stderr elsewhere), or nothing."""
    if not progress:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=runs, desc="sweep", unit="run", leave=False)


def _check_picklable(tasks: list[tuple[Any, ...]], how: str) -> None:
    """Refuse, before any run, a factory or μ that cannot travel to a worker process."""
    import pickle

    for task in tasks:
        try:
            pickle.dumps(task[2])
            pickle.dumps(task[5])
        except Exception as exc:  # noqa: BLE001 - any reason a factory cannot be pickled: pickle's rule, no guard's
            raise InvalidArgumentError(
                f"sweep, {how}: mechanism {task[1]!r} or μ cannot be sent to a worker process "
                f"({type(exc).__name__}: {shorten(str(exc))}); use classes or functools.partial of classes defined "
                f"in a module, or run in this process"
            ) from None


def _on_executor(tasks: list[tuple[Any, ...]], executor: Executor, bar: Any, how: str) -> list[list[dict[str, Any]]]:
    """Every group submitted to ``executor``; the records in the tasks' order, the bar moved as groups finish.

    An executor that fails — ``submit`` raises or returns no Future, a future raises something other than an
    STMError (a lost worker, a shut-down pool) — gives an :class:`InvalidArgumentError` naming the run and the
    executor, chained to the executor's own error, which is kept unchanged as its ``__cause__``. An STMError of
    a run already names the run (see :func:`_run_group`) and is raised as it is.
    """
    futures: dict[Future[Any], int] = {}
    groups: list[list[dict[str, Any]]] = [[] for _ in tasks]
    try:
        for k, task in enumerate(tasks):
            try:
                future = executor.submit(_run_group, task)
            except Exception as exc:  # noqa: BLE001 - the user's executor failed: chained below, unchanged
                raise InvalidArgumentError(
                    f"sweep, {how}: the executor's submit() failed for the run of {_run_name(task)} "
                    f"({type(exc).__name__}: {shorten(str(exc), 160)}); check that the executor is running (not shut "
                    f"down), or run without executor="
                ) from exc
            if not isinstance(future, Future):  # the Executor protocol: submit returns a Future
                raise InvalidArgumentError(
                    f"sweep, {how}: the executor's submit() returned {type(future).__name__} {brief(future)} for the "
                    f"run of {_run_name(task)}, not a concurrent.futures.Future; pass a concurrent.futures.Executor"
                )
            futures[future] = k
        for future in as_completed(futures):
            k = futures[future]
            try:
                groups[k] = future.result()
            except STMError:
                raise
            except Exception as exc:  # noqa: BLE001 - the executor or the user's factory failed: chained, unchanged
                raise InvalidArgumentError(
                    f"sweep, {how}: the run of {_run_name(tasks[k])} failed on the executor "
                    f"({type(exc).__name__}: {shorten(str(exc), 160)}); its own error is chained above this one"
                ) from exc
            bar.update(len(tasks[k][4]))
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    return groups


def _run_name(task: tuple[Any, ...]) -> str:
    """A group's mechanism, parameters and scenario, for messages: ``FIFOWindow, k=2 on 'tool_chat'``."""
    scenario, label, _, params = task[:4]
    settings = "".join(f", {k}={brief(v, 40)}" for k, v in params.items())
    return f"{label}{settings} on {getattr(scenario, 'name', '')!r}"
