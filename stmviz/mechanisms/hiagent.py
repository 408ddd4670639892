"""HiAgent: hierarchical working memory with subgoals as memory chunks (Section 4; Hu et al., 2024).

HiAgent keeps, in the context, only the *current* subgoal with the
action–observation pairs made under it; every finished subgoal is replaced by
a short summarized observation. When the agent needs the details of a finished
subgoal again, *trajectory retrieval* brings its pairs back from the step
history. In the paper's terms (Definition 1, Definition 2, Section 4):

- E = I × D — subgoals and action–observation pairs. I: a subgoal's text, an
  (action, observation) pair as text, a summary of a finished subgoal. D: the
  subgoal id (``meta["subgoal"]``), the time ``t`` / ``step``, the current-
  subgoal flag ``current`` and the kind ``type`` ∈ {"task", "subgoal",
  "pair", "summary", "retrieved"}.
- ω — the task, the summaries of finished subgoals (with any retrieved pairs
  under them), the active subgoal and its attached pairs.
- μ, V_max — tokens (or any μ of the state space) and the context limit.
- O — ``subgoal`` (a new subgoal starts; the open one is summarized first),
  ``observe`` (attach the step's pair to the current subgoal), ``summarize``
  (replace a finished subgoal and its pairs by a summarized observation),
  ``select`` (keep only the pairs most relevant to the current subgoal) and
  ``retrieve`` (trajectory retrieval of a finished subgoal's pairs).
- C — the current request (the incoming step, the query) and the step history
  (``context.history``), from which summaries and retrievals are rebuilt.
- U — the hierarchical update: the five operations above, each followed by an
  explicit overflow rule that keeps U(ω, o, c) ∈ Ω_STM and records why every
  element left.
- π — the model input: the task, the summarized finished subgoals, the current
  subgoal and its pairs, as one text.
"""

from __future__ import annotations

import re
from typing import Any

from ..core.element import Element, order_key
from ..core.formatting import format_number, shorten
from ..core.errors import InvalidArgumentError, InvalidOperationError, ScenarioFormatError
from ..core.mechanism import Mechanism, Transition
from ..core.protocol import ElementType, Hierarchy, element_types_of
from ..core.context import AgentStep, Context
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ..text import cosine, embed
from ..text import summarize as default_summarize
from .fit import fit_text
from ._shared import Memo, Summarizer, Tally, View, ViewIndex, cached_summarizer, check_budget, range_label

__all__ = ["HiAgent"]

# Sort keys: within step s, a new subgoal comes first, then the step's pair;
# a summary takes the place of the subgoal it replaces, retrieved pairs follow it.
_T_SUBGOAL, _T_SUMMARY, _T_PAIR, _T_RETRIEVED = 0.1, 0.2, 0.5, 0.6
_T_KEPT = 0.15  # a pair kept at a switch because the model still acts on its observation: just before its summary
_SUBGOAL_LINE = re.compile(r"^\s*subgoal\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)


# --------------------------------------------------------------------------- derived views of ω

_IDS = ("subgoal", "summary")  # the kinds whose subgoal ids decide the next id


class _SubgoalView(View):
    """A view of ω (:class:`View`) that also knows the current subgoal and the largest subgoal id."""

    __slots__ = ("current", "_top")

    def __init__(
        self, elements: frozenset, groups: dict[str, tuple[Element, ...]], parent: "_SubgoalView | None" = None
    ) -> None:
        super().__init__(elements, groups)
        subgoals = groups.get("subgoal", ())
        if parent is not None and subgoals is parent.groups.get("subgoal", ()):
            current = parent.current  # the same subgoals: the same current one
        else:
            current = next((e for e in subgoals if e.meta.get("current")), None)
        self.current: Element | None = current
        self._top: int | None = None  # the largest subgoal id of a subgoal or summary, once known

    def top(self) -> int | None:
        """max{d["subgoal"] | e ∈ ω of type "subgoal" or "summary"}, or ``None`` when ω holds none."""
        if self._top is None:
            groups = self.groups
            self._top = max((e.meta["subgoal"] for kind in _IDS for e in groups.get(kind, ())), default=None)
        return self._top

    def _carry(self, view: "_SubgoalView", added: frozenset, removed: frozenset) -> "_SubgoalView":
        top = self._top
        if top is not None:  # carry the largest id when the change shows it
            gone = max((e.meta["subgoal"] for e in removed if e.type in _IDS), default=None) if removed else None
            new_top = max((e.meta["subgoal"] for e in added if e.type in _IDS), default=None) if added else None
            if new_top is not None and new_top >= top:
                view._top = new_top
            elif gone is None or gone < top:
                view._top = top
        return view


_VIEWS = ViewIndex(_SubgoalView)


# --------------------------------------------------------------------------- HiAgent


def _marker(step: AgentStep) -> str | None:
    """The subgoal a step's ``subgoal`` directive starts, stripped; ``None`` without one."""
    marker = step.directives.get("subgoal")
    return marker.strip() if isinstance(marker, str) and marker.strip() else None


def pair_text(step: AgentStep) -> str:
    """The information i of an action–observation pair: ``"Action: …\\nObservation: …"``.

    In a dialogue step (no tool call) the model's reply is its action.

    >>> pair_text(AgentStep(action="open('a.html')", observation="Page A"))
    "Action: open('a.html')\\nObservation: Page A"
    """
    action = step.action or step.thought
    parts = []
    if action:
        parts.append(f"Action: {action}")
    if step.observation:
        parts.append(f"Observation: {step.observation}")
    return "\n".join(parts)


class HiAgent(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of HiAgent: subgoals as memory chunks.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: the size function μ and the context limit V_max.
    summary_budget : int
        Tokens allowed for the summarized observation that replaces a finished
        subgoal.
    summarize : callable, optional
        ``summarize(texts, budget) -> str``; default :func:`stmviz.text.summarize`
        (extractive, offline). Results are cached per (texts, budget). Not
        recorded in :meth:`params`: a mechanism rebuilt from a trace uses the default.
    keep_pairs : int, optional
        If set, after each new pair the controller issues ``select`` so that at
        most this many pairs stay under the current subgoal: the newest one and
        those most relevant (cosine of hashing embeddings) to the subgoal's text.
    subgoal_every : int, optional
        The rule-based controller for trajectories without markers: a subgoal
        that was opened by rule (not by a marker) is finished after this many
        steps and a new one is opened. ``None`` keeps it open.

    Notes
    -----
    **Pairs and the order of a step.** A step holds the model's output, then
    the input that arrived after it; its pair is (action, observation). In a
    dialogue, step k holds the reply a_{k−1} and the user's next message u_k:
    the pair is (a_{k−1}, u_k) — the reply is the action, and the user's next
    message is the observation that followed it, as a tool's result follows a
    call (step 0 holds u_0 alone, a last reply a_n alone). So the newest pair
    always holds the input the model answers next, and the newest pair is
    never dropped (only cut, when it alone overflows V_max). When a step
    brings no input (outputs only) the model keeps acting on the latest
    earlier one: if its pair is summarized away at that step, a copy stays
    (typed "retrieved", shown just before the summary) until the next
    subgoal switch.

    **Controller.** Per step t, in order:

    1. if the previous step declared ``subgoal_done``, the open subgoal is
       summarized first: the subgoal ends with the step that declares it
       done, but its pairs stay in ω until the next step, so the model sees
       the observation of its last action when it is asked at t + 1;
    2. a new subgoal starts if the step has a ``subgoal`` marker, else if its
       thought has a line ``Subgoal: <text>``; the open subgoal is summarized
       first (``summarize`` then ``subgoal``);
    3. else, if no subgoal is open (at the start, or after ``subgoal_done``),
       one is opened by rule, its text taken from the thought's first line;
    4. else, a rule-opened subgoal older than ``subgoal_every`` steps is
       summarized and a new rule subgoal opened;
    5. ``observe`` attaches the step's (action, observation) pair (skipped for
       an empty step), then ``select`` if more than ``keep_pairs`` pairs
       (the newest pair stays, and with ``keep_pairs`` ≥ 2 so does the pair
       whose observation is the latest input, when the step brings none);
    6. ``retrieve`` if ``step.meta["retrieve"]`` names a finished subgoal (by id
       or by its text, case-insensitively). The pairs are rebuilt from the step
       history, typed "retrieved", and dropped at the next subgoal switch. A
       request for the current subgoal is a no-op (its pairs are in ω), and so
       is one for a finished subgoal whose summary overflow dropped earlier (the
       operation's reason says so); a subgoal that never finished raises :class:`~stmviz.errors.ScenarioFormatError` (the
       controller checks the request against ω_t; U itself treats a target that
       an earlier overflow of the same step dropped as a no-op).

    Subgoal ids count 0, 1, 2, … in the order subgoals start.

    **Overflow.** Whenever Σμ > V_max after an operation, U frees room in this
    order, recording each reason: retrieved pairs (oldest first); pairs of the
    current subgoal (oldest first, never the newest); summaries (oldest first,
    never the newest); then it cuts the newest pair, the newest summary, the
    subgoal text and the task text to what fits. Retrieval brings back only as
    many pairs (newest first) as fit in the free room.

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> steps = [
    ...     {"subgoal": "find the key", "action": "look()", "observation": "A mat."},
    ...     {"action": "lift('mat')", "observation": "A key!", "subgoal_done": True},
    ...     {"subgoal": "open the door", "action": "use('key')", "observation": "Open."},
    ... ]
    >>> trace = run(HiAgent(StateSpace(sizes.tokens(), v_max=200)), steps, query="Leave the room")
    >>> [(e.type, e.meta.get("subgoal")) for e in trace.final]
    [('task', None), ('summary', 0), ('subgoal', 1), ('pair', 1)]
    >>> print(trace.project(3).text())
    Task: Leave the room
    Finished subgoal 0 (steps 0–1): find the key → Action: look() Observation: A mat. Action: lift('mat') Observation: A key!
    Current subgoal 1: open the door
    [step 2] Action: use('key')
    Observation: Open.
    """

    name = "HiAgent"
    operations = OperationSet(
        {
            "subgoal": "a new subgoal starts (the open one is summarized first; retrieved pairs are dropped)",
            "observe": "attach the step's action–observation pair to the current subgoal",
            "summarize": "replace the finished current subgoal and its pairs by a summarized observation",
            "select": "keep only the pairs most relevant to the current subgoal",
            "retrieve": "trajectory retrieval: bring a finished subgoal's pairs back from the step history",
        }
    )
    element_types = element_types_of(
        [
            ElementType("task", "the task q", "#8c564b", label="task"),
            ElementType("subgoal", "the current subgoal g_i", "#e377c2", label="g{subgoal}"),
            ElementType("pair", "an action–observation pair of the current subgoal", "#17becf", label="a/o {step}"),
            ElementType("summary", "a finished subgoal collapsed to its summarized observation", "#bcbd22",
                            summary=True, label="Σg{subgoal}"),
            ElementType("retrieved", "a pair of a finished subgoal brought back by trajectory retrieval", "#aec7e8",
                            label="↺ a/o {step}"),
        ]
    )
    directives = {
        "subgoal": "the text of a subgoal the model starts (the open one is summarized first)",
        "subgoal_done": "true when the model declares the current subgoal finished",
    }

    def __init__(
        self,
        space: StateSpace,
        *,
        summary_budget: int = 64,
        summarize: Summarizer | None = None,
        keep_pairs: int | None = None,
        subgoal_every: int | None = 8,
    ) -> None:
        super().__init__(space)
        self.summary_budget = check_budget("summary_budget", summary_budget)
        self.keep_pairs = check_budget("keep_pairs", keep_pairs, allow_none=True)
        self.subgoal_every = check_budget("subgoal_every", subgoal_every, allow_none=True)
        if summarize is not None and not callable(summarize):
            raise InvalidArgumentError(f"summarize must be a callable (texts, budget) -> str, got {type(summarize).__name__}")
        self._summaries = cached_summarizer(summarize or default_summarize)
        self._embeddings = Memo()
        self._line_tokens = Memo()
        self._projection_tokens = Tally()

    def params(self) -> dict[str, Any]:
        """The JSON-ready constructor parameters (the summarizer is not recorded)."""
        return {"summary_budget": self.summary_budget, "keep_pairs": self.keep_pairs, "subgoal_every": self.subgoal_every}

    # ------------------------------------------------------------------ reading ω

    @staticmethod
    def current_subgoal(state: State) -> Element | None:
        """The element of the active subgoal (type "subgoal", ``current``), or ``None``."""
        return _VIEWS(state).current

    @staticmethod
    def _next_id(state: State, context: Context) -> int:
        top = _VIEWS(state).top()
        if top is not None:
            return top + 1
        # Nothing of earlier subgoals survived (only under extreme overflow): the step index is
        # still larger than every earlier id, since at most one subgoal starts per step.
        return context.t

    # ------------------------------------------------------------------ initial state, controller

    def initial_state(self, context: Context) -> State:
        """ω_0 = {the task Q} (∅ when there is no query), cut to V_max if needed."""
        if not context.query:
            return State()
        task = fit_text(self.space, Element(context.query, {"t": -1, "type": "task", "current": False}), self.space.v_max, record_size=False)
        return State([task] if task is not None else [])

    def controller(self, state: State, context: Context) -> list[Operation]:
        """The controller: subgoal switches from markers (or the documented rules), then observe/select/summarize/retrieve."""
        step, t = context.step, context.t
        ops: list[Operation] = []
        current = self.current_subgoal(state)
        if current is not None and _declared_done(context):
            # subgoal_done at step t − 1: the model has now seen its last observation, the pairs give way
            ops.append(
                Operation("summarize", reason=f"subgoal_done at step {t - 1}; its last observation was seen at step {t}")
            )
            current = None
        text, source = None, None
        marker = _marker(step)
        if marker is not None:
            text, source = marker, "marker"
        else:
            match = _SUBGOAL_LINE.search(step.thought)
            if match:
                text, source = match.group(1), "thought"
        if text is not None:
            if current is not None:
                ops.append(Operation("summarize", reason=f"a new subgoal starts at step {t} ({source})"))
            ops.append(Operation("subgoal", {"text": text, "source": source}, reason=f"subgoal {source} at step {t}"))
        elif current is None:
            ops.append(
                Operation("subgoal", {"text": _rule_text(step, t), "source": "rule"}, reason="rule: no subgoal is open")
            )
        elif (
            self.subgoal_every is not None
            and current.meta.get("source") == "rule"
            and t - current.meta["step"] >= self.subgoal_every
        ):
            why = f"rule: subgoal {current.meta['subgoal']} ran {self.subgoal_every} steps without a marker"
            ops.append(Operation("summarize", reason=why))
            ops.append(Operation("subgoal", {"text": _rule_text(step, t), "source": "rule"}, reason=why))
        if pair_text(step):
            ops.append(Operation("observe"))
            if self.keep_pairs is not None:
                if ops[0].type == "subgoal" or ops[0].type == "summarize":
                    count = 1
                else:
                    count = 1 + len(_VIEWS(state).groups.get("pair", ()))
                if count > self.keep_pairs:
                    ops.append(Operation("select", {"keep": self.keep_pairs}, reason=f"more than {self.keep_pairs} pairs"))
        if "retrieve" in step.meta:
            target = step.meta["retrieve"]
            why = f"retrieval requested at step {t}"
            try:
                self._find_summary(state, target, context, error=ScenarioFormatError)  # validate early
            except ScenarioFormatError:
                if not self._was_evicted(state, target, context):
                    raise
                why += (
                    f", but subgoal {target!r} finished earlier and its summary was dropped from ω for lack of "
                    f"space (Σμ > V_max): nothing is retrieved"
                )
            ops.append(Operation("retrieve", {"subgoal": target}, reason=why))
        return ops

    # ------------------------------------------------------------------ U

    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of HiAgent: the hierarchical update, kept in Ω by explicit overflow rules."""
        reasons: dict[Element, str] = {}
        kind = operation.type
        if kind == "subgoal":
            new = self._start(state, operation, context, reasons)
        elif kind == "observe":
            new = self._observe(state, context, reasons)
        elif kind == "summarize":
            new = self._summarize(state, context, reasons, operation.reason)
        elif kind == "select":
            new = self._select(state, operation, reasons, context)
        elif kind == "retrieve":
            new = self._retrieve(state, operation, context)
        else:  # pragma: no cover - apply() refuses undeclared types
            raise InvalidOperationError(f"HiAgent has no operation {kind!r}")
        new = self._fit(new, reasons)
        return Transition(new, {e: why for e, why in reasons.items() if e in state.elements})

    def _start(self, state: State, operation: Operation, context: Context, reasons: dict[Element, str]) -> State:
        text = operation.get("text")
        if text is None:
            text = _rule_text(context.step, context.t)
        if not isinstance(text, str) or not text.strip():
            raise InvalidOperationError(f"subgoal(text=…) needs a non-empty subgoal text, got {shorten(repr(text))}")
        if self.current_subgoal(state) is not None:
            state = self._summarize(state, context, reasons, f"a new subgoal starts at step {context.t}")
        k = self._next_id(state, context)
        latest = _earlier_input(context)  # a pair kept because the model still acts on its observation stays
        retrieved = [e for e in _VIEWS(state).groups.get("retrieved", ()) if e.meta["step"] != latest]
        for e in retrieved:
            reasons[e] = (
                f"retrieved pair (step {e.meta['step']}) of subgoal {e.meta['subgoal']} dropped at the switch to subgoal {k}"
            )
        if retrieved:
            state = state - retrieved
        subgoal = Element(
            text.strip(),
            {
                "t": context.t + _T_SUBGOAL,
                "type": "subgoal",
                "subgoal": k,
                "current": True,
                "step": context.t,
                "source": str(operation.get("source", "operation")),
            },
        )
        self.space.measure(subgoal)  # μ known before the union, so Σμ is carried, not re-summed
        return state | {subgoal}

    def _observe(self, state: State, context: Context, reasons: dict[Element, str]) -> State:
        text = pair_text(context.step)
        if not text:
            return state
        current = self.current_subgoal(state)
        if current is None:
            state = self._start(state, Operation("subgoal", {"source": "rule"}), context, reasons)
            current = self.current_subgoal(state)
            assert current is not None
        pair = Element(
            text,
            {"t": context.t + _T_PAIR, "type": "pair", "subgoal": current.meta["subgoal"], "current": True, "step": context.t},
        )
        self.space.measure(pair)
        return state | {pair}

    def _summarize(self, state: State, context: Context, reasons: dict[Element, str], why: str) -> State:
        current = self.current_subgoal(state)
        if current is None:
            return state  # nothing open: a documented no-op
        k, start = current.meta["subgoal"], current.meta["step"]
        pairs = [e for e in _VIEWS(state).groups.get("pair", ()) if e.meta.get("subgoal") == k]
        end = max([start] + [e.meta["step"] for e in pairs])
        texts = [text for s in range(start, end + 1) if (text := pair_text(_step_at(context, s)))]
        summary_text = self._summaries(texts, self.summary_budget) if texts else "(no actions)"
        summary = Element(
            f"{current.text} → {summary_text}",
            {
                "t": start + _T_SUMMARY,
                "type": "summary",
                "subgoal": k,
                "current": False,
                "step": context.t,
                "range": (start, end),
                "goal": current.text,
            },
        )
        label = f"subgoal {k} finished ({why}): replaced by its summarized observation"
        reasons[current] = label
        for e in pairs:
            reasons[e] = f"pair (step {e.meta['step']}) of {label}"
        self.space.measure(summary)
        new = (state - [current, *pairs]) | {summary}
        latest = _earlier_input(context)
        kept = next((e for e in pairs if e.meta["step"] == latest), None)
        if kept is not None:
            # the step brings no input: the model keeps acting on this pair's observation, so it stays in π
            reasons[kept] += "; it holds the latest input, kept under the summary until the next subgoal switch"
            copy = Element(  # shown just before the summary, which may quote the observation without its action
                kept.text,
                {"t": start + _T_KEPT, "type": "retrieved", "subgoal": k, "current": False, "step": latest},
            )
            self.space.measure(copy)
            new = new | {copy}
        return new

    def _select(self, state: State, operation: Operation, reasons: dict[Element, str], context: Context) -> State:
        keep = operation.get("keep", self.keep_pairs)
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise InvalidOperationError(f"select(keep=…) needs a whole number ≥ 1 of pairs, got {keep!r}")
        current = self.current_subgoal(state)
        pairs = sorted(
            (
                e
                for e in _VIEWS(state).groups.get("pair", ())
                if current is None or e.meta["subgoal"] == current.meta["subgoal"]
            ),
            key=lambda e: e.meta["t"],
        )
        if len(pairs) <= keep:
            return state
        goal = self._embeddings.lookup(current.text, embed) if current is not None else None
        older = pairs[:-1]  # the newest pair is always kept
        scores = {
            e: cosine(goal, self._embeddings.lookup(e.text, embed)) if goal is not None else 0.0
            for e in older
        }
        # with keep ≥ 2, so is the pair whose observation the model still acts on (the step brings no input)
        latest = _earlier_input(context) if keep >= 2 else None
        ranked = sorted(older, key=lambda e: (e.meta["step"] != latest, -scores[e], -e.meta["t"]))
        dropped = ranked[keep - 1 :]
        for e in dropped:
            reasons[e] = (
                f"pair (step {e.meta['step']}) not among the {keep} pairs most relevant to the current subgoal "
                f"(cosine {scores[e]:.2f})"
            )
        return state - dropped

    def _find_summary(self, state: State, target: Any, context: Context, error: type[Exception]) -> Element | None:
        """The summary element a retrieval request names; ``None`` for the current subgoal (a no-op)."""
        view = _VIEWS(state)
        summaries, current = view.groups.get("summary", ()), view.current
        if isinstance(target, bool) or not isinstance(target, (int, str)):
            raise error(
                f"step {context.t}: meta['retrieve'] must be a subgoal id (int) or a subgoal's text, got {shorten(repr(target))}"
            )
        if isinstance(target, int):
            for e in summaries:
                if e.meta["subgoal"] == target:
                    return e
            if current is not None and current.meta["subgoal"] == target:
                return None
        else:
            wanted = target.strip().casefold()
            for e in reversed(summaries):
                if e.meta.get("goal", "").casefold() == wanted:
                    return e
            if current is not None and current.text.casefold() == wanted:
                return None
        known = ", ".join(f"{e.meta['subgoal']} {shorten(e.meta.get('goal', ''), 24)!r}" for e in summaries) or "none"
        raise error(
            f"step {context.t}: trajectory retrieval of subgoal {target!r}, but ω holds no finished subgoal of that "
            f"id or text (finished subgoals in ω: {known}); name one of them in meta['retrieve']"
        )

    def _was_evicted(self, state: State, target: Any, context: Context) -> bool:
        """Whether a retrieval target names a subgoal that finished before ω's current subgoal (so its summary was dropped).

        Subgoal ids count up as subgoals start, so an id below the newest one in ω
        belonged to an earlier subgoal; a text counts if an earlier step opened a
        subgoal with it by marker or ``Subgoal:`` line.
        """
        top = _VIEWS(state).top()
        if isinstance(target, bool) or top is None:
            return False
        if isinstance(target, int):
            return 0 <= target < top
        if isinstance(target, str):
            wanted = target.strip().casefold()
            current = _VIEWS(state).current
            before = current.meta["step"] if current is not None else context.t
            for s in range(min(before, len(context.history))):
                step = context.history[s]
                text = _marker(step)
                if text is None:
                    match = _SUBGOAL_LINE.search(step.thought)
                    text = match.group(1) if match else None
                if text is not None and text.casefold() == wanted:
                    return True
        return False

    def _retrieve(self, state: State, operation: Operation, context: Context) -> State:
        target = operation.get("subgoal")
        try:
            summary = self._find_summary(state, target, context, error=LookupError)
        except LookupError:
            # The controller validated the request against ω_t; an earlier operation of this step may
            # have dropped the summary on overflow since, so an unknown target here is a no-op.
            if isinstance(target, bool) or not isinstance(target, (int, str)):
                raise InvalidOperationError(f"retrieve(subgoal=…) needs an id or a text, got {shorten(repr(target))}")
            return state
        if summary is None:
            return state
        k = summary.meta["subgoal"]
        start, end = summary.meta["range"]
        room = self.space.free(state)
        present = {e.meta["step"] for e in _VIEWS(state).groups.get("retrieved", ()) if e.meta["subgoal"] == k}
        added = []
        for s in range(end, start - 1, -1):  # newest first, while they fit
            if s in present:
                continue
            text = pair_text(_step_at(context, s))
            if not text:
                continue
            e = Element(text, {"t": s + _T_RETRIEVED, "type": "retrieved", "subgoal": k, "current": False, "step": s})
            size = self.space.measure(e)
            if size > room:
                break
            added.append(e)
            room -= size
        return state | added

    def _fit(self, state: State, reasons: dict[Element, str]) -> State:
        """Free room until Σμ ≤ V_max, in the documented order, recording why each element left."""
        space = self.space
        v_max = space.v_max
        total = space.size(state)
        if total <= v_max:
            return state

        def over() -> str:
            return f"Σμ = {format_number(total)} > V_max = {format_number(v_max)}"

        groups = _VIEWS(state).groups
        pairs = groups.get("pair", ())
        summaries = groups.get("summary", ())
        candidates = (
            (groups.get("retrieved", ()), "retrieved pair"),
            (pairs[:-1], "pair"),
            (summaries[:-1], "summary"),
        )
        drop = []
        for members, kind in candidates:
            for e in members:
                if total <= v_max:
                    break
                if kind == "summary":
                    what = f"summary of subgoal {e.meta['subgoal']} dropped"
                else:
                    what = f"{kind} (step {e.meta['step']}) dropped"
                reasons[e] = f"{what}: {over()}"
                total -= space.measure(e)
                drop.append(e)
        if drop:
            state = state - drop
        # last resort: cut texts, newest pair first
        heads = sorted(groups.get("subgoal", ()) + groups.get("task", ()), key=order_key)  # canonical order
        shrinkable = pairs[-1:] + summaries[-1:] + tuple(heads)
        for e in shrinkable:
            if total <= v_max:
                break
            size = space.measure(e)
            cut = fit_text(space, e, size - (total - v_max), record_size=False)
            reasons[e] = f"{e.type} (step {e.meta.get('step', '–')}) cut to fit: {over()}"
            if cut is None:
                state = state - (e,)
                total -= size
            else:
                state = (state - (e,)) | {cut}
                total += space.measure(cut) - size
        return state

    # ------------------------------------------------------------------ π

    @staticmethod
    def _line(e: Element) -> tuple[str, str]:
        """One line of π(ω): a label naming the element's place in the hierarchy, and its text."""
        kind = e.type
        if kind == "task":
            return "Task: ", e.text
        if kind == "summary":
            x, y = e.meta["range"]
            return f"Finished subgoal {e.meta['subgoal']} ({range_label(x, y)}): ", e.text
        if kind == "retrieved":
            return f"  ↳ retrieved [step {e.meta['step']}] ", e.text
        if kind == "subgoal":
            return f"Current subgoal {e.meta['subgoal']}: ", e.text
        if kind == "pair":
            return f"[step {e.meta['step']}] ", e.text
        return "", e.text  # pragma: no cover - foreign elements

    def hierarchy(self, state: State) -> Hierarchy:
        """The hierarchy of ω: task → subgoals and summaries → their pairs (and retrieved pairs).

        A pair hangs under the subgoal it belongs to (meta ``subgoal``), or
        under that subgoal's summary once it is finished; a retrieved pair
        under the summary of the subgoal it was retrieved for. Anything else
        hangs under ω.
        """
        ordered = state.ordered()
        tasks = [e for e in ordered if e.type == "task"]
        top = tasks[0] if tasks else None
        heads = [e for e in ordered if e.type in ("subgoal", "summary")]
        subgoals: dict[Any, Element] = {}
        summaries: dict[Any, Element] = {}
        for e in heads:
            (subgoals if e.type == "subgoal" else summaries).setdefault(e.meta.get("subgoal"), e)
        edges: list[tuple[Element, Element]] = [(top, e) for e in heads if top is not None]
        rest = []
        for e in ordered:
            if e.type in ("task", "subgoal", "summary"):
                continue
            sub = e.meta.get("subgoal")
            if e.type == "pair":
                parent = subgoals.get(sub) or summaries.get(sub) or top
            elif e.type == "retrieved":
                parent = summaries.get(sub) or subgoals.get(sub) or top
            else:
                parent = None
            if parent is not None:
                edges.append((parent, e))
            rest.append(e)
        return Hierarchy(tuple(tasks + heads + rest), tuple(edges), "task → subgoals → pairs")

    def project(self, state: State) -> str:
        """The projection π : Ω → X of HiAgent: task, summarized finished subgoals, current subgoal and its pairs."""
        return "\n".join(label + text for label, text in map(self._line, state))

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens, counted per label and text plus one per line break: within about two tokens per line of the whole-text count.

        The per-element counts are cached, and their sum over ω is carried from
        one ω to the next by the elements that changed.
        """
        return self._projection_tokens(state.elements, self._element_tokens) + max(0, len(state) - 1)

    def _element_tokens(self, e: Element) -> int:
        """The tokens of an element's line in π(ω): its label and its text (cached per element)."""
        return self._line_tokens.lookup(e, self._count_element)

    def _count_element(self, e: Element) -> int:
        label, text = self._line(e)
        return self.count_tokens(label) + self.count_tokens(text)


def _earlier_input(context: Context) -> int | None:
    """When the current step brings no input: the latest earlier step with one (the model still acts on it), else None."""
    if context.step.observation:
        return None
    history = context.history
    for s in range(min(context.t, len(history)) - 1, -1, -1):
        if history[s].observation:
            return s
    return None


def _declared_done(context: Context) -> bool:
    """Whether the step before the current one declared its subgoal finished (``subgoal_done``)."""
    history, t = context.history, context.t
    return 0 < t <= len(history) and bool(history[t - 1].directives.get("subgoal_done"))


def _step_at(context: Context, s: int) -> AgentStep:
    if s == context.t:
        return context.step
    if 0 <= s < len(context.history):
        return context.history[s]
    return AgentStep()


def _rule_text(step: AgentStep, t: int) -> str:
    first = step.thought.strip().splitlines()[0] if step.thought.strip() else ""
    return shorten(first, 80) if first else f"continue the task (from step {t})"
