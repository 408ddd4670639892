"""Tables of records (``trace.to_records()``, ``metrics.compare(...)``) for notebooks and terminals.

A :class:`Table` prints as aligned plain text and displays as an HTML table in
Jupyter; every cell is escaped, since records carry agent content. How much of
a cell is shown is the caller's choice (``width``); the columns that explain —
``why``, ``explanation``, ``rule`` — are never cut.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .core.guards import brief
from .core import guards
from .core.errors import InvalidArgumentError
from .core.formatting import shorten, text_table
from .core.i18n import N_, gettext as _, ngettext

__all__ = ["Table", "table", "WHOLE_COLUMNS", "Log"]

#: Columns never cut, whatever ``width``: they say why (a trace's reasons, a forgetting's explanation).
WHOLE_COLUMNS = ("why", "explanation", "rule")

#: The box around a table's HTML: as wide as the page at most, scrolling sideways when the table is wider.
TABLE_BOX_STYLE = "max-width:100%;overflow-x:auto"

#: At most this many decimals: more would show float noise, not precision.
MAX_DIGITS = 17


#: How the columns of stmviz's own records (``trace.to_records()``, ``metrics.compare(...)``) are headed for a
#: person: in English the key itself; in another language (``stmviz.set_language``) its translation. A key
#: stays what a program selects a column by; only the header a student reads changes.
COLUMN_NAMES: Mapping[str, str] = {
    "mechanism": N_("mechanism"), "scenario": N_("scenario"), "v_max": N_("v_max"), "steps": N_("steps"),
    "mean_occupancy": N_("mean_occupancy"), "max_occupancy": N_("max_occupancy"),
    "total_prompt_tokens": N_("total_prompt_tokens"), "max_prompt_tokens": N_("max_prompt_tokens"),
    "evictions": N_("evictions"), "summarizer_calls": N_("summarizer_calls"), "retained": N_("retained"),
    "probes": N_("probes"), "retention": N_("retention"), "evidence_recall": N_("evidence_recall"),
    "evidence_word_overlap": N_("evidence_word_overlap"), "answer_recall": N_("answer_recall"),
    "whole_turns": N_("whole_turns"), "cost": N_("cost"), "operation": N_("operation"),
    "size_before": N_("size_before"), "size_after": N_("size_after"), "occupancy": N_("occupancy"),
    "input_tokens": N_("input_tokens"), "n_elements": N_("n_elements"), "n_added": N_("n_added"),
    "n_removed": N_("n_removed"), "added": N_("added"), "removed": N_("removed"), "why": N_("why"),
    "text": N_("text"), "explanation": N_("explanation"), "rule": N_("rule"), "probe": N_("probe"),
    "question": N_("question"), "answer": N_("answer"),
}


def _cell(value: Any, digits: int) -> str:
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if value is None:
        return "—"
    try:
        return str(value)
    except Exception:  # a value whose str() fails is shown, not allowed to break the whole table
        return f"<{type(value).__name__}>"


def _records(records: object) -> list[dict[str, Any]]:
    rows = []
    for i, record in enumerate(guards.items(records, "records", where="table", what="records (dicts of column → value)")):
        if not isinstance(record, Mapping):
            raise InvalidArgumentError(
                f"table: records[{i}] must be a dict of column → value, got {brief(record)}; "
                "pass records such as trace.to_records() or metrics.compare(...)"
            )
        try:
            rows.append(dict(record))
        except Exception as exc:
            raise InvalidArgumentError(f"table: records[{i}] could not be read as a dict ({type(exc).__name__})") from exc
    return rows


def _columns(columns: object) -> list[str] | None:
    if columns is None:
        return None
    if isinstance(columns, str):
        raise InvalidArgumentError(f"table: columns must be a list of column names, got the str {brief(columns)}; "
                                   f"for one column pass [{brief(columns)}]")
    names = guards.items(columns, "columns", where="table", what="column names (str)")
    for name in names:
        if not isinstance(name, str):
            raise InvalidArgumentError(f"table: every column name must be a str, got {brief(name)} in {brief(names)}")
    return names


class Table:
    """Rows of records with chosen columns; ``str()`` is plain text, ``_repr_html_`` an escaped HTML table.

    Parameters
    ----------
    records : iterable of mappings
        The rows.
    columns : sequence of str, optional
        The columns, in order (default: every key, in order of appearance).
    digits : int
        Decimals of floats.
    width : int, optional
        The most characters shown of a cell (``None`` or 0: whole cells); the
        columns of :data:`WHOLE_COLUMNS` are never cut. In plain text every
        cell is one line.

    >>> print(table([{"mechanism": "fifo", "retention": 0.0}, {"mechanism": "scm", "retention": 0.5714}]))
    mechanism  retention
    ─────────  ─────────
    fifo       0.00
    scm        0.57
    >>> print(table([{"text": "Observation: a long tool result", "why": "oldest message; Σμ > V_max"}], width=14))
    text            why
    ──────────────  ──────────────────────────
    Observation: …  oldest message; Σμ > V_max
    """

    def __init__(
        self,
        records: Iterable[Mapping[str, Any]],
        columns: Sequence[str] | None = None,
        digits: int = 2,
        width: int | None = None,
    ) -> None:
        digits = guards.whole_number(digits, "digits", where="table", minimum=0, maximum=MAX_DIGITS)
        self.width = guards.whole_number(width, "width", where="table", none_ok=True, minimum=0, fix="; 0 or None shows whole cells") or 0
        self.records = _records(records)
        columns = _columns(columns)
        if columns is None:
            seen: dict[Any, None] = {}
            for record in self.records:
                for key in record:
                    seen.setdefault(key, None)
            columns = list(seen)
        self.columns = list(columns)
        self.digits = digits

    def header(self) -> list[str]:
        """The column names as text (a record's keys need not be strings; stmviz's own keys in the language set)."""
        return [_(COLUMN_NAMES[c]) if isinstance(c, str) and c in COLUMN_NAMES else _cell(c, self.digits)
                for c in self.columns]

    def rows(self) -> list[list[str]]:
        """The cells of every record, as text: numbers with ``digits`` decimals, booleans as yes / no, None as —.

        A cell is cut to ``width`` characters unless its column is one of :data:`WHOLE_COLUMNS`.
        """
        cuts = [0 if c in WHOLE_COLUMNS else self.width for c in self.columns]
        return [
            [_cut(_cell(r.get(c), self.digits), w) for c, w in zip(self.columns, cuts)] for r in self.records
        ]

    def __str__(self) -> str:
        return text_table([self.header(), *[[shorten(cell, 0) for cell in row] for row in self.rows()]])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.header())
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in self.rows()
        )
        # a table wider than the page scrolls sideways inside its own box instead of losing its last columns
        return (f'<div class="stmviz-table-box" style="{TABLE_BOX_STYLE}"><table class="stmviz-table">'
                f'<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>')


def table(
    records: Iterable[Mapping[str, Any]], columns: Sequence[str] | None = None, digits: int = 2, width: int | None = None
) -> Table:
    """A :class:`Table` of records, with the given columns (default: all keys, in order of appearance).

    Parameters
    ----------
    records : iterable of dict
        One dict per row, column name → value.
    columns : list of str, optional
        The columns to show, in order (default: every key, in order of first appearance).
    digits : int
        Decimals of float cells, 0 … 17.
    width : int, optional
        Cut cells to that many characters (``None`` or 0: whole); the columns
        in :data:`WHOLE_COLUMNS` are never cut.

    Raises
    ------
    InvalidArgumentError
        if records is not an iterable of dicts, columns not a list of str, or
        digits or width not a whole number in range.
    """
    return Table(records, columns, digits, width)


def _cut(cell: str, width: int) -> str:
    """A cell cut to ``width`` characters, ending in "…" (0: whole, line breaks kept for HTML)."""
    return cell if not width or len(cell) <= width else shorten(cell, width)


#: What a folded log says in its first line; whole sentences with named placeholders, in English (a log shows
#: them in the language set by ``stmviz.set_language``, in the form its number of lines takes).
LOG_TEXT = {
    "summary": "{title}: {n} lines, the first {shown} below",
    "more": "… {rest} more lines: .full() prints them all",
    "html_summary": "{title}: {n} lines (click to show them all)",
}


def _log_text(key: str, n: int) -> str:
    """``LOG_TEXT[key]`` for ``n`` lines, in the language set (English: always the plural, as LOG_TEXT says)."""
    if key == "summary":
        return ngettext("{title}: {n} lines, the first {shown} below", "{title}: {n} lines, the first {shown} below", n)
    if key == "more":
        return ngettext("… {rest} more lines: .full() prints them all", "… {rest} more lines: .full() prints them all", n)
    return ngettext("{title}: {n} lines (click to show them all)", "{title}: {n} lines (click to show them all)", n)


class Log:
    """A long log folded to a summary line: the first ``head`` lines, the whole log on demand.

    It prints as the summary, those lines and how to see the rest (``.full()``); in
    Jupyter it displays as a ``<details>`` box whose summary line opens to every line.
    Every line is escaped in HTML, since a log carries agent content.

    >>> log = Log([f"step {t}: kept" for t in range(5)], "judgements", head=2)
    >>> log
    judgements: 5 lines, the first 2 below
    step 0: kept
    step 1: kept
    … 3 more lines: .full() prints them all
    >>> len(log), log.lines[-1]
    (5, 'step 4: kept')
    """

    def __init__(self, lines: Iterable[object], title: str = "log", head: int = 5) -> None:
        self.lines = [str(line) for line in guards.items(lines, "lines", where="Log")]
        self.title = guards.text(title, "title", where="Log")
        self.head = guards.whole_number(head, "head", 0, where="Log")

    def __len__(self) -> int:
        return len(self.lines)

    def full(self) -> None:
        """Print every line of the log."""
        print("\n".join(self.lines))

    def __repr__(self) -> str:
        shown = self.lines[: self.head]
        out = [_log_text("summary", len(self.lines)).format(title=self.title, n=len(self.lines), shown=len(shown)), *shown]
        if len(self.lines) > len(shown):
            rest = len(self.lines) - len(shown)
            out.append(_log_text("more", rest).format(rest=rest))
        return "\n".join(out)

    def _repr_html_(self) -> str:
        summary = html.escape(_log_text("html_summary", len(self.lines)).format(title=self.title, n=len(self.lines)))
        body = html.escape("\n".join(self.lines))
        return f"<details><summary>{summary}</summary><pre>{body}</pre></details>"
