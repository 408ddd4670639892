"""What the benchmark loaders (:mod:`.locomo`, :mod:`.longmemeval`) share: reading a file, and checking its fields.

Every check raises :class:`~stmviz.core.errors.FormatError` as
``<file>: <JSON path>: <what is wrong>; <how to fix it>``, the JSON path in
the form ``[0].qa[12].evidence[1]``.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
import zipfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core import guards
from ..core.errors import FormatError
from ..core.formatting import shorten
from ..io.files import as_path, read_bytes
from ..io.jsonio import decode_json

#: The largest file the loaders read unless told otherwise (``max_bytes``): 1 GiB.
MAX_BYTES = 2**30


def read_json_file(
    path: str | os.PathLike, *, max_bytes: int = MAX_BYTES, expected: str = "", where: str = ""
) -> tuple[Any, str]:
    """The decoded JSON document of a downloaded benchmark file, and the file's name for messages.

    The one place the loaders touch the file system. Raises
    :class:`FormatError` for a missing file, a file larger than
    ``max_bytes``, text that is not UTF-8 JSON, or nesting too deep to decode;
    :class:`~stmviz.core.errors.InvalidArgumentError` for a ``path`` or
    ``max_bytes`` of the wrong kind (``where`` names the loader).
    """
    path = as_path(path, "benchmark file")
    source = path.name or str(path)
    max_bytes = guards.whole_number(max_bytes, "max_bytes", 1, where=where, fix="; a number of bytes, e.g. 2**30")
    try:
        info = path.stat()
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file; give the path of the downloaded JSON file") from None
    except OSError as exc:
        raise FormatError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise FormatError(f"{path}: is a folder; give the path of the JSON file in it")
    if stat.S_ISREG(info.st_mode) and info.st_size > max_bytes:
        raise FormatError(
            f"{source}: the file holds {info.st_size:,} bytes, more than max_bytes = {max_bytes:,}; if it is the file "
            f"you meant, pass a larger max_bytes (reading it needs several times its size in memory)"
        )
    # the bounded, non-blocking reader every file of stmviz goes through: a device (/dev/zero) or a named pipe
    # is refused at once, instead of read to exhaustion or waited on for ever
    raw = read_bytes(path, what="benchmark file", error=FormatError, limit=max_bytes)
    try:
        return decode_json(raw, source, FormatError, expected=expected), source
    except RecursionError:
        raise FormatError(f"{source}: the JSON is nested too deeply to read; {expected}") from None


class BenchmarkFileWarning(UserWarning):
    """A benchmark file was read with anomalies (an evidence id that names no turn, a question without an answer, …).

    Each anomaly is listed in the scenario's ``meta["anomalies"]``; the
    loaders' ``strict=True`` raises :class:`FormatError` instead.
    """


def read_json_files(
    path: str | os.PathLike, *, max_bytes: int = MAX_BYTES, expected: str = "", where: str = ""
) -> list[tuple[Any, str]]:
    """The decoded JSON documents at ``path``: one file, every ``*.json`` of a folder, or every ``*.json`` of a ``.zip``.

    A folder's or archive's files come in natural order (``2.json`` before
    ``10.json``), each with its name for messages; ``max_bytes`` bounds the
    whole (an archive: its members' uncompressed sizes). A folder or archive
    without a JSON file raises :class:`FormatError`.
    """
    path = as_path(path, "benchmark file")
    max_bytes = guards.whole_number(max_bytes, "max_bytes", 1, where=where, fix="; a number of bytes, e.g. 2**30")
    if path.is_dir():
        files = sorted((p for p in path.iterdir() if p.suffix.lower() == ".json" and p.is_file()), key=lambda p: _natural(p.name))
        if not files:
            raise FormatError(f"{path}: the folder holds no .json file; give the path of the downloaded JSON file")
        total = sum(p.stat().st_size for p in files)
        if total > max_bytes:
            raise FormatError(f"{path}: its .json files hold {total:,} bytes, more than max_bytes = {max_bytes:,}; "
                                      f"pass a larger max_bytes")
        return [read_json_file(p, max_bytes=max_bytes, expected=expected, where=where) for p in files]
    if path.suffix.lower() == ".zip" and path.is_file():
        return _read_zip(path, max_bytes, expected)
    return [read_json_file(path, max_bytes=max_bytes, expected=expected, where=where)]


def _read_zip(path: Path, max_bytes: int, expected: str) -> list[tuple[Any, str]]:
    try:
        with zipfile.ZipFile(path) as archive:
            members = sorted((m for m in archive.infolist() if not m.is_dir() and m.filename.lower().endswith(".json")
                              and not Path(m.filename).name.startswith(".")), key=lambda m: _natural(m.filename))
            if not members:
                raise FormatError(f"{path.name}: the archive holds no .json file; give the path of a LoCoMo or "
                                          f"LongMemEval JSON file")
            total = sum(m.file_size for m in members)
            if total > max_bytes:
                raise FormatError(f"{path.name}: its .json files hold {total:,} bytes uncompressed, more than "
                                          f"max_bytes = {max_bytes:,}; pass a larger max_bytes")
            out = []
            for m in members:
                source = f"{path.name}:{m.filename}"
                try:
                    out.append((decode_json(archive.read(m), source, FormatError, expected=expected), source))
                except RecursionError:
                    raise FormatError(f"{source}: the JSON is nested too deeply to read; {expected}") from None
            return out
    except (zipfile.BadZipFile, OSError) as exc:
        raise FormatError(f"{path.name}: not a readable .zip archive ({exc}); unpack it and give the JSON file") from None


def _natural(name: str) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def anomaly(anomalies: list[dict[str, str]], where: str, problem: str) -> None:
    """Record one anomaly of a file read with ``strict=False``: its JSON path and what was done about it."""
    anomalies.append({"where": where, "problem": problem})


def warn_anomalies(source: str, anomalies: list[dict[str, str]], kinds: Mapping[str, str], stacklevel: int = 3) -> None:
    """One :class:`BenchmarkFileWarning` that sums up every anomaly of a load, by kind (no warning without any).

    ``kinds`` maps the start of a ``problem`` text to the words that name
    its kind in the summary (``"is the id of no turn"`` → ``"evidence ids that
    name no turn (dropped)"``); other problems are counted as they are.
    """
    if not anomalies:
        return
    counts: Counter[str] = Counter()
    for item in anomalies:
        problem = item["problem"]
        counts[next((label for key, label in kinds.items() if key in problem), problem)] += 1
    parts = "; ".join(f"{n} {label}" for label, n in counts.most_common())
    warnings.warn(
        f"{source}: read with {len(anomalies)} anomal{'y' if len(anomalies) == 1 else 'ies'} — {parts}. Each is listed "
        f"with its JSON path in scenario.meta['anomalies']; pass strict=True to refuse such a file instead",
        BenchmarkFileWarning, stacklevel=stacklevel + 1,
    )


def fail(source: str, where: str, what: str) -> FormatError:
    """The error for a problem at JSON path ``where`` of file ``source``."""
    return FormatError(f"{source}: {where or 'top level'}: {what}")


def kind(value: Any) -> str:
    """A JSON value's kind and a short view of it, for messages: ``a number 17``, ``text 'D1'``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"a number {shorten(repr(value), 30)}"
    if isinstance(value, str):
        return f"text {shorten(repr(value), 40)}"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return type(value).__name__


def need_object(value: Any, source: str, where: str, fix: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise fail(source, where, f"expected an object, got {kind(value)}; {fix}")
    return value


def need_list(value: Any, source: str, where: str, fix: str, *, empty_ok: bool = False) -> list[Any]:
    if not isinstance(value, list):
        raise fail(source, where, f"expected a list, got {kind(value)}; {fix}")
    if not value and not empty_ok:
        raise fail(source, where, f"the list is empty; {fix}")
    return value


def need_text(value: Any, source: str, where: str, fix: str, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str):
        raise fail(source, where, f"expected text, got {kind(value)}; {fix}")
    if not empty_ok and not value.strip():
        raise fail(source, where, f"the text is empty; {fix}")
    return value


def field(record: Mapping[str, Any], key: str, source: str, where: str, fix: str) -> Any:
    """``record[key]``, or an error naming the missing key."""
    if key not in record:
        known = ", ".join(shorten(repr(key), 30) for key in list(record)[:8]) or "none"
        raise fail(source, where, f"missing the field {key!r} (fields here: {known}); {fix}")
    return record[key]


def answer_text(value: Any, source: str, where: str) -> str:
    """A reference answer as text: text as it is, a number by ``str``, a list of these joined by "; "."""
    if isinstance(value, list) and value:
        return "; ".join(answer_text(v, source, f"{where}[{k}]") for k, v in enumerate(value))
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise fail(source, where, f"expected the answer as text or a number, got {kind(value)}; fix the answer")
    text = str(value).strip()
    if not text:
        raise fail(source, where, "the answer is empty; give the reference answer")
    return text
