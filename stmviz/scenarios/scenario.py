"""Scenarios: agent trajectories with their query Q, tools T, capacity V_max and probes.

A :class:`Scenario` is what :func:`stmviz.run` consumes — it reads
``.steps``, ``.query`` and ``.tools`` (and ``.meta`` as request metadata) —
plus what a comparison needs: the capacity V_max at which the scenario is
meant to be run and :class:`Probe` questions that test whether an early fact
is still in the model input π(ω_t) at a later step t.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from ..core.guards import brief
from ..core.element import Meta, thaw
from ..core.errors import InvalidArgumentError, FormatError
from ..core.errors import UnknownScenarioError  # defined with every error class; importable from here too
from ..io.files import as_path, json_text, read_bytes, write_text
from ..io.jsonio import decode_json
from ..core.context import AgentStep, DIRECTIVE_SHORTHANDS
from ..core.sizes import count_tokens
from ..core.space import StateSpace
from ..core import guards
from .schema import FORMAT, VERSION, validate

__all__ = ["Probe", "Scenario", "ScenarioInfo", "UnknownScenarioError", "load_scenario", "list_scenarios", "bundled_names"]

DATA_PACKAGE = "stmviz.scenarios"
DATA_DIR = "data"


@dataclass(frozen=True, slots=True)
class Probe:
    """A probe of retention: a question answered from π(ω_t) whose evidence lies at an earlier step.

    The evidence counts as retained at t when ``answer`` occurs
    (case-insensitively) in the text of π(ω_t), the model input built from
    the state after steps 0 … t−1, from which step t's output is produced.
    A question asked in the input of step k (a user's message, its
    observation) is answered in step k + 1's output, so its probe has
    t = k + 1.

    Parameters
    ----------
    t : int
        The state whose model input π(ω_t) is inspected (0 < t ≤ n): k + 1
        for a question asked in the input of step k.
    question : str
        The question, for people reading a report.
    answer : str
        A short key string (a name, a number) whose presence in π(ω_t) means
        the evidence was kept, raw or summarized.
    evidence_step : int
        The step whose text holds the answer (< t): its input (a user's
        message, a tool's result) or its output (a reply).
    evidence_steps : tuple of int, optional
        Every step whose text holds evidence for the question, when it is
        spread over several (benchmarks such as LoCoMo label more than one
        evidence turn). Sorted and without repeats; it always contains
        ``evidence_step``, and defaults to ``(evidence_step,)``.
    reference : str, optional
        The full reference answer, when it is longer than the key string
        (``None``: the key string ``answer`` is the whole answer). A probe
        with a reference may carry an ``answer`` that does not occur
        verbatim in its evidence (a benchmark's free-text answer); without
        one, a scenario file checks that it does.

    >>> p = Probe(12, "What is the user allergic to?", "sesame", 2)
    >>> p.retained_in("Facts: the user is allergic to SESAME.")
    True
    >>> p.retained_in("Facts: the user likes tea.")
    False
    >>> p.evidence_steps, p.reference_answer
    ((2,), 'sesame')
    """

    t: int
    question: str
    answer: str
    evidence_step: int
    evidence_steps: tuple[int, ...] = ()
    reference: str | None = None

    def __post_init__(self) -> None:
        for name in ("t", "evidence_step"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise FormatError(f"Probe.{name} must be a whole number ≥ 0, got {value!r}")
        for name in ("question", "answer"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise FormatError(f"Probe.{name} must be non-empty text, got {brief(value, 40)}")
        if self.evidence_step >= self.t:
            raise FormatError(
                f"Probe asked at t = {self.t} has evidence_step = {self.evidence_step}; the evidence must lie "
                f"at an earlier step (evidence_step < t)"
            )
        steps = self.evidence_steps
        if isinstance(steps, (str, bytes)) or not isinstance(steps, Iterable):
            raise FormatError(f"Probe.evidence_steps must be a list of step numbers, got {brief(steps, 40)}")
        steps = tuple(steps)
        for value in steps:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < self.t:
                raise FormatError(
                    f"Probe asked at t = {self.t}: every evidence step must be a whole number in 0 … t−1, "
                    f"got {brief(value, 40)} in evidence_steps"
                )
        object.__setattr__(self, "evidence_steps", tuple(sorted({self.evidence_step, *steps})))
        if self.reference is not None and (not isinstance(self.reference, str) or not self.reference.strip()):
            raise FormatError(
                f"Probe.reference must be non-empty text or None, got {brief(self.reference, 40)}"
            )

    @property
    def reference_answer(self) -> str:
        """The full reference answer: ``reference`` if given, else the key string ``answer``."""
        return self.reference if self.reference is not None else self.answer

    def retained_in(self, text: str) -> bool:
        """Whether ``answer`` occurs in ``text``, ignoring case."""
        return self.answer.casefold() in text.casefold()

    def to_dict(self) -> dict[str, Any]:
        """The probe as a JSON object of a scenario file."""
        data: dict[str, Any] = {
            "t": self.t, "question": self.question, "answer": self.answer, "evidence_step": self.evidence_step
        }
        if self.evidence_steps != (self.evidence_step,):
            data["evidence_steps"] = list(self.evidence_steps)
        if self.reference is not None:
            data["reference"] = self.reference
        return data


@dataclass(frozen=True)
class Scenario:
    """A scenario: the stream of incoming agent steps with its query Q, tools T, V_max and probes.

    ``run(mechanism, scenario)`` runs it: :func:`stmviz.run` reads ``steps``,
    ``query``, ``tools`` and ``meta``. Construction validates the whole
    scenario with the rules of :mod:`stmviz.scenarios.schema`.

    Parameters
    ----------
    name : str
        Short identifier (the file name of a bundled scenario).
    title, description : str
        For people: a one-line title and what the scenario shows.
    query : str
        The user's task Q (or a chat's system prompt).
    tools : tuple of str
        The tools T.
    steps : tuple of AgentStep
        The incoming steps (dicts are accepted and converted).
    probes : tuple of Probe
        Retention probes (dicts are accepted and converted).
    v_max : float, optional
        The documented capacity V_max (tokens) at which the scenario is meant
        to be run; ``None`` if it has none.
    mechanism : str, optional
        The mechanism the scenario was written for, as a class name of
        :mod:`stmviz.mechanisms` (``"FIFOWindow"``, ``"SCM"``, ``"HiAgent"``,
        ``"AgentFold"``).
    meta : mapping
        Request metadata shared by every step.
    report : TranscriptReport, optional
        For a scenario read from a transcript: what the reading kept, left out
        and guessed (:class:`stmviz.scenarios.TranscriptReport`); ``None``
        otherwise. Not saved with the scenario and not compared.

    Examples
    --------
    >>> s = Scenario.from_dict({"name": "tiny", "v_max": 50, "steps": [
    ...     {"observation": "My name is Ada."}, {"observation": "Hello again."}],
    ...     "probes": [{"t": 2, "question": "Name?", "answer": "Ada", "evidence_step": 0}]})
    >>> len(s), s.probes[0].answer, s.v_max
    (2, 'Ada', 50)
    >>> Scenario.from_dict(s.to_dict()) == s
    True
    """

    name: str
    title: str = ""
    description: str = ""
    query: str = ""
    tools: tuple[str, ...] = ()
    steps: tuple[AgentStep, ...] = ()
    probes: tuple[Probe, ...] = ()
    v_max: float | None = None
    mechanism: str | None = None
    meta: Meta = field(default_factory=Meta)
    source: str = field(default="", compare=False, repr=False)
    report: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        label = self.source or (f"{self.name}.json" if isinstance(self.name, str) else "scenario")
        set_ = object.__setattr__
        for key in ("title", "description", "query"):
            if getattr(self, key) is None:  # None is "not given", as the JSON form leaves the key out
                set_(self, key, "")
            if not isinstance(getattr(self, key), str):
                raise FormatError(f"{label}: {key}: expected a text (str), got {brief(getattr(self, key))}")
        if isinstance(self.tools, str):
            raise FormatError(f"{label}: tools: expected a list of texts, got one text {brief(self.tools, 40)}")
        set_(self, "tools", _listed(self.tools, label, "tools", "tool names"))
        steps = []
        for t, step in enumerate(_listed(self.steps, label, "steps", "steps (AgentStep or dict)")):
            steps.append(AgentStep.coerce(step, where=f"{label}: steps[{t}]"))
        set_(self, "steps", tuple(steps))
        probes = []
        for k, probe in enumerate(_listed(self.probes, label, "probes", "probes (Probe or dict)")):
            if isinstance(probe, Mapping):
                try:
                    probe = Probe(**probe)
                except TypeError as exc:
                    raise FormatError(f"{label}: probes[{k}]: {exc}") from None
                except FormatError as exc:
                    raise FormatError(f"{label}: probes[{k}]: {exc}") from None
            if not isinstance(probe, Probe):
                raise FormatError(f"{label}: probes[{k}]: expected a Probe or a dict, got {type(probe).__name__}")
            probes.append(probe)
        set_(self, "probes", tuple(probes))
        if self.v_max is not None and not isinstance(self.v_max, bool) and isinstance(self.v_max, (int, float)):
            try:  # the schema's "> 0" lets NaN and ∞ through (NaN > 0 is no error to it): the capacity rule
                guards.capacity(self.v_max, "v_max", where=label)
            except InvalidArgumentError as exc:
                raise FormatError(str(exc)) from None
        if not isinstance(self.meta, Meta):
            try:
                set_(self, "meta", Meta(self.meta))
            except Exception as exc:
                raise FormatError(f"{label}: meta: {exc}") from None
        validate(self.to_dict(), source=label)

    # -- reading --------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[AgentStep]:
        """The incoming steps, in order (``run(mechanism, scenario)`` also reads query, tools and meta)."""
        return iter(self.steps)

    def __repr__(self) -> str:
        v_max = f", V_max = {self.v_max:g}" if self.v_max is not None else ""
        return f"<Scenario {self.name!r}: {len(self.steps)} steps, {len(self.probes)} probes{v_max}>"

    def token_count(self, encoding: str = "cl100k_base") -> int:
        """Σ over steps of the tokens of thought, action and observation (the trajectory's raw size).

        >>> Scenario("s", steps=({"observation": "hello world"},)).token_count()
        2
        """
        return sum(count_tokens(step.text, encoding) for step in self.steps)

    def space(self, size: Any = "tokens", v_max: float | None = None) -> StateSpace:
        """Ω_STM at the scenario's documented capacity: ``StateSpace(size, v_max or self.v_max)``."""
        capacity = v_max if v_max is not None else self.v_max
        if capacity is None:
            raise FormatError(f"scenario {self.name!r} documents no v_max; pass one: scenario.space(v_max=4096)")
        return StateSpace(size, capacity)

    @property
    def subgoals(self) -> tuple[str, ...]:
        """The subgoal texts in the order of their markers; a subgoal's id is its index here."""
        return tuple(s.directives["subgoal"] for s in self.steps if s.directives.get("subgoal"))

    # -- JSON -----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The scenario as a JSON document that :meth:`from_dict` reads back."""
        data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "name": self.name}
        for key in ("title", "description", "query"):
            if getattr(self, key):
                data[key] = getattr(self, key)
        if self.tools:
            data["tools"] = list(self.tools)
        if self.v_max is not None:
            data["v_max"] = self.v_max
        if self.mechanism is not None:
            data["mechanism"] = self.mechanism
        if self.meta:
            data["meta"] = thaw(self.meta)
        data["steps"] = [_step_record(step) for step in self.steps]
        if self.probes:
            data["probes"] = [probe.to_dict() for probe in self.probes]
        return data

    def to_json(self, path: str | os.PathLike | None = None, indent: int | None = 2) -> str:
        """The scenario as JSON text; also written to ``path`` if given."""
        text = json_text(self.to_dict(), indent=indent, error=FormatError, what=f"scenario {self.name!r}") + "\n"
        if path is not None:  # atomically, with the JSON encoding policy of stmviz.io.files
            write_text(path, text, what="scenario")
        return text

    @classmethod
    def from_dict(cls, data: Any, source: str = "scenario") -> "Scenario":
        """Build a scenario from its decoded JSON document, validating it first.

        Raises
        ------
        FormatError
            naming ``source``, the place (e.g. ``steps[12].fold.op``) and what is wrong.
        """
        if isinstance(source, os.PathLike):
            source = os.fspath(source)
        guards.instance(source, "source", str, where="Scenario.from_dict", what="the file or origin it names (a str or a path)")
        if isinstance(data, list) or (isinstance(data, Mapping) and "messages" in data):
            raise FormatError(
                f"{source}: top level: this looks like a chat log (a list of messages), not a scenario; "
                f"read it with stmviz.scenarios.load_chat_log"
            )
        validate(data, source=source)
        name = data.get("name") or _stem(source)
        return cls(
            name=name,
            title=data.get("title", ""),
            description=data.get("description", ""),
            query=data.get("query", ""),
            tools=tuple(data.get("tools", ())),
            steps=tuple(AgentStep.coerce(s, where=f"{source}: steps[{t}]") for t, s in enumerate(data["steps"])),
            probes=tuple(Probe(**p) for p in data.get("probes", ())),
            v_max=data.get("v_max"),
            mechanism=data.get("mechanism"),
            meta=data.get("meta", {}),
            source=source,
        )

    @classmethod
    def from_json(cls, text: str | bytes, source: str = "scenario") -> "Scenario":
        """Build a scenario from JSON text (see :meth:`from_dict`)."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise FormatError(f"Scenario.from_json reads JSON text (a str or bytes), got {brief(text)}; "
                                      "for a dict use Scenario.from_dict")
        return cls.from_dict(_decode(text, source), source=source)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Scenario":
        """Read a scenario file."""
        path = as_path(path, "scenario file")
        raw = read_bytes(path, what="scenario file", error=FormatError, missing=UnknownScenarioError)
        return cls.from_json(raw, source=path.name)


def _listed(value: Any, label: str, field: str, what: str) -> tuple[Any, ...]:
    """A field that holds a list, as a tuple; anything else (None, a number, a broken iterable) is a FormatError."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise FormatError(f"{label}: {field}: expected a list of {what}, got {brief(value)}")
    try:
        return tuple(value)
    except Exception as exc:
        raise FormatError(f"{label}: {field}: could not be read as a list ({type(exc).__name__})") from None


def _step_record(step: AgentStep) -> dict[str, Any]:
    """A step as a scenario file writes it: the shorthand directives (``subgoal``, ``subgoal_done``, ``fold``) on the record itself."""
    record: dict[str, Any] = {}
    for key, value in step.to_json().items():
        if key != "directives":
            record[key] = value
            continue
        rest = dict(value)
        record.update({name: rest.pop(name) for name in DIRECTIVE_SHORTHANDS if name in rest})
        if rest:
            record["directives"] = rest
    return record


def _stem(source: str) -> str:
    stem = Path(source).name
    return stem[:-5] if stem.endswith(".json") else (stem or "scenario")


def _decode(text: str | bytes, source: str) -> Any:
    return decode_json(text, source, FormatError, expected="a scenario is a JSON object with 'steps'")


# --------------------------------------------------------------- bundled scenarios


def _data_dir():
    return resources.files(DATA_PACKAGE).joinpath(DATA_DIR)


def bundled_names() -> list[str]:
    """The names of the scenarios shipped with stmviz, sorted.

    >>> {"web_research", "household", "long_dialogue", "tool_chat"} <= set(bundled_names())
    True
    """
    return sorted(p.name[:-5] for p in _data_dir().iterdir() if p.name.endswith(".json"))


class ScenarioInfo(NamedTuple):
    """A bundled scenario's name and title."""

    name: str
    title: str


def list_scenarios() -> list[ScenarioInfo]:
    """The bundled scenarios as ``(name, title)`` pairs, sorted by name.

    >>> [info.name for info in list_scenarios()]
    ['household', 'long_dialogue', 'tool_chat', 'web_research']
    """
    out = []
    for name in bundled_names():
        data = _decode(_data_dir().joinpath(f"{name}.json").read_bytes(), f"{name}.json")
        out.append(ScenarioInfo(name, data.get("title", "") if isinstance(data, Mapping) else ""))
    return out


def load_scenario(name_or_path: str | os.PathLike) -> Scenario:
    """Load a bundled scenario by name, or a scenario file by path.

    Parameters
    ----------
    name_or_path : str or path
        A bundled name (see :func:`list_scenarios`) or the path of a ``.json``
        scenario file.

    Raises
    ------
    UnknownScenarioError
        if it is neither a bundled name nor an existing file.
    FormatError
        if the file is malformed (the message names the file, the step and the field).

    >>> s = load_scenario("web_research")
    >>> s.mechanism, len(s.steps) >= 30, s.token_count() > 3 * s.v_max
    ('AgentFold', True, True)
    """
    if isinstance(name_or_path, str) and name_or_path in bundled_names():
        resource = _data_dir().joinpath(f"{name_or_path}.json")
        return Scenario.from_json(resource.read_bytes(), source=f"{name_or_path}.json")
    guards.instance(name_or_path, "name_or_path", (str, os.PathLike), where="load_scenario",
                    what="a bundled scenario's name or the path of a scenario file", fix=f"; bundled: {', '.join(bundled_names())}")
    path = Path(name_or_path)
    if os.path.lexists(path):  # a folder, a pipe or an unreadable file gets its own clear error
        return Scenario.load(path)
    raise UnknownScenarioError(
        f"{str(name_or_path)!r} is neither a bundled scenario nor an existing file; bundled: "
        f"{', '.join(bundled_names())}"
    )


def scenarios() -> Iterable[Scenario]:
    """Every bundled scenario, loaded, in name order."""
    return [load_scenario(name) for name in bundled_names()]
