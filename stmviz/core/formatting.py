"""How stmviz writes things for people: shortened texts, numbers, plain-text tables.

One home for each, used by error messages, ``Trace.table``, the figures and
:mod:`stmviz.tables`, so a number or a cut text looks the same everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["shorten", "format_number", "plural", "text_table"]


def shorten(text: object, width: int = 40) -> str:
    """Return ``text`` as one line of at most ``width`` characters.

    Runs of whitespace become one space; a cut text ends with ``…``.
    A ``width`` of 0 or less means no limit.

    >>> shorten("a  long\\ntext that goes on", 12)
    'a long text…'
    >>> shorten("short", 12), shorten("no limit at all", 0)
    ('short', 'no limit at all')
    """
    if isinstance(width, bool) or not isinstance(width, int):
        from .errors import InvalidArgumentError

        raise InvalidArgumentError(f"shorten: width must be a whole number of characters, got {width!r}")
    one_line = " ".join((text if isinstance(text, str) else str(text)).split())
    if width <= 0 or len(one_line) <= width:
        return one_line
    return one_line[: max(1, width - 1)] + "…"


def format_number(x: float, digits: int = 6) -> str:
    """A number for a message or a label: whole numbers without ``.0``, others with ``digits`` significant digits.

    >>> format_number(12.0), format_number(3.14159, 4), format_number(7), format_number(0.5)
    ('12', '3.142', '7', '0.5')
    """
    if isinstance(x, float):
        if x.is_integer():
            return str(int(x))
        return f"{x:.{digits}g}"
    return str(x)


def plural(n: float, noun: str, many: str | None = None) -> str:
    """``n`` and a noun, the noun in the plural unless n is 1: ``"1 element"``, ``"3 elements"``.

    >>> plural(1, "element"), plural(0, "element"), plural(2.0, "step"), plural(3, "entry", "entries")
    ('1 element', '0 elements', '2 steps', '3 entries')
    """
    word = noun if n == 1 else (many if many is not None else noun + "s")
    return f"{format_number(n)} {word}"


def text_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows of cells as aligned plain text; the first row is the header, underlined with ``─``.

    >>> print(text_table([["t", "operation"], ["0", "append"], ["12", "evict"]]))
    t   operation
    ──  ─────────
    0   append
    12  evict
    """
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("─" * w for w in widths))
    return "\n".join(lines)
