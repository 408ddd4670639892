"""The one JSON decoder of files people edit: traces, scenarios, chat logs."""

from __future__ import annotations

import json

import pytest

from stmviz.core.errors import FormatError
from stmviz.io.jsonio import decode_json, decode_json_lines

DOCUMENT = {"format": "x", "steps": [{"observation": "hello"}, {"observation": "again"}]}


def test_valid_text_and_bytes_decode_the_same():
    text = json.dumps(DOCUMENT, indent=1)
    assert decode_json(text, "a.json") == decode_json(text.encode("utf-8"), "a.json") == DOCUMENT
    assert decode_json(b"\xef\xbb\xbf" + text.encode("utf-8"), "bom.json") == DOCUMENT  # an editor's byte-order mark


@pytest.mark.parametrize("cut", [5, 20, 40, -2])
def test_a_cut_file_is_called_truncated_with_line_and_column(cut):
    text = json.dumps(DOCUMENT, indent=1)[:cut]
    with pytest.raises(FormatError, match=r"^cut\.json: not valid JSON at line \d+, column \d+: .*truncated"):
        decode_json(text, "cut.json")


def test_a_mistake_inside_is_not_called_truncated():
    with pytest.raises(FormatError) as info:
        decode_json('{"a": 1,, "b": 2}', "bad.json")
    assert "line 1, column 9" in str(info.value) and "truncated" not in str(info.value)


def test_the_error_class_and_what_was_expected():
    with pytest.raises(FormatError, match="^s.json: the file is empty; a scenario is a JSON object$"):
        decode_json(" \n", "s.json", FormatError, expected="a scenario is a JSON object")
    with pytest.raises(FormatError, match="Extra data; one JSON document was expected: name it .jsonl"):
        decode_json('{"a": 1}\n{"b": 2}\n', "chat.json", FormatError, expected="name it .jsonl")
    with pytest.raises(FormatError, match=r"^x.json: not UTF-8 text \(invalid start byte at byte 0\); save the file as UTF-8"):
        decode_json(b"\xff[]", "x.json", FormatError)


def test_json_lines_keep_their_line_numbers():
    text = '{"role": "user"}\n\n  \n[1, 2]\n"three"\n'
    assert decode_json_lines(text, "c.jsonl") == [(1, {"role": "user"}), (4, [1, 2]), (5, "three")]
    with pytest.raises(FormatError, match=r"^c.jsonl: not valid JSON at line 3, column 2: .*line looks truncated"):
        decode_json_lines('{}\n\n{"role', "c.jsonl", FormatError)
    with pytest.raises(FormatError, match="empty"):
        decode_json_lines("\n\n", "c.jsonl")
