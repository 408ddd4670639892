"""Notebook 07's exercises — the comparison: predict which mechanisms keep a probe; the V_max FIFO needs to match SCM."""

from __future__ import annotations

from typing import Any

from ..core.errors import STMError
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.mechanism import Mechanism
from ..core.trace import run
from .checking import Checks, ExerciseReport, error_text

__all__ = ["check_fifo_match", "check_keepers_prediction"]

MECHANISMS = ("FIFOWindow", "SCM", "HiAgent", "AgentFold")

# Every sentence a student reads, whole, with named placeholders (translatable).
TEXT = {
    "names": N_("a set of mechanism names, among FIFOWindow, SCM, HiAgent, AgentFold"),
    "names hint": N_("answer a set of names, e.g. {\"FIFOWindow\"}: the mechanisms that keep at least one probe"),
    "names got": N_("got {got!r}"),
    "mechanism": N_("your prediction for {name} matches the run"),
    "FIFOWindow hint": N_("a FIFO window keeps only the newest messages that fit V_max: every probe asks about a turn long gone"),
    "SCM hint": N_("SCM retrieves, for each message, the older turns most like it: a question brings back the turn it asks about"),
    "HiAgent hint": N_("a dialogue states no subgoal, so HiAgent never summarizes and, on overflow, drops the oldest pair: "
                       "here it is a window"),
    "AgentFold hint": N_("a dialogue carries no folding directives: a rule folds, and the extractive fallback summary keeps "
                         "sentences, not the names and dates the probes ask for"),
    "whole": N_("V_max is a whole number of tokens"),
    "whole got": N_("got {got!r} ({kind})"),
    "whole hint": N_("answer an int (a count of tokens), e.g. the result of a binary search over V_max"),
    "above": N_("V_max is larger than the scenario's, where SCM is measured"),
    "above got": N_("got {v_max}, not above the scenario's V_max = {scenario_v_max}"),
    "above hint": N_("SCM keeps its probes at the scenario's V_max and FIFO keeps fewer there: the answer lies above it"),
    "enough": N_("at your V_max the FIFO window keeps as many probes as SCM"),
    "enough hint": N_("a FIFO window keeps a fact only while everything said since fits: try larger values"),
    "smallest": N_("at V_max − 1 it keeps fewer: no smaller window will do"),
    "smallest got": N_("FIFO at V_max = {below_v_max} still keeps {below} of {n}: a smaller window will do"),
    "smallest hint": N_("search downwards too: halve the interval [scenario.v_max, your value] until it is one token wide"),
}


def _verdict(name: str, kept: int, n: int, said_some: bool, right: bool) -> str:
    """What the run says of a mechanism the student predicted to keep some probes or none, as one whole sentence."""
    if right and said_some:
        text = ngettext("{name} keeps {kept} of {n} probes: you predicted it keeps some",
                        "{name} keeps {kept} of {n} probes: you predicted it keeps some", n)
    elif right:
        text = ngettext("{name} keeps {kept} of {n} probes: you predicted it keeps none",
                        "{name} keeps {kept} of {n} probes: you predicted it keeps none", n)
    elif said_some:
        text = ngettext("you predicted {name} keeps some; the run: it keeps {kept} of {n} probes",
                        "you predicted {name} keeps some; the run: it keeps {kept} of {n} probes", n)
    else:
        text = ngettext("you predicted {name} keeps none; the run: it keeps {kept} of {n} probes",
                        "you predicted {name} keeps none; the run: it keeps {kept} of {n} probes", n)
    return text.format(name=name, kept=kept, n=n)


def _name(item: Any) -> Any:
    return item.__name__ if isinstance(item, type) else item


def check_keepers_prediction(prediction: Any, scenario: str = "long_dialogue") -> ExerciseReport:
    """Notebook 07, predict then run: which of the four mechanisms keep at least one probe at the scenario's V_max.

    Each mechanism is its own criterion: a wrong guess about one is one ✗, explained by the run.

    >>> check_keepers_prediction({"SCM"}).ok
    True
    """
    from .. import metrics  # late: keeps this module light for notebooks 01-03
    from ..mechanisms import SCM, AgentFold, FIFOWindow, HiAgent
    from ..scenarios import load_scenario

    needs = ("a set of names",)
    criteria: dict[str, tuple[Any, ...]] = {N_("a set of names"): (TEXT["names"], TEXT["names hint"])}
    for name in MECHANISMS:
        criteria[name] = (_(TEXT["mechanism"]).format(name=name), TEXT[f"{name} hint"], needs)
    c = Checks(N_("07 · predict: who keeps a probe"), criteria)
    if prediction is None or prediction is ...:
        return c.not_done(NotImplementedError("keepers is None"))
    names = {_name(p) for p in prediction} if isinstance(prediction, (set, frozenset, list, tuple)) else None
    if not c.check("a set of names", names is not None and all(n in MECHANISMS for n in names),
                   _(TEXT["names got"]).format(got=prediction)):
        return c.report()
    data = load_scenario(scenario)
    n = len(data.probes)
    for cls in (FIFOWindow, SCM, HiAgent, AgentFold):
        name = cls.__name__
        kept = sum(r.retained for r in metrics.retention(run(cls(data.space()), data), data.probes))
        said_some = name in (names or set())
        if (kept > 0) == said_some:
            c.spec[name] = (_verdict(name, kept, n, said_some, right=True), TEXT[f"{name} hint"])
        else:
            c.fail(name, _verdict(name, kept, n, said_some, right=False))
    return c.report()


def check_fifo_match(v_max: Any, scenario: str = "long_dialogue") -> ExerciseReport:
    """Notebook 07: the smallest V_max at which a FIFO window keeps as many probes as SCM at the scenario's V_max.

    Checked by running the FIFO window at ``v_max`` and at ``v_max - 1``:
    the first must retain at least as many probes as SCM (with its defaults) at
    ``scenario.v_max``, the second fewer. A criterion is judged only once those
    it builds on are met (a V_max that is not enough is not asked to be the smallest).
    """
    from .. import metrics  # late: keeps this module light for notebooks 01-03
    from ..mechanisms import SCM, FIFOWindow
    from ..scenarios import load_scenario

    criteria: dict[str, tuple[Any, ...]] = {
        N_("a whole number"): (TEXT["whole"], TEXT["whole hint"]),
        N_("above the scenario's V_max"): (TEXT["above"], TEXT["above hint"], ("a whole number",)),
        N_("enough"): (TEXT["enough"], TEXT["enough hint"], ("above the scenario's V_max",)),
        N_("smallest"): (TEXT["smallest"], TEXT["smallest hint"], ("enough",)),
    }
    c = Checks(N_("07 · what FIFO needs to match SCM"), criteria)
    if v_max is None or v_max is ...:
        return c.not_done(NotImplementedError("fifo_v_max is None"))
    data = load_scenario(scenario)
    if isinstance(v_max, bool) or not isinstance(v_max, int):
        c.fail("a whole number", _(TEXT["whole got"]).format(got=v_max, kind=type(v_max).__name__))
        return c.report()
    if v_max <= (data.v_max or 0):
        c.fail("above the scenario's V_max", _(TEXT["above got"]).format(v_max=v_max, scenario_v_max=data.v_max))
        return c.report()

    def kept(mechanism: Mechanism) -> int | str:
        try:
            trace = run(mechanism, data)
        except STMError as exc:
            return error_text(exc)
        return sum(r.retained for r in metrics.retention(trace, data.probes))

    target = kept(SCM(data.space()))
    at = kept(FIFOWindow(data.space(v_max=v_max)))
    n = len(data.probes)
    if not c.check("enough", isinstance(at, int) and isinstance(target, int) and at >= target,
                   ngettext("SCM keeps {target} of {n} probes at V_max = {scenario_v_max}; FIFO at V_max = {v_max}: {at}",
                            "SCM keeps {target} of {n} probes at V_max = {scenario_v_max}; FIFO at V_max = {v_max}: {at}",
                            n).format(target=target, n=n, scenario_v_max=data.v_max, v_max=v_max, at=at)):
        return c.report()
    below = kept(FIFOWindow(data.space(v_max=v_max - 1)))
    c.check("smallest", not isinstance(below, int) or not isinstance(target, int) or below < target,
            _(TEXT["smallest got"]).format(below_v_max=v_max - 1, below=below, n=n))
    return c.report()
