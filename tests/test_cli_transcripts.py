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


# ----------------------------------------------------------------------------- issue 33: report, V_max, oversize


def test_replay_prints_what_the_reading_left_out_and_the_recorded_compaction(capsys):
    assert cli.main(["replay", str(FIXTURES / "claude_code_2x.jsonl"), "--v-max", "60", "--limit", "0"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "left out:" in out and "record of an abandoned branch" in out and "attachment (todo_reminder)" in out
    assert "guessed:" in out and "parent missing from the file" in out and "p-missing-0001" in out
    assert "skipped (not model input):" in out and "system (turn_duration)" in out
    assert "The recorded system compacted 1 time(s):" in out
    assert "before the output of step t=4: Claude Code compacted (manual, 21,480 tokens) [line 19]" in out
    assert "the mechanism removed elements at t=" in out
    assert "TranscriptWarning" not in captured.err  # the report is printed once, not also as a warning


def test_replay_default_v_max_fits_the_transcript(tmp_path, capsys):
    """issue 33: the default V_max 1,024 failed on a transcript whose one message is larger; now one it fits is picked."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps([{"role": "user", "content": "word " * 3000}, {"role": "assistant", "content": "ok"}]))
    assert cli.main(["replay", str(path), "--limit", "0"]) == 0
    out = capsys.readouterr().out
    assert "V_max = 8192: one the transcript fits: its largest step with Q is 3,001 tokens" in out
    assert cli.main(["replay", str(path), "--v-max", "1024", "--limit", "0"]) == 2
    assert "pass oversize='truncate' or 'skip'" in capsys.readouterr().err
    assert cli.main(["replay", str(path), "--v-max", "1024", "--oversize", "truncate", "--limit", "0"]) == 0
    assert "V_max = 1024." in capsys.readouterr().out
    assert cli.main(["replay", str(path), "--v-max", "1024", "--oversize", "skip", "--limit", "0"]) == 0
    capsys.readouterr()


def test_replay_default_v_max_is_the_recorded_context(capsys):
    assert cli.main(["replay", str(FIXTURES / "claude_code_2x.jsonl"), "--limit", "0"]) == 0
    assert "V_max = 21480: the context size at which the recorded system compacted" in capsys.readouterr().out


def test_oversize_is_fifos_policy(capsys):
    assert cli.main(["replay", "tool_chat", "--mechanism", "scm", "--oversize", "skip", "--limit", "0"]) == 2
    err = capsys.readouterr().err
    assert "--oversize is FIFO's policy" in err and "--mechanism scm" in err and err.count("\n") == 1
    with pytest.raises(SystemExit):
        cli.main(["replay", "tool_chat", "--oversize", "sometimes"])
    assert "invalid choice: 'sometimes'" in capsys.readouterr().err


def test_replay_reads_a_swe_agent_trajectory(capsys):
    path = Path(__file__).parent / "data" / "real_transcripts" / "openai_chat" / "swe-agent_gpt4_pydicom-1458.traj"
    assert cli.main(["replay", str(path), "--limit", "0"]) == 0
    out = capsys.readouterr().out
    assert "(13 steps)" in out and "Read a SWE-agent trajectory swe-agent_gpt4_pydicom-1458.traj" in out
    assert "12 × assistant text" in out and "left out" not in out
    assert cli.main(["replay", str(path), "--format", "swe_agent", "--v-max", "20000", "--limit", "0"]) == 0
    assert "V_max = 20000." in capsys.readouterr().out


REAL = sorted(p for p in (Path(__file__).parent / "data" / "real_transcripts").glob("*/*.*") if p.suffix != ".md")


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[:40])
def test_replay_runs_every_real_transcript_with_its_default_v_max(path, capsys):
    """issue 33: the default V_max of 1,024 failed on 3 of the 5 loadable Claude Code and Anthropic files."""
    assert cli.main(["replay", str(path), "--limit", "0"]) == 0
    out = capsys.readouterr().out
    assert f"scenario {path.stem!r}" in out and "Read " in out and "kept:" in out
