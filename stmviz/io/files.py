"""Reading and writing a user's files: one home for how stmviz touches the disk.

Agent logs are untrusted input, and a course machine may hold a student's
only copy of their work. Every file stmviz reads or writes for a user — a
trace, a scenario, a chat log, an AgentFold transcript, an exported HTML page —
goes through this module, which promises three things.

**A save never destroys the file it replaces.** :func:`write_text` encodes the
whole text first (so nothing is touched when it cannot be encoded), writes it
to a temporary file in the same folder, flushes it to the disk
(``os.fsync``) and then renames it over the target (``os.replace``, atomic on
POSIX and Windows). If anything fails on the way — a full disk, a read-only
folder, a crash of the serializer, Ctrl-C — the old file is left byte for byte
as it was, and no temporary file remains.

**One text-encoding policy, applied before any file is touched.** Files are
UTF-8. Python strings may hold *lone surrogates* (``"cut \\ud83d"``: half of an
emoji, as real exported chat logs contain), which UTF-8 cannot encode:

- JSON files (traces, scenarios; :func:`json_text`) write each surrogate as
  the JSON escape ``\\ud83d``; every other character is written as itself. A
  JSON reader gives back exactly the same string, so a trace with a cut emoji
  saves and loads unchanged. (JSON reads a high surrogate escape followed by a
  low one as the single character the pair encodes: a string that holds such
  a pair as two separate code points comes back as that one character.)
- HTML pages (:func:`html_text`) are for people: each lone surrogate is
  replaced by U+FFFD, the replacement character ``�`` (data a page embeds
  as JSON for its scripts may keep the ``\\ud83d`` escape, which a browser
  shows as ``�`` too). The ``stmviz`` command prints text the same way.

**Reading is bounded and never blocks.** :func:`read_bytes` reads only regular
files: a directory, a named pipe (FIFO), a device such as ``/dev/zero`` or a
socket is refused before it is opened (and the file is opened non-blocking,
then checked again, so a file swapped for a pipe in between cannot hang the
reader either). A file larger than :data:`DEFAULT_MAX_FILE_BYTES` (200 MB) is
refused; raise the limit with the environment variable
``STMVIZ_MAX_FILE_BYTES`` (a number of bytes) or the ``limit`` parameter.
Every OS error becomes one :class:`~stmviz.core.errors.STMError` line naming
the file, what went wrong, and how to fix it.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import secrets
import stat
import sys
from pathlib import Path
from typing import Any

from ..core import guards
from ..core.guards import brief
from ..core.errors import InvalidArgumentError, STMError
from ..core.formatting import shorten

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "MAX_FILE_BYTES_ENV",
    "max_file_bytes",
    "read_bytes",
    "write_text",
    "write_bytes",
    "copy_file",
    "as_path",
    "json_text",
    "html_text",
]

#: The largest file stmviz reads unless told otherwise: 200 MB.
DEFAULT_MAX_FILE_BYTES = 200 * 1024 * 1024
#: The environment variable that changes that limit (a whole number of bytes).
MAX_FILE_BYTES_ENV = "STMVIZ_MAX_FILE_BYTES"

_SURROGATE = re.compile("[\ud800-\udfff]")


# ---------------------------------------------------------------- the encoding policy


def json_text(data: Any, *, indent: int | None = None, error: type[STMError] = InvalidArgumentError, what: str = "the data") -> str:
    """``data`` as JSON text that UTF-8 can always encode: the JSON half of the encoding policy.

    Characters are written as themselves (``ensure_ascii=False``), except lone
    surrogates, written as ``\\udXXX`` escapes, so the text round-trips through
    a UTF-8 file exactly. NaN and infinities are not JSON and are refused.

    Raises
    ------
    STMError
        ``error``, naming the first value JSON cannot hold and where it is.

    Examples
    --------
    >>> text = json_text({"text": "cut \\ud83d", "n": 1})
    >>> text
    '{"text": "cut \\\\ud83d", "n": 1}'
    >>> json.loads(text)["text"] == "cut \\ud83d"
    True
    >>> json_text({"x": [1.5, float("nan")]})
    Traceback (most recent call last):
    ...
    stmviz.core.errors.InvalidArgumentError: the data cannot be written as JSON: x[1] = nan is not a finite number; JSON has no NaN or infinity
    """
    if not (indent is None or isinstance(indent, str) and not indent.strip(" \t")
            or isinstance(indent, int) and not isinstance(indent, bool) and 0 <= indent <= 16):
        raise InvalidArgumentError(
            f"indent must be None (one line), a whole number of spaces 0 … 16 or a string of spaces or tabs, "
            f"got {brief(indent)}"
        )
    try:
        text = json.dumps(data, ensure_ascii=False, indent=indent, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:
        raise error(f"{what} cannot be written as JSON: {_unwritable(data, exc)}") from None
    if text.isascii():
        return text
    return _SURROGATE.sub(_escape, text)


def html_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (``�``): the HTML half of the encoding policy.

    Text shown to people in a terminal (the ``stmviz`` command) follows it too.

    >>> html_text("cut \\ud83d here") == "cut \\ufffd here"
    True
    """
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _unwritable(data: Any, exc: BaseException) -> str:
    """Where in ``data`` the first value is that JSON cannot hold, and why (for the error of :func:`json_text`)."""
    stack: list[tuple[str, Any, int]] = [("", data, 0)]
    while stack:
        where, value, depth = stack.pop()
        name = where or "the top level"
        if depth > 500:
            return f"{name} is nested more than 500 levels deep"
        if isinstance(value, float) and not math.isfinite(value):
            return f"{name} = {value!r} is not a finite number; JSON has no NaN or infinity"
        if isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    return f"{name} has a key {brief(key)} of type {type(key).__name__}; JSON keys are strings"
                stack.append((f"{where}.{key}" if where else str(key), item, depth + 1))
        elif isinstance(value, (list, tuple)):
            stack.extend((f"{where}[{i}]", item, depth + 1) for i, item in reversed(list(enumerate(value))))
        elif not isinstance(value, (str, int, float, bool)) and value is not None:
            return f"{name} = {brief(value)} is a {type(value).__name__}, which JSON cannot hold"
        elif isinstance(value, int) and not isinstance(value, bool):
            try:
                str(value)
            except ValueError:
                return f"{name} is a whole number of more than {_max_digits()} digits, which JSON cannot hold"
    return f"{type(exc).__name__}: {shorten(str(exc), 200)}"


def _max_digits() -> int:
    get = getattr(sys, "get_int_max_str_digits", None)
    return get() if get else 4300


# ---------------------------------------------------------------- writing


def write_text(
    path: str | os.PathLike[str],
    text: str,
    *,
    what: str = "file",
    error: type[STMError] = InvalidArgumentError,
) -> Path:
    """Write ``text`` to ``path`` as UTF-8, atomically: the old file is replaced whole, or left as it was.

    Apply the encoding policy first (:func:`json_text` or :func:`html_text`):
    text that UTF-8 still cannot encode is refused before any file is touched.

    Parameters
    ----------
    path : str or path-like
        The file to write. Its folder must exist. A symbolic link is followed:
        the file it points to is replaced.
    text : str
        The whole content.
    what : str
        What the file is, for messages (``"trace"``, ``"HTML page"``).
    error : type of STMError
        The error to raise.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    STMError
        ``error``, if the text cannot be encoded, the path names a folder or a
        non-regular file, the folder is missing or not writable, or writing
        fails; the old file is then unchanged and no temporary file remains.
    """
    target = _path(path, what)
    if not isinstance(text, str):
        raise InvalidArgumentError(f"write_text: the content of the {what} must be text, got {type(text).__name__}")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise error(
            f"{target}: the {what} was not written: character {exc.start} ({exc.object[exc.start]!r}) cannot be "
            f"encoded as UTF-8 ({exc.reason}); nothing was changed on disk"
        ) from None
    return write_bytes(target, data, what=what, error=error)


def write_bytes(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    what: str = "file",
    error: type[STMError] = InvalidArgumentError,
) -> Path:
    """Write ``data`` to ``path`` atomically, as :func:`write_text` does: the old file is replaced whole, or left as it was."""
    target = _path(path, what)
    target = Path(os.path.realpath(target)) if target.is_symlink() else target
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise error(f"{target}: cannot write the {what}: {_reason(exc)}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise error(f"{target}: is a folder, not a file; to write the {what} there, pass a file path such as {target / 'out.json'}")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise error(f"{target}: is a {_kind(info.st_mode)}, not a regular file; write the {what} to a regular file")
    folder = target.parent
    if not folder.is_dir():
        raise error(f"{target}: the folder {folder} does not exist; create it first, or write the {what} elsewhere")
    temporary = _write_temporary(folder, target.name, data, info, what, error, target)
    try:
        os.replace(temporary, target)
    except BaseException as exc:
        _remove(temporary)
        if isinstance(exc, OSError):
            raise error(f"{target}: cannot write the {what}: {_reason(exc)}; the old file is unchanged") from None
        raise
    _sync_folder(folder)
    return target


def _write_temporary(
    folder: Path, name: str, data: bytes, info: os.stat_result | None, what: str, error: type[STMError], target: Path
) -> str:
    """A new temporary file in ``folder`` holding ``data``, flushed to disk; its path (removed again on any failure)."""
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666  # a new file gets 0o666 less the umask, as open() gives
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        temporary = str(folder / f".{name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(temporary, flags, mode)
            break
        except FileExistsError:
            continue
        except OSError as exc:
            raise error(f"{target}: cannot write the {what}: {_reason(exc)}; the old file is unchanged") from None
    else:  # pragma: no cover - 100 collisions of 48 random bits
        raise error(f"{target}: cannot create a temporary file in {folder}")
    try:
        try:
            if info is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)  # keep the old file's permissions exactly (os.open applied the umask)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException as exc:
        _remove(temporary)
        if isinstance(exc, OSError):
            raise error(f"{target}: cannot write the {what}: {_reason(exc)}; the old file is unchanged") from None
        raise
    return temporary


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:  # pragma: no cover - already gone
        pass


def _sync_folder(folder: Path) -> None:
    """Flush the rename to disk (POSIX); where a folder cannot be opened, the rename is still done."""
    if os.name != "posix":  # pragma: no cover
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse fsync on a folder
        pass
    finally:
        os.close(fd)


def copy_file(source: str | os.PathLike[str], target: str | os.PathLike[str], *, what: str = "file") -> Path:
    """Copy a regular file (bounded, as :func:`read_bytes` reads) to ``target``, atomically (as :func:`write_bytes`)."""
    return write_bytes(target, read_bytes(source, what=what), what=what)


# ---------------------------------------------------------------- reading


def max_file_bytes(limit: int | None = None) -> int:
    """The size limit of :func:`read_bytes`: ``limit`` if given, else ``$STMVIZ_MAX_FILE_BYTES``, else 200 MB.

    >>> max_file_bytes(), max_file_bytes(10)
    (209715200, 10)
    """
    if limit is None:
        raw = os.environ.get(MAX_FILE_BYTES_ENV, "").strip()
        if not raw:
            return DEFAULT_MAX_FILE_BYTES
        try:
            limit = int(raw.replace("_", ""))
        except ValueError:
            raise InvalidArgumentError(
                f"{MAX_FILE_BYTES_ENV}={shorten(raw)!r} is not a whole number of bytes; "
                f"set it to e.g. {2 * DEFAULT_MAX_FILE_BYTES}, or unset it for the default of {DEFAULT_MAX_FILE_BYTES}"
            ) from None
    return guards.whole_number(limit, "the file size limit (bytes)", 1)


def read_bytes(
    path: str | os.PathLike[str],
    *,
    what: str = "file",
    error: type[STMError] = InvalidArgumentError,
    missing: type[STMError] | None = None,
    limit: int | None = None,
) -> bytes:
    """The content of a regular file, read without blocking and at most ``limit`` bytes.

    Parameters
    ----------
    path : str or path-like
        The file.
    what : str
        What the file should be, for messages (``"trace"``, ``"chat log file"``).
    error : type of STMError
        The error to raise for any problem.
    missing : type of STMError, optional
        The error to raise when the file does not exist (default: ``error``).
    limit : int, optional
        The largest size accepted, in bytes (default: :func:`max_file_bytes`).

    Raises
    ------
    STMError
        ``error`` (or ``missing``), one line naming the file, what went wrong and how to fix it:
        the file is missing, a folder, a pipe, a device or a socket, too large, or cannot be read.
    """
    target = _path(path, what)
    top = max_file_bytes(limit)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        raise (missing or error)(f"{target}: no such {what}; check the path") from None
    except OSError as exc:
        raise error(f"{target}: cannot read the {what}: {_reason(exc)}") from None
    _check_regular(target, info, what, error, top)
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        raise error(f"{target}: cannot read the {what}: {_reason(exc)}") from None
    try:
        _check_regular(target, os.fstat(fd), what, error, top)  # the same file, not one swapped in since os.stat
        chunks = []
        size = 0
        while size <= top:
            chunk = os.read(fd, min(1 << 20, top + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise error(f"{target}: cannot read the {what}: {_reason(exc)}") from None
    finally:
        os.close(fd)
    if size > top:
        raise error(_too_large(target, what, f"more than {top:,} bytes", top))
    return b"".join(chunks)


def _check_regular(target: Path, info: os.stat_result, what: str, error: type[STMError], top: int) -> None:
    """Refuse anything but a regular file of at most ``top`` bytes."""
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise error(f"{target}: is a folder, not a {what}; give the path of a file in it")
    if not stat.S_ISREG(mode):
        raise error(
            f"{target}: is a {_kind(mode)}, not a regular file; stmviz reads a {what} only from a regular file "
            f"(save it to a file first)"
        )
    if info.st_size > top:
        raise error(_too_large(target, what, f"{info.st_size:,} bytes", top))


def _too_large(target: Path, what: str, size: str, top: int) -> str:
    return (
        f"{target}: the {what} is {size}, more than the limit of {top:,} bytes; if it is meant to be this large, "
        f"raise the limit: set the environment variable {MAX_FILE_BYTES_ENV} to a larger number of bytes"
    )


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def as_path(path: Any, what: str = "file") -> Path:
    """``path`` as a :class:`~pathlib.Path`, or :class:`InvalidArgumentError` if it is not a str or path-like.

    >>> as_path("trace.json")
    PosixPath('trace.json')
    """
    return _path(path, what)


def _path(path: Any, what: str) -> Path:
    """``path`` as a Path, if it is a str or path-like naming a file (not a number: ``os.stat(3)`` reads a descriptor)."""
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(
            f"the path of the {what} must be a str or a pathlib.Path, got {type(path).__name__} {brief(path)}"
        )
    raw = os.fspath(path)
    if not isinstance(raw, str):
        raise InvalidArgumentError(f"the path of the {what} must be text, got {type(raw).__name__} {brief(raw)}")
    if not raw or "\0" in raw:
        raise InvalidArgumentError(f"the path of the {what} must be a non-empty file name without NUL characters, got {brief(raw)}")
    try:
        os.fsencode(raw)  # what the OS is given: a lone surrogate (not one os.fsdecode made) has no bytes
    except UnicodeEncodeError:
        raise InvalidArgumentError(
            f"the path of the {what} holds characters no file name can have (a lone surrogate), got {brief(raw)}; "
            "pass the name as the OS gave it (os.listdir, pathlib) or as bytes decoded with os.fsdecode"
        ) from None
    return Path(raw)


def _reason(exc: OSError) -> str:
    """An OS error in words, with the usual fix."""
    code = exc.errno
    text = exc.strerror or str(exc)
    if code in (errno.EACCES, errno.EPERM):
        return f"{text} (permission denied: check the file's and folder's permissions)"
    if code == errno.ENOSPC:
        return f"{text} (the disk is full: free some space)"
    if code == errno.EROFS:
        return f"{text} (a read-only file system: write somewhere else)"
    if code == errno.ENAMETOOLONG:
        return f"{text} (use a shorter path)"
    if code in (errno.ENOTDIR, errno.ENOENT):
        return f"{text} (a folder on the path does not exist)"
    if code == errno.EISDIR:
        return f"{text} (it is a folder)"
    return text
