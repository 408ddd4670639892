"""Transcripts people already have, read into scenarios: ``load_transcript(path, format=None)``.

Practitioners record their agents in the formats of their tools, not as
stmviz scenarios. :func:`load_transcript` recognises each of these and reads it
into a :class:`~stmviz.scenarios.Scenario` by one set of rules — those of
:func:`~stmviz.scenarios.from_openai_messages`: every format is first read into
chat messages, so a step t holds the model's output (an assistant turn,
produced from π(ω_t)) and then the input that follows it (a tool's result, the
user's next message).

======================  ====================================================================
``format``              what the file holds
======================  ====================================================================
``"claude_code"``       a Claude Code session (JSONL of user / assistant / system records)
``"anthropic"``         an Anthropic Messages API request, response, or ``{request, response}``
``"openai_chat"``       OpenAI Chat Completions messages (a list, or ``{"messages": [...]}``)
``"openai_responses"``  OpenAI Responses API / Agents SDK items (``function_call`` …)
``"otel"``              OpenTelemetry GenAI spans (``gen_ai.input.messages`` / ``output``)
``"langchain"``         LangChain message dicts (``messages_to_dict``, ``model_dump``, ``dumpd``)
``"swe_agent"``         a SWE-agent trajectory (``.traj``: ``history``, or ``trajectory``)
``"agentfold"``         AgentFold's ``infer.py`` records (``question``, ``full_traj``, …),
                        read by :func:`~stmviz.scenarios.load_agentfold_log`
``"scenario"``          a stmviz scenario file (``steps``)
======================  ====================================================================

Two things a chat message has no field for are kept apart from the visible
text: the model's **thinking** goes into the step's ``meta["thinking"]``, and a
**compaction the recorded system made** (Claude Code's ``compact_boundary`` and
its summary, an Anthropic ``compaction`` block, an OpenAI ``compaction`` item)
into ``meta["recorded_compaction"]`` of the first step whose output came after
it; :func:`recorded_compactions` lists them, so a figure can mark where the real
system compacted beside what each mechanism does on the same transcript.

What reading a file kept, left out, guessed and skipped is counted, by kind
with an example, in the scenario's ``report`` (a :class:`TranscriptReport`);
its ``description`` ends with the summary, and a :class:`TranscriptWarning`
says when anything the model saw or wrote was left out.

Malformed files raise :class:`~stmviz.FormatError` naming the file, the
record (``line 12``, ``messages[3].content[1]``) and what to fix; an unknown
block or item type is not malformed: it is kept as its JSON text, and noted.
"""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ...core import guards
from ...core.guards import brief
from ...core.i18n import N_
from ...core.i18n import gettext as _
from ...core.context import AgentStep
from ...core.errors import InvalidArgumentError, FormatError
from ...io.files import as_path, read_bytes
from ...io.jsonio import MAX_DEPTH, decode_json, decode_json_lines
from ..agentfold_log import load_agentfold_log
from ..scenario import Scenario
from . import anthropic, langchain, openai, otel, swe_agent
from ._conversation import COMPACTION_KEY, Conversation, fail, word
from .report import ReportItem, Tally, TranscriptReport, TranscriptWarning

__all__ = [
    "FORMATS",
    "RecordedCompaction",
    "ReportItem",
    "TranscriptReport",
    "TranscriptWarning",
    "detect_format",
    "example_transcript",
    "from_transcript",
    "load_transcript",
    "recorded_compactions",
]

#: The formats :func:`load_transcript` reads, by the name its ``format`` argument takes.
FORMATS = ("claude_code", "anthropic", "openai_chat", "openai_responses", "otel", "langchain", "swe_agent", "agentfold",
           "scenario")

_NAMES = {  # marked for translation: a report's first line names its format in the language set
    "claude_code": N_("a Claude Code session"), "anthropic": N_("an Anthropic Messages API transcript"),
    "openai_chat": N_("OpenAI chat messages"), "openai_responses": N_("OpenAI Responses / Agents SDK items"),
    "otel": N_("OpenTelemetry GenAI spans"), "langchain": N_("LangChain messages"), "swe_agent": N_("a SWE-agent trajectory"),
    "agentfold": N_("an AgentFold infer.py log"), "scenario": N_("a stmviz scenario"),
}

_RESPONSES_TYPES = {"function_call", "function_call_output", "reasoning", "compaction", "item_reference",
                    "custom_tool_call", "custom_tool_call_output"}
_ANTHROPIC_BLOCKS = {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "compaction"}
_RESPONSES_PARTS = {"input_text", "output_text", "input_image", "input_file"}


# ------------------------------------------------------------------------------------------- detection


def _is_agentfold(record: Any) -> bool:
    return isinstance(record, Mapping) and "question" in record and ("full_traj" in record or "final_response" in record)


def _blocks(content: Any) -> set[str]:
    return {kind for b in content if isinstance(b, Mapping) and (kind := word(b.get("type")))} if isinstance(content, list) else set()


def _kind_of_list(items: Sequence[Any]) -> str | None:
    """The format of a list of records, from what its records hold (None: no record says)."""
    if any(anthropic.is_claude_code_record(r) for r in items):
        return "claude_code"
    if any(_is_agentfold(r) for r in items):
        return "agentfold"
    if any(otel.is_span(r) for r in items):
        return "otel"
    if any(langchain.message_type(r) is not None for r in items):
        return "langchain"
    mappings = [r for r in items if isinstance(r, Mapping)]
    if any(word(r.get("type")) in _RESPONSES_TYPES or (word(r.get("type")) or "").endswith(("_call", "_call_output")) for r in mappings):
        return "openai_responses"
    if any("parts" in r and "role" in r and "content" not in r for r in mappings):
        return "otel"
    blocks = set().union(*(_blocks(r.get("content")) for r in mappings)) if mappings else set()
    if blocks & _ANTHROPIC_BLOCKS:
        return "anthropic"
    if blocks & _RESPONSES_PARTS or any(word(r.get("type")) == "message" for r in mappings):
        return "openai_responses"
    if any("role" in r for r in mappings):
        return "openai_chat"
    return None


def _kind_of(document: Any) -> str | None:
    if isinstance(document, list):
        return _kind_of_list(document)
    if not isinstance(document, Mapping):
        return None
    if "steps" in document and "messages" not in document:
        return "scenario"
    if _is_agentfold(document):
        return "agentfold"
    if swe_agent.is_trajectory(document):
        return "swe_agent"
    if otel.is_span(document) or isinstance(document.get("spans"), list):
        return "otel"
    if word(document.get("type")) == "message" and word(document.get("role")) == "assistant":
        return "anthropic"
    if "request" in document or "response" in document:
        return "anthropic"
    if word(document.get("object")) in ("response", "response.compaction") or "input" in document or "items" in document:
        return "openai_responses"
    if isinstance(document.get("messages"), list):
        if "system" in document or "max_tokens" in document:
            return "anthropic"
        return _kind_of_list(document["messages"]) or "openai_chat"
    return None


def _documents(raw: bytes, source: str, suffix: str) -> tuple[Any, list[tuple[int, Any]] | None]:
    """The decoded file: one JSON document, or (for JSON Lines) the documents of its lines."""
    if suffix in (".jsonl", ".ndjson"):
        return None, decode_json_lines(raw, source, FormatError, expected="a JSON Lines transcript holds one record per line")
    try:
        return decode_json(raw, source, FormatError, expected="a transcript is JSON (or JSON Lines: name it .jsonl)"), None
    except FormatError as first:
        try:
            lines = decode_json_lines(raw, source, FormatError)
        except FormatError:
            raise first from None
        if len(lines) < 2:
            raise first from None
        return None, lines


def _detect(document: Any, lines: list[tuple[int, Any]] | None, source: str) -> str:
    kind = _kind_of_list([d for _, d in lines]) if lines is not None else _kind_of(document)
    if kind is None:
        shown = brief([d for _, d in lines][:1] if lines is not None else document, 60)
        raise fail(
            source, "top level",
            f"cannot tell which transcript format this is ({shown}); pass format= one of {', '.join(FORMATS)}",
        )
    return kind


def detect_format(path: str | os.PathLike) -> str:
    """Which of :data:`FORMATS` a transcript file holds, from its records' fields.

    Raises
    ------
    FormatError
        if the file is not JSON or JSON Lines, or no record says which format it is.
    """
    path = as_path(path, "transcript file")
    raw = read_bytes(path, what="transcript file", error=FormatError)
    document, lines = _documents(raw, path.name, path.suffix.lower())
    return _detect(document, lines, path.name)


# ------------------------------------------------------------------------------------------- reading


def _records(document: Any, lines: list[tuple[int, Any]] | None, key: str | None = None) -> tuple[list[Any], list[str]]:
    """The records of a list, of ``document[key]``, or of the lines of a JSON Lines file, with their labels."""
    if lines is not None:
        return [d for _, d in lines], [f"line {n}" for n, _ in lines]
    if isinstance(document, Mapping) and key is not None and isinstance(document.get(key), list):
        return list(document[key]), [f"{key}[{k}]" for k in range(len(document[key]))]
    if isinstance(document, list):
        return list(document), [f"{key or 'items'}[{k}]" for k in range(len(document))]
    return [document], ["top level"]


def _conversation(kind: str, document: Any, lines: list[tuple[int, Any]] | None, source: str) -> Conversation:
    if kind == "claude_code":
        records, labels = _records(document, lines, "records")
        return anthropic.read_claude_code(list(zip(labels, records)), source)
    if kind == "anthropic":
        if lines is not None:
            raise fail(source, "top level", "an Anthropic Messages transcript is one JSON document (a request or a response), not JSON Lines")
        return anthropic.read_messages_api(document, source)
    if kind == "openai_chat":
        if isinstance(document, Mapping) and "messages" not in document:
            raise fail(source, "top level", "expected a list of chat messages or an object with 'messages'")
        records, labels = _records(document, lines, "messages")
        return openai.read_chat(records, labels, source)
    if kind == "openai_responses":
        if lines is not None:
            records, labels = _records(None, lines)
            return openai.read_responses_items(records, labels, source)
        items, labels, instructions = openai.responses_document(document, source)
        return openai.read_responses_items(items, labels, source, instructions)
    if kind == "otel":
        if lines is None and isinstance(document, list) and document and not any(otel.is_span(d) for d in document):
            return otel.read_messages(document, source)
        spans = [s for _, d in lines for s in otel.spans_of(d)] if lines is not None else otel.spans_of(document)
        return otel.read_spans(spans, [f"spans[{k}]" for k in range(len(spans))], source)
    if kind == "langchain":
        records, labels = _records(document, lines, "messages")
        return langchain.read_langchain(records, labels, source)
    if kind == "swe_agent":
        if lines is not None:
            raise fail(source, "top level", "a SWE-agent trajectory is one JSON object (a .traj file), not JSON Lines")
        return swe_agent.read_trajectory(document, source)
    raise InvalidArgumentError(f"format must be one of {', '.join(FORMATS)}, got {brief(kind, 40)}")  # pragma: no cover - detected kinds are all above


_SCALARS = (str, int, float, bool, type(None))


def _plain_json(data: Any, source: str) -> Any:
    """A copy of an in-memory document made only of dict (str keys), list, str, numbers, bools and None.

    The guard of :func:`from_transcript` (a decoded file is plain JSON already):
    a tuple becomes a list, a mapping a dict; anything else — a str or dict
    subclass, an object whose methods raise, a structure that contains itself or
    nests deeper than JSON files may — is a :class:`FormatError` naming
    where it is. Walked without recursion.
    """
    def convert(value: Any, where: str) -> Any:
        if type(value) in _SCALARS:
            return value
        if id(value) in seen:
            raise fail(source, where, "contains itself (or holds one list or object twice); give plain JSON values")
        seen.add(id(value))
        try:
            if isinstance(value, Mapping):
                items = list(value.items())
                if not all(type(key) is str for key, _ in items):
                    raise fail(source, where, "an object's keys must be strings, as in JSON")
                return dict(items)
            if type(value) in (list, tuple):
                return list(value)
        except FormatError:
            raise
        except Exception as exc:  # a hostile object: its own methods fail
            raise fail(source, where, f"could not be read as JSON ({type(exc).__name__}); give plain JSON values") from None
        raise fail(source, where, f"{brief(value, 40)} is not a JSON value (an object, array, string, number, true, false or null)")

    seen: set[int] = set()
    root = convert(data, "top level")
    level = [(root, "top level")] if type(root) in (dict, list) else []
    for depth in range(MAX_DEPTH + 1):
        if not level:
            return root
        deeper = []
        for node, where in level:
            keys = node.keys() if isinstance(node, dict) else range(len(node))
            for key in keys:
                at = f"{where}.{key}" if isinstance(node, dict) else f"{where}[{key}]"
                node[key] = convert(node[key], at.removeprefix("top level."))
                if type(node[key]) in (dict, list):
                    deeper.append((node[key], at.removeprefix("top level.")))
        level = deeper
    raise fail(source, "top level", f"arrays or objects are nested more than {MAX_DEPTH} levels deep; this is not a transcript")


def _check_format(format: Any, where: str) -> str | None:
    if format is None:
        return None
    return guards.choice(format, "format", FORMATS, "or None to detect it from the records", where=where)


def from_transcript(
    data: Any, format: str | None = None, *, name: str = "transcript", source: str = "", v_max: float | None = None
) -> Scenario:
    """The scenario of a decoded transcript (a list or an object as its JSON file holds it; see the module's text).

    Parameters
    ----------
    data : list or dict
        The decoded document; for JSON Lines formats (Claude Code), the list of decoded lines.
    format : str, optional
        One of :data:`FORMATS` except ``"agentfold"`` and ``"scenario"`` (files only); detected if omitted.
    name : str
        The scenario's name.
    source : str
        A file name to start error messages with.
    v_max : float, optional
        The capacity to document with the scenario.

    Examples
    --------
    >>> s = from_transcript({"system": "Be brief.", "messages": [
    ...     {"role": "user", "content": "Weather in Oslo?"},
    ...     {"role": "assistant", "content": [
    ...         {"type": "thinking", "thinking": "I should call the tool.", "signature": "x"},
    ...         {"type": "tool_use", "id": "tu_1", "name": "weather", "input": {"city": "Oslo"}}]},
    ...     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "4 °C"}]}]})
    >>> s.query, [(st.action, st.observation) for st in s.steps]
    ('Be brief.', [('', 'Weather in Oslo?'), ('weather({"city": "Oslo"})', '4 °C')])
    >>> s.steps[1].meta["thinking"], "tool" in s.steps[1].text
    ('I should call the tool.', False)
    """
    kind = _check_format(format, "from_transcript")
    name = guards.text(name, "name", where="from_transcript", none_ok=True, blank_ok=True) or "transcript"
    source = guards.text(source, "source", where="from_transcript", blank_ok=True)
    if kind in ("agentfold", "scenario"):  # these two formats are files with their own readers
        raise InvalidArgumentError(f"from_transcript reads a decoded transcript; for format={kind!r} load the file with load_transcript")
    data = _plain_json(data, source)
    kind = kind or _detect(data, None, source)
    if kind in ("agentfold", "scenario"):
        raise fail(source, "top level", f"this is {_NAMES[kind]}; load its file with load_transcript")
    return _announce(_conversation(kind, data, None, source).scenario(name, kind=_NAMES[kind], v_max=v_max))


def load_transcript(
    path: str | os.PathLike, format: str | None = None, *, name: str | None = None, v_max: float | None = None
) -> Scenario:
    """The scenario of a transcript file in any of :data:`FORMATS`, detected from its records unless given.

    Parameters
    ----------
    path : str or path
        The file: JSON, or JSON Lines (``.jsonl``; a Claude Code session).
    format : str, optional
        One of :data:`FORMATS`; detected if omitted (see :func:`detect_format`).
    name : str, optional
        The scenario's name (default: the file name without its suffix).
    v_max : float, optional
        The capacity to document with the scenario.

    Returns
    -------
    Scenario
        Steps in the conversation's order; thinking in ``meta["thinking"]``,
        recorded compactions in ``meta["recorded_compaction"]``; what the
        reading kept, left out, guessed and skipped in ``scenario.report`` (a
        :class:`TranscriptReport`; ``None`` for a ``scenario`` file).

    Warns
    -----
    TranscriptWarning
        when anything the model saw or wrote was left out (a sidechain, an
        abandoned branch, an attachment); the report says what.

    Raises
    ------
    FormatError
        naming the file, the record and what is wrong.
    """
    kind = _check_format(format, "load_transcript")
    path = as_path(path, "transcript file")
    name = guards.text(name, "name", where="load_transcript", none_ok=True, blank_ok=True) or path.stem
    raw = read_bytes(path, what="transcript file", error=FormatError)  # bounded; never blocks on a pipe or device
    source = path.name
    document, lines = _documents(raw, source, path.suffix.lower())
    kind = kind or _detect(document, lines, source)
    if kind == "agentfold":
        scenario = load_agentfold_log(path, name=name, **({"v_max": v_max} if v_max is not None else {}))
        object.__setattr__(scenario, "report", _agentfold_report(scenario, source))  # a new scenario: set once, here
        return scenario
    if kind == "scenario":
        scenario = Scenario.load(path)
        return scenario if v_max is None else _with_v_max(scenario, v_max)
    return _announce(_conversation(kind, document, lines, source).scenario(name, kind=_NAMES[kind], v_max=v_max))


def _agentfold_report(scenario: Scenario, source: str) -> TranscriptReport:
    """What an AgentFold log's steps hold, by kind (its reader leaves nothing out: a <compress> it ignores stays in meta)."""
    kept, skipped = Tally(), Tally()
    for t, st in enumerate(scenario.steps):
        for kind, value in ((N_("assistant text"), st.thought), (N_("tool call"), st.action),
                            (N_("tool result"), st.observation if st.action.strip() else ""),
                            (N_("thinking"), st.meta.get("thinking")),
                            (N_("fold (a <compress> infer.py applied)"), st.directives.get("fold") and str(dict(st.directives["fold"])))):
            if isinstance(value, str) and value.strip():
                kept.add(kind, f"step {t}", value)
        if st.meta.get("ignored_compress"):
            skipped.add(N_("<compress> infer.py ignored (kept in the step's meta['ignored_compress'])"), f"step {t}",
                        str(st.meta["ignored_compress"]))
    return TranscriptReport(source, _NAMES["agentfold"], kept=kept.items(), skipped=skipped.items())


def _announce(scenario: Scenario) -> Scenario:
    """The scenario, after a :class:`TranscriptWarning` if its report says something was left out."""
    report = scenario.report
    if isinstance(report, TranscriptReport) and not report.complete:
        warnings.warn(TranscriptWarning(
            f"{report.source or 'transcript'}: not everything in the file reached the steps — {report.summary()} "
            "(see scenario.report for an example of each; silence with warnings.simplefilter('ignore', TranscriptWarning))"
        ), stacklevel=3)
    return scenario


def _with_v_max(scenario: Scenario, v_max: float) -> Scenario:
    return dataclasses.replace(scenario, v_max=v_max)


# ------------------------------------------------------------------------------------------- recorded compactions


@dataclass(frozen=True)
class RecordedCompaction:
    """A compaction the recorded system made: before the model's output at step t, from ω_t on.

    Attributes
    ----------
    t : int
        The first step whose output the model produced after the compaction
        (``len(steps)`` when the transcript ends before another output).
    system : str
        Which system compacted (``"Claude Code"``, ``"Anthropic API"``, ``"OpenAI Responses"``).
    trigger : str or None
        ``"auto"`` or ``"manual"`` (Claude Code), ``"server"`` (an API's compaction).
    pre_tokens : float or None
        The context's size in tokens when it compacted, as the system counted it.
    summary : str or None
        The summary that replaced the history (``None`` if the file does not hold it).
    where : str
        The record it was read from (``line 41``).
    """

    t: int
    system: str
    trigger: str | None = None
    pre_tokens: float | None = None
    summary: str | None = None
    where: str = ""

    @property
    def label(self) -> str:
        """A short label for a figure: ``Claude Code compacted (auto, 155,000 tokens)``."""
        tokens = None if self.pre_tokens is None else f"{round(self.pre_tokens):,}"  # round: an int stays exact
        if self.trigger and tokens:
            words = _("{system} compacted ({trigger}, {tokens} tokens)")
        elif self.trigger:
            words = _("{system} compacted ({trigger})")
        elif tokens:
            words = _("{system} compacted ({tokens} tokens)")
        else:
            words = _("{system} compacted")
        return words.format(system=self.system, trigger=self.trigger, tokens=tokens)


def recorded_compactions(steps: Scenario | Iterable[AgentStep]) -> list[RecordedCompaction]:
    """The compactions a transcript recorded, in order (from the steps' ``meta["recorded_compaction"]``).

    >>> from stmviz.scenarios import load_transcript, example_transcript
    >>> [c.label for c in recorded_compactions(load_transcript(example_transcript("claude_code_session")))]
    ['Claude Code compacted (auto, 1,611 tokens)']
    """
    items = guards.items(steps.steps if isinstance(steps, Scenario) else steps, "steps", where="recorded_compactions",
                         what="AgentSteps (or a Scenario)")
    out = []
    for k, step in enumerate(items):
        guards.instance(step, f"steps[{k}]", AgentStep, where="recorded_compactions")
        events = step.meta.get(COMPACTION_KEY, ())
        at = f"recorded_compactions: steps[{k}].meta[{COMPACTION_KEY!r}]"
        if not isinstance(events, (list, tuple)):
            raise FormatError(f"{at}: expected a list of recorded compactions, got {brief(events, 40)}; "
                              "load the transcript again with load_transcript, or remove the key")
        for j, event in enumerate(events):
            out.append(_compaction(event, f"{at}[{j}]", len(items)))
    return out


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {brief(value, 40)}"


def _compaction(event: Any, at: str, steps: int) -> RecordedCompaction:
    """One recorded compaction of a step's meta, checked: a hand-edited file may hold anything there."""
    fix = "load the transcript again with load_transcript, or correct the value"
    if not isinstance(event, Mapping):
        raise FormatError(f"{at}: expected an object with 't', 'system', …, got {_shown(event)}; {fix}")
    t = event.get("t")
    if type(t) is not int or not 0 <= t <= steps:
        raise FormatError(f"{at}.t: expected the step of the output after the compaction, a whole number "
                          f"0 ≤ t ≤ {steps}, got {_shown(t) if 't' in event else 'nothing (no t)'}; {fix}")
    pre = event.get("pre_tokens")
    if pre is not None and (isinstance(pre, bool) or not isinstance(pre, (int, float))
                            or (isinstance(pre, float) and not math.isfinite(pre)) or pre < 0):
        raise FormatError(f"{at}.pre_tokens: expected a number of tokens ≥ 0 (or null), got {_shown(pre)}; {fix}")
    texts = {}
    for key in ("system", "trigger", "summary", "where"):
        value = event.get(key)
        if value is not None and not isinstance(value, str):
            raise FormatError(f"{at}.{key}: expected text (or null), got {_shown(value)}; {fix}")
        texts[key] = value
    return RecordedCompaction(t=t, system=texts["system"] or "", trigger=texts["trigger"],
                              pre_tokens=pre, summary=texts["summary"],
                              where=texts["where"] or "")


# ------------------------------------------------------------------------------------------- bundled examples


def example_transcript(name: str) -> Path:
    """The path of a transcript shipped with stmviz (written for the notebooks; no real user's data).

    ``"claude_code_session"`` — a Claude Code session (JSONL) of a tool-heavy
    coding task, with a sub-agent's sidechain, an abandoned branch and one
    automatic compaction (written by ``scripts/_claude_code_session.py``).

    >>> example_transcript("claude_code_session").name
    'claude_code_session.jsonl'
    """
    names = sorted(p.name.split(".")[0] for p in resources.files("stmviz.scenarios").joinpath("data").joinpath("transcripts").iterdir()
                   if not p.name.startswith("."))
    guards.choice(name, "name", names, "the bundled transcripts", where="example_transcript")
    folder = resources.files("stmviz.scenarios").joinpath("data").joinpath("transcripts")
    match = next(p for p in folder.iterdir() if p.name.split(".")[0] == name)
    return Path(str(match))
