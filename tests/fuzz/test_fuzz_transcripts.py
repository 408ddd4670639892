"""Fuzz load_transcript's readers, one format at a time: hostile transcripts give a Scenario or an STMError.

For each format, starting from its fixture (``tests/scenarios/fixtures/transcripts``):
junk in place of the whole document, of the ``format`` and ``name`` arguments,
of one record, and of any one value anywhere in the document (a random path);
and the file reader on the fixture's bytes cut short or with bytes flipped.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz.scenarios import from_transcript, load_transcript

from _harness import Entry, assert_ok, junk
from _run import fuzz, ids

FIXTURES = Path(__file__).resolve().parents[1] / "scenarios" / "fixtures" / "transcripts"

#: format -> fixture file (one per reader)
FIXTURE_OF = {
    "claude_code": "claude_code_small.jsonl",
    "anthropic": "anthropic_request.json",
    "openai_chat": "openai_chat.json",
    "openai_responses": "openai_responses.json",
    "otel": "otel_otlp.json",
    "langchain": "langchain_messages.json",
}


def document(kind: str):
    path = FIXTURES / FIXTURE_OF[kind]
    text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()] if path.suffix == ".jsonl" else json.loads(text)


def records(kind: str) -> list:
    doc = document(kind)
    return doc if isinstance(doc, list) else doc["messages"] if "messages" in doc else doc["resourceSpans"][0]["scopeSpans"][0]["spans"]


def with_record(kind: str, k: int, value):
    doc = document(kind)
    target = records(kind) if isinstance(doc, list) else None
    if target is None:
        target = doc["messages"] if "messages" in doc else doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    target[k] = value
    return doc


ENTRIES = [
    *[Entry(f"from_transcript({kind})", lambda data, format, name: from_transcript(data, format, name=name),
            {"data": lambda kind=kind: document(kind), "format": lambda kind=kind: kind, "name": lambda: "t"}, max_examples=30)
      for kind in FIXTURE_OF],
    *[Entry(f"from_transcript({kind}, record {k})",
            lambda record, kind=kind, k=k: from_transcript(with_record(kind, k, record), kind),
            {"record": lambda kind=kind, k=k: records(kind)[k]}, max_examples=15)
      for kind in FIXTURE_OF for k in range(min(3, len(records(kind))))],
]


@pytest.mark.parametrize("entry", ENTRIES, ids=ids(ENTRIES))
def test_fuzz_transcripts(entry):
    fuzz(entry)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from _paths(item, (*prefix, k))


def _replace(doc, path, value):
    if not path:
        return value
    doc = copy.deepcopy(doc)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("kind", list(FIXTURE_OF))
def test_junk_anywhere_in_a_transcript(kind):
    """Any one value of the document, at a random path, replaced by junk."""
    original = document(kind)
    paths = list(_paths(original))
    entry = Entry(f"from_transcript({kind}, deep)", lambda data: from_transcript(data, kind), {"data": lambda: original})

    @settings(settings.get_profile("stmviz-fuzz"), max_examples=60)
    @given(k=st.integers(0, len(paths) - 1), value=junk())
    def case(k, value):
        assert_ok(entry, {"data": _replace(original, paths[k], value)})

    case()


@pytest.mark.parametrize("kind", list(FIXTURE_OF))
def test_damaged_files(kind, tmp_path):
    """The file cut anywhere, or one byte changed: the file reader (with and without detection) gives a Scenario or an STMError."""
    raw = (FIXTURES / FIXTURE_OF[kind]).read_bytes()
    target = tmp_path / FIXTURE_OF[kind]
    entry = Entry(f"load_transcript({kind}, damaged)", lambda path, format: load_transcript(path, format),
                  {"path": lambda: target, "format": lambda: None})

    @settings(settings.get_profile("stmviz-fuzz"), max_examples=40)
    @given(cut=st.integers(0, len(raw)), flip=st.integers(0, len(raw) - 1), byte=st.integers(0, 255),
           detect=st.booleans())
    def case(cut, flip, byte, detect):
        damaged = bytearray(raw[:cut] if cut % 2 else raw)
        if damaged and not cut % 2:
            damaged[min(flip, len(damaged) - 1)] = byte
        target.write_bytes(bytes(damaged))
        assert_ok(entry, {"path": target, "format": None if detect else kind})

    case()


@pytest.mark.parametrize("kind", list(FIXTURE_OF))
def test_every_fixed_hostile_value_at_every_path(kind):
    """Deterministic sweep: every 5th of the harness's fixed hostile values, at every path of the fixture."""
    from _harness import FIXED_JUNK

    original = document(kind)
    entry = Entry(f"from_transcript({kind}, sweep)", lambda data: from_transcript(data, kind), {"data": lambda: original})
    for path in _paths(original):
        for make in FIXED_JUNK[::5]:
            assert_ok(entry, {"data": _replace(original, path, make())})
