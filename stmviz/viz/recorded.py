"""Where the recorded system compacted, marked on a figure whose x-axis is t (the occupancy figure).

A transcript read by :func:`stmviz.scenarios.load_transcript` keeps the
compactions the real system made (Claude Code's ``compact_boundary``, an API's
``compaction`` block) as events at step t: the first model output produced
after it came from ω_t. :func:`mark_recorded_compactions` draws each as a
dashed vertical line at x = t with its label, so what the real system did sits
beside what each mechanism does on the same transcript.
"""

from __future__ import annotations

from collections.abc import Iterable
import plotly.graph_objects as go

from ..core import guards
from ..core.i18n import gettext as _, ngettext
from ..scenarios import RecordedCompaction, Scenario, recorded_compactions
from ._common import escape, hover_text

__all__ = ["mark_recorded_compactions"]

#: The colour of the markers: apart from the mechanisms' removal markers.
COLOR = "#444444"

#: A panel's y axis is raised by this factor to leave room for the label above every line (V_max's included).
HEADROOM = 1.2
#: At most this many lines of the summary are shown in the hover.
MAX_SUMMARY_LINES = 8


def mark_recorded_compactions(figure: go.Figure, compactions: Scenario | Iterable[RecordedCompaction]) -> go.Figure:
    """Add a dashed vertical line at x = t, labelled, for each compaction the transcript recorded.

    Parameters
    ----------
    figure : plotly.graph_objects.Figure
        A figure whose x-axis is the step t (e.g. :func:`occupancy_figure`); in
        a figure of several panels (``layout="side"``) every panel gets the line,
        the first its label.
    compactions : Scenario or iterable of RecordedCompaction
        A scenario read from a transcript, or its :func:`recorded_compactions`.

    Returns
    -------
    plotly.graph_objects.Figure
        The same figure (also changed in place), with one shape per compaction
        (``name`` ``"recorded compaction"``) and its annotation.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from stmviz.scenarios import RecordedCompaction
    >>> fig = mark_recorded_compactions(go.Figure(), [RecordedCompaction(12, "Claude Code", "auto", 1611)])
    >>> fig.layout.shapes[0].x0, fig.layout.annotations[0].text
    (12, 'Claude Code compacted<br>(auto, 1,611 tokens)')
    """
    figure = guards.instance(figure, "figure", go.Figure, where="mark_recorded_compactions", what="a plotly Figure")
    items = recorded_compactions(compactions) if isinstance(compactions, Scenario) else compactions
    events = guards.items(items, "compactions", where="mark_recorded_compactions",
                          what="RecordedCompaction items (or a Scenario read from a transcript)")
    for k, event in enumerate(events):
        _check_event(guards.instance(event, f"compactions[{k}]", RecordedCompaction, where="mark_recorded_compactions"),
                     f"compactions[{k}]")
    panels = _panels(figure)
    if events:  # the label sits at the panel's top: raise a fixed y-range so that it clears V_max's line
        for name in dict.fromkeys(y for _, y in panels):
            axis = figure.layout[name.replace("y", "yaxis", 1)]
            if axis.range is not None and axis.range[1] is not None:
                axis.range = [axis.range[0], axis.range[1] * HEADROOM]
    for event in events:
        for x_axis, y_axis in panels:
            figure.add_shape(
                type="line", x0=event.t, x1=event.t, xref=x_axis, y0=0, y1=1, yref=f"{y_axis} domain",
                name="recorded compaction", line={"color": COLOR, "width": 2, "dash": "dash"},
            )
        x_axis, y_axis = panels[0]
        figure.add_annotation(  # left of the line, inside the panel's top: plotly widens an axis to fit text beyond it
            x=event.t, xref=x_axis, y=1, yref=f"{y_axis} domain", xanchor="right", yanchor="top", align="right",
            showarrow=False, text=_label(event), font={"size": 10, "color": COLOR}, hovertext=_hover(event),
            name="recorded compaction", bgcolor="rgba(255,255,255,0.7)",
        )
    return figure


def _check_event(event: RecordedCompaction, name: str) -> None:
    """A compaction drawn at a step t (a whole number ≥ 0, not NaN), with text labels and a finite size in tokens.

    A RecordedCompaction is a plain record anyone can build (or hand-edit in a transcript's metadata): its
    fields are checked here, before anything is drawn, so the figure never gets a line at t = NaN or a
    label saying "nan tokens".
    """
    where = "mark_recorded_compactions"
    guards.whole_number(event.t, f"{name}.t", 0, where=where)
    guards.text(event.system, f"{name}.system", where=where, blank_ok=True)
    guards.text(event.trigger, f"{name}.trigger", where=where, none_ok=True, blank_ok=True, example="auto")
    if event.pre_tokens is not None:
        guards.real_number(event.pre_tokens, f"{name}.pre_tokens", 0,
                           where=where)
    guards.text(event.summary, f"{name}.summary", where=where, none_ok=True, blank_ok=True)
    guards.text(event.where, f"{name}.where", where=where, blank_ok=True)


def _panels(figure: go.Figure) -> list[tuple[str, str]]:
    """The (x-axis, y-axis) pairs the figure's traces are drawn on, in order: one per panel (``("x", "y")`` if none)."""
    pairs: dict[tuple[str, str], None] = {}
    for data in figure.data:
        x_axis, y_axis = getattr(data, "xaxis", None) or "x", getattr(data, "yaxis", None) or "y"
        pairs.setdefault((x_axis, y_axis), None)
    by_x: dict[str, str] = {}
    for x_axis, y_axis in pairs:  # a panel with a second y-axis (|π| in other units) is still one panel
        by_x.setdefault(x_axis, y_axis)
    return list(by_x.items()) or [("x", "y")]


def _words(event: RecordedCompaction) -> tuple[str, str]:
    """Who compacted, and the details (trigger, tokens before), in the language set: ``RecordedCompaction.label``'s parts."""
    head = _("{system} compacted").format(system=event.system)
    count = None if event.pre_tokens is None else round(event.pre_tokens)  # round: an int stays exact
    tokens = None if count is None else ngettext("{n} tokens", "{n} tokens", count).format(n=f"{count:,}")
    return head, ", ".join(d for d in (event.trigger, tokens) if d)


def _label(event: RecordedCompaction) -> str:
    """The escaped label on two short lines: who compacted, then the details."""
    head, details = _words(event)
    return escape(head) + (f"<br>({escape(details)})" if details else "")


def _hover(event: RecordedCompaction) -> str:
    """The escaped hover: what, when, and the first lines of the summary."""
    head, details = _words(event)
    label = _("{compacted} ({details})").format(compacted=head, details=details) if details else head
    lines = [line for line in (event.summary or _("(the file does not hold the summary)")).splitlines() if line.strip()]
    return hover_text(_("{compaction}, before the output of step {t}").format(compaction=label, t=event.t),
                      *lines[:MAX_SUMMARY_LINES], width=120)
