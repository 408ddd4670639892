"""The `stmviz` command: the demo (`python -m stmviz`), replay, scenarios, and `stmviz lab`."""

import builtins
import json
import subprocess
import sys

import pytest

from stmviz import cli


def test_python_dash_m_stmviz_runs_the_demo():
    result = subprocess.run([sys.executable, "-m", "stmviz", "--limit", "5"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Σμ / V_max" in out and "why" in out and "FIFO" in out.upper()
    assert "more steps" in out


@pytest.mark.parametrize("mechanism", cli.MECHANISMS)
def test_demo_with_each_mechanism(mechanism, capsys):
    assert cli.main(["demo", "--mechanism", mechanism, "--v-max", "300", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "V_max = 300" in out and "steps;" in out


def test_replay_a_chat_log_file(tmp_path, capsys):
    log = tmp_path / "chat.json"
    log.write_text(json.dumps([
        {"role": "user", "content": "Hi, I am Ada."},
        {"role": "assistant", "content": "Hello Ada!"},
        {"role": "user", "content": "Remember that I like tea."},
        {"role": "assistant", "content": "Noted: tea."},
    ]))
    assert cli.main(["replay", str(log), "--v-max", "100"]) == 0
    assert "3 steps" in capsys.readouterr().out  # (—, u0), (a0, u1), (a1, —)
    assert cli.main(["replay", str(log)]) == 0  # a chat log has no V_max of its own: the default is used
    assert f"V_max = {cli.DEFAULT_V_MAX}" in capsys.readouterr().out


def _tool_chat_lines():
    call = {"id": "c1", "type": "function", "function": {"name": "get_code", "arguments": "{}"}}
    return [
        {"role": "system", "content": "You keep the user's codes."},
        {"role": "user", "content": "My locker code is 7391."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "What is my bike lock code?"},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "bike lock: 5820"},
        {"role": "assistant", "content": "It is 5820."},
        {"role": "user", "content": "And the locker code?"},
        {"role": "assistant", "content": "It is 7391."},
    ]


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson", ".JSONL"])
def test_replay_a_jsonl_chat_log_with_scm(tmp_path, capsys, suffix):
    log = tmp_path / f"chat{suffix}"
    log.write_text("\n".join(json.dumps(m) for m in _tool_chat_lines()) + "\n", encoding="utf-8")
    assert cli.main(["replay", str(log), "--mechanism", "scm", "--v-max", "400"]) == 0
    out = capsys.readouterr().out
    # (—, u0), (a0, u1), (tool call, result), (a2, u3), (a3, —): the tool result is the input of its call's step
    assert "5 steps" in out and "SCM" in out and "V_max = 400" in out


def test_replay_keeps_the_conversation_order(tmp_path):
    from stmviz import run

    log = tmp_path / "chat.jsonl"
    log.write_text("\n".join(json.dumps(m) for m in _tool_chat_lines()), encoding="utf-8")
    scenario = cli._load(str(log))
    assert [(s.thought, s.observation) for s in scenario.steps] == [
        ("", "My locker code is 7391."),
        ("Noted.", "What is my bike lock code?"),
        ("Let me look.", "bike lock: 5820"),
        ("It is 5820.", "And the locker code?"),
        ("It is 7391.", ""),
    ]
    trace = run(cli._mechanism("fifo", 10_000), scenario)
    # every reply is produced from an input that holds the message or result it answers
    assert "bike lock: 5820" in trace.project(3).text() and "And the locker code?" in trace.project(4).text()


def test_errors_are_reported_without_a_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert cli.main(["replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stmviz: ") and "Traceback" not in err
    assert cli.main(["replay", "no_such_scenario"]) == 2
    capsys.readouterr()
    orphan = tmp_path / "orphan.jsonl"
    orphan.write_text('{"role": "user", "content": "hi"}\n{"role": "tool", "tool_call_id": "x", "content": "r"}\n')
    assert cli.main(["replay", str(orphan)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("stmviz: orphan.jsonl: line 2: tool_call_id: a tool result must follow") and "Traceback" not in err


def test_scenarios_lists_the_bundled_ones(capsys):
    assert cli.main(["scenarios"]) == 0
    out = capsys.readouterr().out
    for name in ("tool_chat", "web_research", "household", "long_dialogue"):
        assert name in out


def test_lab_dry_run_opens_the_start_notebook(capsys):
    assert cli.main(["lab", "--dry-run", "--no-browser"]) == 0
    out = capsys.readouterr().out
    assert "jupyterlab" in out and cli.START_NOTEBOOK in out


def test_lab_copies_notebooks_when_installed_read_only(tmp_path, monkeypatch, capsys):
    source = tmp_path / "share" / "stmviz" / "notebooks"
    source.mkdir(parents=True)
    (source / cli.START_NOTEBOOK).write_text("{}")
    monkeypatch.setattr(cli, "notebooks_source", lambda: source)
    target = tmp_path / "mine"
    assert cli.prepare_notebooks(target) == target  # what `stmviz lab --dir mine` does before starting JupyterLab
    assert (target / cli.START_NOTEBOOK).read_text() == "{}"
    (target / cli.START_NOTEBOOK).write_text('{"edited": true}')
    assert cli.prepare_notebooks(target) == target
    assert "edited" in (target / cli.START_NOTEBOOK).read_text()  # a student's edits are never overwritten


def test_lab_without_jupyterlab_says_how_to_install_it(monkeypatch, capsys):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "jupyterlab":
            raise ImportError("No module named 'jupyterlab'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    assert cli.main(["lab", "--dry-run"]) == 1
    assert "pip install 'stmviz[lab]'" in capsys.readouterr().err
