"""Every figure's time index t: out of range, not a whole number, a bool — an InvalidIndexError saying which t exist.

Negative t counts from the end, as for lists (``state_figure(trace, -1)`` is ω_n);
a t beyond either end, a float, a bool, a str or None where a step is needed is an
:class:`~stmviz.errors.InvalidIndexError`. One that is not a whole number is also an
:class:`~stmviz.errors.InvalidArgumentError` (a ``TypeError``), as before.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("plotly")

from stmviz import viz, widgets
from stmviz.errors import InvalidArgumentError, InvalidIndexError

from _traces import empty_trace, trace  # noqa: E402

N = len(trace("FIFOWindow"))  # 8 steps: states ω_0 … ω_8

#: (name, call, the last valid t): states ω_0 … ω_n, or steps 0 … n − 1
FIGURES = [
    ("state_figure", lambda t: viz.state_figure(trace("FIFOWindow"), t), N),
    ("state_bar", lambda t: viz.state_bar(trace("FIFOWindow"), t), N),
    ("loop_figure", lambda t: viz.loop_figure(trace("FIFOWindow"), t), N - 1),
    ("hierarchy_graph", lambda t: viz.hierarchy_graph(trace("AgentFold"), t), N),
    ("hierarchy_figure", lambda t: viz.hierarchy_figure(trace("HiAgent"), t), N),
    ("step_html", lambda t: widgets.step_html(trace("FIFOWindow"), t), N),
]

NOT_WHOLE = [1.5, 2.0, math.nan, math.inf, True, False, "1", b"1", [1], None]


@pytest.mark.parametrize("name, call, last", FIGURES, ids=[f[0] for f in FIGURES])
def test_in_range_and_from_the_end(name, call, last):
    for t in (0, last, -1, -(last + 1), np.int64(1)):
        call(t)


@pytest.mark.parametrize("name, call, last", FIGURES, ids=[f[0] for f in FIGURES])
@pytest.mark.parametrize("beyond", [1, 2, 10**30])
def test_out_of_range(name, call, last, beyond):
    for t in (last + beyond, -(last + 1) - beyond):
        with pytest.raises(InvalidIndexError, match="out of range"):
            call(t)


@pytest.mark.parametrize("name, call, last", FIGURES, ids=[f[0] for f in FIGURES])
@pytest.mark.parametrize("t", NOT_WHOLE, ids=repr)
def test_not_a_whole_number(name, call, last, t):
    if t is None and name in ("state_figure", "state_bar", "hierarchy_graph", "hierarchy_figure"):
        call(t)  # None is their default: the final state ω_n
        return
    with pytest.raises(InvalidIndexError, match="whole number") as raised:
        call(t)
    assert isinstance(raised.value, (InvalidIndexError, InvalidArgumentError))
    assert f"0 … {last}" in str(raised.value)


def test_a_trace_without_steps_has_no_step_to_draw():
    with pytest.raises(InvalidIndexError, match="no steps"):
        viz.loop_figure(empty_trace(), 0)
    viz.state_figure(empty_trace(), 0)  # ω_0 exists


@pytest.mark.parametrize("t", [1.5, True, "2", None])
def test_players_refuse_a_t_that_is_not_a_whole_number(t):
    with pytest.raises(InvalidIndexError, match="whole number"):
        widgets.TracePlayer(trace("FIFOWindow"), t)
    player = widgets.TracePlayer(trace("FIFOWindow"))
    with pytest.raises(InvalidIndexError, match="whole number"):
        player.t = t
    assert player.t == 0
    with pytest.raises(InvalidIndexError, match="whole number"):
        widgets.compare_player([trace("FIFOWindow"), trace("SCM")], t)


def test_players_clamp_a_whole_t_to_their_slider():
    """A player's slider cannot leave 0 … n: a whole t beyond it shows the nearest end (documented, kept)."""
    assert widgets.TracePlayer(trace("FIFOWindow"), 99).t == N
    assert widgets.TracePlayer(trace("FIFOWindow"), -5).t == 0
