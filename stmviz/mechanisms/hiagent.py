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
- μ, V_max — tokens (or any μ of the state space) and the context limit. U keeps
  Σμ(ω) ≤ V_max (Definition 1) and, when μ counts tokens, |π(ω)| ≤ V_max: the model
  input, with the labels π adds ("Finished subgoal 2 (steps 7–11): ", "[step 9] ", the
  retrieval hint), must fit the context limit, so U reserves room for them.
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

:class:`HiAgent` holds all of it: U with its overflow rule, π, and the
controller. Two speed-ups stand in for plain definitions and are tested equal
to them: ω is read through views derived from the previous ω's
(:mod:`stmviz._fast.views`), and |π(ω)| is summed from per-line token counts
(:mod:`stmviz._fast.lines`). The offline stand-in for HiAgent's summarizer
model — a finished subgoal's summarized observation and verdict — is
:mod:`stmviz.text.subgoal_summary`.
"""


from __future__ import annotations

import re
from typing import Any

from ..core.element import Element, order_key
from ..core.formatting import format_number, shorten
from ..core.errors import InvalidArgumentError, FormatError, UnsupportedOperationError
from ..core.mechanism import Mechanism, Transition
from ..protocol import ElementType, Hierarchy, element_types_of
from ..core.context import AgentStep, Context
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ..core import guards
from .._fast.lines import LineTokens, Tally
from .._fast.memo import Memo
from .._fast.views import SubgoalView, ViewIndex
from .._moved import moved_to
from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from ..text import cosine, embed, subgoal_summary
from ..text import summarize as default_summarize
from ..text.fit import fit_text
from ..text.pluggable import Summarizer, cached_summarizer

__all__ = ["HiAgent", "pair_text"]

# Sort keys: within step s, a new subgoal comes first, then the step's pair;
# a summary takes the place of the subgoal it replaces, retrieved pairs follow it.
_T_SUBGOAL, _T_SUMMARY, _T_PAIR, _T_RETRIEVED = 0.1, 0.2, 0.5, 0.6
_CHECK_VALID = "check valid"  # an action holding this asks for the valid actions: not given to the summarizer
_EXPANSION = ("expanded", "summary_text", "steps", "restored")  # the meta an expanded header adds to its summary
_T_KEPT = 0.15  # a pair kept at a switch because the model still acts on its observation: just before its summary
_SUBGOAL_LINE = re.compile(r"^\s*subgoal\s*:\s*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
# The reasons of a retrieve operation, whole sentences with named placeholders (a translation renders each whole).
# When a subgoal asked for is no longer in ω, the reason says so first: what was asked, why nothing came back.
_RETRIEVAL_REQUESTED = N_("retrieval requested at step {t} ({origin})")
#: Where a retrieval request was written, as a reason names it (``{action}``: the action's own text).
_ORIGINS = {"directive": N_("retrieve directive"), "action": N_("action {action}")}
#: Why a pair or a summary left when ω had to fit, oldest memory first.
_DROPPED = {
    "summary": N_("summary of subgoal {subgoal} dropped, the oldest memory first: {why}"),
    "retrieved": N_("retrieved pair (step {step}) dropped, the oldest memory first: {why}"),
    "pair": N_("pair (step {step}) dropped, the oldest memory first: {why}"),
}

_RETRIEVE_CALL = re.compile(r"^\s*retrieve\s*\(\s*([0-9]+(?:\s*,\s*[0-9]+)*)?\s*\)\s*$", re.IGNORECASE)
_VERDICTS = {True: "achieved", False: "not achieved", None: "not confirmed"}
#: ω's groups by type, its current subgoal and largest subgoal id, each view derived from the previous ω's
#: (a speed-up: stmviz._fast.views, held equal to reading ω afresh by tests/test_fast.py)
_VIEWS = ViewIndex(SubgoalView)


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

    As the authors built it (Hu et al., ACL 2025, and their AgentBoard agent
    ``agentboard/agents/cme_final.py``): the model writes a line ``Subgoal: …``
    when it starts a subgoal; the working memory keeps the current subgoal with
    its action–observation pairs in full, and each earlier subgoal as a
    summarized observation that says what was observed and whether the
    subgoal was achieved; the model may write ``retrieve(ids…)`` to see the
    full pairs of finished subgoals again until it starts its next subgoal;
    when the prompt is too long the oldest memory is dropped first.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: the size function μ and the context limit V_max.
    summary_budget : int
        Tokens allowed for the summarized observation of a finished subgoal.
    summarize_subgoal : callable, optional
        ``summarize_subgoal(subgoal, pairs, budget) -> (text, achieved)``: the
        summarized observation of a finished subgoal, conditioned on the
        subgoal, from its :class:`~stmviz.text.subgoal_summary.SubgoalPair` s;
        ``achieved`` is ``True``, ``False`` or ``None`` (not confirmed). Default
        :class:`~stmviz.text.subgoal_summary.ObservationSummarizer` (offline:
        the observations, shortened, and the
        :func:`~stmviz.text.subgoal_summary.verdict_of` heuristic); an LLM:
        :class:`stmviz.text.openai.OpenAISubgoalSummarizer`. Results are
        cached. Not recorded in :meth:`params`.
    summarize : callable, optional
        ``summarize(texts, budget) -> str`` used by the default
        ``summarize_subgoal`` to shorten the observations; default
        :func:`stmviz.text.summarize` (extractive, offline).
    keep_pairs : int, optional
        Off by default. stmviz's reading of the paper's Section 4, not in the
        released agent: its "select relevant pairs" step. After each new pair
        the controller issues ``select`` so that at most this many pairs stay
        under the current subgoal, the newest one and those most relevant
        (cosine of hashing embeddings) to the subgoal's text.
    subgoal_every : int, optional
        Off by default (``None``). A *chunking baseline*, not HiAgent: a chunk
        opened by rule (no subgoal stated) is summarized after this many steps
        and a new chunk opened, as if fixed-size chunks were subgoals.

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
    subgoal switch, and overflow never drops it.

    **Controller.** Per step t, in order:

    1. if the previous step declared ``subgoal_done``, the open subgoal is
       summarized first (stmviz extension: the released agent ends a subgoal
       only when the next one starts); its pairs stay in ω until step t, so
       the model sees the observation of its last action;
    2. a new subgoal starts if the step's output states one: the ``subgoal``
       directive (a scenario marker) or a line ``Subgoal: <text>`` in the
       thought; the open subgoal is summarized first (``summarize`` then
       ``subgoal``), and retrieved trajectories fold back to their summaries;
    3. else, before the first subgoal the model states, nothing is opened:
       those pairs stay verbatim under no subgoal (``meta["subgoal"]`` None),
       as the released agent keeps the history before its first subgoal,
       until overflow drops them, oldest first; after ``subgoal_done``
       (stmviz extension), or with ``subgoal_every``, the pairs go under an
       unnamed chunk ("steps from t (no subgoal stated)") opened by rule — it
       is not a subgoal of the model;
    4. else, only with ``subgoal_every`` (the chunking baseline), a rule chunk
       older than ``subgoal_every`` steps is summarized and a new one opened;
    5. ``observe`` attaches the step's (action, observation) pair (skipped for
       an empty step), then, only with ``keep_pairs``, ``select``;
    6. ``retrieve`` if the output asks for it: the ``retrieve`` directive (a
       subgoal id or text, or a list of them), an action ``retrieve(1, 3)``
       as the released agent writes it, or ``meta["retrieve"]`` (legacy). The
       listed finished subgoals are *expanded*: each summary gives way to its
       subgoal's full trajectory (all its pairs, rebuilt from the step history,
       typed "retrieved") until the next subgoal switch, when they fold back to
       their summaries. If they do not all fit, overflow drops the oldest of
       them in the same update (as the released agent, which drops the oldest
       history entries of the prompt holding them): those never enter ω, so
       the summary they replace records, for each, "step s not kept" with the
       rule and the bound it would break; the expanded header holds the steps
       it names (``meta["steps"]``) and those in ω (``meta["restored"]``,
       renewed when overflow drops more later), and π says "retrieved in
       full", "retrieved in part (steps …)" or that none fit. A request for the current subgoal, or for one already
       expanded, is a no-op, and so is one for a finished subgoal whose summary
       overflow dropped earlier (the operation's reason says so); a subgoal
       that never finished raises :class:`~stmviz.errors.FormatError`.

    Subgoal ids count 1, 2, 3, … in the order subgoals start, as the released
    agent numbers them in its prompt and in ``retrieve(…)``; the steps before
    the first subgoal take no id. (Chunks opened by rule — after
    ``subgoal_done`` or with ``subgoal_every`` — take ids too, so with those
    extensions the ids differ from the released agent's count.)

    **Summarized observation.** The summarizer gets the subgoal and its pairs,
    except those whose action holds "check valid" (asking for the valid
    actions), which the released agent leaves out of its summarizer's input.
    A finished subgoal becomes one element: its
    text, then what ``summarize_subgoal`` says was observed, then the verdict
    (achieved / not achieved / not confirmed); meta ``achieved`` holds it.

    **Overflow.** Whenever ω does not fit after an operation — Σμ > V_max, or,
    when μ counts tokens, |π(ω)| > V_max (π's labels count: V_max is the
    model's context limit, so U reserves room for them) — U drops the oldest
    memory first, as the released agent drops the oldest history entries:
    summaries, retrieved pairs and pairs in time order (an expanded
    subgoal's header after its pairs), never the task, the
    current subgoal, the newest pair or the pair holding the latest input;
    then, as a last resort, it cuts the newest pair, the newest summary, the
    subgoal text and the task text to what fits.

    **π.** The task, the finished subgoals (summarized, or expanded with their
    retrieved pairs), the current subgoal and its pairs, and — when a
    finished subgoal is summarized — one line telling the model it may write
    ``retrieve(ids…)`` and which ids it may name.

    Examples
    --------
    >>> from stmviz import StateSpace, run, sizes
    >>> steps = [
    ...     {"subgoal": "find the key", "action": "look()", "observation": "A mat lies here."},
    ...     {"action": "lift('mat')", "observation": "A brass key!", "subgoal_done": True},
    ...     {"subgoal": "open the door", "action": "use('key')", "observation": "Open."},
    ... ]
    >>> trace = run(HiAgent(StateSpace(sizes.tokens(), v_max=200)), steps, query="Leave the room")
    >>> [(e.type, e.meta.get("subgoal")) for e in trace.final]
    [('task', None), ('summary', 1), ('subgoal', 2), ('pair', 2)]
    >>> print(trace.project(3).text())
    Task: Leave the room
    Finished subgoal 1 (steps 0–1): find the key → observed: A mat lies here. A brass key! Verdict: achieved.
    Current subgoal 2: open the door
    [step 2] Action: use('key')
    Observation: Open.
    To see the full action–observation pairs of a finished subgoal again, write retrieve(ids…) with ids among: 1.
    """

    name = "HiAgent"
    operations = OperationSet(
        {
            "subgoal": "a new subgoal starts (the open one is summarized first; retrieved pairs are dropped)",
            "observe": "attach the step's action–observation pair to the current subgoal",
            "summarize": "replace the finished current subgoal and its pairs by a summarized observation",
            "select": "keep only the pairs most relevant to the current subgoal (stmviz's reading of Section 4; off by default)",
            "retrieve": "trajectory retrieval: finished subgoals' full pairs replace their summaries until the next switch",
        }
    )
    element_types = element_types_of(
        [
            ElementType("task", "the task q", "#8c564b", label="task"),
            ElementType("subgoal", "the current subgoal g_i", "#e377c2", label="g{subgoal}"),
            ElementType("pair", "an action–observation pair of the current subgoal", "#17becf", label="a/o {step}"),
            ElementType("summary", "a finished subgoal: its summarized observation and verdict (or, expanded, its header)", "#bcbd22",
                            summary=True, label="Σg{subgoal}"),
            ElementType("retrieved", "a pair of a finished subgoal restored by trajectory retrieval", "#aec7e8",
                            label="↺ a/o {step}"),
        ]
    )
    directives = {
        "subgoal": "the text of a subgoal the model starts (the open one is summarized first)",
        "subgoal_done": "true when the model declares the current subgoal finished",
        "retrieve": "finished subgoals (ids or texts, one or a list) whose full trajectories the model asks to see again",
    }
    required_meta = {"subgoal": ("subgoal",), "pair": ("step", "subgoal"), "summary": ("subgoal", "range", "goal"),
                     "retrieved": ("step", "subgoal")}

    def __init__(
        self,
        space: StateSpace,
        *,
        summary_budget: int = 64,
        summarize: Summarizer | None = None,
        summarize_subgoal: subgoal_summary.SubgoalSummarizer | None = None,
        keep_pairs: int | None = None,
        subgoal_every: int | None = None,
    ) -> None:
        super().__init__(space)
        self.summary_budget = guards.whole_number(summary_budget, "summary_budget", 1)
        self.keep_pairs = guards.whole_number(keep_pairs, "keep_pairs", 1, none_ok=True)
        self.subgoal_every = guards.whole_number(subgoal_every, "subgoal_every", 1, none_ok=True)
        summarize = guards.function(summarize, "summarize", "(texts, budget) -> str", where="HiAgent", returns=str)
        guards.function(summarize_subgoal, "summarize_subgoal", "(subgoal, pairs, budget) -> (text, achieved)")
        self._summaries = cached_summarizer(summarize or default_summarize)
        self.summarize_subgoal: subgoal_summary.SubgoalSummarizer = (
            summarize_subgoal or subgoal_summary.ObservationSummarizer(self._summaries)
        )
        # caches (results never depend on them): summaries per (subgoal, pairs), embeddings, tokens per line of π
        self._subgoal_summaries = Memo(4096)
        self._embeddings = Memo()
        self._line_tokens = Memo()
        self._projection_tokens = Tally()
        self._broken_lines = Tally()
        self._pieces = LineTokens(self.encoding)

    def params(self) -> dict[str, Any]:
        """The JSON-ready constructor parameters (the summarizer is not recorded)."""
        return {"summary_budget": self.summary_budget, "keep_pairs": self.keep_pairs, "subgoal_every": self.subgoal_every}

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
            new = self._retrieve(state, operation, context, reasons)
        else:  # pragma: no cover - apply() refuses undeclared types
            raise UnsupportedOperationError(f"HiAgent has no update for {kind!r}")
        fitted = self._fit(new, reasons, context)
        if kind == "retrieve":
            _record_lost_pairs(state, new, fitted, reasons)
        return Transition(fitted, {e: why for e, why in reasons.items() if e in state.elements})

    def _start(self, state: State, operation: Operation, context: Context, reasons: dict[Element, str]) -> State:
        text = operation.get("text")
        if text is None:
            text = _rule_text(context.step, context.t)
        guards.text(text, "text", where="subgoal", example="find the key")
        if self.current_subgoal(state) is not None:
            state = self._summarize(state, context, reasons, _("a new subgoal starts at step {t}").format(t=context.t))
        k = self._next_id(state, context)
        latest = _earlier_input(context)  # a pair kept because the model still acts on its observation stays
        retrieved = [e for e in _VIEWS(state).groups.get("retrieved", ()) if e.meta["step"] != latest]
        for e in retrieved:
            reasons[e] = _("retrieved pair (step {step}) of subgoal {subgoal} dropped at the switch to subgoal {k}").format(
                step=e.meta["step"], subgoal=e.meta["subgoal"], k=k)
        if retrieved:
            state = state - retrieved
        expanded = [e for e in _VIEWS(state).groups.get("summary", ()) if e.meta.get("expanded")]
        if expanded:
            folded = []
            for e in expanded:
                reasons[e] = _("subgoal {subgoal} folds back to its summary at the switch to subgoal {k}").format(
                    subgoal=e.meta["subgoal"], k=k)
                back = Element(e.meta["summary_text"], {key: v for key, v in e.meta.items() if key not in _EXPANSION})
                self.space.measure(back)
                folded.append(back)
            state = (state - expanded) | folded
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
        if current is None and (self.subgoal_every is not None or _stated_before(context, state)):
            state = self._start(state, Operation("subgoal", {"source": "rule"}), context, reasons)
            current = self.current_subgoal(state)
            assert current is not None
        # before the first subgoal the model states, a pair belongs to no subgoal: it stays verbatim (as released)
        subgoal = current.meta["subgoal"] if current is not None else None
        pair = Element(
            text, {"t": context.t + _T_PAIR, "type": "pair", "subgoal": subgoal, "current": True, "step": context.t}
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
        trajectory = tuple(_subgoal_pair(_step_at(context, s), s) for s in range(start, end + 1))
        # as released: the summarizer never sees the pairs whose action asks for the valid actions
        trajectory = tuple(p for p in trajectory if (p.action or p.observation) and _CHECK_VALID not in p.action)
        observed, achieved = self._summarize_subgoal(current.text, trajectory)
        summary = Element(
            f"{current.text} → observed: {observed} Verdict: {_VERDICTS[achieved]}.",
            {
                "t": start + _T_SUMMARY,
                "type": "summary",
                "subgoal": k,
                "current": False,
                "step": context.t,
                "range": (start, end),
                "goal": current.text,
                "achieved": achieved,
            },
        )
        reasons[current] = _("subgoal {k} finished ({why}): replaced by its summarized observation").format(k=k, why=why)
        for e in pairs:
            reasons[e] = _("pair (step {step}) of subgoal {k} finished ({why}): replaced by its summarized observation").format(
                step=e.meta["step"], k=k, why=why)
        self.space.measure(summary)
        new = (state - [current, *pairs]) | {summary}
        latest = _earlier_input(context)
        kept = next((e for e in pairs if e.meta["step"] == latest), None)
        if kept is not None:
            # the step brings no input: the model keeps acting on this pair's observation, so it stays in π
            reasons[kept] = _("{reason}; it holds the latest input, kept under the summary until the next subgoal switch").format(
                reason=reasons[kept])
            copy = Element(  # shown just before the summary, which may quote the observation without its action
                kept.text,
                {"t": start + _T_KEPT, "type": "retrieved", "subgoal": k, "current": False, "step": latest},
            )
            self.space.measure(copy)
            new = new | {copy}
        return new

    def _summarize_subgoal(self, goal: str, trajectory: tuple[subgoal_summary.SubgoalPair, ...]) -> tuple[str, bool | None]:
        """``summarize_subgoal(goal, pairs, summary_budget)``, checked and cached per (goal, pairs)."""

        def compute(key: tuple[str, tuple[subgoal_summary.SubgoalPair, ...]]) -> tuple[str, bool | None]:
            result = self.summarize_subgoal(key[0], list(key[1]), self.summary_budget)
            if (
                not isinstance(result, tuple)
                or len(result) != 2
                or not isinstance(result[0], str)
                or result[1] not in (True, False, None)
            ):
                raise InvalidArgumentError(
                    f"summarize_subgoal returned {shorten(repr(result))}; it must return (text, achieved) with "
                    f"achieved True, False or None"
                )
            text = " ".join(result[0].split()) or "nothing was observed"
            return text, result[1]

        return self._subgoal_summaries.lookup((goal, trajectory), compute)

    def _select(self, state: State, operation: Operation, reasons: dict[Element, str], context: Context) -> State:
        keep = operation.get("keep", self.keep_pairs)
        keep = guards.whole_number(keep, "keep (pairs)", 1, where="select", error=InvalidArgumentError)
        current = self.current_subgoal(state)
        pairs = sorted(
            (
                e
                for e in _VIEWS(state).groups.get("pair", ())
                if current is None or e.meta["subgoal"] in (current.meta["subgoal"], None)  # and those before any subgoal
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
            reasons[e] = _("pair (step {step}) not among the {keep} pairs most relevant to the current subgoal "
                           "(cosine {cosine})").format(step=e.meta["step"], keep=keep, cosine=f"{scores[e]:.2f}")
        return state - dropped

    def _retrieve(self, state: State, operation: Operation, context: Context, reasons: dict[Element, str]) -> State:
        targets = operation.get("subgoals")
        if targets is None:
            targets = (operation.get("subgoal"),)  # the one-subgoal form
        elif not isinstance(targets, (list, tuple)):
            targets = (targets,)
        for target in targets:
            try:
                summary = self._find_summary(state, target, context, error=LookupError)
            except LookupError:
                # The controller validated the request against ω_t; an earlier operation of this step may
                # have dropped the summary on overflow since, so an unknown target here is a no-op.
                if isinstance(target, bool) or not isinstance(target, (int, str)):
                    raise InvalidArgumentError(
                        f"retrieve(subgoals=…) needs ids or texts, got {shorten(repr(target))}; name each finished "
                        f"subgoal by its id (an int) or its text (a str)"
                    )
                continue
            if summary is None or summary.meta.get("expanded"):
                continue  # the current subgoal, or already expanded
            k = summary.meta["subgoal"]
            lo, hi = summary.meta["range"]
            present = {e.meta["step"] for e in _VIEWS(state).groups.get("retrieved", ()) if e.meta["subgoal"] == k}
            added = []
            for s in range(lo, hi + 1):
                text = pair_text(_step_at(context, s))
                if s in present or not text:
                    continue
                e = Element(text, {"t": s + _T_RETRIEVED, "type": "retrieved", "subgoal": k, "current": False, "step": s})
                self.space.measure(e)
                added.append(e)
            steps = tuple(s for s in range(lo, hi + 1) if s in present or pair_text(_step_at(context, s)))
            meta = {**summary.meta, "expanded": True, "summary_text": summary.text, "steps": steps, "restored": steps}
            head = Element(summary.meta["goal"], meta)
            self.space.measure(head)
            reasons[summary] = _("subgoal {k} retrieved: its pairs replace its summary until the next switch").format(k=k)
            state = (state - (summary,)) | {head, *added}
        return state

    def _fit(self, state: State, reasons: dict[Element, str], context: Context) -> State:
        """Free room until ω fits — Σμ ≤ V_max and |π(ω)| ≤ V_max (see :meth:`_over`) — oldest memory first, recording why each element left.

        A retrieved subgoal's header says which of its pairs are in ω
        (``meta["restored"]``, shown by π): when overflow drops some of them,
        the header is renewed to say so, and room is made again for its
        label.
        """
        while True:
            fitted = self._make_room(state, reasons, context)
            if fitted is state:  # nothing left: the headers still say what is in ω
                return state
            state = _renew_headers(fitted, reasons, self.space)
            if state is fitted:
                return state

    def _make_room(self, state: State, reasons: dict[Element, str], context: Context) -> State:
        """Drop the oldest memory (then cut texts) until ω fits, recording why each element left."""
        over, why = self._over(state)
        if over <= 0:
            return state
        groups = _VIEWS(state).groups
        pairs = groups.get("pair", ())
        latest = _earlier_input(context)
        protected = set(pairs[-1:])
        protected.update(e for e in groups.get("retrieved", ()) if e.meta["step"] == latest)
        protected.update(e for e in pairs if e.meta["step"] == latest)
        candidates = sorted(
            (
                e
                for kind in ("summary", "retrieved", "pair")
                for e in groups.get(kind, ())
                if e not in protected
            ),
            key=_age,
        )
        drop = []
        for e in candidates:
            kind = e.type if e.type in ("summary", "retrieved") else "pair"
            reasons[e] = _(_DROPPED[kind]).format(subgoal=e.meta.get("subgoal"), step=e.meta.get("step"), why=why)
            drop.append(e)
            state = state - (e,)
            over, why = self._over(state)
            if over <= 0:
                return state
        summaries = tuple(e for e in groups.get("summary", ()) if e not in drop)
        # last resort: cut texts, the newest pair and the latest input first
        heads = sorted(groups.get("subgoal", ()) + groups.get("task", ()), key=order_key)  # canonical order
        shrinkable = tuple(sorted(protected, key=order_key, reverse=True)) + summaries[-1:] + tuple(heads)
        for e in shrinkable:
            reasons[e] = _("{type} (step {step}) cut to fit: {why}").format(type=e.type, step=e.meta.get("step", "–"), why=why)
            state, over, why = self._cut(state, e)
            if over <= 0:
                break
        return state

    def _cut(self, state: State, e: Element) -> tuple[State, float, str]:
        """Cut e's text (dropping e if nothing of it fits) until ω fits or e can get no shorter; (ω, :meth:`_over`)."""
        space = self.space
        over, why = self._over(state)
        current: Element | None = e
        while current is not None and over > 0:
            cut = fit_text(space, current, space.measure(current) - over, record_size=False)
            state = state - (current,) if cut is None else (state - (current,)) | {cut}
            current = None if cut is None or cut == current else cut
            over, why = self._over(state)
        return state, over, why

    def _over(self, state: State) -> tuple[float, str]:
        """How far ω is over V_max, and why: Σμ(ω) − V_max, or, when μ counts tokens, |π(ω)| − V_max if larger.

        V_max is HiAgent's context limit: the model input π(ω), labels and the
        retrieval hint included, must fit it, not only Σμ (Definition 1).
        """
        space = self.space
        v_max = space.v_max
        total = space.size(state)
        over, why = total - v_max, f"Σμ = {format_number(total)} > V_max = {format_number(v_max)}"
        if space.counts_tokens:
            size = self.projection_size(state)
            if size - v_max > over:
                over = size - v_max
                why = _("|π(ω)| = {size} > V_max = {v_max} (Σμ = {total} plus π's labels)").format(
                    size=format_number(size), v_max=format_number(v_max), total=format_number(total))
        return over, why

    # ------------------------------------------------------------------ π

    def project(self, state: State) -> str:
        """The projection π : Ω → X of HiAgent: task, summarized finished subgoals, current subgoal and its pairs."""
        lines = [label + text for label, text in map(self._line, state)]
        hint = _retrieval_hint(state)
        if hint:
            lines.append(hint)
        return "\n".join(lines)

    def _line(self, e: Element) -> tuple[str, str]:
        """One line of π(ω): a label naming the element's place in the hierarchy, and its text."""
        kind = e.type
        if kind == "task":
            return "Task: ", e.text
        if kind == "summary":
            x, y = e.meta["range"]
            if e.meta.get("expanded"):
                verdict = _VERDICTS.get(e.meta.get("achieved"), "not confirmed")
                return f"Finished subgoal {e.meta['subgoal']} ({_range_label(x, y)}; {verdict}), {_restored_label(e)}: ", e.text
            return f"Finished subgoal {e.meta['subgoal']} ({_range_label(x, y)}): ", e.text
        if kind == "retrieved":
            return f"  ↳ retrieved [step {e.meta['step']}] ", e.text
        if kind == "subgoal":
            return f"Current subgoal {e.meta['subgoal']}: ", e.text
        if kind == "pair":
            return f"[step {e.meta['step']}] ", e.text
        return "", e.text  # pragma: no cover - foreign elements

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens, exactly: the tokens of the projected text.

        π joins one line per element (and the retrieval hint) with line
        breaks, so the count is summed from each line's cached count with its
        break (:class:`stmviz._fast.lines.LineTokens`), carried from one
        ω to the next by the elements that changed; when a sum would not be
        exact (a line starting with a break, an encoding other than
        cl100k_base) the whole text is counted.
        """
        if not state:
            return 0
        elements = state.elements
        if not self._pieces.splits or self._broken_lines(elements, self._is_broken):
            return self.count_tokens(self.project(state))
        total = self._projection_tokens(elements, self._with_break)
        hint = _retrieval_hint(state)
        if hint:
            return total + self.count_tokens(hint)  # the hint is the last line
        last = state.ordered()[-1]
        return total - self._with_break(last) + self._alone(last)

    def _line_text(self, e: Element) -> str:
        label, text = self._line(e)
        return label + text

    def _with_break(self, e: Element) -> int:
        """Tokens of e's line(s) in π followed by a line break (cached per element; 0 if they cannot be summed)."""
        return self._line_tokens.lookup(e, self._count_with_break) or 0

    def _count_with_break(self, e: Element) -> int | None:
        line = self._line_text(e)
        return self._pieces.with_break(line) if line or e.type in self.element_types else None

    def _is_broken(self, e: Element) -> int:
        """1 when e's line cannot be summed (it starts with a line break, or e is foreign), else 0."""
        return int(self._line_tokens.lookup(e, self._count_with_break) is None)

    def _alone(self, e: Element) -> int:
        """Tokens of e's line(s) in π without a break after them: the last line's count (cached per element)."""
        return self._line_tokens.lookup(("alone", e), lambda key: self._pieces.alone(self._line_text(key[1])))

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
        return Hierarchy(tuple(tasks + heads + rest), tuple(edges), _("task → subgoals → pairs"))  # a figure title

    # ------------------------------------------------------------------ the controller, and reading ω

    def initial_state(self, context: Context) -> State:
        """ω_0 = {the task Q} (∅ when there is no query), cut to V_max if needed."""
        if not context.query:
            return State()
        task = fit_text(self.space, Element(context.query, {"t": -1, "type": "task", "current": False}), self.space.v_max, record_size=False)
        if task is None:
            return State()
        return self._cut(State([task]), task)[0]  # π(ω_0), its label "Task: " included, fits as well

    def controller(self, state: State, context: Context) -> list[Operation]:
        """The controller: subgoal switches from markers (or the documented rules), then observe/select/summarize/retrieve."""
        step, t = context.step, context.t
        ops: list[Operation] = []
        current = self.current_subgoal(state)
        if current is not None and _declared_done(context):
            # subgoal_done at step t − 1: the model has now seen its last observation, the pairs give way
            ops.append(
                Operation("summarize", reason=_("subgoal_done at step {done}; its last observation was seen at step {t}").format(
                    done=t - 1, t=t))
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
                ops.append(Operation("summarize", reason=_("a new subgoal starts at step {t} ({source})").format(t=t, source=source)))
            ops.append(Operation("subgoal", {"text": text, "source": source},
                                 reason=_("subgoal {source} at step {t}").format(source=source, t=t)))
        elif current is None and (self.subgoal_every is not None or _stated_before(context, state)):
            # after subgoal_done (stmviz extension), or with the chunking baseline: a chunk opened by rule
            if pair_text(step):  # an empty step opens nothing
                ops.append(
                    Operation(
                        "subgoal",
                        {"text": _rule_text(step, t), "source": "rule"},
                        reason=_("rule: no subgoal is stated, the pairs go under an unnamed chunk"),
                    )
                )
        elif (
            current is not None
            and self.subgoal_every is not None
            and current.meta.get("source") == "rule"
            and t - current.meta["step"] >= self.subgoal_every
        ):
            why = _("chunking baseline: chunk {k} ran {n} steps without a stated subgoal").format(
                k=current.meta["subgoal"], n=self.subgoal_every)
            ops.append(Operation("summarize", reason=why))
            ops.append(Operation("subgoal", {"text": _rule_text(step, t), "source": "rule"}, reason=why))
        if pair_text(step):
            ops.append(Operation("observe"))
            if self.keep_pairs is not None:
                pairs = _VIEWS(state).groups.get("pair", ())
                if ops[0].type == "subgoal" or ops[0].type == "summarize":  # only the pairs before any subgoal stay
                    count = 1 + sum(1 for e in pairs if e.meta["subgoal"] is None)
                else:
                    count = 1 + len(pairs)
                if count > self.keep_pairs:
                    ops.append(Operation("select", {"keep": self.keep_pairs}, reason=_("more than {n} pairs").format(n=self.keep_pairs)))
        request, origin = _retrieve_request(step)
        if request is not None:
            targets = tuple(request) if isinstance(request, (list, tuple)) else (request,)
            why = _(_RETRIEVAL_REQUESTED).format(t=t, origin=origin)
            gone = []
            for target in targets:
                try:
                    self._find_summary(state, target, context, error=FormatError)  # validate early
                except FormatError:
                    if not self._was_evicted(state, target, context):
                        raise
                    gone.append(repr(target))
            if gone:  # what matters first: the player and the tables show the start of a reason
                nothing = ngettext(
                    "nothing comes back for subgoal(s) {asked}: their summaries are no longer in ω (overflow dropped them "
                    "earlier, the oldest memory first, when ω or π(ω) would not fit V_max) and their pairs went with them",
                    "nothing comes back for subgoal(s) {asked}: their summaries are no longer in ω (overflow dropped them "
                    "earlier, the oldest memory first, when ω or π(ω) would not fit V_max) and their pairs went with them",
                    len(gone),
                ).format(asked=", ".join(gone))
                why = "; ".join([nothing, why] if len(gone) == len(targets) else [why, nothing])
            ops.append(Operation("retrieve", {"subgoals": targets}, reason=why))
        return ops

    @staticmethod
    def current_subgoal(state: State) -> Element | None:
        """The element of the active subgoal (type "subgoal", ``current``), or ``None``."""
        return _VIEWS(state).current

    @staticmethod
    def _next_id(state: State, context: Context) -> int:
        """The id of a subgoal starting now: 1 for the first, then one more than the last (the released agent's numbering)."""
        top = _VIEWS(state).top()
        if top is not None:
            return top + 1
        # Nothing of earlier subgoals is in ω (the first subgoal, or extreme overflow): count the subgoals
        # the model stated before this step.
        return 1 + _stated_before(context, state)

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
            return 1 <= target < top
        if isinstance(target, str):
            wanted = target.strip().casefold()
            current = _VIEWS(state).current
            before = current.meta["step"] if current is not None else context.t
            for s in range(min(before, len(context.history))):
                text = _stated(context.history[s])
                if text is not None and text.casefold() == wanted:
                    return True
        return False


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


def _stated_before(context: Context, state: State) -> int:
    """How many subgoals were started before the current step: the largest id in ω, else the subgoals the model stated in the history."""
    top = _VIEWS(state).top()
    if top is not None:
        return top
    history = context.history
    return sum(1 for s in range(min(context.t, len(history))) if _stated(history[s]) is not None)


def _stated(step: AgentStep) -> str | None:
    """The subgoal a step's output states (the ``subgoal`` directive or a ``Subgoal:`` line), else ``None``."""
    marker = _marker(step)
    if marker is not None:
        return marker
    match = _SUBGOAL_LINE.search(step.thought)
    return match.group(1) if match else None


def _range_label(x: int, y: int) -> str:
    """The steps x … y in words, as π labels a finished subgoal: ``"step 3"`` or ``"steps 3–7"``."""
    return f"step {x}" if x == y else f"steps {x}–{y}"


def _rule_text(step: AgentStep, t: int) -> str:
    """The text of a chunk opened by rule: it names the steps, never the model's words, since no subgoal was stated."""
    return f"steps from {t} (no subgoal stated)"


def _age(e: Element) -> tuple[int, float, str]:
    """The overflow order: oldest first by time, except that an expanded subgoal's header leaves after its pairs."""
    if e.type == "summary" and e.meta.get("expanded"):
        return (0, e.meta["range"][1] + _T_RETRIEVED + 0.01, e.id)
    return order_key(e)


def _subgoal_pair(step: AgentStep, s: int) -> subgoal_summary.SubgoalPair:
    return subgoal_summary.SubgoalPair(
        s, step.action or step.thought, step.observation, step.thought, bool(step.directives.get("subgoal_done"))
    )


def _retrieve_request(step: AgentStep) -> tuple[Any, str]:
    """The retrieval the step's output asks for and where it was written; ``(None, "")`` without one."""
    if "retrieve" in step.directives:
        return step.directives["retrieve"], _(_ORIGINS["directive"])
    match = _RETRIEVE_CALL.match(step.action) if step.action else None
    if match:
        ids = tuple(int(x) for x in re.findall(r"[0-9]+", match.group(1) or ""))
        return ids, _(_ORIGINS["action"]).format(action=step.action.strip())
    if "retrieve" in step.meta:
        return step.meta["retrieve"], "meta['retrieve']"
    return None, ""


def _retrieval_hint(state: State) -> str:
    """The line of π that tells the model it may retrieve, naming the summarized finished subgoals; "" without one."""
    ids = [e.meta["subgoal"] for e in _VIEWS(state).groups.get("summary", ()) if not e.meta.get("expanded")]
    if not ids:
        return ""
    return (
        "To see the full action–observation pairs of a finished subgoal again, write retrieve(ids…) with ids among: "
        + ", ".join(str(k) for k in sorted(ids))
        + "."
    )


def _restored_label(header: Element) -> str:
    """What π says came back for an expanded subgoal: every pair it names, some of them (which), or none."""
    steps, restored = header.meta.get("steps", ()), header.meta.get("restored", ())
    if tuple(restored) == tuple(steps):
        return "retrieved in full"
    if not restored:
        return "retrieved, but none of its pairs fit V_max"
    shown = ", ".join(map(str, restored))
    return f"retrieved in part (step{'s' if len(restored) > 1 else ''} {shown}; the others did not fit V_max)"


def _renew_headers(state: State, reasons: dict[Element, str], space: StateSpace) -> State:
    """ω with each expanded header's ``restored`` steps set to the retrieved pairs of its subgoal that are in ω."""
    view = _VIEWS(state)
    headers = [e for e in view.groups.get("summary", ()) if e.meta.get("expanded")]
    if not headers:
        return state
    retrieved = view.groups.get("retrieved", ())
    old, new = [], []
    for head in headers:
        k = head.meta["subgoal"]
        held = {e.meta["step"] for e in retrieved if e.meta["subgoal"] == k}
        restored = tuple(s for s in head.meta.get("steps", ()) if s in held)
        if restored != tuple(head.meta.get("restored", ())):
            renewed = Element(head.text, {**head.meta, "restored": restored})
            space.measure(renewed)
            gone = ", ".join(str(s) for s in head.meta.get("restored", ()) if s not in held)
            reasons[head] = _("the header of retrieved subgoal {k} renewed: the pairs of step(s) {gone} are no longer in ω").format(
                k=k, gone=gone)
            old.append(head)
            new.append(renewed)
    return (state - old) | new if old else state


def _record_lost_pairs(before: State, retrieved: State, after: State, reasons: dict[Element, str]) -> None:
    """Add to each retrieved subgoal's reason every pair retrieval named but overflow dropped in the same update.

    Those pairs were never in ω, so the trace has no removal of theirs; the
    summary they replaced records, for each, its step and why it was not kept.
    """
    lost: dict[Any, list[tuple[int, str]]] = {}
    for e in retrieved.elements - before.elements - after.elements:
        if e.type == "retrieved" and e in reasons:
            note = _("step {step} not kept: {reason}").format(step=e.meta["step"], reason=reasons[e])
            lost.setdefault(e.meta["subgoal"], []).append((int(e.meta["step"]), note))
    for summary in before.elements - after.elements:
        if summary.type == "summary" and summary.meta["subgoal"] in lost and summary in reasons:
            notes = [note for _step, note in sorted(lost[summary.meta["subgoal"]], key=lambda n: n[0])]
            reasons[summary] += "; " + "; ".join(notes)


#: The offline subgoal summarizer moved to :mod:`stmviz.text.subgoal_summary` (``SubgoalPair``,
#: ``ObservationSummarizer``, ``verdict_of``, ``informative_sentences``): importing them from here works for
#: one release, with a DeprecationWarning.
__getattr__ = moved_to("stmviz.text.subgoal_summary", __name__)
