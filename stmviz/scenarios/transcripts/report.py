"""What reading a transcript kept, left out, guessed and skipped: :class:`TranscriptReport` and :class:`TranscriptWarning`.

A transcript is read into steps by rules, and real files hold more than the
rules turn into steps: a sub-agent's sidechain, an abandoned branch after a
rewind, a record whose parent is not in the file, a block type stmviz does not
know. Nothing of that is lost silently: every reader counts it, by kind, with
the record of one example, and :func:`~stmviz.scenarios.load_transcript` puts
the count on the scenario it returns (``scenario.report``), in its
``description`` and — when anything the model saw or wrote was left out — in a
:class:`TranscriptWarning`. ``stmviz replay`` prints the report.

Four lists, each of :class:`ReportItem` (kind, count, one example, where):

``kept``
    what reached the steps: texts, tool calls, tool results, thinking,
    compactions, and content of a type stmviz does not know, kept as its JSON
    text (so it is visible and counted by the size function);
``left_out``
    what the model saw or wrote that is not in the steps (sidechain records,
    abandoned branches, attachments, references to stored items);
``guessed``
    where the file did not say and a rule decided (a parent missing from the
    file, a call with no result in the file);
``skipped``
    bookkeeping records that were never model input (Claude Code's
    ``turn_duration`` or ``file-history-snapshot`` records, repeated copies of
    a record): counted, without a warning.

The warning is a :class:`UserWarning` subclass defined here, beside the report
it announces: it is not an error (the scenario is returned) and so does not
belong with :mod:`stmviz.errors`' :class:`~stmviz.STMError` kinds. Silence it
with ``warnings.simplefilter("ignore", TranscriptWarning)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ...core.formatting import shorten
from ...core.i18n import N_
from ...core.i18n import gettext as _

__all__ = ["ReportItem", "TranscriptReport", "TranscriptWarning"]


class TranscriptWarning(UserWarning):
    """Reading a transcript left out part of what the model saw or wrote (see ``scenario.report``)."""


@dataclass(frozen=True)
class ReportItem:
    """One kind of thing a reader kept, left out, guessed or skipped: how many, and one example.

    Attributes
    ----------
    kind : str
        What it is (``"sidechain record"``, ``"unknown block 'tool_reference'"``).
    count : int
        How many of them the file holds.
    example : str
        A short excerpt of the first one.
    where : str
        The record of the first one (``line 12``, ``messages[3].content[0]``).
    template, fields : str, tuple of (name, value)
        When ``kind`` was written from a sentence with placeholders, that sentence and its values, so that
        :meth:`label` says it in the language set (``kind`` stays the English a program looks up).
    """

    kind: str
    count: int
    example: str = ""
    where: str = ""
    template: str = ""
    fields: tuple[tuple[str, str], ...] = ()

    def label(self) -> str:
        """The kind, in the language set (:func:`stmviz.set_language`)."""
        return _(self.template).format(**dict(self.fields)) if self.template else _(self.kind)

    def line(self) -> str:
        """``3 × sidechain record (first: line 12: "Explore the repo")``."""
        first = ": ".join(p for p in (self.where, f"{self.example!r}" if self.example else "") if p)
        if first:
            return _("{count} × {kind} (first: {first})").format(count=self.count, kind=self.label(), first=first)
        return _("{count} × {kind}").format(count=self.count, kind=self.label())


@dataclass(frozen=True)
class TranscriptReport:
    """What reading a transcript kept, left out, guessed and skipped (see the module's text).

    >>> r = TranscriptReport("s.jsonl", "a Claude Code session",
    ...     kept=(ReportItem("text", 3),), left_out=(ReportItem("sidechain record", 2, "Explore", "line 4"),))
    >>> r.complete, r.count("sidechain record"), r.summary()
    (False, 2, 'left out: 2 × sidechain record')
    """

    source: str = ""
    format: str = ""
    kept: tuple[ReportItem, ...] = ()
    left_out: tuple[ReportItem, ...] = ()
    guessed: tuple[ReportItem, ...] = ()
    skipped: tuple[ReportItem, ...] = ()

    @property
    def complete(self) -> bool:
        """Whether nothing the model saw or wrote was left out (guesses and skipped bookkeeping aside)."""
        return not self.left_out

    def count(self, kind: str) -> int:
        """How many of ``kind`` the report counts, in any of its four lists (0 if none)."""
        return sum(item.count for items in (self.kept, self.left_out, self.guessed, self.skipped)
                   for item in items if item.kind == kind)

    def summary(self) -> str:
        """One line: what was left out and guessed (``""`` when nothing was)."""
        parts = []
        for label, items in (("left out", self.left_out), ("guessed", self.guessed)):
            if items:
                parts.append(f"{label}: " + ", ".join(f"{i.count} × {i.kind}" for i in items))
        return "; ".join(parts)

    def lines(self) -> list[str]:
        """The whole report, one line per kind, for a terminal (``stmviz replay`` prints it), in the language set."""
        out = [_("Read {format} {source}").format(format=_(self.format), source=self.source).rstrip()]
        for label, items in ((N_("kept:"), self.kept), (N_("left out:"), self.left_out), (N_("guessed:"), self.guessed),
                             (N_("skipped (not model input):"), self.skipped)):
            if items:
                out.append(f"  {_(label)}")
                out.extend(f"    {item.line()}" for item in items)
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


@dataclass
class Tally:
    """The counts a reader collects as it goes; :meth:`items` makes them :class:`ReportItem`\\ s, in first-seen order."""

    counts: dict[str, list[object]] = field(default_factory=dict)  # kind -> [count, example, where]
    #: kind -> (the sentence it was written from, its values): how a report says it in another language
    templates: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = field(default_factory=dict)

    def add(self, kind: str, where: str = "", example: object = "", n: int = 1,
            fields: Mapping[str, object] | None = None) -> None:
        """Count one more of ``kind``; with ``fields``, ``kind`` is a sentence with placeholders filled from them."""
        if fields:
            template, values = kind, tuple((k, str(v)) for k, v in fields.items())
            kind = template.format(**dict(values))
            self.templates.setdefault(kind, (template, values))
        entry = self.counts.get(kind)
        if entry is None:
            self.counts[kind] = [n, _excerpt(example), where]
        else:
            entry[0] = int(entry[0]) + n  # type: ignore[call-overload]

    def items(self) -> tuple[ReportItem, ...]:
        return tuple(ReportItem(kind, int(c), str(e), str(w), *self.templates.get(kind, ("", ())))  # type: ignore[call-overload]
                     for kind, (c, e, w) in self.counts.items())

    def __bool__(self) -> bool:
        return bool(self.counts)


def _excerpt(value: object) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return shorten(" ".join(text.split()), 60)


def kept_counts(kinds: Iterable[tuple[str, str, str]]) -> Tally:
    """A tally of ``(kind, where, example)`` triples."""
    tally = Tally()
    for kind, where, example in kinds:
        tally.add(kind, where, example)
    return tally
