"""The trace in words and tables: the text behind :meth:`Step.describe`, :meth:`Trace.to_records` and :meth:`Trace.table`.

Not the paper: a reader of Definitions 1 and 2 can skip this module. The loop and its
record are in :mod:`stmviz.core.trace`, whose methods call these functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from . import guards
from .context import AgentStep
from .element import Element
from .formatting import format_number, plural, shorten, text_table

if TYPE_CHECKING:
    from ._trace_views import _TraceViews


#: How an input is named in words, by its role (``AgentStep.input_role``).
_INPUT_NAMES = {"user": "the user message", "tool": "the tool result", "system": "a system message"}


def describe_step(t: int, step: AgentStep, input_size: int, width: int = 80) -> str:
    """Step t of the loop in words, from its agent step and |π(ω_t)| (see :meth:`Step.describe`).

    The output half says what the model saw and answered (or that no model
    call happened), the input half what arrived after it (or that nothing did).
    """
    return "; ".join(step_halves(t, step, input_size, width))


def step_halves(t: int, step: AgentStep, input_size: int, width: int = 80) -> tuple[str, str]:
    """The two halves of :func:`describe_step`: (what the model saw and answered, what arrived then).

    Plain text; agent texts are shortened to ``width`` characters each.
    """
    if step.has_output:
        said = f"“{shorten(step.output, width)}”" if step.output else "without text"
        directives = ", ".join(step.directives)
        if directives:
            said += f" (directives: {shorten(directives, width)})"
        first = f"step {t}: the model saw π(ω_{t}) ({plural(input_size, 'token')}) and answered {said}"
    elif t == 0 and step.input_role == "user":
        first = f"step {t}: no model call at this step: the user spoke first"
    else:
        first = f"step {t}: no model call at this step"
    if step.has_input:
        name = _INPUT_NAMES[step.input_role]
        second = f"then arrived {name} “{shorten(step.input, width)}”, seen from π(ω_{t + 1}) on"
    elif step.has_output:
        second = "no input arrived after it"
    else:
        second = "no input arrived either"
    return first, second


def _texts(elements: Sequence[Element], width: int = 0) -> str:
    """Elements as a list of their texts, each cut to ``width`` characters (0: whole), for a table cell (``—`` if none)."""
    return ", ".join(f"'{shorten(e.text, width)}'" for e in elements) or "—"


def records(trace: "_TraceViews", width: int | None = 24) -> list[dict[str, Any]]:
    """One flat dict per step ω_t → ω_{t+1} (see :meth:`Trace.to_records`)."""
    cut = guards.whole_number(width, "width", 0, where="to_records", none_ok=True) or 0
    records = []
    n_elements = len(trace._checkpoints[0])
    for step in trace._steps:
        n_elements += len(step.added) - len(step.removed)
        records.append(
            {
                "t": step.t,
                "operation": step.operation,
                "size_before": step.size_before,
                "size_after": step.size_after,
                "v_max": trace.v_max,
                "occupancy": step.size_after / trace.v_max,
                "input_tokens": step.input_size,
                "n_elements": n_elements,
                "n_added": len(step.added),
                "n_removed": len(step.removed),
                "added": ", ".join(e.label(cut) for e in step.added),
                "removed": ", ".join(e.label(cut) for e in step.removed),
                "why": "; ".join(dict.fromkeys(step.reasons)),
            }
        )
    return records


def table(trace: "_TraceViews", width: int | None = 40, limit: int | None = None) -> str:
    """The trace as a plain-text table (see :meth:`Trace.table`)."""
    cut = guards.whole_number(width, "width", where="Trace.table", none_ok=True, minimum=0, fix="; 0 or None shows whole texts") or 0
    limit = guards.whole_number(limit, "limit", where="Trace.table", none_ok=True, minimum=0)
    rows = [("t", "operation", "Σμ / V_max", "added", "removed", "why")]
    steps = trace._steps if limit is None else trace._steps[:limit]
    for step in steps:
        rows.append(
            (
                str(step.t),
                shorten(step.operation, max(cut, 22) if cut else 0),
                f"{format_number(step.size_after)} / {format_number(trace.v_max)}",
                _texts(step.added, cut),
                _texts(step.removed, cut),
                shorten("; ".join(dict.fromkeys(step.reasons)) or "—", 0),
            )
        )
    return text_table(rows)
