"""Why was this forgotten? For a probe, the step, the operation and the rule that took its evidence out of π(ω_t).

:func:`stmviz.metrics.retention` says *whether* a probe's answer is in the
model input π(ω_t). This module says *why not* (or where it is): it follows
the elements that held the evidence through the trace — which step added
them, which step's update removed them and with what recorded reason — up to
the probe's t.

Two ways to recognize the evidence in ω:

- by **text**: an element whose text holds the probe's key string ``answer``
  (ignoring case) is a *carrier* of the fact;
- by **metadata**: an element *records* an evidence step s when its
  ``range`` = (x, y) holds s (AgentFold's blocks s_{x,y}, HiAgent's subgoal
  summaries, read with :func:`~stmviz.protocol.step_range`), when its
  ``index`` is s or s + 1 (SCM's interaction i holds step i's output and the
  message of step i − 1), or else when its ``step`` is s (FIFO's messages,
  HiAgent's pairs, AgentFold's latest interaction).

An element that records an evidence step but no longer holds the key string
is what is left of the fact: a summary that lost it, a text cut to fit.

The answer, for one probe, is a :class:`Forgetting`:

- **retained** — the key string is in π(ω_t): the element that holds it, raw
  or inside a summary;
- **evicted / summarized / cut** — the last carrier left ω at step k: the
  operation of step k that removed it (found by replaying step k's operations
  with the trace's mechanism when there are several), the reason the trace
  recorded for it, and what replaced it (a summary that lost the key string,
  a cut text);
- **not activated** — a mechanism that retrieves from a memory stream kept
  outside ω (SCM) did not bring it back at step t − 1: memory was judged not
  needed, or its interaction was not among the top k (the recorded scores),
  or the judge dropped it;
- **never entered** — no element ever held it (the step was skipped as too
  large, or the mechanism stored it only in a form without the key string);
- **not projected** — an element of ω_t holds it, but π(ω_t) leaves it out.

Examples
--------
>>> from stmviz import StateSpace, run, sizes
>>> from stmviz.mechanisms.fifo import FIFOWindow
>>> from stmviz.scenarios import Probe
>>> steps = [{"observation": "My name is Ada."}, {"thought": "Hello Ada.", "observation": "I like tea."},
...          {"thought": "Noted.", "observation": "And cake."}, {"thought": "Nice."}]
>>> trace = run(FIFOWindow(StateSpace(sizes.words, v_max=6)), steps)
>>> f = why_forgotten(trace, Probe(3, "What is my name?", "Ada", 0))
>>> f.retained, f.step, f.operation
(False, 1, 'append')
>>> print(f.explanation)
The evidence (step 0: “My name is Ada.”) entered ω_1; at step 1 append removed it: oldest message; Σμ = 9 > V_max = 6. 'Ada' is not in π(ω_3).
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .core.element import Element, order_key
from .core.formatting import shorten
from .core.i18n import N_, ngettext
from .core.i18n import gettext as _
from .core.operation import Operation
from .core import guards
from .core.guards import as_int
from .protocol import ElementType, step_range, types_of
from .core.trace import Trace, require_trace
from .metrics import is_summary

__all__ = ["Forgetting", "why_forgotten", "why_forgotten_all", "records_step", "KINDS"]

#: The kinds of answer (``Forgetting.kind``).
KINDS = (N_("retained"), N_("evicted"), N_("summarized"), N_("cut"), N_("not activated"), N_("never entered"),
         N_("not projected"))  # marked: a Forgetting shown as HTML names its kind in the language set


@dataclass(frozen=True)
class Forgetting:
    """Why a probe's evidence is (or is not) in the model input π(ω_t).

    Attributes
    ----------
    probe : Probe
        The probe (``t``, ``question``, ``answer``, ``evidence_steps``, …).
    retained : bool
        Whether the key string ``probe.answer`` is in π(ω_t) (as :func:`stmviz.metrics.retention` counts it).
    step : int or None
        The step whose update removed or summarized the evidence (for *not
        activated*: step t − 1, whose update built ω_t without it; for
        *never entered*: the evidence step, when it recorded a skip).
    operation : str or None
        The name of that step's operation, as the trace records it
        (``append``, ``summarize``, ``consolidate``, ``activate_memory``, …).
    rule : str or None
        The rule, as the trace recorded it: the reason given for the removed
        element, the controller's reason, or the operation's declared meaning.
    removed : tuple of str
        The ids of the elements that held the key string and left ω at ``step``.
    kept_as : str or None
        What is left of the fact in ω_t: ``"summary"`` (only inside a summary
        that lost the key string), ``"cut"`` (a text cut to fit, without it);
        for a retained probe ``"raw"`` or ``"summary"`` (where it is found),
        or ``"framing"`` (π's own text holds it, no element does).
    explanation : str
        One or two plain sentences saying it.
    kind : str
        One of ``"retained"``, ``"evicted"``, ``"summarized"``, ``"cut"``,
        ``"not activated"``, ``"never entered"``, ``"not projected"``.
    """

    probe: Any
    retained: bool
    step: int | None
    operation: str | None
    rule: str | None
    removed: tuple[str, ...]
    kept_as: str | None
    explanation: str
    kind: str = ""

    def to_record(self) -> dict[str, Any]:
        """The answer as a flat dict, ready for a table (one row per probe)."""
        probe = self.probe
        return {
            "t": probe.t,
            "question": probe.question,
            "answer": probe.answer,
            "evidence_steps": list(probe.evidence_steps),
            "retained": self.retained,
            "kind": self.kind,
            "step": self.step,
            "operation": self.operation,
            "rule": self.rule,
            "removed": list(self.removed),
            "kept_as": self.kept_as,
            "explanation": self.explanation,
        }

    def __repr__(self) -> str:
        where = f", step {self.step} {self.operation}" if self.step is not None else ""
        return f"Forgetting(t={self.probe.t}, {self.probe.answer!r}: {self.kind}{where})"

    def _repr_html_(self) -> str:
        if self.retained:
            mark, colour = _("✓ retained"), "#2ca02c"
        else:
            mark, colour = _("✗ {kind}").format(kind=_(self.kind)), "#d62728"
        esc = html.escape
        return (
            f'<div class="stmviz-forgetting" style="margin:2px 0">'
            f'<b style="color:{colour}">{esc(mark)}</b> '
            f"<span>t = {self.probe.t}: {esc(self.probe.question)} "
            f"(<code>{esc(self.probe.answer)}</code>)</span><br>"
            f'<span style="white-space:pre-wrap">{esc(self.explanation)}</span></div>'
        )


# --------------------------------------------------------------------------- public functions


def why_forgotten(trace: Trace, probe: Any) -> Forgetting:
    """Why a probe's evidence is or is not in π(ω_t): the step, operation and rule that removed it.

    Parameters
    ----------
    trace : Trace
        A run of a mechanism (``run(mechanism, scenario)``).
    probe : Probe
        A :class:`~stmviz.scenarios.Probe` with 0 ≤ t ≤ len(trace).

    Raises
    ------
    InvalidArgumentError
        if ``trace`` is not a Trace, ``probe`` is not a probe, or its t lies beyond the trace.
    """
    trace = require_trace(trace, "why_forgotten")
    return _Explainer(trace).explain(probe)


def why_forgotten_all(trace: Trace, probes: Iterable[Any]) -> list[Forgetting]:
    """:func:`why_forgotten` for each probe, in order (the trace is read once for all of them)."""
    trace = require_trace(trace, "why_forgotten_all")
    given = guards.items(probes, "probes", where="why_forgotten_all", what="probes (e.g. scenario.probes)")
    explainer = _Explainer(trace)
    return [explainer.explain(p, "why_forgotten_all", f"probes[{k}]") for k, p in enumerate(given)]


# --------------------------------------------------------------------------- the walk through the trace


def records_step(element: Element, steps: Iterable[int]) -> bool:
    """Whether an element's metadata says it records one of ``steps`` (see the module's docstring).

    >>> records_step(Element("…", {"type": "block", "range": (3, 7), "step": 8}), [5])
    True
    >>> records_step(Element("Observation: hi", {"type": "flash", "index": 4, "step": 4}), [3])
    True
    >>> records_step(Element("hi", {"type": "user", "step": 2}), [3])
    False
    """
    wanted = set(steps)
    span = step_range(element)
    if span is not None:
        return any(span[0] <= s <= span[1] for s in wanted)
    index = as_int(element.meta.get("index"), float_ok=True)
    if index is not None:  # SCM: interaction i holds step i's output and the message of step i − 1
        return index in wanted or index - 1 in wanted
    step = as_int(element.meta.get("step"), float_ok=True)
    return step is not None and step in wanted


class _Explainer:
    """The trace read once: when each element entered and left ω, and why it left."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        n = len(trace)
        # per element: the states it was in, as intervals [start, end) of t (ω_start … ω_{end−1})
        spans: dict[Element, list[list[int]]] = {}
        left: dict[tuple[Element, int], str] = {}
        for e in trace.initial:
            spans[e] = [[0, n + 1]]
        for k, step in enumerate(trace):
            for e, why in zip(step.removed, step.reasons):
                spans[e][-1][1] = k + 1
                left[(e, k)] = why
            for e in step.added:
                spans.setdefault(e, []).append([k + 1, n + 1])
        self.spans = spans
        self.left = left
        self._texts: dict[int, str] = {}
        self.types: Mapping[str, ElementType] | None = types_of(trace.mechanism) if trace.mechanism else None

    # -- reading the trace ------------------------------------------------------
    def in_state(self, e: Element, t: int) -> bool:
        return any(a <= t < b for a, b in self.spans.get(e, ()))

    def events(self, e: Element, t: int) -> list[tuple[int, str]]:
        """(step k, "enter" | "leave") of an element up to state ω_t, in order; ω_0's elements enter at k = −1."""
        out = []
        for a, b in self.spans[e]:
            if a > t:
                break
            out.append((a - 1, "enter"))
            if b <= t:
                out.append((b - 1, "leave"))
        return out

    def projected(self, t: int) -> str:
        if t not in self._texts:
            self._texts[t] = self.trace.project(t).text()
        return self._texts[t]

    def is_summary(self, e: Element) -> bool:
        return is_summary(e, self.types)

    # -- one probe --------------------------------------------------------------
    def explain(self, probe: Any, where: str = "why_forgotten", name: str = "probe") -> Forgetting:
        t, key, steps = _probe_fields(probe, self.trace, where, name)
        text = self.projected(t)
        seen = [e for e, spans in self.spans.items() if spans[0][0] <= t]
        carriers = [e for e in seen if key in e.text.casefold()]
        recording = [e for e in carriers if records_step(e, steps)]
        carriers = sorted(recording or carriers, key=order_key)
        if key in text.casefold():
            return self._retained(probe, t, carriers)
        present = [e for e in carriers if self.in_state(e, t)]
        if present:
            return self._not_projected(probe, t, present)
        if not carriers:
            return self._never_entered(probe, t, steps, seen)
        return self._lost(probe, t, steps, carriers, seen)

    def _retained(self, probe: Any, t: int, carriers: list[Element]) -> Forgetting:
        holders = [e for e in carriers if self.in_state(e, t)]
        answer = repr(probe.answer)
        if not holders:  # π's framing, the query, or an element that holds it only across a line: no element does
            return Forgetting(
                probe, True, None, None, None, (), "framing",
                _("Retained: {answer} is in π(ω_{t}), in the text π adds (no single element of ω_{t} holds it).").format(
                    answer=answer, t=t),
                "retained",
            )
        raw = [e for e in holders if not self.is_summary(e)]
        best = (raw or holders)[-1]
        kept = "summary" if not raw else "raw"
        if kept == "summary":
            words = _("Retained: {answer} is in π(ω_{t}), inside {name} (in ω since {since}).")
        else:
            words = _("Retained: {answer} is in π(ω_{t}), in {name}, raw (in ω since {since}).")
        return Forgetting(
            probe, True, None, None, None, (), kept,
            words.format(answer=answer, t=t, name=_name(best), since=self._since(best, t)), "retained",
        )

    def _since(self, e: Element, t: int) -> str:
        """The state an element is in ω since: ``ω_0`` or ``ω_k``."""
        entered = [k for k, what in self.events(e, t) if what == "enter"]
        k = entered[-1] if entered else -1
        return "ω_0" if k < 0 else f"ω_{k + 1}"

    def _not_projected(self, probe: Any, t: int, present: list[Element]) -> Forgetting:
        e = present[-1]
        return Forgetting(
            probe, False, None, None, _("π(ω_t) leaves the element out"), (), "raw",
            _("{name} holds {answer} and is in ω_{t}, but π(ω_{t}) leaves it out: the projection, not the update, "
              "hides it.").format(name=_name(e), answer=repr(probe.answer), t=t),
            "not projected",
        )

    def _never_entered(self, probe: Any, t: int, steps: tuple[int, ...], seen: list[Element]) -> Forgetting:
        evidence = self.evidence(probe, steps)
        answer = repr(probe.answer)
        skipped = self._skip_note(steps)
        left = [e for e in seen if records_step(e, steps)]
        kept = [e for e in left if self.in_state(e, t)]
        if skipped is not None:
            k, op, note = skipped
            return Forgetting(
                probe, False, k, op, note, (), None,
                _("The evidence ({evidence}) never entered ω: at step {k} {operation} {note}. {answer} is not in "
                  "π(ω_{t}).").format(evidence=evidence, k=k, operation=op, note=note, answer=answer, t=t),
                "never entered",
            )
        quoted = any(
            probe.answer.casefold() in self.trace[s].context.step.text.casefold() for s in steps if s < len(self.trace)
        )
        if not quoted:  # a benchmark's free-text answer: retention looks for a string the evidence never held
            reference = repr(shorten(probe.reference_answer if hasattr(probe, "reference_answer") else probe.answer, 60))
            if kept:
                words = _("{answer} does not occur verbatim in the evidence ({evidence}), and no element of ω_0 … ω_{t} "
                          "held it; {name}, which records it, is in ω_{t}: retention looks for the key string "
                          "(reference answer: {reference}).")
            else:
                words = _("{answer} does not occur verbatim in the evidence ({evidence}), and no element of ω_0 … ω_{t} "
                          "held it: retention looks for the key string (reference answer: {reference}).")
            return Forgetting(
                probe, False, None, None, _("the key string is not in the evidence's text"), (), "raw" if kept else None,
                words.format(answer=answer, evidence=evidence, t=t, name=_name(kept[-1]) if kept else "",
                             reference=reference),
                "never entered",
            )
        if left:
            first = left[0]
            form = "summary" if self.is_summary(first) else ("cut" if first.meta.get("truncated") else "form")
            kept_as = None
            if kept:
                kept_as = "summary" if any(self.is_summary(e) for e in kept) else "cut"
            words = _(_STORED_ONLY[form, bool(kept)])
            return Forgetting(
                probe, False, None, None, _("stored as {name}, without the key string").format(name=_name(first)), (),
                kept_as,
                words.format(evidence=evidence, answer=answer, first=_name(first), t=t,
                             name=_name(kept[-1]) if kept else ""),
                "never entered",
            )
        return Forgetting(
            probe, False, None, None, _("no element ever recorded the evidence step"), (), None,
            _("The evidence ({evidence}) never entered ω: no element of ω_0 … ω_{t} held {answer} or recorded step "
              "{steps}. It is not in π(ω_{t}).").format(evidence=evidence, t=t, answer=answer, steps=_steps_text(steps)),
            "never entered",
        )

    def _skip_note(self, steps: tuple[int, ...]) -> tuple[int, str, str] | None:
        """A recorded skip or cut of an evidence step's input (FIFO's ``oversize`` policy), if any."""
        for s in steps:
            if s >= len(self.trace):
                continue
            for op in self.trace[s].operations:
                noted = op.get("skipped") or op.get("truncated")  # FIFO's counts, in any language
                if op.reason and (noted or "skipped" in op.reason or "truncated" in op.reason):
                    notes = [n for n in op.reason.split("; ") if f"of step {s}" in n] or [op.reason]
                    return s, op.type, "; ".join(notes)
        return None

    def _lost(
        self, probe: Any, t: int, steps: tuple[int, ...], carriers: list[Element], seen: list[Element]
    ) -> Forgetting:
        evidence = self.evidence(probe, steps)
        answer = repr(probe.answer)
        events = [(k, what, e) for e in carriers for k, what in self.events(e, t)]
        events.sort(key=lambda item: (item[0], item[1] == "enter"))
        first = min(k for k, what, _e in events if what == "enter")
        last = max(k for k, what, _e in events if what == "leave")
        gone = sorted((e for k, what, e in events if what == "leave" and k == last), key=order_key)
        came_back = any(what == "enter" and k > first for k, what, _e in events)
        entered = "ω_0" if first < 0 else f"ω_{first + 1}"
        element = gone[0]
        rule = self.left.get((element, last), "removed")
        operation = self._operation(last, element, rule)
        step = self.trace[last]
        replacements = [e for e in step.added if records_step(e, steps) and e not in carriers]
        now = [e for e in seen if records_step(e, steps) and self.in_state(e, t) and e not in carriers]
        kept_as = None
        if now:
            kept_as = "summary" if any(self.is_summary(e) for e in now) else "cut"
        words = {"evidence": evidence, "entered": entered, "last": last, "operation": operation, "rule": _plain(rule),
                 "answer": answer}
        if any(self.is_summary(e) for e in replacements):
            kind = "summarized"
            summary = next(e for e in replacements if self.is_summary(e))
            sentence = _("The evidence ({evidence}) entered {entered}; at step {last} {operation} replaced it by "
                         "{summary}, which lost {answer}: {rule}.").format(summary=_name(summary), **words)
        elif replacements and any(e.meta.get("truncated") for e in replacements):
            kind = "cut"
            sentence = _("The evidence ({evidence}) entered {entered}; at step {last} {operation} cut it to fit, "
                         "losing {answer}: {rule}.").format(**words)
        else:
            kind = "evicted"
            sentence = _("The evidence ({evidence}) entered {entered}; at step {last} {operation} removed it: "
                         "{rule}.").format(**words)
        later = self._later(replacements, t, kind)
        retrieval = self._retrieval(probe, t, carriers, came_back)
        if retrieval is not None:
            r_step, r_op, r_rule, r_text = retrieval
            sentence = _("The evidence ({evidence}) entered {entered} and last left ω at step {last} "
                         "({operation}: {rule}).").format(**words)
            return Forgetting(
                probe, False, r_step, r_op, r_rule, tuple(e.id for e in gone), kept_as,
                f"{sentence} {r_text}", "not activated",
            )
        sentences = [sentence]
        if later:
            sentences.append(later)
        if kept_as == "summary" and kind != "summarized":
            sentences.append(_("ω_{t} keeps it only as {name}, without {answer}.").format(
                t=t, name=_name(now[-1]), answer=answer))
        sentences.append(self._not_retrieved(t, answer))
        return Forgetting(
            probe, False, last, operation, rule, tuple(e.id for e in gone), kept_as, " ".join(sentences), kind,
        )

    def _later(self, replacements: list[Element], t: int, kind: str) -> str:
        """What happened to the summary (or cut text) that replaced the evidence, if it left ω before t."""
        for e in replacements:
            if self.in_state(e, t):
                return ""
            leaves = [k for k, what in self.events(e, t) if what == "leave"]
            if leaves:
                k = leaves[-1]
                why = self.left.get((e, k), "removed")
                return _("Then at step {k} {operation} removed {name} too: {why}.").format(
                    k=k, operation=self._operation(k, e, why), name=_name(e), why=_plain(why))
        return ""

    def _not_retrieved(self, t: int, answer: str) -> str:
        """The last sentence: the key string is not in π(ω_t) — and, with trajectory retrieval (HiAgent's
        ``retrieve``), that no retrieval brought it back."""
        mechanism = self.trace.mechanism
        if mechanism is None or "retrieve" not in mechanism.operations:
            return _("{answer} is not in π(ω_{t}).").format(answer=answer, t=t)
        asked = [(k, op) for k in range(t) for op in self.trace[k].operations if op.type == "retrieve"]
        if not asked:
            return _("{answer} is not in π(ω_{t}), and no retrieve operation asked for it before step {t}.").format(
                answer=answer, t=t)
        k, op = asked[-1]
        which = op.get("subgoals", op.get("subgoal"))
        names = ", ".join(map(str, which)) if isinstance(which, (list, tuple)) else str(which)
        if op.reason and _summaries_gone(op.reason):
            words = _("{answer} is not in π(ω_{t}), and no retrieve brought it back (the last before step {t}, at step "
                      "{k}, asked for subgoal(s) {names}; its summaries had been dropped).")
        else:
            words = _("{answer} is not in π(ω_{t}), and no retrieve brought it back (the last before step {t}, at step "
                      "{k}, asked for subgoal(s) {names}).")
        return words.format(answer=answer, t=t, k=k, names=names)

    def _retrieval(
        self, probe: Any, t: int, carriers: list[Element], came_back: bool
    ) -> tuple[int, str, str, str] | None:
        """For a mechanism that activates memories from a stream outside ω (SCM): why it was not activated at t − 1."""
        if t < 1:
            return None
        ops = self.trace[t - 1].operations
        activates = any(_is_activation(op) for op in ops) or came_back or self._activates_anywhere(t)
        if not activates:
            return None
        indices = sorted({i for e in carriers for i in (as_int(e.meta.get("index"), float_ok=True),) if i is not None})
        if not indices:
            return None
        which = ngettext("interaction {indices}", "interactions {indices}", len(indices)).format(
            indices=str(indices[-1]) if len(indices) == 1 else ", ".join(map(str, indices)))
        words: dict[str, Any] = {"which": which, "step": t - 1, "answer": repr(probe.answer)}
        for op in ops:
            if _is_activation(op):
                scores = [list(s) for s in (op.get("scores") or ()) if isinstance(s, (list, tuple)) and len(s) == 2]
                judged = [list(j) for j in (op.get("judgements") or ()) if isinstance(j, (list, tuple)) and len(j) == 3]
                k = op.get("k")
                ranks = {s[0]: (r + 1, s[1]) for r, s in enumerate(scores)}
                hit = next((i for i in reversed(indices) if i in ranks), None)
                words.update(operation=op.type, k=k)
                if hit is not None:
                    rank, score = ranks[hit]
                    words.update(rank=rank, score=score)
                    verdicts = [j for j in judged if j[0] == hit]
                    if verdicts:
                        verdict, why = verdicts[-1][1], verdicts[-1][2]
                        words.update(verdict=verdict, why=why)
                        rule = _("ranked #{rank} (score {score}); judged {verdict}: {why}").format(**words)
                        if verdict == "summary":
                            text = _("It stays in the memory stream ({which}), but at step {step} {operation} ranked it "
                                     "#{rank} (score {score}) and kept only its summary, which lacks {answer} ({why}).")
                        else:
                            text = _("It stays in the memory stream ({which}), but at step {step} {operation} ranked it "
                                     "#{rank} (score {score}), then {verdict}: {why}.")
                    else:
                        rule = _("ranked #{rank} (score {score})").format(**words)
                        text = _("It stays in the memory stream ({which}), but at step {step} {operation} activated it in "
                                 "a form without {answer}.")
                    return t - 1, op.type, rule, text.format(**words)
                words["top"] = ", ".join(f"{i} ({s})" for i, s in scores) or _("none")
                rule = _("not among the top k = {k} by score; activated: {top}").format(**words)
                if scores:
                    text = _("It stays in the memory stream ({which}), but at step {step} {operation} did not activate "
                             "it: it was not among the top k = {k} (the lowest activated score: {lowest}); activated: "
                             "{top}.").format(lowest=scores[-1][1], **words)
                else:
                    text = _("It stays in the memory stream ({which}), but at step {step} {operation} did not activate "
                             "it: it was not among the top k = {k}; activated: {top}.").format(**words)
                return t - 1, op.type, rule, text
        reason = next((op.reason for op in ops if op.reason), None)
        op = ops[0] if ops else Operation("update")
        words["operation"] = op.type
        if reason:
            return t - 1, op.type, reason, _(
                "It stays in the memory stream ({which}), but at step {step} no memory was activated: {reason}."
            ).format(reason=_plain(reason), **words)
        rule = _("no memory activation at this step")
        return t - 1, op.type, rule, _(
            "It stays in the memory stream ({which}), but at step {step} {operation} activated no memory (no "
            "activate_memory operation)."
        ).format(**words)

    def _activates_anywhere(self, t: int) -> bool:
        mechanism = self.trace.mechanism
        if mechanism is not None and any(_is_activation(Operation(name)) for name in mechanism.operations.types):
            return True
        return any(_is_activation(op) for step in self.trace[:t] for op in step.operations)

    def _operation(self, k: int, element: Element, reason: str) -> str:
        """The operation of step k that removed ``element``: replayed with the mechanism when step k has several."""
        ops = self.trace[k].operations
        if len(ops) == 1:
            return ops[0].type
        if not ops:
            return "update"
        mechanism = self.trace.mechanism
        if mechanism is not None:
            state = self.trace.state_at(k)
            context = self.trace[k].context
            try:
                for op in ops:
                    after = mechanism.apply(state, op, context).state
                    if element in state.elements and element not in after.elements:
                        return op.type
                    state = after
            except Exception:  # a trace whose mechanism cannot replay the step (e.g. rebuilt without its summarizer)
                pass
        for op in ops:  # without a replay: the operation the reason names
            if reason.startswith(op.type) or f" {op.type}" in reason:
                return op.type
        return ops[-1].type

    def evidence(self, probe: Any, steps: tuple[int, ...]) -> str:
        """'step s: “…text…”' for the first evidence step that holds the key string (else the first)."""
        key = probe.answer.casefold()
        chosen = None
        for s in steps:
            if s < len(self.trace):
                agent = self.trace[s].context.step
                for part in (agent.observation, agent.output, agent.text):
                    if part and key in part.casefold():
                        chosen = (s, part)
                        break
            if chosen:
                break
        if chosen is None:
            s = steps[0]
            agent = self.trace[s].context.step if s < len(self.trace) else None
            text = (agent.observation or agent.output or agent.text) if agent is not None else ""
            chosen = (s, text)
        s, text = chosen
        if not text:
            return _("step {step}").format(step=s)
        return _("step {step}: “{text}”").format(step=s, text=_snippet(text, probe.answer))


# --------------------------------------------------------------------------- small helpers


def _probe_fields(probe: Any, trace: Trace, where: str, name: str) -> tuple[int, str, tuple[int, ...]]:
    """(t, casefolded key string, evidence steps) of a probe, checked."""
    guards.probe(probe, name, trace, where=where)
    answer = guards.text(probe.answer, f"{name}.answer", where=where)  # a blank key string is found in every text
    steps = guards.evidence_steps(probe, name, where=where)
    return int(probe.t), answer.casefold(), steps


def _is_activation(op: Operation) -> bool:
    """Whether an operation activates memories from a stream outside ω (SCM's ``activate_memory``, or any op with scores)."""
    return op.type == "activate_memory" or op.get("scores") is not None


def _name(e: Element) -> str:
    """An element named for a sentence: what it is, and its step, range or interaction."""
    span = step_range(e)
    subgoal = as_int(e.meta.get("subgoal"), float_ok=True)
    if span is not None:
        x, y = span
        if e.type == "block":
            return _("the summary block {block}").format(block=f"s_{{{x},{y}}}")
        one = x == y
        if subgoal is not None:
            words = _("the {type} of subgoal {subgoal} (step {x})") if one else _("the {type} of subgoal {subgoal} (steps {x}–{y})")
        else:
            words = _("the {type} of step {x}") if one else _("the {type} of steps {x}–{y}")
        return words.format(type=e.type, subgoal=subgoal, x=x, y=y)
    summary = e.meta.get("form") == "summary"
    index = as_int(e.meta.get("index"), float_ok=True)
    if index is not None:
        words = _("the {type} element of interaction {n} (its summary)") if summary else _("the {type} element of interaction {n}")
        return words.format(type=e.type, n=index)
    step = as_int(e.meta.get("step"), float_ok=True)
    if step is not None:
        words = _("the {type} element of step {n} (its summary)") if summary else _("the {type} element of step {n}")
        return words.format(type=e.type, n=step)
    words = _("the {type} element “{text}” (its summary)") if summary else _("the {type} element “{text}”")
    return words.format(type=e.type, text=shorten(e.text, 24))


#: What the evidence was stored as, and whether something of it is in ω_t: (form, kept) → the sentence.
_STORED_ONLY = {
    ("summary", False): N_("The evidence ({evidence}) never entered ω with {answer}: the mechanism stored it only as a "
                           "summary without it ({first}). It is not in π(ω_{t})."),
    ("summary", True): N_("The evidence ({evidence}) never entered ω with {answer}: the mechanism stored it only as a "
                          "summary without it ({first}); {name} is in ω_{t} without it. It is not in π(ω_{t})."),
    ("cut", False): N_("The evidence ({evidence}) never entered ω with {answer}: the mechanism stored it only as a cut "
                       "text without it ({first}). It is not in π(ω_{t})."),
    ("cut", True): N_("The evidence ({evidence}) never entered ω with {answer}: the mechanism stored it only as a cut "
                      "text without it ({first}); {name} is in ω_{t} without it. It is not in π(ω_{t})."),
    ("form", False): N_("The evidence ({evidence}) never entered ω with {answer}: the mechanism stored it only as a form "
                        "without it ({first}). It is not in π(ω_{t})."),
    ("form", True): N_("The evidence ({evidence}) never entered ω with {answer}: the mechanism stored it only as a form "
                       "without it ({first}); {name} is in ω_{t} without it. It is not in π(ω_{t})."),
}


def _summaries_gone(reason: str) -> bool:
    """Whether a retrieve operation's reason says the subgoals it asked for were no longer in ω (HiAgent's words)."""
    if "dropped" in reason:
        return True
    for n in (1, 2, 5):  # the forms of the sentence in the language set: its words after the subgoals' ids
        words = ngettext(
            "nothing comes back for subgoal(s) {asked}: their summaries are no longer in ω (overflow dropped them "
            "earlier, the oldest memory first, when ω or π(ω) would not fit V_max) and their pairs went with them",
            "nothing comes back for subgoal(s) {asked}: their summaries are no longer in ω (overflow dropped them "
            "earlier, the oldest memory first, when ω or π(ω) would not fit V_max) and their pairs went with them",
            n,
        )
        if words.split("{asked}")[-1] in reason:
            return True
    return False


def _snippet(text: str, answer: str, width: int = 60) -> str:
    """The part of ``text`` around ``answer`` (one line, at most about ``width`` characters)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    at = flat.casefold().find(answer.casefold())
    if at < 0 or at + len(answer) <= width - 1:
        return shorten(flat, width)
    start = max(0, at - width // 3)
    piece = flat[start : start + width - 2]
    return ("…" if start > 0 else "") + piece + ("…" if start + width - 2 < len(flat) else "")


def _plain(reason: str) -> str:
    """A recorded reason as the end of a sentence (no final period twice)."""
    return reason.rstrip(". ")


def _steps_text(steps: Sequence[int]) -> str:
    return ", ".join(map(str, steps))
