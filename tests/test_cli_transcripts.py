"""`stmviz replay FILE` recognises a transcript's format (or takes --format) and reads it with load_transcript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stmviz import cli
from stmviz.scenarios import FORMATS, example_transcript

FIXTURES = Path(__file__).parent / "scenarios" / "fixtures" / "transcripts"


def test_format_choices_are_load_transcripts():
    assert cli._formats() == FORMATS


@pytest.mark.parametrize("name", ["claude_code_small.jsonl", "anthropic_request.json", "openai_responses.json",
                                  "otel_otlp.json", "langchain_messages.json", "openai_chat.json"])
def test_replay_detects_each_format(name, capsys):
    assert cli.main(["replay", str(FIXTURES / name), "--v-max", "300"]) == 0
    out = capsys.readouterr().out
    assert f"scenario {Path(name).stem!r}" in out and "through FIFOWindow" in out


def test_replay_bundled_session_and_named_format(capsys):
    assert cli.main(["replay", str(example_transcript("claude_code_session")), "--format", "claude_code", "--limit", "3"]) == 0
    assert "(16 steps)" in capsys.readouterr().out


def test_replay_wrong_format_is_one_line(capsys):
    assert cli.main(["replay", str(FIXTURES / "openai_chat.json"), "--format", "otel"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stmviz: openai_chat.json: top level: no span holds gen_ai.input.messages") and err.count("\n") == 1


def test_replay_unknown_document(tmp_path, capsys):
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"hello": 1}))
    assert cli.main(["replay", str(path)]) == 2
    assert "cannot tell which transcript format this is" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:  # argparse's choices: a usage line and status 2
        cli.main(["replay", str(FIXTURES / "openai_chat.json"), "--format", "word"])
    assert exited.value.code == 2 and "invalid choice: 'word'" in capsys.readouterr().err
