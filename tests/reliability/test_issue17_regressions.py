"""Issue 17's "Why" list, case by case (files, data integrity, run()'s arguments, the CLI, hostile JSON).

Each test reproduces one finding of the issue as it was reported, and fails
on the code the issue was filed against.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from stmviz import Element, Scenario, State, StateSpace, Trace, run, sizes
from stmviz.core.errors import InvalidArgumentError, STMError, FormatError
from stmviz.mechanisms import FIFOWindow
from stmviz.scenarios import load_chat_log

from _reliability_traces import saved_dict


def _chat_with_half_an_emoji(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "cut \ud83d"}, {"role": "assistant", "content": "ok"}]))
    return load_chat_log(path)


def _fifo():
    return FIFOWindow(StateSpace(sizes.tokens(), 200))


# "A save destroys the file it replaces."


def test_a_chat_log_holding_half_an_emoji_saves_over_an_existing_trace(tmp_path):
    trace = run(_fifo(), _chat_with_half_an_emoji(tmp_path))
    target = tmp_path / "t.json"
    target.write_text("previous work")
    trace.save(target)  # raised UnicodeEncodeError and left t.json at 0 bytes
    assert Trace.load(target) == trace


def test_the_same_holds_for_export_html_and_scenario_to_json(tmp_path):
    from stmviz.viz import export_html

    scenario = _chat_with_half_an_emoji(tmp_path)
    for target, save in ((tmp_path / "t.html", lambda p: export_html(run(_fifo(), scenario), p)), (tmp_path / "s.json", scenario.to_json)):
        target.write_text("previous work")
        save(target)
        assert target.stat().st_size > 0 and target.read_text(encoding="utf-8") != "previous work"
    assert Scenario.load(tmp_path / "s.json").steps == scenario.steps


# "Metadata that Element accepts cannot be saved."


@pytest.mark.parametrize("value", [lambda: float("nan"), lambda: Element("inner"), lambda: 10**5000], ids=["NaN", "element", "5000 digits"])
def test_metadata_a_trace_cannot_save_is_refused_when_the_element_is_built(value):
    with pytest.raises(InvalidArgumentError):  # was accepted, then trace.to_json() raised a raw error
        Element("x", {"v": value()})


def test_nan_time_gave_two_equal_elements_with_one_id():
    with pytest.raises(InvalidArgumentError, match=r"meta\['t'\]"):
        Element("a", {"t": float("nan")})


def test_the_canonical_order_is_the_same_under_every_hash_seed():
    script = (
        "from stmviz import Element, State\n"
        "s = State([Element(str(k % 5), {'t': k % 2, 'f': k % 3 == 0}) for k in range(30)])\n"
        "print([e.id for e in s.ordered()])\n"
    )
    outputs = {
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


# "run() takes bad arguments silently."


def test_tools_as_one_string():
    with pytest.raises(InvalidArgumentError):  # became the tools ('s', 'e', 'a', 'r', 'c', 'h')
        run(_fifo(), ["x"], tools="search")


def test_query_as_a_number():
    with pytest.raises(InvalidArgumentError):  # was saved, then Trace.from_json refused its own output
        run(_fifo(), ["x"], query=123)


def test_checkpoint_every_one_and_a_half():
    with pytest.raises(InvalidArgumentError):  # failed later, in state_at
        run(_fifo(), ["x"], checkpoint_every=1.5)


# "The CLI shows tracebacks …"


def _cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "stmviz", *args], capture_output=True, text=True, timeout=timeout)


def test_cli_directory_and_limit_minus_one(tmp_path):
    for args in (("replay", str(tmp_path)), ("demo", "--limit", "-1")):
        result = _cli(*args)
        assert result.returncode == 2 and "Traceback" not in result.stderr


def test_cli_v_max_zero_is_refused_not_replaced():
    result = _cli("demo", "--v-max", "0")
    assert result.returncode == 2 and "V_max must be a positive" in result.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_cli_named_pipe_does_not_hang(tmp_path):
    os.mkfifo(tmp_path / "p.json")
    result = _cli("replay", str(tmp_path / "p.json"), timeout=30)  # hung
    assert result.returncode == 2 and "named pipe" in result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_cli_dev_zero_is_bounded():
    result = _cli("replay", "/dev/zero", timeout=30)  # read until memory ran out
    assert result.returncode == 2 and "device" in result.stderr


def test_cli_lab_dry_run_copies_nothing(tmp_path):
    from stmviz import cli

    target = tmp_path / "copy"
    result = _cli("lab", "--dry-run", "--dir", str(target))
    if result.returncode == 1 and "JupyterLab is not installed" in result.stderr:
        pytest.skip("jupyterlab is not installed")
    assert result.returncode == 0 and not target.exists() and cli.START_NOTEBOOK in result.stdout


# "Hostile JSON … a loaded trace with a wrong-typed field or a fold cycle loads, then crashes a figure."


@pytest.mark.parametrize(
    "text",
    ["[" * 50_000 + "]" * 50_000, '{"format": "stmviz-trace", "version": 1, "space": {"v_max": 1' + "0" * 400 + "}}"],
)
def test_deep_nesting_and_a_400_digit_number(text):
    with pytest.raises(FormatError):
        Trace.from_json(text)


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1"])
def test_wrong_encodings(tmp_path, encoding):
    path = tmp_path / "chat.json"
    path.write_bytes(json.dumps([{"role": "user", "content": "café"}], ensure_ascii=False).encode(encoding))
    try:
        assert load_chat_log(path).steps[0].observation == "café"  # UTF-16 is read as such
    except STMError as exc:
        assert encoding == "latin-1" and "save the file as UTF-8" in str(exc)


def test_a_wrong_typed_field_is_refused_at_load():
    doc = saved_dict("AgentFold")
    doc["final_input_size"] = "many"  # loaded, then crashed the occupancy figure
    with pytest.raises(FormatError, match="final_input_size"):
        Trace.from_json(doc)


def test_a_state_cannot_be_built_with_an_element_holding_an_element():
    with pytest.raises(InvalidArgumentError, match="store its id"):
        State([Element("a", {"parent": Element("b")})])
