"""Tables of records (``trace.to_records()``, ``metrics.compare(...)``) for notebooks and terminals.

A :class:`Table` prints as aligned plain text and displays as an HTML table in
Jupyter; every cell is escaped, since records carry agent content.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .core.formatting import text_table

__all__ = ["Table", "table"]


def _cell(value: Any, digits: int) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if value is None:
        return "—"
    return str(value)


class Table:
    """Rows of records with chosen columns; ``str()`` is plain text, ``_repr_html_`` an escaped HTML table.

    >>> print(table([{"mechanism": "fifo", "retention": 0.0}, {"mechanism": "scm", "retention": 0.5714}]))
    mechanism  retention
    ─────────  ─────────
    fifo       0.00
    scm        0.57
    """

    def __init__(self, records: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None, digits: int = 2) -> None:
        self.records = [dict(r) for r in records]
        if columns is None:
            seen: dict[str, None] = {}
            for record in self.records:
                for key in record:
                    seen.setdefault(key, None)
            columns = list(seen)
        self.columns = list(columns)
        self.digits = digits

    def rows(self) -> list[list[str]]:
        """The cells of every record, as text: numbers with ``digits`` decimals, booleans as yes / no, None as —."""
        return [[_cell(r.get(c), self.digits) for c in self.columns] for r in self.records]

    def __str__(self) -> str:
        return text_table([self.columns, *self.rows()])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in self.rows()
        )
        return f'<table class="stmviz-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def table(records: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None, digits: int = 2) -> Table:
    """A :class:`Table` of records, with the given columns (default: all keys, in order of appearance)."""
    return Table(records, columns, digits)
