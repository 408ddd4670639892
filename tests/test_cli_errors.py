"""The stmviz command never shows a traceback, never hangs, never reads without bound (issue 17).

Each case runs the real command in a subprocess with a timeout: a hang fails
the test instead of blocking the run. Every error is one line on stderr
starting with ``stmviz:`` (argparse's usage errors are its own two lines),
with exit status 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stmviz import cli

TIMEOUT = 60


def _stmviz(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    environment.pop("STMVIZ_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "stmviz", *args], capture_output=True, text=True, timeout=TIMEOUT, env=environment, cwd=cwd
    )


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stmviz: "), result.stderr
    return lines[0]


def test_a_directory(tmp_path):
    folder = tmp_path / "chat.json"
    folder.mkdir()
    assert "is a folder" in _one_error_line(_stmviz("replay", str(folder)))
    folder_l = tmp_path / "chat.jsonl"
    folder_l.mkdir()
    assert "is a folder" in _one_error_line(_stmviz("replay", str(folder_l)))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("name", ["pipe.json", "pipe.jsonl", "pipe"])
def test_a_named_pipe_does_not_hang(tmp_path, name):
    pipe = tmp_path / name
    os.mkfifo(pipe)
    assert "named pipe" in _one_error_line(_stmviz("replay", str(pipe)))  # within the timeout


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_refused_without_reading_it():
    assert "device" in _one_error_line(_stmviz("replay", "/dev/zero"))


def test_a_file_over_the_limit_says_how_to_raise_it(tmp_path):
    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps({"role": "user", "content": "x" * 5000}) + "\n")
    line = _one_error_line(_stmviz("replay", str(big), env={"STMVIZ_MAX_FILE_BYTES": "1000"}))
    assert "limit of 1,000 bytes" in line and "STMVIZ_MAX_FILE_BYTES" in line


def test_an_unreadable_file(tmp_path, monkeypatch, capsys):
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"role": "user", "content": "hi"}\n')
    real = os.open

    def refuse(path, flags, *args):
        if str(path) == str(chat):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, flags, *args)

    monkeypatch.setattr(os, "open", refuse)
    assert cli.main(["replay", str(chat)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stmviz: ") and "permission denied" in err and "Traceback" not in err


def test_a_missing_file_and_binary_garbage(tmp_path):
    assert "neither a bundled scenario nor an existing file" in _one_error_line(_stmviz("replay", str(tmp_path / "nope.json")))
    junk = tmp_path / "junk.json"
    junk.write_bytes(bytes(range(256)))
    _one_error_line(_stmviz("replay", str(junk)))


@pytest.mark.parametrize(
    "args, says",
    [
        (["demo", "--limit", "-1"], "must be ≥ 0"),
        (["demo", "--limit", "many"], "not a whole number"),
        (["demo", "--v-max", "0"], "V_max must be a positive finite number"),
        (["demo", "--v-max", "-5"], "V_max must be a positive finite number"),
        (["demo", "--v-max", "inf"], "V_max must be a positive finite number"),
        (["demo", "--v-max", "nan"], "V_max must be a positive finite number"),
        (["demo", "--v-max", "big"], "is not a number"),
        (["lab", "--dry-run", "--port", "70000"], "a port is a number from 1 to 65535"),
        (["demo", "--mechanism", "lru"], "invalid choice"),
    ],
)
def test_bad_options_are_refused_by_argparse(args, says, capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_v_max_is_honoured_not_replaced_by_the_scenarios(capsys):
    """issue 17: --v-max 0 silently used the scenario's value; a given V_max is used as given."""
    assert cli.main(["demo", "--v-max", "300", "--limit", "1"]) == 0
    assert "V_max = 300." in capsys.readouterr().out


def test_replay_names_its_own_command_in_the_heading(capsys):
    assert cli.main(["replay", "tool_chat", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("stmviz replay — scenario 'tool_chat'")
    assert cli.main(["demo", "--limit", "1"]) == 0
    assert capsys.readouterr().out.startswith("stmviz demo — ")


def test_a_chat_log_with_half_an_emoji_replays_and_prints(tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "cut \ud83d"}, {"role": "assistant", "content": "ok"}]))
    result = _stmviz("replay", str(chat))
    assert result.returncode == 0, result.stderr
    assert "cut \ufffd" in result.stdout


def test_lab_dry_run_copies_nothing(tmp_path, monkeypatch, capsys):
    source = tmp_path / "share" / "notebooks"
    (source / "data").mkdir(parents=True)
    (source / cli.START_NOTEBOOK).write_text("{}")
    (source / "data" / "x.json").write_text("[]")
    monkeypatch.setattr(cli, "notebooks_source", lambda: source)
    target = tmp_path / "mine"
    assert cli.main(["lab", "--dry-run", "--dir", str(target)]) == 0
    assert not target.exists()
    out = capsys.readouterr().out
    assert "2 files would be copied" in out and cli.START_NOTEBOOK in out
    cli.prepare_notebooks(target)  # the real copy, as `stmviz lab --dir` makes before starting JupyterLab
    assert (target / "data" / "x.json").read_text() == "[]"
    assert sorted(p.name for p in target.rglob("*")) == sorted([cli.START_NOTEBOOK, "data", "x.json"])


def test_lab_dir_that_is_a_file(tmp_path, monkeypatch, capsys):
    source = tmp_path / "notebooks"
    source.mkdir()
    (source / cli.START_NOTEBOOK).write_text("{}")
    monkeypatch.setattr(cli, "notebooks_source", lambda: source)
    target = tmp_path / "a-file"
    target.write_text("mine")
    assert cli.main(["lab", "--dry-run", "--dir", str(target)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err and target.read_text() == "mine"


def test_an_os_error_and_an_unexpected_error_are_one_line(monkeypatch, capsys):
    def disk_error(args):
        raise OSError(5, "Input/output error", "/some/file")

    monkeypatch.setattr(cli, "demo", disk_error)
    assert cli.main(["demo"]) == 2
    assert capsys.readouterr().err == "stmviz: /some/file: Input/output error\n"

    def bug(args):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(cli, "demo", bug)
    assert cli.main(["demo"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stmviz: unexpected error ZeroDivisionError") and "STMVIZ_DEBUG=1" in err and err.count("\n") == 1


def test_ctrl_c_exits_130_without_a_traceback(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "demo", interrupted)
    assert cli.main(["demo"]) == 130
    assert capsys.readouterr().err == "stmviz: interrupted\n"
