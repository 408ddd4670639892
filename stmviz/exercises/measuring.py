"""Notebook 10's exercises — measuring memory: the word overlap by hand, and a prediction about V_max.

Notebook 10 quotes evidence recall (the evidence's 4-grams that reach the model) and shows why the
first measure, the evidence *word overlap*, over-credits a lost fact. The exercise has the student
compute that word overlap by hand — a bag of words, the simpler definition — and then see on the
probes whose evidence is gone how much it still finds; so the exercise and its checker are named
for the word overlap (:func:`check_word_overlap`). ``check_evidence_recall``, its name before,
still works for one release and warns.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..core.formatting import shorten
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..core.trace import Trace, run
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_capacity_prediction", "check_evidence_recall", "check_word_overlap"]

# Every sentence a student reads from these checkers, in one place (issue 35 translates them whole).
TEXT = {
    "overlap": N_("10 · the evidence word overlap by hand"),
    "share met": N_("every value is a number between 0 and 1, or None"),
    "share hint": N_("divide by the number of the evidence's content words: the overlap is a share, not a count"),
    "share detail": N_("{where}: got {got!r}"),
    "none met": N_("None where the evidence has no content word (a step that says only \"Yes, it is.\")"),
    "none hint": N_("with no content word in the evidence the share is undefined: return None, not 0"),
    "none detail": N_("{where}: got {got!r}, its evidence has no content word"),
    "words met": N_("the words compared are content words (metrics.content_tokens), not raw words"),
    "words hint": N_("compare metrics.content_tokens of both texts, not raw words (split() keeps stop words and punctuation)"),
    "input met": N_("the words are looked for in the model input π(ω_t), not in the state's elements"),
    "input hint": N_("the model answered from π(ω_t), trace.project(probe.t), not from the state's elements"),
    "time met": N_("the model input is the one at the probe's step t = probe.t"),
    "time hint": N_("take the model input at the probe's step, trace.project(probe.t), not the last one"),
    "over met": N_("the share is of the evidence's words (found ones / all of the evidence's), not of the input's"),
    "over hint": N_("count the evidence's words that reach π(ω_t) and divide by the evidence's, not by the input's words"),
    "bag met": N_("a bag of words: each content word counts once it is anywhere in π(ω_t), not runs of four words"),
    "bag hint": N_("that is metrics.evidence_recall, the 4-gram measure this notebook quotes; this exercise computes "
                   "the older word overlap: the share of the evidence's content words found anywhere in π(ω_t)"),
    "every met": N_("the value equals metrics.evidence_word_overlap on every probe and mechanism"),
    "every hint": N_("follow the definition: |C(T(S_p)) ∩ C(X_t)| / |C(T(S_p))|, the content words of the evidence "
                     "steps' texts against those of π(ω_t) at t = probe.t"),
    "where": N_("{mechanism}, probe {probe!r}"),
    # a warning to a programmer, like an error message: stays English (not marked)
    "deprecated": ("check_evidence_recall is deprecated and will be removed in the next release: notebook 10's "
                   "exercise computes the word overlap; use check_word_overlap"),
    # the prediction
    "predict": N_("10 · predict what more room buys"),
    "answers": N_("answer a dict with a word for each mechanism, {{\"FIFOWindow\": ..., \"SCM\": ...}}, each one of {choices}"),
    "a dict": N_("a dict with one of {choices} for FIFOWindow and for SCM"),
    "dict detail": N_("got {got!r}"),
    "fifo met": N_("how FIFO's evidence recall moves from V_max = 300 to 2,000 tokens"),
    "fifo hint": N_("a FIFO window keeps the most recent turns that fit: more room reaches further back, towards the evidence"),
    "scm met": N_("how SCM's evidence recall moves from V_max = 300 to 2,000 tokens"),
    "scm hint": N_("SCM's model input holds its flash memory and the k = 3 memories it activates, whatever the room: "
                   "more V_max is left empty"),
    "predicted": N_("{mechanism}: predicted {got!r}; its evidence recall goes {low} → {high}, so it {word}"),
}

_SLIPS = ("content words", "the model input", "at the probe's step", "over the evidence", "a bag of words")


def _cases(v_max: int) -> list[tuple[Trace, Any]]:
    """(trace, probe): every probe of long_dialogue for the paper's four, and one probe whose evidence has no content word."""
    from ..core.context import AgentStep
    from ..mechanisms import SCM, AgentFold, FIFOWindow, HiAgent
    from ..scenarios import load_scenario
    from ..scenarios.scenario import Probe, Scenario

    data = load_scenario("long_dialogue")
    traces = [run(cls(data.space(v_max=v_max)), data) for cls in (FIFOWindow, SCM, HiAgent, AgentFold)]
    pairs = [(trace, probe) for trace in traces for probe in data.probes]
    short = Scenario("yes", steps=(AgentStep(observation="User: Is the report due on Friday?"),
                                   AgentStep(observation="Yes, it is."), AgentStep(observation="User: Thanks.")),
                     probes=(Probe(t=3, question="Is the report due on Friday?", answer="Yes", evidence_step=1),))
    return pairs + [(run(FIFOWindow(short.space(v_max=50)), short), short.probes[0])]


def check_word_overlap(word_overlap: Callable[[Trace, Any], Any], v_max: int = 300) -> ExerciseReport:
    """Notebook 10: the evidence word overlap computed by hand, |C(T(S_p)) ∩ C(X_t)| / |C(T(S_p))|.

    Compared with :func:`stmviz.metrics.evidence_word_overlap` on every probe of
    ``long_dialogue`` for FIFO, SCM, HiAgent and AgentFold at ``v_max`` (and on a
    probe whose evidence has no content word). Each usual slip is a criterion of
    its own, failed when every value the answer gives is the one that slip
    gives: raw words instead of content words, the state ω_t instead of the
    model input π(ω_t), the last input instead of the one at t, a share of the
    input's words instead of the evidence's, and the 4-gram evidence recall
    instead of the bag of words. "every probe" is judged once none of them is made.
    """
    from .. import metrics  # late: keeps this module light for notebooks 01-03

    criteria: dict[str, tuple[Any, ...]] = {
        N_("a share"): (TEXT["share met"], TEXT["share hint"]),
        # judged once every defined value is right: a slip in the words or the division gives a number here anyway
        N_("None without evidence"): (TEXT["none met"], TEXT["none hint"], ("every probe",)),
        N_("content words"): (TEXT["words met"], TEXT["words hint"]),
        N_("the model input"): (TEXT["input met"], TEXT["input hint"]),
        N_("at the probe's step"): (TEXT["time met"], TEXT["time hint"]),
        N_("over the evidence"): (TEXT["over met"], TEXT["over hint"]),
        N_("a bag of words"): (TEXT["bag met"], TEXT["bag hint"]),
        N_("every probe"): (TEXT["every met"], TEXT["every hint"], ("a share",) + _SLIPS),
    }
    c = Checks(TEXT["overlap"], criteria)
    pairs = _cases(v_max)

    def where(trace: Trace, probe: Any) -> str:
        return _(TEXT["where"]).format(mechanism=trace.name, probe=shorten(probe.answer, 30))

    try:
        got = []
        for trace, probe in pairs:
            ok, value = call_answer(word_overlap, trace, probe)
            if not ok:
                c.fail("every probe", f"{where(trace, probe)}: {error_text(value)}")
                return c.report()
            got.append(value)
    except NotImplementedError as exc:
        return c.not_done(exc)

    def evidence(trace: Trace, probe: Any) -> str:
        return "\n".join(trace[s].context.step.text for s in probe.evidence_steps)

    def share(found: frozenset[str] | set[str], wanted: frozenset[str] | set[str]) -> float | None:
        return len(found & wanted) / len(wanted) if wanted else None

    slips: dict[str, Callable[[Trace, Any], Any]] = {
        "content words": lambda tr, p: share(set(tr.project(p.t).text().split()), set(evidence(tr, p).split())),
        "the model input": lambda tr, p: share(metrics.content_tokens(" ".join(e.text for e in tr.state_at(p.t))),
                                               metrics.content_tokens(evidence(tr, p))),
        "at the probe's step": lambda tr, p: share(metrics.content_tokens(tr.project(len(tr)).text()),
                                                   metrics.content_tokens(evidence(tr, p))),
        "over the evidence": lambda tr, p: share(metrics.content_tokens(evidence(tr, p)),
                                                 metrics.content_tokens(tr.project(p.t).text())),
        "a bag of words": metrics.evidence_recall,
    }
    expected = [metrics.evidence_word_overlap(trace, probe) for trace, probe in pairs]
    for value, (trace, probe) in zip(got, pairs):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1):
            c.fail("a share", _(TEXT["share detail"]).format(where=where(trace, probe), got=value))
            break
    for value, want, (trace, probe) in zip(got, expected, pairs):
        if want is None and value is not None:
            c.fail("None without evidence", _(TEXT["none detail"]).format(where=where(trace, probe), got=value))
    judged = [(v, w, pair) for v, w, pair in zip(got, expected, pairs) if w is not None]
    wrong = [(v, w, pair) for v, w, pair in judged if not _same(v, w)]
    for name, slip in slips.items():
        if wrong and all(_same(v, slip(*pair)) for v, _, pair in judged):
            c.fail(name, ngettext("every value is what that slip gives: {n} of {total} differ from the word overlap",
                                  "every value is what that slip gives: {n} of {total} differ from the word overlap",
                                  len(judged)).format(n=len(wrong), total=len(judged)))
    if wrong:
        value, want, (trace, probe) = wrong[0]
        c.fail("every probe", ngettext(
            "{n} of {total} values differ; first: {mechanism}, probe {probe!r} at t = {t}: got {got!r}, expected {want!r}",
            "{n} of {total} values differ; first: {mechanism}, probe {probe!r} at t = {t}: got {got!r}, expected {want!r}",
            len(judged)).format(n=len(wrong), total=len(judged), mechanism=trace.name, probe=shorten(probe.answer, 30), t=probe.t,
            got=value, want=want))
    return c.report()


def check_evidence_recall(evidence_recall: Callable[[Trace, Any], Any], v_max: int = 300) -> ExerciseReport:
    """Deprecated: :func:`check_word_overlap`, the name that says what notebook 10's exercise computes."""
    warnings.warn(TEXT["deprecated"], DeprecationWarning, stacklevel=2)
    return check_word_overlap(evidence_recall, v_max)


_MOVES = ("rises", "stays", "falls")


def check_capacity_prediction(prediction: Any) -> ExerciseReport:
    """Notebook 10: predict whether evidence recall rises, stays or falls from V_max = 300 to 2,000 tokens.

    ``prediction`` maps ``"FIFOWindow"`` and ``"SCM"`` to one of ``"rises"``, ``"stays"``,
    ``"falls"``; each is compared with the mean evidence recall of that mechanism on
    long_dialogue's probes at the two capacities.

    >>> check_capacity_prediction({"FIFOWindow": "rises", "SCM": "stays"}).ok
    True
    """
    from .. import metrics
    from ..mechanisms import SCM, FIFOWindow
    from ..scenarios import load_scenario

    choices = ", ".join(repr(m) for m in _MOVES)
    criteria: dict[str, tuple[Any, ...]] = {
        N_("a dict"): (_(TEXT["a dict"]).format(choices=choices), _(TEXT["answers"]).format(choices=choices)),
        "FIFO": (TEXT["fifo met"], TEXT["fifo hint"], ("a dict",)),  # a mechanism's name: not translated
        "SCM": (TEXT["scm met"], TEXT["scm hint"], ("a dict",)),
    }
    c = Checks(TEXT["predict"], criteria)
    if prediction is None or prediction is ...:
        return c.not_done(NotImplementedError("prediction is None"))
    if not isinstance(prediction, dict) or not all(prediction.get(k) in _MOVES for k in ("FIFOWindow", "SCM")):
        c.fail("a dict", _(TEXT["dict detail"]).format(got=prediction))
        return c.report()
    data = load_scenario("long_dialogue")
    for name, cls in (("FIFO", FIFOWindow), ("SCM", SCM)):
        low, high = (metrics.run_metrics(run(cls(data.space(v_max=v)), data), data.probes)["evidence_recall"]
                     for v in (300, 2000))
        word = _MOVES[0] if high > low + 1e-9 else _MOVES[2] if high < low - 1e-9 else _MOVES[1]
        got = prediction[cls.__name__]
        c.check(name, got == word, _(TEXT["predicted"]).format(mechanism=cls.__name__, got=got, low=f"{low:.2f}",
                                                           high=f"{high:.2f}", word=word))
    return c.report()


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    try:
        return abs(float(a) - float(b)) < 1e-9
    except (TypeError, ValueError):
        return False
