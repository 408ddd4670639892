"""How stmviz writes things for people: shortened texts, numbers, plain-text tables, a step of the loop in words.

One home for each, used by error messages, ``Trace.table``, the figures and
:mod:`stmviz.tables`, so a number or a cut text looks the same everywhere. The
words and tables of a trace (:func:`describe_step`, :func:`trace_records`,
:func:`trace_table`) are built here from a trace's steps, for the methods of
:class:`~stmviz.core.trace.Step` and :class:`~stmviz.core.trace.Trace` that
check their arguments and call them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .errors import InvalidArgumentError

def N_(message: str) -> str:
    """Mark a constant for translation (as :func:`stmviz.core.i18n.N_`, which this module cannot import at its top)."""
    return message


__all__ = [
    "shorten", "format_number", "plural", "text_table", "content_text", "describe_step", "step_halves", "describe_final",
    "trace_records", "trace_table",
]


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
        raise InvalidArgumentError(f"shorten: width must be a whole number of characters, got {width!r}")
    one_line = " ".join((text if isinstance(text, str) else str(text)).split())
    if width <= 0 or len(one_line) <= width:
        return one_line
    return one_line[: max(1, width - 1)] + "…"


def content_text(content: object) -> str:
    """The text of a content i (a text, an image or audio part, or a tuple of them): parts joined, non-text parts as placeholders.

    >>> content_text(("Look:", "here"))
    'Look: here'
    """
    if isinstance(content, str):
        return content
    if isinstance(content, tuple):
        return " ".join(str(p) for p in content)
    return str(content)


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

    A cell may hold several lines (``\\n``): its row then takes as many lines,
    and a blank line separates it from the next row.

    >>> print(text_table([["t", "operation"], ["0", "append"], ["12", "evict"]]))
    t   operation
    ──  ─────────
    0   append
    12  evict
    >>> print(text_table([["t", "added"], ["0", "'a'\\n'b'"], ["1", "'c'"]]))
    t  added
    ─  ─────
    0  'a'
       'b'
    <BLANKLINE>
    1  'c'
    """
    if not rows:
        return ""
    cells = [[cell.split("\n") for cell in row] for row in rows]
    widths = [max(len(line) for row in cells for line in row[i]) for i in range(len(rows[0]))]

    def printed(row: list[list[str]]) -> list[str]:
        height = max((len(cell) for cell in row), default=1)
        return ["  ".join((cell[k] if k < len(cell) else "").ljust(w) for cell, w in zip(row, widths)).rstrip()
                for k in range(height)]

    lines = printed(cells[0])
    lines.append("  ".join("─" * w for w in widths))
    body = [printed(row) for row in cells[1:]]
    tall = any(len(block) > 1 for block in body)
    for i, block in enumerate(body):
        if tall and i:
            lines.append("")
        lines.extend(block)
    return "\n".join(lines)


#: How an input is named in words, by its role (``AgentStep.input_role``).
_INPUT_NAMES = {"user": "the user message", "tool": "the tool result", "system": "a system message"}
#: What arrived after the model's answer, by the input's role: whole sentences (a translation agrees with the noun).
_ARRIVED = {
    "user": N_("then arrived the user message “{observation}”, seen from π(ω_{next}) on"),
    "tool": N_("then arrived the tool result “{observation}”, seen from π(ω_{next}) on"),
    "system": N_("then arrived a system message “{observation}”, seen from π(ω_{next}) on"),
}


def describe_step(t: int, step: Any, input_size: int, width: int = 80) -> str:
    """Step t of the loop in words, from its agent step (an ``AgentStep``) and |π(ω_t)| (see ``Step.describe``).

    The output half says what the model saw and answered (or that no model
    call happened), the input half what arrived after it (or that nothing did).
    """
    return "; ".join(step_halves(t, step, input_size, width))


def step_halves(t: int, step: Any, input_size: int, width: int = 80) -> tuple[str, str]:
    """The two halves of :func:`describe_step`: (what the model saw and answered, what arrived then).

    Plain text, in the language set by :func:`stmviz.set_language`; agent texts are shortened to ``width``
    characters each.
    """
    from .i18n import gettext as _, ngettext  # here, not above: i18n imports guards, which imports this module

    if step.has_output:
        said = _("“{output}”").format(output=shorten(step.output, width)) if step.output else _("without text")
        directives = ", ".join(step.directives)
        if directives:
            said = _("{answer} (directives: {directives})").format(answer=said, directives=shorten(directives, width))
        first = ngettext("step {t}: the model saw π(ω_{t}) ({n} token) and answered {answer}",
                         "step {t}: the model saw π(ω_{t}) ({n} tokens) and answered {answer}",
                         input_size).format(t=t, n=format_number(input_size), answer=said)
    elif t == 0 and step.input_role == "user":
        first = _("step {t}: no model call at this step: the user spoke first").format(t=t)
    else:
        first = _("step {t}: no model call at this step").format(t=t)
    if step.has_input:
        second = _(_ARRIVED[step.input_role]).format(observation=shorten(step.observation, width), next=t + 1)
    elif step.has_output:
        second = _("no input arrived after it")
    else:
        second = _("no input arrived either")
    return first, second


def describe_final(t: int, input_size: int | None) -> str:
    """The final state ω_n in words (``Trace.describe`` at t = n): what the next model call would see, |π(ω_n)| if known.

    >>> describe_final(3, 12)
    'ω_3 is the final state: the next model call would see π(ω_3) (12 tokens)'
    """
    from .i18n import gettext as _, ngettext  # here, not above: i18n imports guards, which imports this module

    if input_size is None:
        return _("ω_{t} is the final state: the next model call would see π(ω_{t})").format(t=t)
    return ngettext("ω_{t} is the final state: the next model call would see π(ω_{t}) ({n} token)",
                    "ω_{t} is the final state: the next model call would see π(ω_{t}) ({n} tokens)",
                    input_size).format(t=t, n=format_number(input_size))


def trace_records(steps: Sequence[Any], n_initial: int, v_max: float, width: int) -> list[dict[str, Any]]:
    """One flat dict per step ω_t → ω_{t+1} of a trace whose ω_0 holds ``n_initial`` elements (see ``Trace.to_records``).

    Element labels cut their texts to ``width`` characters (0: whole).
    """
    records = []
    n_elements = n_initial
    for step in steps:
        n_elements += len(step.added) - len(step.removed)
        records.append(
            {
                "t": step.t,
                "operation": step.operation,
                "size_before": step.size_before,
                "size_after": step.size_after,
                "v_max": v_max,
                "occupancy": step.size_after / v_max,
                "input_tokens": step.input_size,
                "n_elements": n_elements,
                "n_added": len(step.added),
                "n_removed": len(step.removed),
                "added": ", ".join(e.label(width) for e in step.added),
                "removed": ", ".join(e.label(width) for e in step.removed),
                "why": "; ".join(dict.fromkeys(step.reasons)),
            }
        )
    return records


#: The header of a trace table: row t is step t, which applies o_t to ω_t and makes ω_{t+1}
#: (in English; a table shows it through ``_()``, in the language set by :func:`stmviz.set_language`).
TRACE_TABLE_HEADER = ("t", N_("operation"), N_("Σμ / V_max:\nω_t → ω_t+1"), N_("added"), N_("removed"), N_("why"))
#: The why column of a trace table whose texts are cut (``width`` > 0) wraps at this many characters (it is never cut).
WHY_WIDTH = 40


def trace_table(steps: Sequence[Any], v_max: float, width: int) -> str:
    """The steps of a trace as a plain-text table: t, operation, Σμ(ω_t) → Σμ(ω_t+1), added, removed, why.

    Row t is step t: it applies o_t to ω_t and makes ω_{t+1}, so its Σμ cell
    names both states, the one the charts show at t and the one after the
    step (see ``Trace.table``). With ``width`` > 0 each element is on a line
    of its own, cut to ``width`` characters, and the why column wraps (never
    cut) so that a row stays narrow; with ``width = 0`` every text is whole,
    on one line.
    """
    from .i18n import gettext as _  # here, not above: i18n imports guards, which imports this module

    rows = [tuple(_(cell) for cell in TRACE_TABLE_HEADER)]
    joiner = "\n" if width else ", "
    for step in steps:
        reasons = list(dict.fromkeys(step.reasons))
        why = "; ".join(reasons) or "—"
        if width:
            why = "\n".join(line for reason in reasons for line in _wrapped(reason + ";" * (reason != reasons[-1]), WHY_WIDTH)) or "—"
        rows.append(
            (
                str(step.t),
                shorten(step.operation, max(width, 22) if width else 0),
                f"{format_number(step.size_before)} → {format_number(step.size_after)} / {format_number(v_max)}",
                _texts(step.added, width, joiner),
                _texts(step.removed, width, joiner),
                why,
            )
        )
    return text_table(rows)


def _wrapped(text: str, width: int) -> list[str]:
    """``text`` on lines of at most ``width`` characters, broken at spaces (a longer word keeps its own line, whole)."""
    lines: list[str] = []
    for word in " ".join(text.split()).split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _texts(elements: Sequence[Any], width: int = 0, joiner: str = ", ") -> str:
    """Elements as a list of their texts, each cut to ``width`` characters (0: whole), for a table cell (``—`` if none)."""
    return joiner.join(f"'{shorten(e.text, width)}'" for e in elements) or "—"
