"""SCM, the Self-Controlled Memory framework (Wang et al., 2023, arXiv 2304.13343): flash memory, activation memory, a controller.

Two descriptions of SCM exist, and they differ; stmviz offers both.

**As released** (``wbbeyourself/SCM4LLMs``: ``core/chat.py``, ``dialogue_demo.py``;
``variant="released"``, the default). For every message from the third turn
on — once the history holds a turn older than the previous one — the older
turns (all but the previous one) are ranked by cosine relevance to the
message and the top k are activated; the controller's first question ("is
memory needed?", ``is_history_need``) is defined in the code but never called.
The previous turn is flash memory: in full under 500 tokens, else its summary.
A turn's "summary" is the turn itself unless the prompt that would summarize
it (about 59 tokens of instructions around the turn) exceeds 300 tokens; then
the model writes one. When the activated memories do not fit, each but the
best-ranked is judged — dropped if even its full text cannot answer the
message, kept as its summary if the summary can, else in full — and full
texts then become summaries until they fit.

**As the paper describes it** (``variant="paper"``). The memory controller
first decides whether the message needs memory at all; every memory has a
summary; memories are ranked by recency and relevance. The rest is the same.

The controller's two decisions are callables: ``needs_memory`` (released:
:func:`retrieves_as_released`, always yes; paper: the offline
:class:`~stmviz.text.scm_judges.RecallHeuristic`, or a model with
:class:`~stmviz.text.openai.OpenAIMemoryController`) and ``judge`` (offline
:class:`~stmviz.text.scm_judges.OverlapJudge`, or
:class:`~stmviz.text.openai.OpenAIMemoryJudge`). The offline stand-ins for the
model live in :mod:`stmviz.text.scm_judges`.

Departures from the original, named:

- *simplified*: the offline stand-ins for the model's calls are heuristics
  (the judgement by shared content words; the paper's "is memory needed?" by
  recall cues and shared words; a turn's model summary is extractive);
- *simplified*: the room of activation memory is V_max minus flash memory
  and the current message (the original: 2,500 tokens for related history
  plus the previous turn); k defaults to 3 (``ChatBot.get_related_turn``'s
  default; ``dialogue_demo.py`` passes 4);
- *stmviz extension*: when the memories still do not fit after every full
  text became a summary, the lowest-ranked are dropped (the original would
  loop); an over-long current message or previous interaction is cut to fit;
- *stmviz extension*: ``flash_size`` > 1 keeps more recent interactions as
  flash memory (default 1, the original's previous interaction only);
- *stmviz extension*: the trace records the top-k scores and every
  judgement with its reason (the original's score logging is commented out;
  it logs the judge's yes/no answers);
- *simplified*: agent steps (a tool call and its result) are interactions
  too; the original is a dialogue system.

After the paper's U, π and controller, the class holds what keeps SCM fast
and safe, none of which changes a result: the memory stream's rows, the
calls of ``embed``, ``summarize`` and ``judge`` (checked, their errors as
:class:`~stmviz.errors.UpdateFailedError`, cached per text in a per-thread
:class:`_Cache`, below the class), and the ranking of a long memory stream by
matrix–vector products (:class:`stmviz._fast.ranking.StreamMatrix`), which
tests hold equal to :meth:`SCM._rank_by_definition`.

SCM answers each incoming message from a prompt that fuses three parts, in
this order: the *related history* (older interactions retrieved for the
message — activation memory), the *previous conversation* (the newest
interactions — flash memory) and the *current message*. With the step order
of :func:`~stmviz.run` (a step holds the model's output, then the input that
arrived after it) the retrieval happens at the step where a message arrives,
so the reply is produced from an input that holds its question and the
memories retrieved for it.

Element by element (Definitions 1 and 2):

- **E = I × D.** I is the tuple (observation, response, summary) of one
  interaction: an element's content is the interaction's full text
  ("Observation: … / Response: …", ``form = "full"``) or its summary
  (``form = "summary"``); or the text of the current message. D holds the
  interaction index (``index``, also ``t`` and ``step``: the step at which
  the interaction was filed), its embedding (``embedding``) and the type
  (``type`` = ``"activation"``, ``"flash"`` or ``"message"``).
- **Interactions.** In a dialogue, step k holds the reply a_{k−1} and the
  next user message u_k: the interaction (u_{k−1}, a_{k−1}) — a message and
  its reply — is filed at step k, and u_k becomes the current message. A
  step with an action holds its own interaction (thought and action, then
  the tool's result), filed at that step; a user message just before it
  belongs to it too. A step without output files the pending message alone
  (it got no reply); a step with neither files nothing (an empty index).
- **μ:** tokens (any size function works). **V_max:** the limit on
  activation + flash memory + the current message. π adds no text to the
  elements' contents, so when μ counts tokens |π(ω)| ≤ Σμ(ω) ≤ V_max.
- **ω:** the elements fed to the model at the next step. The memory stream
  (every interaction filed before) is *not* in ω: it is rebuilt from the
  step history in the context c (``context.history``), so U stays a pure
  function.
- **O:** ``add_interaction`` and ``activate_memory``. Memory activation is
  the controller's decision to emit ``activate_memory`` at all: only when
  there are non-empty interactions older than flash memory, k ≥ 1, and
  ``needs_memory(latest input, older interactions)`` says memory is needed
  (otherwise ``add_interaction`` carries the reason). Its parameter ``k``
  is the top-k retrieval, ``form`` (``"auto"``, ``"full"``, ``"summary"``)
  the choice between full text and summary (``"auto"``: the judgement), and
  the controller records ``scores`` (``[index, score]`` of the top k, best
  first) and ``judgements`` (``[index, verdict, reason]``) in its params.
- **C:** the current step (output and input), the previous step (whose
  message the output answers) and the embedding of the current input.
- **U:** ``add_interaction`` files the step's interaction in the memory
  stream and keeps it as flash memory — in full below ``flash_threshold``
  tokens, else its summary — (with the interactions of the newest
  ``flash_size`` steps, and the one that holds the latest input while the
  model keeps acting on it through steps without input), keeps the step's
  input as the current message when no interaction holds it, and clears
  activation memory; ``activate_memory`` ranks the older interactions by
  cosine(embed(latest input), embed(interaction)) (or recency + relevance),
  activates the top k in full if they fit; else judges each but the best
  (drop / summary / full), turns full texts into summaries from the
  lowest-ranked up, and drops the lowest-ranked until Σμ ≤ V_max.
- **π:** input fusion — the activated memories (related history), then
  flash memory (previous conversation), then the current message.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any

from ..core.element import Element
from ..core.formatting import format_number, shorten
from ..core.errors import InvalidArgumentError, InvalidIndexError, UnsupportedOperationError, UpdateFailedError
from ..core.mechanism import Mechanism, Transition
from ..protocol import element_types_of
from ..core.context import AgentStep, Context, History
from ..core.model_input import Message, ModelInput
from ..core.operation import Operation, OperationSet
from ..core.space import State, StateSpace
from ..core import guards
from ..core.i18n import get_language
from ..core.i18n import gettext as _
from .._fast.memo import Memo
from .._fast.ranking import StreamMatrix
from ..text.embed import cosine, hashing_embedder, joined_frequencies
from ..text.fit import fit_text
from ..text.scm_judges import VERDICTS, OverlapJudge, RecallHeuristic

__all__ = ["SCM", "interaction_text", "pending_message", "retrieves_as_released"]

_FORMS = ("auto", "full", "summary")
_RANKINGS = ("relevance", "recency+relevance")
_VARIANTS = ("released", "paper")

#: The released code keeps a turn itself as its "summary" unless the prompt that would summarize it exceeds
#: this many tokens (``summarize_embed_one_turn`` in ``dialogue_demo.py``).
RELEASED_SUMMARY_THRESHOLD = 300
#: Tokens of that prompt's own instructions, around the turn (its English prompt, counted with cl100k_base).
SUMMARY_PROMPT_TOKENS = 59


def retrieves_as_released(message: str, memories: Sequence[str]) -> tuple[bool, str]:
    """The released code's first decision: none — it retrieves for every message once there are earlier turns.

    ``wbbeyourself/SCM4LLMs`` defines ``is_history_need`` (the model's yes/no
    answer) but never calls it: ``dialogue_demo.py`` retrieves related turns
    for every message from the third turn on, when the history holds a turn
    older than the previous one. SCM's default ``needs_memory`` (``variant="released"``).
    """
    return True, _("as released: the chatbot retrieves for every message (its is_history_need is never called)")


def interaction_text(step: AgentStep, previous: AgentStep | None = None) -> tuple[str, str]:
    """The (full text, raw text) of the interaction i = (observation, response) filed at a step.

    ``previous`` is the step before: its input, when it was a message (no
    tool call), is what this step's output answers. The interaction holds,
    in the order they happened, that message, this step's output (thought
    and action) and, for a tool call, its result. The full text labels the
    parts; the raw text, without labels, is what gets embedded and
    summarized.

    >>> interaction_text(AgentStep(thought="Noted.", observation="How is the weather?"),
    ...                  AgentStep(observation="My code is 7391."))
    ('Observation: My code is 7391.\\nResponse: Noted.', 'My code is 7391.\\nNoted.')
    >>> interaction_text(AgentStep(thought="Look.", action="search(x)", observation="x found"))[0]
    'Response: Look.\\nsearch(x)\\nObservation: x found'
    """
    parts = _parts(step, previous)
    full = "\n".join(f"{label}: {text}" for label, text in parts)
    raw = "\n".join(text for _, text in parts)
    return full, raw


def pending_message(step: AgentStep) -> str:
    """The input of a step that waits for the model's next output: its observation when it has no tool call.

    (A tool's result belongs to the step's own interaction.)

    >>> pending_message(AgentStep(thought="Sunny.", observation="What is for dinner?"))
    'What is for dinner?'
    >>> pending_message(AgentStep(action="search(x)", observation="x found"))
    ''
    """
    return "" if step.action else step.observation


def _parts(step: AgentStep, previous: AgentStep | None) -> list[tuple[str, str]]:
    """The labelled, non-empty parts of the interaction filed at ``step``, in the order they happened."""
    parts = [("Observation", pending_message(previous) if previous is not None else ""), ("Response", step.output)]
    if step.action:
        parts.append(("Observation", step.observation))
    return [(label, text) for label, text in parts if text]


def _latest_input(context: Context) -> tuple[int, str] | None:
    """(index of the interaction that holds it, text) of the latest input up to the current step, or None.

    The current step's input, if it has one (an index of t: the step's own
    interaction for a tool's result, the current message otherwise); else the
    latest earlier step s with an input: a tool's result is in interaction s,
    a message in interaction s + 1 (filed with the output that followed it).
    """
    step, t = context.step, context.t
    if step.observation:
        return t, step.observation
    history = context.history
    for s in range(min(t, len(history)) - 1, -1, -1):
        earlier = history[s]
        if earlier.observation:
            return (s if earlier.action else s + 1), earlier.observation
    return None


def _previous(context: Context) -> AgentStep | None:
    """The step before the current one (whose message the current output answers), or None at step 0."""
    history = context.history
    t = context.t
    return history[t - 1] if 0 < t <= len(history) else None


class SCM(Mechanism):
    """The mechanism (O, E, Ω_STM, C, U, X, π) of SCM: a memory controller, flash memory and activation memory.

    Parameters
    ----------
    space : StateSpace
        Ω_STM: μ (tokens) and V_max, the limit on activation + flash memory +
        the current message.
    variant : {"released", "paper"}
        Which SCM: ``"released"`` (default) as ``wbbeyourself/SCM4LLMs``
        runs — memory retrieved for every message, a short turn its own
        summary, ranking by relevance; ``"paper"`` as the paper describes it —
        the controller decides whether memory is needed, every turn
        summarized, ranking by recency and relevance. It sets the defaults of
        ``needs_memory``, ``summary_threshold`` and ``ranking``; each may still
        be given.
    k : int
        Top-k retrieval: how many older interactions to activate (≥ 0).
    flash_size : int
        Flash memory keeps the interactions filed at the newest
        ``flash_size`` steps, the current one included (≥ 1). Default 1: the
        previous interaction, as in the original; larger values are an
        stmviz extension kept for comparisons (they also shrink the
        candidates of retrieval, which exclude flash memory).
    ranking : {"relevance", "recency+relevance"}, optional
        ``"relevance"`` (the released code's, the default of
        ``variant="released"``): the cosine similarity
        of the interaction to the current input (the message about to be
        answered, or the tool's result about to be acted on).
        ``"recency+relevance"`` (the paper's description, the default of
        ``variant="paper"``): recency_weight ·
        ``recency_decay`` ** age (age in steps) + relevance_weight · cosine.
    recency_weight, relevance_weight : float
        Weights (≥ 0, not both 0) of ``ranking="recency+relevance"``.
    flash_threshold : int
        An interaction of this many tokens or more is kept in flash memory as
        its summary (the original: 500).
    summary_budget : int
        Token budget of an interaction's summary written by ``summarize``.
    summary_threshold : int, optional
        An interaction's summary is the interaction itself while the prompt
        that would summarize it (the interaction and ``SUMMARY_PROMPT_TOKENS``
        of instructions) has at most this many tokens, else ``summarize``
        writes one. Default: 300 for ``variant="released"`` (the released
        code's rule), 0 (every interaction summarized) for ``"paper"``.
    summarize : callable, optional
        ``summarize(texts, budget) -> str``; default :func:`stmviz.text.summarize`.
    embed : callable, optional
        ``embed(text) -> vector``; default :func:`stmviz.text.embed`.
    recency_decay : float
        The per-step decay of recency, in (0, 1].
    needs_memory : callable, optional
        ``needs_memory(message, memories) -> (bool, reason)``: is memory
        needed for the input about to be answered? ``memories`` are the raw
        texts of the candidate interactions, oldest first. Default for
        ``variant="released"``:
        :func:`retrieves_as_released`
        (always, as the released code, which never asks); for ``"paper"``:
        :class:`~stmviz.text.scm_judges.RecallHeuristic` (a recall
        cue, or an earlier interaction sharing content words);
        :func:`~stmviz.text.scm_judges.always_needs_memory` turns
        the decision off; :class:`~stmviz.text.openai.OpenAIMemoryController`
        asks a model.
    judge : callable, optional
        ``judge(memory_text, summary_text, message) -> ("drop" | "summary" |
        "full", reason)``, asked per activated memory when they exceed their
        room. Default :class:`~stmviz.text.scm_judges.OverlapJudge`
        (shared content words); :class:`~stmviz.text.openai.OpenAIMemoryJudge`
        asks a model.

    Notes
    -----
    **When SCM retrieves.** At step k of a dialogue (output: the reply
    a_{k−1}; input: the user's next message u_k) U files (u_{k−1}, a_{k−1})
    in the memory stream and keeps it as flash memory, keeps u_k as the
    current message, and activates the older interactions relevant to u_k.
    π(ω_{k+1}) fuses them — related history, previous conversation, current
    message — and the reply a_k (the output of step k + 1) is produced from
    it. A step with an action is its own interaction (the tool's result
    included); the retrieval is for the result the model is about to act on.
    Through steps that bring no input (outputs only) the model keeps acting
    on the latest input: the interaction that holds it stays in flash memory,
    and retrieval is for it.

    **Room.** The current message has the first claim on V_max (cut to fit if
    it alone is too large), then the newest interaction, then older flash
    memory, then activation memory in the room that is left.

    Examples
    --------
    A dialogue in the order of :func:`~stmviz.run`: each step holds the
    model's reply, then the user's next message.

    >>> from stmviz import AgentStep, StateSpace, run, sizes
    >>> steps = [AgentStep(observation="My locker code is 7391."),
    ...          AgentStep(thought="Noted.", observation="How is the weather?"),
    ...          AgentStep(thought="Sunny.", observation="What is for dinner?"),
    ...          AgentStep(thought="Pasta.", observation="What is my locker code?"),
    ...          AgentStep(thought="It is 7391.")]
    >>> scm = SCM(StateSpace(sizes.tokens(), v_max=200), k=1, flash_size=1)
    >>> trace = run(scm, steps)
    >>> trace[2].operation  # as released, every message retrieves, "What is for dinner?" too
    'add_interaction; activate_memory(k=1, form=auto, scores=((1, 0.0),))'
    >>> trace[3].operation  # "What is my locker code?": interaction 1 scores 0.7071
    'add_interaction; activate_memory(k=1, form=auto, scores=((1, 0.7071),))'
    >>> paper = run(SCM(StateSpace(sizes.tokens(), v_max=200), variant="paper", k=1), steps)
    >>> paper[2].operations[0].reason[:47]  # the paper's controller: no memory for dinner
    'memory not needed: no recall cue, and no earlie'
    >>> [(e.type, e.meta["step"]) for e in trace.state_at(4)]
    [('activation', 1), ('flash', 3), ('message', 3)]

    The reply "It is 7391." (step 4) is produced from π(ω_4): the memory
    retrieved for the question, the previous exchange, and the question.

    >>> trace[4].context.step.thought
    'It is 7391.'
    >>> print(trace.project(4).text())
    Observation: My locker code is 7391.
    Response: Noted.
    <BLANKLINE>
    Observation: What is for dinner?
    Response: Pasta.
    <BLANKLINE>
    Observation: What is my locker code?
    """

    name = "SCM"
    operations = OperationSet(
        {
            "add_interaction": (
                "file the step's interaction in the memory stream and keep it in full as flash memory; keep the "
                "step's input as the current message; clear activation memory"
            ),
            "activate_memory": (
                "memory activation, when the controller finds memory needed: rank older interactions by relevance "
                "to the current input, activate the top k; if they exceed their room, judge each (drop, summary or "
                "full text), then summarize until they fit (params k, form; recorded: scores, judgements)"
            ),
        }
    )
    element_types = element_types_of(
        {
            "flash": ("flash memory: the previous interaction (in full, or its summary when long or when it cannot fit)", "#ff9896"),
            "activation": ("activation memory: an older interaction recalled in full or as a summary", "#9467bd"),
            "message": ("the current message: the input the model answers next", "#6b6ecf"),  # one colour per type name (tests/viz/test_palette.py)
        }
    )

    def __init__(
        self,
        space: StateSpace,
        *,
        variant: str = "released",
        k: int = 3,
        flash_size: int = 1,
        ranking: str | None = None,
        recency_weight: float = 0.5,
        relevance_weight: float = 0.5,
        flash_threshold: int = 500,
        summary_budget: int = 64,
        summary_threshold: int | None = None,
        summarize: Callable[[Sequence[str], int], str] | None = None,
        embed: Callable[[str], Sequence[float]] | None = None,
        recency_decay: float = 0.99,
        needs_memory: Callable[[str, Sequence[str]], tuple[bool, str]] | None = None,
        judge: Callable[[str, str, str], tuple[str, str]] | None = None,
    ) -> None:
        super().__init__(space)
        k = guards.whole_number(k, "k", 0)
        flash_size = guards.whole_number(flash_size, "flash_size", 1)
        summary_budget = guards.whole_number(summary_budget, "summary_budget", 1)
        flash_threshold = guards.whole_number(flash_threshold, "flash_threshold", 1)
        guards.choice(variant, "variant", _VARIANTS, "'released' behaves as the released code (wbbeyourself/SCM4LLMs), 'paper' as the paper describes SCM")
        if summary_threshold is None:
            summary_threshold = RELEASED_SUMMARY_THRESHOLD if variant == "released" else 0
        summary_threshold = guards.whole_number(summary_threshold, "summary_threshold", 0)
        if ranking is None:
            ranking = "relevance" if variant == "released" else "recency+relevance"
        guards.choice(ranking, "ranking", _RANKINGS, "'relevance' ranks by cosine alone (the released code), 'recency+relevance' by the weighted sum (the paper)")
        recency_weight = guards.real_number(recency_weight, "recency_weight", 0)
        relevance_weight = guards.real_number(relevance_weight, "relevance_weight", 0)
        if recency_weight == 0 and relevance_weight == 0:
            raise InvalidArgumentError(
                "recency_weight and relevance_weight are both 0: nothing would rank the memory stream; "
                "give one of them a weight > 0"
            )
        recency_decay = guards.real_number(recency_decay, "recency_decay", 0, 1, low_open=True)
        guards.function(summarize, "summarize", "(texts, budget) -> str")
        guards.function(embed, "embed", "(text) -> vector")
        guards.function(needs_memory, "needs_memory", "(message, memories) -> (bool, reason)")
        guards.function(judge, "judge", "(memory_text, summary_text, message) -> (verdict, reason)")
        from ..text import embed as default_embed
        from ..text import summarize as default_summarize
        self.variant = variant
        self.k = k
        self.flash_size = flash_size
        self.ranking = ranking
        self.flash_threshold = flash_threshold
        self.needs_memory: Callable[[str, Sequence[str]], tuple[bool, str]] = needs_memory or (
            retrieves_as_released if variant == "released" else RecallHeuristic()
        )
        self.judge: Callable[[str, str, str], tuple[str, str]] = judge or OverlapJudge()
        self.recency_weight = float(recency_weight)
        self.relevance_weight = float(relevance_weight)
        self.summary_budget = summary_budget
        self.summary_threshold = summary_threshold
        self.recency_decay = float(recency_decay)
        self.summarize: Callable[[Sequence[str], int], str] = summarize or default_summarize
        self.embed: Callable[[str], Sequence[float]] = embed or default_embed
        self._caches = threading.local()  # one _Cache per thread: see _cache

    def params(self) -> dict[str, Any]:
        """JSON-ready constructor arguments (a custom summarize/embed/needs_memory/judge is not recorded: rebuilt, it is the default)."""
        return {
            "variant": self.variant,
            "k": self.k,
            "flash_size": self.flash_size,
            "ranking": self.ranking,
            "flash_threshold": self.flash_threshold,
            "recency_weight": self.recency_weight,
            "relevance_weight": self.relevance_weight,
            "summary_budget": self.summary_budget,
            "summary_threshold": self.summary_threshold,
            "recency_decay": self.recency_decay,
        }

    # -- U: the update ------------------------------------------------------------
    def update(self, state: State, operation: Operation, context: Context) -> Transition:
        """The update U : Ω × O × C → Ω of SCM: adding the interaction (flash) or activating memory.

        Raises
        ------
        UpdateFailedError
            when the summarizer or the embedder raises; ω is left untouched.
        """
        if operation.type == "add_interaction":
            return self._add_interaction(state, context)
        if operation.type == "activate_memory":
            k = operation.get("k", self.k)
            form = operation.get("form", "auto")
            k = guards.whole_number(k, "k", 0, where="activate_memory")
            form = guards.choice(form, "form", _FORMS, where="activate_memory")
            return self._activate(state, context, k, form)
        raise UnsupportedOperationError(f"SCM has no update for {operation.type!r}")  # pragma: no cover

    def _add_interaction(self, state: State, context: Context) -> Transition:
        """add_interaction; the controller's planning and the update share the result (kept for one step)."""
        cache = self._cache
        source = context.history.steps() if isinstance(context.history, History) else None
        key = (context.t, id(state), id(context.step), id(source), len(context.history), self.flash_size, self.flash_threshold,
               get_language())  # the reasons are written in the language set
        if source is not None and cache.filed is not None and cache.filed[0] == key and cache.filed[1] is state:
            return cache.filed[2]
        transition = self._filed(state, context)
        if source is not None:
            cache.filed = (key, state, transition)
        return transition

    def _filed(self, state: State, context: Context) -> Transition:
        """U for add_interaction: file the step's interaction, keep the current message and flash memory, clear activation memory.

        The current message has the first claim on V_max (cut to fit if it
        alone is too large), then the newest interaction, then older flash
        memory — each in full below ``flash_threshold`` tokens, else as its
        summary, or as its summary when the full text does not fit.
        """
        space = self.space
        t = context.t
        stream = self._stream(context)
        previous = _previous(context)
        current = self._row(previous, context.step, context)
        self._cache.current = (previous, context.step, current)  # the next step's memory stream ends with it
        window: list[tuple[int, Any]] = [(t, current)]
        latest = _latest_input(context)
        if latest is not None and latest[0] <= t - self.flash_size and latest[0] < len(stream):
            # the model keeps acting on an input older than flash memory: its interaction stays in flash
            window.append((latest[0], stream[latest[0]][1]))
        for i in range(min(t, len(stream)) - 1, max(-1, t - self.flash_size), -1):
            window.append((i, stream[i][1]))
        room = space.v_max
        chosen: list[Element] = []
        message = self._message(context)
        if message is not None:  # the input the model answers next has the first claim on V_max
            if space.measure(message) > room:
                message = fit_text(space, message, room)
            if message is not None:
                chosen.append(message)
                room -= space.measure(message)
        for i, row in window:  # newest first: the current interaction has the first claim on V_max
            if row is None:
                continue
            element = self._element(i, row, "flash", "full", context)
            if element is not None and self.count_tokens(row[0]) >= self.flash_threshold:
                # a long interaction: flash memory holds its summary (the original: 500 tokens or more)
                element = self._element(i, row, "flash", "summary", context) or element
            if element is None or space.measure(element) > room:
                summary = self._element(i, row, "flash", "summary", context)
                if summary is not None and space.measure(summary) <= room and (
                    element is None or space.measure(summary) < space.measure(element)
                ):
                    element = summary
                elif i == t and element is not None:
                    element = fit_text(space, element, room)
                else:
                    element = None
            if element is None or space.measure(element) > room:
                continue
            chosen.append(element)
            room -= space.measure(element)
        new = State(chosen)
        reasons: dict[Element, str] = {}
        re_ranked = ""
        for e in state.elements - new.elements:
            index = e.meta.get("index")
            if e.type == "message":
                step = e.meta.get("step")
                if current is not None and previous is not None and step == t - 1 and pending_message(previous):
                    reasons[e] = _("the message of step {step} got its reply: filed with it as interaction {t}").format(step=step, t=t)
                else:
                    reasons[e] = _("the message of step {step} is no longer the current input (step {t})").format(step=step, t=t)
            elif e.type == "flash":
                if isinstance(index, int) and index < t - self.flash_size:
                    reasons[e] = _("left flash memory: interaction {index}, older than the newest flash_size = {n}, "
                                   "no longer holds the latest input").format(index=index, n=self.flash_size)
                elif isinstance(index, int) and index <= t - self.flash_size:
                    reasons[e] = _("left flash memory: interaction {index} is older than the newest flash_size = {n}").format(
                        index=index, n=self.flash_size)
                else:
                    reasons[e] = _("flash memory re-fitted to V_max = {v_max}").format(v_max=format_number(space.v_max))
            else:
                reasons[e] = re_ranked = re_ranked or _("activation memory is re-ranked for the input of step {t}").format(t=t)
        return Transition(new, reasons)

    def _message(self, context: Context) -> Element | None:
        """The current message: the step's input when no interaction holds it (a message without a tool call)."""
        text = pending_message(context.step)
        if not text:
            return None
        t = context.t
        elements = self._cache.elements
        key = (t, "message", text)  # the element is a function of t and the text (its embedding's)
        element = elements.get(key)
        if element is None:
            vector = self._embedding(text, context)  # the query of memory activation, too
            element = elements.put(
                key,
                Element(
                    f"Observation: {text}",
                    {"t": t + 0.5, "step": t, "type": "message", "embedding": vector, "form": "full"},
                ),
            )
        return element

    def _activate(self, state: State, context: Context, k: int, form: str) -> Transition:
        """U for activate_memory: ω with the memories the plan activates for the latest input."""
        return Transition(state | self._plan(state, context, k, form)[2])

    def _plan(self, state: State, context: Context, k: int, form: str) -> tuple[list[list[Any]], list[list[Any]], list[Element]]:
        """(scores, judgements, elements) of memory activation for the latest input, given ω after filing.

        ``scores``: ``[index, score]`` of the top-k candidates, best first.
        ``judgements``: ``[index, verdict, reason]`` in the order they were
        made — the judge's verdict on each memory (form ``"auto"``, when the
        full texts exceed the room), then each full text that became a
        summary and each memory dropped to fit.
        """
        space = self.space
        t = context.t
        stream = self._stream(context)
        in_state = {e.meta.get("index") for e in state.elements}
        last = min(len(stream), t - self.flash_size + 1)  # candidates: 0 … t − flash_size
        if k == 0 or last <= 0:
            return [], [], []
        query_text = self._query_text(context)
        cache = self._cache
        key = None
        if cache.stream is not None:  # the controller plans, then the update applies the same plan: computed once
            key = (
                t, k, form, id(cache.stream), len(stream), id(stream[-1][0]) if stream else None, query_text,
                frozenset(in_state), space.free(state), self._weights(), id(self.judge), self.summary_budget, self.summary_threshold,
                get_language(),  # the judgements' reasons are written in the language set
            )
            if cache.plan is not None and cache.plan[0] == key:
                return cache.plan[1]
        plan = self._planned(state, context, k, form, stream, in_state, last, query_text)
        if key is not None:
            cache.plan = (key, plan)
        return plan

    def _planned(
        self, state: State, context: Context, k: int, form: str, stream: list[Any], in_state: set, last: int, query_text: str
    ) -> tuple[list[list[Any]], list[list[Any]], list[Element]]:
        """Memory activation as released: rank, take the top k; if they exceed the room, judge, summarize, drop."""
        space = self.space
        t = context.t
        query = self._embedding(query_text, context) if query_text else None
        ranked = self._ranking(stream, last, query, query_text, t, k, in_state)
        rw, lw, decay = self._weights()
        scores: list[list[Any]] = []
        for i in ranked:
            relevance = self._relevance(query_text, query, stream[i][1]) if query else 0.0
            scores.append([i, round(rw * decay ** (t - i) + lw * relevance, 4)])
        judgements: list[list[Any]] = []
        if not ranked:
            return scores, judgements, []
        room = space.free(state)
        picks: list[list[Any]] = []  # [index, row, form, element], best-ranked first
        want = "summary" if form == "summary" else "full"
        for i in ranked:
            row = stream[i][1]
            element = self._element(i, row, "activation", want, context)
            if element is not None:
                picks.append([i, row, want, element])
        total: float = sum(space.measure(p[3]) for p in picks)
        if form == "auto" and total > room and picks:
            # the judgement, as the released code makes it: every memory but the best-ranked is judged
            judgements.append([picks[0][0], "full", _("the best-ranked memory is kept without a judgement")])
            kept = [picks[0]]
            for p in picks[1:]:
                summary = self._element(p[0], p[1], "activation", "summary", context)
                verdict, why = self._judge(p[1][0], summary.text if summary is not None else "", query_text, context)
                judgements.append([p[0], verdict, why])
                if verdict == "drop":
                    total -= space.measure(p[3])
                    continue
                if verdict == "summary" and summary is not None:
                    total += space.measure(summary) - space.measure(p[3])
                    p[2], p[3] = "summary", summary
                kept.append(p)
            picks = kept
            # then full texts become summaries, the lowest-ranked first, until the memories fit
            for p in reversed(picks):
                if total <= room:
                    break
                if p[2] == "full":
                    summary = self._element(p[0], p[1], "activation", "summary", context)
                    if summary is not None and space.measure(summary) < space.measure(p[3]):
                        total += space.measure(summary) - space.measure(p[3])
                        p[2], p[3] = "summary", summary
                        judgements.append([p[0], "summary", _("summarized to fit the room left by flash memory and the message")])
        while picks and total > room:  # stmviz extension: still too large, the lowest-ranked is dropped
            dropped = picks.pop()
            total -= space.measure(dropped[3])
            judgements.append([dropped[0], "drop", _("dropped to fit: Σμ would exceed V_max = {v_max}").format(
                v_max=format_number(space.v_max))])
        return scores, judgements, [p[3] for p in picks]

    # -- π: the projection --------------------------------------------------------
    def project(self, state: State) -> ModelInput:
        """The projection π : Ω → X of SCM: input fusion — activated memories, flash memory, the current message.

        The order of SCM's prompt: related history (activated memories, as
        system messages), previous conversation (flash memory, user
        messages), then the current message (a user message); each part in
        interaction order.
        """
        return ModelInput(
            Message("system" if e.type == "activation" else "user", e.content) for e in _fused(state)
        )

    def projection_size(self, state: State) -> int:
        """|π(ω)| in tokens: the sum of the messages' token counts (cached per text)."""
        count = self.count_tokens
        total = 0
        for e in state.elements:
            if not isinstance(e.content, str):
                return super().projection_size(state)
            total += count(e.content)
        return total


    # -- the memory controller ----------------------------------------------------
    def controller(self, state: State, context: Context) -> list[Operation]:
        """The memory controller: file the interaction; then decide whether memory is needed for the latest input.

        When there are interactions older than flash memory and k ≥ 1, it asks
        ``needs_memory(message, memories)`` about the input the model answers
        next. If memory is needed it emits ``activate_memory`` with the
        retrieval it plans — the top-k candidates' scores and the judgement of
        each memory, with its reason — in the operation's params (so they are in
        the trace); if not, ``add_interaction`` carries the reason.
        """
        add = Operation("add_interaction")
        k = self.k
        t = context.t
        last = self._candidates(context)
        if k <= 0 or last <= 0:
            return [add]
        latest = _latest_input(context)
        if latest is None or not latest[1]:
            return [add]
        stream = self._stream(context)
        if not any(row[1] is not None for row in islice(stream, last)):
            return [add]  # no older interaction has any text (the user spoke first): nothing to retrieve
        memories = _Texts(stream, last)
        try:
            verdict = self.needs_memory(latest[1], memories)
            needed, why = verdict
        except Exception as exc:
            raise self._fail(context, f"decide whether memory is needed with {self.needs_memory!r}", exc) from exc
        why = str(why)
        if not needed:
            return [Operation("add_interaction", {"memory": "not needed"}, reason=_("memory not needed: {why}").format(why=why))]
        filed = self._add_interaction(state if state is not None else State(), context).state
        scores, judgements = self._plan(filed, context, k, "auto")[:2]
        params: dict[str, Any] = {"k": k, "form": "auto", "scores": scores}
        if judgements:
            params["judgements"] = judgements
        reason = _("memory needed at step {t}: {why}").format(t=t, why=why)
        return [add, Operation("activate_memory", params, reason=reason)]

    def _candidates(self, context: Context) -> int:
        """How many interactions are candidates of retrieval: 0 … t − flash_size (flash memory excluded)."""
        return max(0, min(len(context.history), context.t - self.flash_size + 1))

    def _weights(self) -> tuple[float, float, float]:
        """(recency weight, relevance weight, decay) of the ranking in use."""
        if self.ranking == "relevance":
            return 0.0, 1.0, self.recency_decay
        return self.recency_weight, self.relevance_weight, self.recency_decay

    def _query_text(self, context: Context) -> str:
        """The text memory is activated for: the latest input (the message about to be answered, or a tool's result)."""
        latest = _latest_input(context)  # what the model is about to answer or act on
        return latest[1] if latest is not None else interaction_text(context.step, _previous(context))[1]

    # -- the memory stream: one row per interaction, rebuilt from the step history ---------------
    def _stream(self, context: Context) -> list[Any]:
        """The memory stream's rows (full text, raw text, embedding) for steps 0 … t−1, computed once per step."""
        history = context.history
        n = len(history)
        cache = self._cache
        source = history.steps() if isinstance(history, History) else None
        rows = cache.rows
        m = len(rows)
        # the rows hold while the history is the same growing list, with the same step where they end
        if source is None or source is not cache.stream or m > n or (m and source[m - 1] is not rows[m - 1][0]):
            cache.stream = source
            cache.rows = rows = []
            cache.prefix = []
            cache.matrix.forget_rows()
        while len(rows) < n:
            i = len(rows)
            step = history[i]
            previous = history[i - 1] if i else None
            current = cache.current  # the row of the interaction the previous step added, usually
            if current is not None and current[1] is step and current[0] is previous:
                rows.append((step, current[2]))
            else:
                rows.append((step, self._row(previous, step, context)))
        return rows

    def _row(
        self, previous: AgentStep | None, step: AgentStep, context: Context
    ) -> tuple[str, str, tuple[float, ...]] | None:
        """(full text, raw text, embedding) of the interaction filed at ``step``; None if it has no text."""
        parts = _parts(step, previous)
        if not parts:
            return None
        full = "\n".join(f"{label}: {text}" for label, text in parts)
        texts = [text for _, text in parts]
        raw = "\n".join(texts)
        return full, raw, self._embedding(raw, context, texts)

    def _element(self, index: int, row: tuple[str, str, tuple[float, ...]], kind: str, form: str, context: Context) -> Element | None:
        """Interaction ``index`` as an element of ω: its full text or its summary (``form``), as ``kind``; None if empty."""
        full, raw, vector = row
        cache = self._cache
        key = (index, kind, form, full, self.summary_budget, self.summary_threshold)
        if key in cache.elements:
            return cache.elements.get(key)
        content = full if form == "full" else self._summary_text(row, context, index)
        element = (
            Element(content, {"t": index, "step": index, "type": kind, "index": index, "embedding": vector, "form": form})
            if content
            else None
        )
        cache.elements.put(key, element)
        return element

    def _summary_text(self, row: tuple[str, str, tuple[float, ...]], context: Context, index: int) -> str:
        """An interaction's summary: the interaction itself while the prompt that would summarize it is short, else a summary.

        As released: the turn itself unless its summarization prompt (the turn
        and ``SUMMARY_PROMPT_TOKENS`` of instructions) exceeds
        ``summary_threshold`` tokens; then the model's summary
        (``summarize``, offline: extractive, ``summary_budget`` tokens). With
        ``summary_threshold=0`` (``variant="paper"``) every interaction is
        summarized, as the paper describes its memory stream.
        """
        full, raw, _ = row
        if self.summary_threshold and self.count_tokens(full) + SUMMARY_PROMPT_TOKENS <= self.summary_threshold:
            return full
        return self._summary(raw, context, index)

    # -- the ranking: the top k of the older interactions --------------------------------------
    def _rank_by_definition(
        self, stream: list[Any], last: int, query: tuple[float, ...] | None, t: int, k: int, skip: set
    ) -> list[int]:
        """The ranking: the top k of candidates 0 … last−1 by recency_weight·decay^(t−i) + relevance_weight·cosine, newest first on ties.

        With ``ranking="relevance"`` (the released code) the weights are 0 and
        1: cosine alone. Candidates in ``skip`` (already in ω) and empty
        interactions are left out.
        """
        rw, lw, decay = self._weights()
        scored = []
        for i in range(last):
            row = stream[i][1]
            if row is None or i in skip:
                continue
            if query and len(row[2]) != len(query):
                raise UpdateFailedError(
                    f"embed returned vectors of {len(query)} and {len(row[2])} dimensions; they must all match"
                )
            relevance = cosine(query, row[2]) if query else 0.0
            scored.append((-(rw * decay ** (t - i) + lw * relevance), -i))
        scored.sort()
        return [-i for _, i in scored[:k]]

    def _rank(self, stream: list[Any], last: int, query: tuple[float, ...] | None, t: int, k: int, skip: set) -> list[int]:
        """The top k of :meth:`_rank_by_definition`; over more than 64 candidates by matrix–vector products.

        The fast path (:class:`stmviz._fast.ranking.StreamMatrix`, tests hold it
        equal to the definition) keeps the memory stream's embeddings as a
        matrix between steps and scores the newest candidates first.
        """
        if last > 64:
            return self._cache.matrix.top(stream, last, query, t, k, skip, self._weights())
        return self._rank_by_definition(stream, last, query, t, k, skip)

    def _ranking(
        self, stream: list[Any], last: int, query: tuple[float, ...] | None, query_text: str, t: int, k: int, skip: set
    ) -> list[int]:
        """:meth:`_rank`'s top-k, read from a ranking of all candidates kept by content.

        The scores of candidates 0 … last−1 depend on their texts, the query's
        text, t and the weights alone — not on ω, which only says which
        candidates to skip (those already in ω). So the candidates are ranked
        without skipping, to the depth k + (the candidates in ω), and kept by
        (the candidates' texts, the query, t, the weights); the top-k is that
        ranking without the skipped ones. The order is total (score
        descending, the newest first on ties), so this is the top-k of the
        candidates left.
        """
        held = {i for i in skip if isinstance(i, int) and 0 <= i < last}
        depth = k + len(held)
        memo = self._cache.rankings
        key = (self._prefix(stream, last), query_text, t, self._weights())
        found = memo.get(key)
        if found is None or found[0] < depth:
            found = memo.put(key, (depth, self._rank(stream, last, query, t, depth, set())))
        return [i for i in found[1] if i not in held][:k]

    def _prefix(self, stream: list[Any], last: int) -> Any:
        """A name for the raw texts of interactions 0 … last−1: two runs' names are the same object only if the texts are.

        The name of 0 … i is looked up by (the name of 0 … i−1, the raw text of
        i) in ``prefixes`` (hash-consing), so runs that share that table — a
        sweep's runs at several V_max — name the same memory stream alike.
        """
        cache = self._cache
        names, table = cache.prefix, cache.prefixes
        while len(names) < last:
            row = stream[len(names)][1]
            key = (names[-1] if names else None, row[1] if row is not None else None)
            name = table.get(key)
            if name is None:
                name = table.put(key, _Prefix(len(names) + 1))
            names.append(name)
        return names[last - 1] if last > 0 else None

    # -- the calls of embed, summarize and judge, checked and cached ---------------------------
    def _embedding(self, raw: str, context: Context, parts: Sequence[str] = ()) -> tuple[float, ...]:
        """embed(raw), cached per text; ``parts``, if given, are texts whose ``"\\n".join`` is raw."""
        cache = self._cache
        hit = cache.embeddings.get(raw)
        if hit is not None:
            return hit
        hashing = self._hashing()
        try:
            if hashing is not None:
                # The built-in embedder: embed(raw) from the term frequencies of raw's parts. The
                # current observation is a part of the current interaction and then, alone, the
                # query of memory activation: its words are read once for both.
                if len(parts) > 1:
                    tf = joined_frequencies([self._frequencies(hashing, part) for part in parts])
                else:
                    tf = self._frequencies(hashing, raw)
                vector = hashing.from_frequencies(tf)  # floats, of unit length or all 0: nothing to check
            else:
                vector = tuple(map(float, self.embed(raw)))
        except Exception as exc:
            raise self._fail(context, f"embed {shorten(raw)!r} with {self.embed!r}", exc) from exc
        if hashing is None and (not vector or not math.isfinite(math.fsum(map(abs, vector)))):
            raise self._fail(context, "use the embedding", ValueError(f"embed returned {shorten(repr(vector))}"))
        cache.embeddings.put(raw, vector)
        return vector

    def _hashing(self) -> Any:
        """The :class:`~stmviz.text.HashingEmbedder` that ``self.embed`` is (or calls), else None."""
        cache = self._cache
        embed = self.embed
        if cache.embedder is not embed:  # resolved once per embed callable
            cache.hashing = hashing_embedder(embed)
            cache.embedder = embed
            cache.frequencies.clear()
        return cache.hashing

    def _frequencies(self, hashing: Any, text: str) -> dict[str, int]:
        """The term frequencies of a text, kept for the few latest texts (the current observation's)."""
        table = self._cache.frequencies
        tf = table.get(text)
        if tf is None:
            tf = hashing.frequencies(text)
            table.put(text, tf)
        return tf

    def _summary(self, raw: str, context: Context, index: int) -> str:
        cache = self._cache
        key = (raw, self.summary_budget)
        hit = cache.summaries.get(key)
        if hit is not None:
            return hit
        try:
            summary = self.summarize([raw], self.summary_budget)
        except Exception as exc:
            raise self._fail(context, f"summarize interaction {index} with {self.summarize!r}", exc) from exc
        if not isinstance(summary, str):
            raise self._fail(
                context, f"summarize interaction {index}", TypeError(f"summarize returned {type(summary).__name__}, not str")
            )
        cache.summaries.put(key, summary)
        return summary

    def _relevance(self, query_text: str, query: tuple[float, ...], row: tuple[str, str, tuple[float, ...]]) -> float:
        """cosine(embed(query_text), embed(raw)) of a memory's row, cached per pair of texts (both embeddings are)."""
        memo = self._cache.relevance
        key = (query_text, row[1])
        value = memo.get(key)
        if value is None:
            value = memo.put(key, cosine(query, row[2]))
        return value

    def _judge(self, full: str, summary: str, message: str, context: Context) -> tuple[str, str]:
        """judge(full, summary, message), cached per arguments and checked."""
        cache = self._cache.judgements
        key = (full, summary, message, get_language())  # the reason is written in the language set
        hit = cache.get(key)
        if hit is not None:
            return hit
        try:
            verdict, why = self.judge(full, summary, message)
        except Exception as exc:
            raise self._fail(context, f"judge a memory with {self.judge!r}", exc) from exc
        if verdict == "raw":
            verdict = "full"
        if verdict not in VERDICTS:
            raise self._fail(
                context, "use the judgement", ValueError(f"judge returned {verdict!r}; it must be one of {', '.join(VERDICTS)}")
            )
        result = (str(verdict), str(why))
        cache.put(key, result)
        return result

    def _fail(self, context: Context, what: str, exc: BaseException) -> UpdateFailedError:
        return UpdateFailedError(
            f"step {context.t}: {self} could not {what}: {type(exc).__name__}: {shorten(str(exc), 160)}. "
            f"ω_{context.t} was left as it was",
            step=context.t,
        )

    @property
    def _cache(self) -> _Cache:
        """This thread's caches.

        Besides memos of pure functions, the caches hold the state of the run in
        progress (the memory stream's rows and matrix, the latest step's
        interaction), which a run started by another thread would overwrite
        between two reads. Each thread that runs this mechanism has its own, so
        that threads sharing one SCM get the traces of sequential runs.
        """
        try:
            return self._caches.cache
        except AttributeError:
            cache = self._caches.cache = _Cache()
            return cache


def _fused(state: State) -> list[Element]:
    """ω in the order of π: activation memory, flash memory (and any other element), the current message."""
    activations = [e for e in state if e.type == "activation"]
    messages = [e for e in state if e.type == "message"]
    return activations + [e for e in state if e.type not in ("activation", "message")] + messages



class _Cache:
    """Per-text caches of embeddings and summaries, plus the memory stream's embedding matrix.

    Its identity never changes for the mechanism's life (in one thread: each
    thread has its own, see :attr:`SCM._cache`), and every entry is a function
    of its key, so results never depend on it.
    """

    __slots__ = (
        "embeddings",
        "summaries",
        "elements",
        "stream",
        "rows",
        "current",
        "matrix",
        "embedder",
        "hashing",
        "frequencies",
        "judgements",
        "relevance",
        "prefixes",
        "prefix",
        "rankings",
        "plan",
        "filed",
    )

    def __init__(self, limit: int = 1 << 16) -> None:
        self.embeddings = Memo(limit)  # raw text → embedding
        self.summaries = Memo(limit)  # (raw text, budget) → summary
        self.elements = Memo(limit)  # (index, kind, form, full text, budget) → element or None; (t, "message", text) → element
        self.stream: Any = None  # the step list the rows were computed from
        self.rows: list[Any] = []  # per interaction: (step, (full, raw, embedding) or None when empty)
        self.current: Any = None  # (previous step, step, row) of the step whose interaction was added last
        self.matrix = StreamMatrix()  # the memory stream's embeddings as unit rows, and the recency weights
        self.embedder: Any = None  # the embed callable ``hashing`` was resolved for
        self.hashing: Any = None  # the HashingEmbedder that embed is, or None
        self.frequencies = Memo(8)  # the latest texts' term frequencies
        self.judgements = Memo(limit)  # (full, summary, message) → (verdict, reason)
        self.relevance = Memo(limit)  # (query text, memory's raw text) → cosine of their embeddings
        self.prefixes = Memo(limit)  # (name of interactions 0 … i−1, raw text i or None) → name of 0 … i
        self.prefix: list[Any] = []  # per row: the name of the memory stream's raw texts up to it
        self.rankings = Memo(limit)  # (name of the candidates, query text, t, weights) → (depth, top-depth indices)
        self.plan: Any = None  # (key, the latest plan of memory activation)
        self.filed: Any = None  # (key, state, the latest add_interaction transition)

    def __repr__(self) -> str:
        return f"_Cache({len(self.embeddings)} embeddings, {len(self.summaries)} summaries)"


class _Prefix:
    """The name of a memory stream's first ``length`` raw texts (see :meth:`SCM._prefix`); compared by identity."""

    __slots__ = ("length",)

    def __init__(self, length: int) -> None:
        self.length = length

    def __repr__(self) -> str:
        return f"<interactions 0 … {self.length - 1}>"


class _Texts(Sequence[str]):
    """The raw texts of the interactions 0 … n − 1 of the memory stream, read lazily ("" for an empty one)."""

    def __init__(self, rows: list[Any], n: int) -> None:
        self._rows, self._n = rows, n

    def __len__(self) -> int:
        return self._n

    def __iter__(self) -> Iterator[str]:
        for step, row in islice(self._rows, self._n):
            yield row[1] if row is not None else ""

    def __reversed__(self) -> Iterator[str]:
        rows = self._rows
        for i in range(self._n - 1, -1, -1):
            row = rows[i][1]
            yield row[1] if row is not None else ""

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise InvalidIndexError(f"memories[{i}] does not exist: there are {self._n} earlier interactions, 0 … {self._n - 1}")
        row = self._rows[i][1]
        return row[1] if row is not None else ""
