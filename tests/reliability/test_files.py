"""A save never destroys the file it replaces; a read never hangs, never reads without bound (issue 17).

Every writer of stmviz — ``Trace.save``, ``Scenario.to_json(path)``,
``export_html`` — is made to fail in each way a real save fails (text UTF-8
cannot encode, a serializer that raises, a folder that refuses the file, a
crash or Ctrl-C in the middle of writing): the old file must stay byte for
byte as it was, and no temporary file may remain. Every reader is given what
a careless or hostile user gives it: a folder, a named pipe, ``/dev/zero``, a
file over the size limit.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
from pathlib import Path
from typing import Any, Callable

import pytest

from stmviz import AgentStep, Element, FIFOWindow, Scenario, StateSpace, Trace, run, sizes
from stmviz.io import files
from stmviz.core.errors import InvalidArgumentError, FormatError, STMError
from stmviz.scenarios import load_agentfold_log, load_chat_log, load_scenario

OLD = b'{"old": "the only copy of a student\'s work"}\n'
HALF_EMOJI = "cut \ud83d"  # a lone surrogate, as real exported chat logs hold


def _trace(text: str = "hello") -> Trace:
    return run(FIFOWindow(StateSpace(sizes.words, 50)), [AgentStep(thought="ok", observation=text)], query="q")


def _scenario(text: str = "hello") -> Scenario:
    return Scenario(name="s", steps=(AgentStep(observation=text),))


def _save_trace(path: Path) -> Any:
    return _trace(HALF_EMOJI).save(path)


def _save_scenario(path: Path) -> Any:
    return _scenario(HALF_EMOJI).to_json(path)


def _export(path: Path) -> Any:
    from stmviz.viz import export_html

    return export_html(_trace(HALF_EMOJI), path, max_frames=2)


WRITERS: dict[str, Callable[[Path], Any]] = {"Trace.save": _save_trace, "Scenario.to_json": _save_scenario, "export_html": _export}


def _old_file(tmp_path: Path) -> Path:
    target = tmp_path / "work.json"
    target.write_bytes(OLD)
    return target


def _assert_untouched(target: Path) -> None:
    assert target.read_bytes() == OLD
    assert sorted(p.name for p in target.parent.iterdir()) == [target.name], "a temporary file was left behind"


# -- the encoding policy ------------------------------------------------------------


def test_a_trace_with_half_an_emoji_saves_and_loads_back_exactly(tmp_path):
    trace = _trace(HALF_EMOJI)
    path = _old_file(tmp_path)
    trace.save(path)
    text = path.read_text(encoding="utf-8")  # valid UTF-8 now
    assert "\\ud83d" in text
    again = Trace.load(path)
    assert again == trace and again[0].context.observation == HALF_EMOJI
    assert [e.id for e in again.final.ordered()] == [e.id for e in trace.final.ordered()]


def test_a_scenario_with_half_an_emoji_saves_and_loads_back_exactly(tmp_path):
    path = tmp_path / "s.json"
    _scenario(HALF_EMOJI).to_json(path)
    assert Scenario.load(path).steps[0].observation == HALF_EMOJI


def test_the_html_export_shows_half_an_emoji_as_the_replacement_character(tmp_path):
    page = _export(tmp_path / "run.html").read_text(encoding="utf-8")  # valid UTF-8
    assert "cut \ufffd" in page  # the text of the page; plotly's embedded JSON may keep its \ud83d escape


def test_json_text_escapes_only_surrogates_and_refuses_nan():
    assert files.json_text({"a": "é \ud800"}) == '{"a": "é \\ud800"}'
    with pytest.raises(InvalidArgumentError, match=r"x\.y\[1\] = inf is not a finite number"):
        files.json_text({"x": {"y": [0, float("inf")]}})
    with pytest.raises(FormatError, match="z = <object"):
        files.json_text({"z": object()}, error=FormatError)


# -- a failed save leaves the old file -------------------------------------------------


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_save_over_an_old_file_replaces_it_whole(writer, tmp_path):
    target = _old_file(tmp_path)
    WRITERS[writer](target)
    assert target.read_bytes() != OLD and target.stat().st_size > 20
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_text_that_cannot_be_encoded_is_refused_before_the_file_is_touched(tmp_path):
    target = _old_file(tmp_path)
    with pytest.raises(InvalidArgumentError, match="cannot be encoded as UTF-8.*nothing was changed"):
        files.write_text(target, "a lone surrogate \udc80 without the JSON policy")
    _assert_untouched(target)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_serializer_that_fails_leaves_the_old_file(writer, tmp_path, monkeypatch):
    import stmviz.io.serialize as serialize
    import stmviz.viz.export as export

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the serializer crashed")

    monkeypatch.setattr(serialize, "trace_to_dict", broken)
    monkeypatch.setattr(Scenario, "to_dict", broken)
    monkeypatch.setattr(export, "trace_html", broken)
    target = _old_file(tmp_path)
    with pytest.raises(RuntimeError, match="the serializer crashed"):
        WRITERS[writer](target)
    _assert_untouched(target)


def test_a_value_json_cannot_hold_fails_the_save_with_a_clear_error_and_leaves_the_old_file(tmp_path):
    trace = run(FIFOWindow(StateSpace(sizes.words, 50)), [{"observation": "x", "meta": {"score": float("nan")}}])
    target = _old_file(tmp_path)
    with pytest.raises(FormatError, match=r"steps\[0\]\.step\.meta\.score = nan"):
        trace.save(target)
    _assert_untouched(target)


def _fail_at(monkeypatch: pytest.MonkeyPatch, name: str, error: BaseException, after_bytes: int | None = None) -> None:
    """Make ``os.<name>`` fail (``os.write`` after writing part of the data: a crash mid-write)."""
    real = getattr(os, name)

    def failing(*args: Any) -> Any:
        if name == "write" and after_bytes is not None:
            real(args[0], bytes(args[1][:after_bytes]))
        if name == "open" and not str(args[0]).endswith(".tmp"):
            return real(*args)  # only the temporary file is refused (a read-only folder)
        raise error

    monkeypatch.setattr(os, name, failing)


CRASHES = {
    "disk full mid-write": ("write", OSError(errno.ENOSPC, "No space left on device"), 7),
    "Ctrl-C mid-write": ("write", KeyboardInterrupt(), 7),
    "fsync fails": ("fsync", OSError(errno.EIO, "Input/output error"), None),
    "rename fails": ("replace", OSError(errno.EXDEV, "Invalid cross-device link"), None),
    "read-only folder": ("open", OSError(errno.EACCES, "Permission denied"), None),
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("crash", sorted(CRASHES))
def test_a_crash_while_saving_leaves_the_old_file_and_no_temporary_file(writer, crash, tmp_path, monkeypatch):
    target = _old_file(tmp_path)
    name, error, after = CRASHES[crash]
    _fail_at(monkeypatch, name, error, after)
    expected: type[BaseException] = KeyboardInterrupt if isinstance(error, KeyboardInterrupt) else STMError
    with pytest.raises(expected) as info:
        WRITERS[writer](target)
    monkeypatch.undo()
    _assert_untouched(target)
    if expected is STMError:
        message = str(info.value)
        assert str(target) in message and "\n" not in message
        if name != "open":
            assert "the old file is unchanged" in message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into a read-only folder anyway")
def test_a_really_read_only_folder(tmp_path):
    target = _old_file(tmp_path)
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(InvalidArgumentError, match="permission denied"):
            _save_trace(target)
    finally:
        tmp_path.chmod(0o755)
    _assert_untouched(target)


def test_a_save_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    target = _old_file(tmp_path)
    target.chmod(0o640)
    _save_trace(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_save_through_a_symbolic_link_replaces_the_file_it_points_to(tmp_path):
    real = _old_file(tmp_path)
    link = tmp_path / "link.json"
    link.symlink_to(real)
    _save_trace(link)
    assert link.is_symlink() and Trace.load(link) == Trace.load(real)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_save_onto_a_folder_or_into_a_missing_folder_says_so(writer, tmp_path):
    with pytest.raises(STMError, match="folder"):
        WRITERS[writer](tmp_path)
    with pytest.raises(STMError, match="does not exist"):
        WRITERS[writer](tmp_path / "missing" / "x.json")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_save_onto_a_named_pipe_is_refused_without_blocking(writer, tmp_path):
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    with _deadline(10):
        with pytest.raises(STMError, match="named pipe"):
            WRITERS[writer](pipe)


# -- bounded, non-blocking reading --------------------------------------------------------


class _deadline:
    """Fail (instead of hanging the test run) if the block takes longer than ``seconds``."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        def timeout(*_: Any) -> None:
            raise AssertionError(f"still blocked after {self.seconds} s")

        self.previous = signal.signal(signal.SIGALRM, timeout)
        signal.alarm(self.seconds)

    def __exit__(self, *exc: Any) -> None:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.previous)


READERS: dict[str, tuple[Callable[[Any], Any], type[STMError]]] = {
    "Trace.load": (Trace.load, FormatError),
    "load_scenario": (load_scenario, FormatError),
    "Scenario.load": (Scenario.load, FormatError),
    "load_chat_log": (load_chat_log, FormatError),
    "load_chat_log .jsonl": (lambda p: load_chat_log(Path(str(p) + "l") if str(p).endswith(".json") else p), FormatError),
    "load_agentfold_log": (load_agentfold_log, FormatError),
}


def _read(reader: str, path: Any) -> STMError:
    function, error = READERS[reader]
    with _deadline(20):
        with pytest.raises(error) as info:
            function(path)
    message = str(info.value)
    assert "\n" not in message.strip() and "Traceback" not in message
    return info.value


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_folder_is_refused(reader, tmp_path):
    folder = tmp_path / "notes.json"
    folder.mkdir()
    folder_l = tmp_path / "notes.jsonl"
    folder_l.mkdir()
    assert "folder" in str(_read(reader, folder))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_named_pipe_is_refused_without_blocking(reader, tmp_path):
    os.mkfifo(tmp_path / "chat.json")
    os.mkfifo(tmp_path / "chat.jsonl")
    assert "named pipe" in str(_read(reader, tmp_path / "chat.json"))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("reader", sorted(READERS))
def test_dev_zero_is_refused_without_reading_it(reader):
    assert "device" in str(_read(reader, Path("/dev/zero")))


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_file_over_the_size_limit_is_refused_and_the_limit_can_be_raised(reader, tmp_path, monkeypatch):
    for name in ("big.json", "big.jsonl"):
        (tmp_path / name).write_bytes(b" " * 5000 + b"[]")
    monkeypatch.setenv(files.MAX_FILE_BYTES_ENV, "4096")
    message = str(_read(reader, tmp_path / "big.json"))
    assert "5,002 bytes" in message and "limit of 4,096 bytes" in message and files.MAX_FILE_BYTES_ENV in message
    monkeypatch.setenv(files.MAX_FILE_BYTES_ENV, "100000")
    with pytest.raises(STMError) as info:  # now read, and refused for what it holds
        READERS[reader][0](tmp_path / "big.json")
    assert "limit" not in str(info.value)


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_missing_file_is_one_clear_line(reader, tmp_path):
    assert "no such" in str(_read(reader, tmp_path / "missing.json")) or reader == "load_scenario"


@pytest.mark.parametrize("reader", sorted(READERS))
def test_an_unreadable_file_is_one_clear_line(reader, tmp_path, monkeypatch):
    for name in ("secret.json", "secret.jsonl"):
        (tmp_path / name).write_text("[]")
    real = os.open

    def refuse(path: Any, flags: int, *args: Any) -> int:
        if "secret" in str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path, flags, *args)

    monkeypatch.setattr(os, "open", refuse)
    assert "permission denied" in str(_read(reader, tmp_path / "secret.json"))


def test_read_bytes_checks_the_file_it_opened_not_only_the_name(tmp_path, monkeypatch):
    """A file swapped for a pipe between os.stat and open: opened non-blocking, then refused by fstat."""
    path = tmp_path / "swap.json"
    path.write_text("[]")
    real_open = os.open

    def swap(target: Any, flags: int, *args: Any) -> int:
        os.unlink(target)
        os.mkfifo(target)
        return real_open(target, flags, *args)

    monkeypatch.setattr(os, "open", swap)
    with _deadline(10):
        with pytest.raises(InvalidArgumentError, match="named pipe"):
            files.read_bytes(path)


def test_the_limit_parameter_and_a_bad_environment_value(tmp_path, monkeypatch):
    path = tmp_path / "x.json"
    path.write_bytes(b"0123456789")
    assert files.read_bytes(path, limit=10) == b"0123456789"
    with pytest.raises(InvalidArgumentError, match="more than the limit of 9 bytes"):
        files.read_bytes(path, limit=9)
    monkeypatch.setenv(files.MAX_FILE_BYTES_ENV, "lots")
    with pytest.raises(InvalidArgumentError, match="STMVIZ_MAX_FILE_BYTES='lots' is not a whole number"):
        files.read_bytes(path)
    for bad in (0, -1, 1.5, True, "10"):
        with pytest.raises(InvalidArgumentError):
            files.max_file_bytes(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", [3, None, b"x.json", "", "a\0b", 1.5])
def test_a_path_that_is_not_a_path_is_refused(path):
    with pytest.raises(InvalidArgumentError):
        files.read_bytes(path)
    with pytest.raises(InvalidArgumentError):
        files.write_text(path, "x")


def test_the_lab_copies_are_written_by_copy_file(tmp_path):
    source = tmp_path / "a.ipynb"
    source.write_text('{"cells": []}')
    assert files.copy_file(source, tmp_path / "b.ipynb").read_text() == '{"cells": []}'


def test_a_lone_surrogate_in_content_and_metadata_round_trips_through_json_text():
    e = Element(HALF_EMOJI, {"t": 1, "note": "\udfff"})
    again = Element.from_json(json.loads(files.json_text(e.to_json()).encode("utf-8")))
    assert again == e and again.id == e.id


@pytest.mark.parametrize("reader", ["Trace.load", "Scenario.load", "load_chat_log", "load_agentfold_log"])
@pytest.mark.parametrize("path", [3, None, 1.5])
def test_a_loader_given_a_number_for_a_path_says_so(reader, path):
    with pytest.raises(InvalidArgumentError, match="must be a str or a pathlib.Path"):
        READERS[reader][0](path)
