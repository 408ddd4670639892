"""Notebook 07's exercise — the comparison: the V_max a FIFO window needs to match SCM."""

from __future__ import annotations

from typing import Any

from ..core.errors import STMError
from ..core.mechanism import Mechanism
from ..core.trace import run
from .checking import Checks, ExerciseReport, error_text

__all__ = ["check_fifo_match"]


def check_fifo_match(v_max: Any, scenario: str = "long_dialogue") -> ExerciseReport:
    """Notebook 07: the smallest V_max at which a FIFO window keeps as many probes as SCM at the scenario's V_max.

    Checked by running the FIFO window at ``v_max`` and at ``v_max - 1``:
    the first must retain at least as many probes as SCM (with its defaults) at
    ``scenario.v_max``, the second fewer.
    """
    from .. import metrics  # late: keeps this module light for notebooks 01-03
    from ..mechanisms import SCM, FIFOWindow
    from ..scenarios import load_scenario

    c = Checks("07 · what FIFO needs to match SCM", {
        "a whole number": ("V_max is a whole number of tokens",
                           "answer an int (a count of tokens), e.g. the result of a binary search over V_max"),
        "above the scenario's V_max": ("V_max is larger than the scenario's, where SCM is measured",
                                       "SCM keeps its probes at the scenario's V_max and FIFO keeps fewer there: "
                                       "the answer lies above it"),
        "enough": ("at your V_max the FIFO window keeps as many probes as SCM",
                   "a FIFO window keeps a fact only while everything said since fits: try larger values"),
        "smallest": ("at V_max − 1 it keeps fewer: no smaller window will do",
                     "search downwards too: halve the interval [scenario.v_max, your value] until it is one token wide"),
    })
    if v_max is None or v_max is ...:
        return c.not_done(NotImplementedError("fifo_v_max is None"))
    data = load_scenario(scenario)
    unchecked = "not checked: {}".format
    if isinstance(v_max, bool) or not isinstance(v_max, int):
        c.fail("a whole number", f"got {v_max!r} ({type(v_max).__name__})")
        for name in ("above the scenario's V_max", "enough", "smallest"):
            c.fail(name, unchecked("V_max is not a whole number"), hint="first answer a whole number")
        return c.report()
    if v_max <= (data.v_max or 0):
        c.fail("above the scenario's V_max", f"got {v_max}, not above the scenario's V_max = {data.v_max}")
        for name in ("enough", "smallest"):
            c.fail(name, unchecked(f"V_max = {v_max} is not above the scenario's {data.v_max}"),
                   hint="first find a V_max above the scenario's")
        return c.report()

    def kept(mechanism: Mechanism) -> int | str:
        try:
            trace = run(mechanism, data)
        except STMError as exc:
            return error_text(exc)
        return sum(r.retained for r in metrics.retention(trace, data.probes))

    target = kept(SCM(data.space()))
    at, below = kept(FIFOWindow(data.space(v_max=v_max))), kept(FIFOWindow(data.space(v_max=v_max - 1)))
    n = len(data.probes)
    enough = c.check("enough", isinstance(at, int) and isinstance(target, int) and at >= target,
                     f"SCM keeps {target} of {n} probes at V_max = {data.v_max}; FIFO at V_max = {v_max}: {at}")
    if not enough:  # "smallest" means the smallest V_max that is enough: not to be judged at one that is not
        c.fail("smallest", unchecked(f"V_max = {v_max} is not enough yet"), hint="first find a V_max that is enough")
    else:
        c.check("smallest", not isinstance(below, int) or not isinstance(target, int) or below < target,
                f"FIFO at V_max = {v_max - 1} still keeps {below} of {n}: a smaller window will do")
    return c.report()
