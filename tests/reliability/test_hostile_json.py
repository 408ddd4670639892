"""Hostile JSON: every reader raises one clear error of its kind, never a raw exception (issue 17).

Deep nesting (RecursionError inside the decoder), numbers too long for Python's
int ↔ str conversion (ValueError), NaN and infinity, wrong encodings
(UTF-16, Latin-1 bytes, a byte-order mark), a cut-off file: each reader of a
user's file — a trace, a scenario, a chat log, a transcript — either reads it
or raises its own error (FormatError / FormatError) in one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pytest

from stmviz import Scenario, Trace
from stmviz.core.errors import FormatError, STMError
from stmviz.io.jsonio import MAX_DEPTH, decode_json, decode_json_lines
from stmviz.scenarios import load_agentfold_log, load_chat_log, load_scenario

from _reliability_traces import saved_trace

CHAT = [{"role": "user", "content": "Hi, my code is 7391."}, {"role": "assistant", "content": "Noted."}]
SCENARIO = {"format": "stmviz-scenario", "version": 1, "name": "s", "steps": [{"observation": "hello"}]}


def _hostile() -> dict[str, bytes]:
    """The hostile files, as bytes on disk."""
    chat = json.dumps(CHAT)
    return {
        "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
        "nested 100,000 deep in an object": b'{"steps": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "nested just over the limit": b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
        "nested metadata, 150 deep": json.dumps(
            {**SCENARIO, "steps": [{"observation": "x", "meta": {"deep": _nest(150)}}]}
        ).encode(),
        "a 400-digit number": b'{"v_max": 1' + b"0" * 400 + b', "steps": []}',
        "a 5,000-digit number": b"[1" + b"0" * 5000 + b"]",
        "a 1e400 float": b'{"v_max": 1e400, "steps": [{"observation": "x"}]}',
        "NaN": b'{"v_max": NaN, "steps": [{"observation": "x"}]}',
        "Infinity in a message": b'[{"role": "user", "content": "x", "score": Infinity}]',
        "Latin-1 bytes": "[{\"role\": \"user\", \"content\": \"caf\u00e9\"}]".encode("latin-1"),
        "UTF-16 without a byte-order mark": chat.encode("utf-16-le"),
        "UTF-16 with a text that is not JSON": b"\xff\xfe" + "not json".encode("utf-16-le"),
        "UTF-32 garbage": b"\x00\x00\xfe\xff\x00\x00\xd8\x00",
        "UTF-8 byte-order mark then garbage": b"\xef\xbb\xbf\xff\xfe",
        "a cut-off file": chat.encode()[:-9],
        "a lone byte": b"\x80",
        "NUL bytes": b"\x00" * 64,
        "empty": b"",
        "two documents": chat.encode() + b"\n" + chat.encode(),
        "a bare string": b'"steps"',
        "a number": b"42",
        "null": b"null",
    }


def _nest(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


READERS: dict[str, tuple[str, Callable[[Path], Any], type[STMError]]] = {
    "Trace.load": (".json", Trace.load, FormatError),
    "load_scenario": (".json", load_scenario, FormatError),
    "load_chat_log .json": (".json", load_chat_log, FormatError),
    "load_chat_log .jsonl": (".jsonl", load_chat_log, FormatError),
    "load_agentfold_log": (".json", load_agentfold_log, FormatError),
    "load_agentfold_log .jsonl": (".jsonl", load_agentfold_log, FormatError),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("case", sorted(_hostile()))
def test_a_hostile_file_is_read_or_refused_with_one_clear_error(reader, case, tmp_path):
    suffix, function, error = READERS[reader]
    path = tmp_path / f"hostile{suffix}"
    path.write_bytes(_hostile()[case])
    try:
        function(path)
    except error as exc:
        message = str(exc)
        assert message.startswith(("hostile", str(path))), message
        assert "Traceback" not in message and len(message) < 2000
    # any other exception (RecursionError, ValueError, UnicodeDecodeError, OverflowError) fails the test


def test_utf16_and_a_utf8_byte_order_mark_are_read():
    text = json.dumps(CHAT)
    for raw in (text.encode("utf-16"), text.encode("utf-16-le"), text.encode("utf-32"), b"\xef\xbb\xbf" + text.encode()):
        assert decode_json(raw, "chat.json") == CHAT


def test_latin1_bytes_are_named_and_the_fix_given():
    with pytest.raises(FormatError, match=r"^c\.json: not UTF-8 text \(invalid continuation byte at byte \d+\); save the file as UTF-8"):
        decode_json('["caf\u00e9!"]'.encode("latin-1"), "c.json", FormatError)


def test_deep_nesting_and_long_numbers_are_named():
    with pytest.raises(FormatError, match="nested too deeply|more than 200 levels"):
        decode_json("[" * 100_000 + "]" * 100_000, "t.json")
    with pytest.raises(FormatError, match=r"nested more than 200 levels deep"):
        decode_json("[" * 201 + "]" * 201, "t.json")
    assert decode_json("[" * 200 + "]" * 200, "t.json") is not None
    with pytest.raises(FormatError, match=r"c\.jsonl: line 2: .*digits"):
        decode_json_lines('{"a": 1}\n[1' + "0" * 5000 + "]\n", "c.jsonl", FormatError)


def test_a_trace_refuses_nan_in_its_file_and_in_a_decoded_dict():
    doc = json.loads(saved_trace("FIFOWindow"))
    doc["steps"][0]["size_before"] = float("nan")
    with pytest.raises(FormatError, match="NaN is not a JSON number"):
        Trace.from_json(json.dumps(doc))
    with pytest.raises(FormatError, match=r"^trace: the decoded trace cannot be written as JSON: steps\[0\]\.size_before = nan"):
        Trace.from_json(doc)  # a decoded dict is checked as its file would be


def test_a_scenario_with_text_numbers_as_json_round_trips():
    scenario = Scenario.from_json(json.dumps(SCENARIO))
    assert Scenario.from_json(scenario.to_json()) == scenario
