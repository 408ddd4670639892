"""Where each mechanism does its work: in the update U (it rewrites ω) or in the projection π.

Definition 2 separates the two: U : Ω × O × C → Ω changes the state; π : Ω → X only builds the
model's input from it, and changes nothing. The managers practitioners run split along that
line — tool-result clearing is π's work (the history keeps every result, the model sees a
placeholder), a summarization middleware is U's (the old messages leave ω), server-side
compaction is both. A mechanism declares it as ``placement = {part: "U" or "π"}``;
:func:`placement_figure` draws the declarations of several mechanisms side by side.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

import plotly.graph_objects as go

from ..core import guards
from ..core.errors import InvalidArgumentError
from ..core.guards import brief
from ..core.i18n import N_, gettext as _
from ._common import escape

__all__ = ["placement_figure", "placements"]

#: The two places, with what each means in the paper's terms, and their colours.
PLACES = {
    "U": (N_("U — rewrites the state ω"), "#d62728"),
    "π": (N_("π — builds the model input x from ω, changes nothing"), "#1f77b4"),
}


def placements(mechanisms: Iterable[Any]) -> list[tuple[str, list[str], list[str]]]:
    """Each mechanism's name with the parts of its work it declares in U and in π.

    ``mechanisms`` are classes or instances with a ``placement`` mapping (part → ``"U"`` or ``"π"``).

    >>> from stmviz import ClearToolUses, LangChainSummarization
    >>> [(name, len(u), len(p)) for name, u, p in placements([ClearToolUses, LangChainSummarization])]
    [('ClearToolUses', 1, 3), ('LangChainSummarization', 2, 1)]
    """
    given = guards.nonempty(mechanisms, "mechanisms", where="placement_figure", what="mechanisms (classes or instances)",
                            fix="; e.g. [ClearToolUses, Compaction]")
    rows: list[tuple[str, list[str], list[str]]] = []
    for mechanism in given:
        name = mechanism.__name__ if isinstance(mechanism, type) else type(mechanism).__name__
        try:  # a user's class: its placement is read once, as plain pairs (a Mapping whose methods raise is none)
            found = getattr(mechanism, "placement", None)
            declared = dict(found.items()) if isinstance(found, Mapping) else None
        except Exception as exc:  # noqa: BLE001 - any failure to read it means it declares no readable placement
            raise InvalidArgumentError(
                f"{name}.placement cannot be read ({type(exc).__name__}: {brief(str(exc), 80)}); give the class an "
                "attribute placement = {'part of its work': 'U' or 'π', ...}"
            ) from None
        if not declared:  # the protocol's rule: a mechanism declares its placement
            raise InvalidArgumentError(
                f"{name} declares no placement: give the class an attribute placement = "
                "{'part of its work': 'U' or 'π', ...} saying where each part happens"
            )
        wrong = {part: where for part, where in declared.items() if where not in PLACES or not isinstance(part, str)}
        if wrong:  # the same rule: each part is placed in U or in π
            raise InvalidArgumentError(f"{name}.placement: every part is a text placed in 'U' or 'π', got {brief(wrong, 80)}")
        repeats = len([row for row in rows if row[0] == name or row[0].startswith(f"{name} (")])
        label = f"{name} ({repeats + 1})" if repeats else name  # one row each, even for the same class twice
        rows.append((label, [p for p, w in declared.items() if w == "U"], [p for p, w in declared.items() if w == "π"]))
    return rows


#: The default title of :func:`placement_figure` (shown through ``_()``, in the language set).
PLACEMENT_TITLE = N_("Where each mechanism works: U or π")


def placement_figure(mechanisms: Iterable[Any], *, title: str = PLACEMENT_TITLE) -> go.Figure:
    """The U-or-π placement of each part of each mechanism's work, as two columns of boxes.

    One row per mechanism; in the left column (U) the parts that rewrite ω, in the right (π)
    those that only shape the model input. A mechanism whose work is all π keeps its whole
    history in ω — what it "forgets" the model never sees, yet the state still holds it.

    Parameters
    ----------
    mechanisms : iterable
        Mechanism classes or instances with a ``placement`` declaration.
    title : str
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A figure with one bar trace per place (``name`` ``"U"`` and ``"π"``); each bar is one
        part, labelled with its text, and the hover names the mechanism.

    Examples
    --------
    >>> from stmviz import ClearToolUses, Compaction
    >>> fig = placement_figure([ClearToolUses, Compaction])
    >>> [trace.name for trace in fig.data]
    ['U', 'π']
    >>> list(fig.layout.yaxis.categoryarray)
    ['Compaction', 'ClearToolUses']
    """
    title = guards.text(title, "title", where="placement_figure", blank_ok=True)
    # the rows' names are axis labels, which plotly renders as HTML: a class named "<img …>" is shown, not run
    rows = [(escape(name), in_u, in_pi) for name, in_u, in_pi in placements(mechanisms)]
    fig = go.Figure()
    for column, (place, (meaning, color)) in enumerate(PLACES.items()):
        names, texts, hovers, bases = [], [], [], []
        for name, in_u, in_pi in rows:
            parts = in_u if place == "U" else in_pi
            for k, part in enumerate(parts):
                names.append(name)
                part = _(part) if part else part  # the manager's own words (its module marks them), in the language set
                texts.append("<br>".join(escape(line) for line in textwrap.wrap(part, 30)))
                hovers.append(f"<b>{name}</b><br>{escape(place)}: {escape(part)}")
                bases.append(column + k / max(1, len(parts)))
        widths = [1 / max(1, sum(1 for n in names if n == name)) for name in names]
        fig.add_trace(go.Bar(
            name=place, y=names, x=widths, base=bases, orientation="h", marker={"color": color, "opacity": 0.75},
            text=texts, textposition="inside", insidetextanchor="middle", hovertext=hovers, hoverinfo="text",
            legendgroup=place, showlegend=True, textfont={"color": "white"},
        ))
        fig.add_annotation(x=column + 0.5, y=1.02, xref="x", yref="paper", text=escape(_(meaning)),
                           showarrow=False, yanchor="bottom", font={"size": 12})
    order = [name for name, _, _ in rows][::-1]
    fig.update_layout(
        title={"text": escape(_(title)) if title else ""}, barmode="overlay", bargap=0.25,
        xaxis={"range": [0, 2], "showticklabels": False, "showgrid": False, "zeroline": False, "fixedrange": True},
        yaxis={"categoryorder": "array", "categoryarray": order, "fixedrange": True},
        shapes=[{"type": "line", "x0": 1, "x1": 1, "y0": 0, "y1": 1, "yref": "paper", "line": {"color": "#888", "dash": "dot"}}],
        height=140 + 56 * len(rows), margin={"l": 10, "r": 10, "t": 90, "b": 40},
        legend={"orientation": "h", "y": -0.05, "yanchor": "top"}, uniformtext={"minsize": 8, "mode": "hide"},
    )
    return fig
