"""Reading JSON files for people: one decoder for traces, scenarios and chat logs.

A file a student saves, edits or downloads may be cut short, saved in another
encoding, or hold two documents. :func:`decode_json` turns each of these into
one error that names the file, the line and column, and — when the text ends
before the document does — says that the file looks truncated.

A hostile file gets the same treatment: bytes that are not text in the
encoding they claim, arrays nested thousands of levels deep (deeper than
:data:`MAX_DEPTH` is refused, so no reader of the document recurses without
bound), and whole numbers too long for Python to convert all raise the one
error of the caller's kind, never a ``RecursionError``, ``ValueError`` or
``UnicodeDecodeError`` from inside the decoder. Bytes are UTF-8 (a byte-order
mark is allowed); a file that starts with a UTF-16 or UTF-32 byte-order mark,
or has the NUL-byte pattern of UTF-16/32 JSON (as some Windows tools write),
is decoded from that encoding.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.errors import STMError, FormatError

__all__ = ["decode_json", "decode_json_lines", "MAX_DEPTH"]

#: The deepest nesting of arrays and objects a decoded document may have (stmviz's own files need about 10).
MAX_DEPTH = 200


def decode_json(
    text: str | bytes,
    source: str,
    error: type[STMError] = FormatError,
    *,
    expected: str = "",
    allow_nan: bool = True,
) -> Any:
    """Decode the JSON text of a file (a trace, a scenario, a chat log), or raise ``error`` saying where and what.

    Parameters
    ----------
    text : str or bytes
        The file's content; bytes are read as UTF-8 (a leading byte-order mark is allowed).
    source : str
        The file name (or another label) that starts every message.
    error : type of STMError
        The error to raise: :class:`~stmviz.core.errors.FormatError` for
        traces, :class:`~stmviz.core.errors.FormatError` for scenarios
        and chat logs.
    expected : str
        What the file should hold, in a few words (``"a scenario is a JSON
        object with 'steps'"``); added to the message of an empty file and of
        a file with more than one JSON document.
    allow_nan : bool
        Whether ``NaN``, ``Infinity`` and ``-Infinity`` (not JSON, but written by
        Python's ``json`` by default) are read as floats; stmviz never writes
        them in a trace, so traces are read with ``allow_nan=False``.

    Returns
    -------
    object
        The decoded document.

    Raises
    ------
    STMError
        ``error``, if the text is not UTF-8, is empty, or is not valid JSON.

    Examples
    --------
    >>> decode_json('{"steps": []}', "s.json")
    {'steps': []}
    >>> decode_json('{"steps": [1, 2', "s.json")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.FormatError: s.json: not valid JSON at line 1, column 16: Expecting ',' delimiter (the file looks truncated: was it written completely?)
    """
    text = _text(text, source, error, expected)
    try:
        document = json.loads(text) if allow_nan else json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise error(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {_explain(exc, text, expected)}") from None
    except (RecursionError, ValueError) as exc:
        raise error(f"{source}: {_hostile(exc)}") from None
    _check_depth(document, source, error)
    return document


def decode_json_lines(
    text: str | bytes,
    source: str,
    error: type[STMError] = FormatError,
    *,
    expected: str = "",
) -> list[tuple[int, Any]]:
    """Decode JSON Lines (one document per line, blank lines skipped), or raise ``error`` naming the line.

    Parameters are those of :func:`decode_json`.

    Returns
    -------
    list of (int, object)
        Each document with its line number in the file (from 1).

    Examples
    --------
    >>> decode_json_lines('{"role": "user"}\\n\\n[1]\\n', "chat.jsonl")
    [(1, {'role': 'user'}), (3, [1])]
    >>> decode_json_lines('{"role": "user"}\\n{"role": ', "chat.jsonl")
    Traceback (most recent call last):
    ...
    stmviz.core.errors.FormatError: chat.jsonl: not valid JSON at line 2, column 10: Expecting value (the line looks truncated)
    """
    documents = []
    for lineno, line in enumerate(_text(text, source, error, expected).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            document = json.loads(line)
        except json.JSONDecodeError as exc:
            what = _explain(exc, line, expected).replace("the file looks truncated: was it written completely?", "the line looks truncated")
            raise error(f"{source}: not valid JSON at line {lineno}, column {exc.colno}: {what}") from None
        except (RecursionError, ValueError) as exc:
            raise error(f"{source}: line {lineno}: {_hostile(exc)}") from None
        _check_depth(document, f"{source}: line {lineno}", error)
        documents.append((lineno, document))
    return documents


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number (a file written by stmviz never holds NaN or infinity)")


def _hostile(exc: BaseException) -> str:
    """What the decoder choked on, other than a syntax error: nesting too deep for it, or a number too long."""
    if isinstance(exc, RecursionError):
        return f"not a usable JSON document: arrays or objects are nested too deeply (more than {MAX_DEPTH} levels are refused)"
    if "JSON number" in str(exc):
        return f"not a usable JSON document: {exc}"
    return f"not a usable JSON document: {exc}; a number this long is not a plausible value (shorten it, or quote it as a string)"


def _check_depth(document: Any, source: str, error: type[STMError]) -> None:
    """Refuse a document nested deeper than :data:`MAX_DEPTH` (without recursion: the check itself must not overflow)."""
    level: list[Any] = [document]
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            raise error(f"{source}: arrays or objects are nested more than {MAX_DEPTH} levels deep; this is not a stmviz file")
        deeper: list[Any] = []
        for value in level:
            if type(value) is dict:
                deeper.extend(v for v in value.values() if type(v) is dict or type(v) is list)
            elif type(value) is list:
                deeper.extend(v for v in value if type(v) is dict or type(v) is list)
        level = deeper


def _text(text: str | bytes, source: str, error: type[STMError], expected: str) -> str:
    """The file's text: bytes read as UTF-8; an empty file is an error."""
    if isinstance(text, (bytes, bytearray)):
        raw = bytes(text)
        encoding = json.detect_encoding(raw)  # UTF-8 (with or without a byte-order mark), or UTF-16/32 by BOM or NULs
        try:
            text = raw.decode("utf-8-sig" if encoding == "utf-8" else encoding)
        except UnicodeDecodeError as exc:
            name = "UTF-8" if encoding.startswith("utf-8") else encoding.upper()
            raise error(
                f"{source}: not {name} text ({exc.reason} at byte {exc.start}); save the file as UTF-8 "
                f"(a file in Latin-1 or Windows-1252 must be converted)"
            ) from None
        if not encoding.startswith("utf-8") and not re.match(r'\s*[\[{"\-0-9tfn]', text):
            raise error(
                f"{source}: the file starts like {encoding.upper()} text (a byte-order mark or NUL bytes), "
                f"but is not JSON in that encoding; save the file as UTF-8"
            )
    elif not isinstance(text, str):
        raise error(f"{source}: expected JSON text (str or bytes), got {type(text).__name__}")
    if not text.strip():
        raise error(f"{source}: the file is empty" + (f"; {expected}" if expected else ""))
    return text


def _explain(exc: json.JSONDecodeError, text: str, expected: str) -> str:
    """The decoder's message, with the likely cause: a cut-off file, or several documents in one."""
    if exc.msg.startswith("Extra data"):
        return exc.msg + (f"; one JSON document was expected: {expected}" if expected else "; one JSON document was expected")
    if exc.msg.startswith("Unterminated") or exc.pos >= len(text.rstrip()) - 1:
        return exc.msg + " (the file looks truncated: was it written completely?)"
    return exc.msg
