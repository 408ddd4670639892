"""The loop of the paper's Figure 1 at one step t, drawn as boxes and arrows.

    ω_t ──π──► x_t = π(ω_t) ──► LLM ──► c_t ──► U(ω_t, o_t, c_t) ──► ω_{t+1} ──(next step)──► ω_t

The mechanism projects the whole state ω_t with π and sends it to the model;
the model's output, produced from x_t = π(ω_t), and the input that arrives
after it (a tool's result, the user's next message) become the context c_t;
the controller picks the operation(s) o_t and U turns ω_t into ω_{t+1}. Each
box is labelled with the numbers of that step of a trace: Σμ before and
after, |π(ω_t)| in tokens, V_max, the operation(s), what was added and removed.
Below the boxes the step is said in words (:meth:`~stmviz.core.trace.Step.describe`):
"the model saw π(ω_t) (N tokens) and answered …; then arrived …".
"""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go

from ..core.guards import time_index, whole_number
from ..core.formatting import format_number, shorten
from ..core.i18n import N_, gettext as _, ngettext
from ..core.trace import Trace, require_trace, step_halves
from ._common import escape, hover_text

__all__ = ["LoopBox", "loop_boxes", "loop_sentence", "loop_figure"]

#: Box centres (x, y) of the diagram, and box half-sizes.
POSITIONS = {
    "state": (0.0, 1.0),
    "projection": (2.0, 1.0),
    "model": (4.0, 1.0),
    "context": (4.0, 0.0),
    "update": (2.0, 0.0),
    "next": (0.0, 0.0),
}
HALF_WIDTH, HALF_HEIGHT = 0.78, 0.3

#: The arrows (from, to, label).
ARROWS = (
    ("state", "projection", "π"),
    ("projection", "model", "x_t"),
    ("model", "context", N_("output")),
    ("context", "update", "c_t"),
    ("state", "update", "ω_t"),
    ("update", "next", ""),
    ("next", "state", "t ← t + 1"),
)

COLORS = {
    "state": "#dbe9f6",
    "projection": "#fdebd3",
    "model": "#eeeeee",
    "context": "#e5f5e0",
    "update": "#fde0dd",
    "next": "#dbe9f6",
}


#: How the input that arrived is named in a box, by its role (``AgentStep.input_role``).
_INPUT_KINDS = {"user": N_("user message"), "tool": N_("tool result"), "system": N_("system message")}


@dataclass(frozen=True)
class LoopBox:
    """One box of the diagram: its key, its (escaped) label and its (escaped) hover text."""

    key: str
    label: str
    hover: str


def loop_boxes(trace: Trace, t: int) -> list[LoopBox]:
    """The six boxes of the Figure 1 loop at step t of a trace, with escaped labels.

    Parameters
    ----------
    trace : Trace
    t : int
        A step index 0 ≤ t < n (negative counts from the end): the step ω_t → ω_{t+1}.

    Returns
    -------
    list of LoopBox
        In the order ``state, projection, model, context, update, next``.

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> [box.key for box in loop_boxes(trace, 2)]
    ['state', 'projection', 'model', 'context', 'update', 'next']
    >>> loop_boxes(trace, 2)[4].label
    'U(ω_t, o_t, c_t)<br>o_t = append<br>+1 / −1 elements'
    """
    trace = require_trace(trace, "loop_figure")
    t = time_index(trace, t, states=False, where="loop_figure")
    step = trace[t]
    v_max = format_number(trace.v_max, 4)
    n_before = len(trace.state_at(t))
    n_after = n_before + len(step.added) - len(step.removed)
    agent = step.context.step
    output_lines = []
    if agent.thought:
        output_lines.append(_("thought: {thought}").format(thought=agent.thought))
    if agent.action:
        output_lines.append(_("action: {action}").format(action=agent.action))
    observation = agent.observation
    obs_kind = _(_INPUT_KINDS[agent.input_role])
    no_output = _("(no model call)") if not agent.has_output else _("(directives only)")
    arrived = _("{kind}: {observation}").format(kind=obs_kind, observation=observation) if observation else ""

    def label(*lines: str, width: int = 28) -> str:
        return "<br>".join(escape(shorten(line, width)) for line in lines)

    def elements(n: int) -> str:
        return ngettext("{n} element", "{n} elements", n).format(n=format_number(n))

    def tokens(n: int) -> str:
        return ngettext("|π(ω_{t})| = {n} tokens", "|π(ω_{t})| = {n} tokens", n).format(t=t, n=n)

    state = LoopBox(
        "state",
        label(f"ω_{t}", elements(n_before), f"Σμ = {format_number(step.size_before, 4)} / {v_max}"),
        hover_text(_("the state ω_{t} before step {t}").format(t=t), elements(n_before),
                   f"Σμ(ω_{t}) = {format_number(step.size_before, 4)}", f"V_max = {v_max} (μ = {trace.size_name})"),
    )
    projection = LoopBox(
        "projection",
        label("π : Ω_STM → X", tokens(step.input_size)),
        hover_text(_("the projection π turns the whole state into the model input x_t"), tokens(step.input_size)),
    )
    model = LoopBox(
        "model",
        label("LLM", *(output_lines[:2] or [no_output])),
        hover_text(_("the model reads x_t = π(ω_{t}) and answers").format(t=t), *(output_lines or [no_output]),
                   *(_("directive {name}: {value}").format(name=k, value=v) for k, v in agent.directives.items()),
                   width=120),
    )
    context = LoopBox(
        "context",
        label(_("context c_{t}").format(t=t), arrived or _("(no input)")),
        hover_text(_("context c_{t}: the model's output, then the input that arrived after it").format(t=t),
                   arrived or _("(no input arrived)"),
                   _("query: {query}").format(query=step.context.query) if step.context.query else None, width=120),
    )
    ops = step.operation or _("(none)")
    removed_lines = [f"− {e.label(40)} — {why}" for e, why in list(zip(step.removed, step.reasons))[:6]]
    if len(step.removed) > 6:
        rest = len(step.removed) - 6
        removed_lines.append(ngettext("… and {n} more removed", "… and {n} more removed", rest).format(n=rest))
    added_lines = [f"+ {e.label(40)}" for e in step.added[:6]]
    if len(step.added) > 6:
        rest = len(step.added) - 6
        added_lines.append(ngettext("… and {n} more added", "… and {n} more added", rest).format(n=rest))
    changed = ngettext("+{added} / −{removed} elements", "+{added} / −{removed} elements", len(step.removed)).format(
        added=len(step.added), removed=len(step.removed))
    update = LoopBox(
        "update",
        label("U(ω_t, o_t, c_t)", f"o_t = {ops}", changed),
        hover_text(_("the update U applies o_t = {operations}").format(operations=ops), *added_lines, *removed_lines,
                   width=120),
    )
    nxt = LoopBox(
        "next",
        label(f"ω_{t + 1}", elements(n_after), f"Σμ = {format_number(step.size_after, 4)} / {v_max}"),
        hover_text(_("the state ω_{next} after step {t}").format(next=t + 1, t=t), elements(n_after),
                   f"Σμ(ω_{t + 1}) = {format_number(step.size_after, 4)} ≤ V_max = {v_max}"),
    )
    return [state, projection, model, context, update, nxt]


def loop_sentence(trace: Trace, t: int, width: int = 48) -> str:
    """Step t in words, escaped, on two lines: what the model saw and answered, then what arrived.

    The annotation under the boxes of :func:`loop_figure`; agent texts are
    shortened to ``width`` characters and escaped (only ``<br>`` is markup).

    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=9)), [{"thought": "<b>hi</b>", "observation": "ok"}])
    >>> loop_sentence(trace, 0)
    'step 0: the model saw π(ω_0) (0 tokens) and answered “&lt;b&gt;hi&lt;/b&gt;”<br>then arrived the user message “ok”, seen from π(ω_1) on'
    """
    trace = require_trace(trace, "loop_sentence")
    t = time_index(trace, t, states=False, where="loop_sentence")
    width = whole_number(width, "width", 1, where="loop_sentence")
    step = trace[t]
    return "<br>".join(escape(half) for half in step_halves(t, step.context.step, step.input_size, width))


def _edge(start: tuple[float, float], end: tuple[float, float]) -> tuple[tuple[float, float], tuple[float, float]]:
    """Shorten the segment between two box centres so it starts and ends at the box borders."""
    (x0, y0), (x1, y1) = start, end
    dx, dy = x1 - x0, y1 - y0
    # scale at which the segment leaves a box of half-size (HALF_WIDTH, HALF_HEIGHT)
    s = min(HALF_WIDTH / abs(dx) if dx else float("inf"), HALF_HEIGHT / abs(dy) if dy else float("inf"))
    s = min(s * 1.08, 0.45)
    return (x0 + dx * s, y0 + dy * s), (x1 - dx * s, y1 - dy * s)


def loop_figure(trace: Trace, t: int) -> go.Figure:
    """The loop of Figure 1 at step t: ω_t → π → LLM → c_t → U → ω_{t+1}.

    Parameters
    ----------
    trace : Trace
        A recorded run.
    t : int
        The step 0 ≤ t < n to show (negative counts from the end).

    Returns
    -------
    plotly.graph_objects.Figure
        Boxes are rectangle shapes named by their key (``state``,
        ``projection``, ``model``, ``context``, ``update``, ``next``); their
        labels are annotations; arrows are annotations with ``showarrow``;
        one invisible scatter trace (``meta={"role": "boxes"}``) carries a
        hover text per box.

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> from stmviz.core.mechanism import ExampleMechanism
    >>> trace = run(ExampleMechanism(StateSpace(sizes.words, v_max=4)), ["one two", "three", "four five"])
    >>> fig = loop_figure(trace, 2)
    >>> [s.name for s in fig.layout.shapes]
    ['state', 'projection', 'model', 'context', 'update', 'next']
    >>> sum(1 for a in fig.layout.annotations if a.showarrow)
    7
    """
    boxes = loop_boxes(trace, t)
    t = time_index(trace, t, states=False, where="loop_figure")
    shapes: list[dict] = []
    annotations: list[dict] = []
    for box in boxes:
        x, y = POSITIONS[box.key]
        shapes.append(
            {
                "type": "rect",
                "x0": x - HALF_WIDTH,
                "x1": x + HALF_WIDTH,
                "y0": y - HALF_HEIGHT,
                "y1": y + HALF_HEIGHT,
                "line": {"color": "#555555", "width": 1.5},
                "fillcolor": COLORS[box.key],
                "layer": "below",
                "name": box.key,
            }
        )
        annotations.append(
            {"x": x, "y": y, "text": box.label, "showarrow": False, "font": {"size": 12}, "name": f"label:{box.key}"}
        )
    for source, target, text in ARROWS:
        (x0, y0), (x1, y1) = _edge(POSITIONS[source], POSITIONS[target])
        dashed = source == "next"
        annotations.append(
            {
                "x": x1, "y": y1, "ax": x0, "ay": y0, "xref": "x", "yref": "y", "axref": "x", "ayref": "y",
                "showarrow": True, "arrowhead": 3, "arrowsize": 1.2, "arrowwidth": 1.6,
                "arrowcolor": "#888888" if dashed else "#333333",
                "text": "", "name": f"arrow:{source}->{target}",
            }
        )
        if text:
            mx, my = (x0 + x1) / 2, (y0 + y1) / 2
            shift = {"xshift": -34} if source == "next" else ({"xshift": 22} if x0 == x1 else {"yshift": 10})
            annotations.append(
                {"x": mx, "y": my, "text": escape(_(text)), "showarrow": False, "font": {"size": 11, "color": "#444"},
                 "name": f"arrow-label:{source}->{target}", **shift}
            )
    annotations.append(
        {"x": 2.0, "y": -0.62, "text": loop_sentence(trace, t), "showarrow": False, "font": {"size": 12, "color": "#222"},
         "name": "sentence", "xanchor": "center", "yanchor": "middle", "align": "center"}
    )
    fig = go.Figure(layout={"shapes": shapes, "annotations": annotations})
    fig.add_trace(
        go.Scatter(
            x=[POSITIONS[b.key][0] for b in boxes],
            y=[POSITIONS[b.key][1] for b in boxes],
            mode="markers",
            marker={"size": 60, "symbol": "square", "opacity": 0},
            hovertext=[b.hover for b in boxes],
            hoverinfo="text",
            customdata=[b.key for b in boxes],
            showlegend=False,
            name="boxes",
            meta={"role": "boxes"},
        )
    )
    name = escape(shorten(trace.name, 40))
    fig.update_layout(
        title={"text": _("The loop of Figure 1 at step t = {t} — {name}").format(t=t, name=name)},
        xaxis={"visible": False, "range": [-1.2, 5.2], "fixedrange": True},
        yaxis={"visible": False, "range": [-0.85, 1.6], "fixedrange": True, "scaleanchor": None},
        height=430,
        margin={"t": 60, "l": 20, "r": 20, "b": 20},
        template="plotly_white",
        plot_bgcolor="white",
        hovermode="closest",
    )
    return fig
