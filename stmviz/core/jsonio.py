"""Reading JSON files for people: one decoder for traces, scenarios and chat logs.

A file a student saves, edits or downloads may be cut short, saved in another
encoding, or hold two documents. :func:`decode_json` turns each of these into
one error that names the file, the line and column, and — when the text ends
before the document does — says that the file looks truncated.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import STMError, TraceFormatError

__all__ = ["decode_json", "decode_json_lines"]


def decode_json(
    text: str | bytes,
    source: str,
    error: type[STMError] = TraceFormatError,
    *,
    expected: str = "",
) -> Any:
    """Decode the JSON text of a file (a trace, a scenario, a chat log), or raise ``error`` saying where and what.

    Parameters
    ----------
    text : str or bytes
        The file's content; bytes are read as UTF-8 (a leading byte-order mark is allowed).
    source : str
        The file name (or another label) that starts every message.
    error : type of STMError
        The error to raise: :class:`~stmviz.core.errors.TraceFormatError` for
        traces, :class:`~stmviz.core.errors.ScenarioFormatError` for scenarios
        and chat logs.
    expected : str
        What the file should hold, in a few words (``"a scenario is a JSON
        object with 'steps'"``); added to the message of an empty file and of
        a file with more than one JSON document.

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
    stmviz.core.errors.TraceFormatError: s.json: not valid JSON at line 1, column 16: Expecting ',' delimiter (the file looks truncated: was it written completely?)
    """
    text = _text(text, source, error, expected)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {_explain(exc, text, expected)}") from None


def decode_json_lines(
    text: str | bytes,
    source: str,
    error: type[STMError] = TraceFormatError,
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
    stmviz.core.errors.TraceFormatError: chat.jsonl: not valid JSON at line 2, column 10: Expecting value (the line looks truncated)
    """
    documents = []
    for lineno, line in enumerate(_text(text, source, error, expected).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            documents.append((lineno, json.loads(line)))
        except json.JSONDecodeError as exc:
            what = _explain(exc, line, expected).replace("the file looks truncated: was it written completely?", "the line looks truncated")
            raise error(f"{source}: not valid JSON at line {lineno}, column {exc.colno}: {what}") from None
    return documents


def _text(text: str | bytes, source: str, error: type[STMError], expected: str) -> str:
    """The file's text: bytes read as UTF-8; an empty file is an error."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise error(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
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
