"""Long synthetic scenarios with planted facts, questions at chosen distances, and distractors.

For teaching and tests: a conversation (:func:`generate_dialogue`) or a
tool-using agent (:func:`generate_agent`) of any length, deterministic from a
seed, in which a few *facts* are planted early and asked about later. Each
fact gives one :class:`~stmviz.scenarios.Probe`:

- the fact is stated in the input of its **evidence step** e (a user's
  message, a tool's result), and its value — the probe's ``answer`` — occurs
  in the text of no other step, nor in any question;
- the question about it is the input of step k = e + d, where d is the
  requested **distance**; it is answered in step k + 1's output, produced from
  π(ω_{k+1}), so the probe has t = k + 1 (the loop contract of
  :func:`stmviz.run`);
- **distractors** are similar-looking facts placed at random earlier steps
  (before the question): the same attribute of someone or something else
  (``my sister Talira's locker code`` against ``my locker code``; shipment
  ``HX-48231`` against ``HX-48213``), with a different value;
- every other step is filler: small talk, or routine tool calls.

The replies that follow a fact or a question are neutral ("Noted.", "Here is
what I have."), so the answer's only occurrence is the evidence step: whether
it is in π(ω_t) says whether the mechanism kept that step, raw or in a
summary that kept the value.

The scenario's ``meta`` records the generator, its seed and parameters, and,
aligned with ``probes``, each probe's ``distances`` and ``distractor_steps``.
Planted steps carry ``meta["planted"]`` (``"fact"``, ``"distractor"`` or
``"question"``) and ``meta["fact"]`` (the index of the probe they belong to).

>>> s = generate_dialogue(200, facts=3, distances=[5, 40, 150], seed=1)
>>> len(s), [p.t - 1 - p.evidence_step for p in s.probes] == list(s.meta["distances"])
(200, True)
>>> p = s.probes[0]
>>> p.answer in s.steps[p.evidence_step].observation, p.answer in p.question
(True, False)
>>> generate_dialogue(200, facts=3, distances=[5, 40, 150], seed=1) == s
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.context import AgentStep
from ..core.element import Meta
from ..core import guards
from ..core.errors import InvalidArgumentError
from .scenario import Probe, Scenario

__all__ = ["generate_dialogue", "generate_agent"]

# ----------------------------------------------------------------- parameters


def _plan_parameters(
    n_steps: Any, facts: Any, distances: Any, distractors: Any, seed: Any, where: str
) -> tuple[int, list[int], int]:
    """Check the parameters; return n, the distance of each fact, and the distractors per fact."""
    n = guards.whole_number(n_steps, "n_steps", 2, where=where)
    seed = guards.whole_number(seed, "seed", -(2**63), maximum=None, where=where)
    count = guards.whole_number(facts, "facts", 1, where=where, none_ok=True)
    wanted: list[Any]
    if distances is None or guards.as_int(distances) is not None:
        count = count if count is not None else max(1, min(16, n // 50))
        wanted = _default_distances(n, count) if distances is None else [guards.as_int(distances)] * count
    else:
        wanted = guards.nonempty(distances, "distances", where=where, what="whole numbers, one distance per fact",
                                 fix="; or one number for every fact")
        if count is not None and count != len(wanted):  # the two ways to say how many facts must agree
            raise InvalidArgumentError(
                f"{where}: facts = {count} but {len(wanted)} distances were given; give one distance per fact, or omit facts"
            )
    wanted = [
        guards.whole_number(d, "every distance (steps from the evidence to the question)", 1, maximum=n - 1, where=where)
        for d in wanted
    ]
    per_fact = max(0, min(2, n // len(wanted) - 2)) if distractors is None else guards.whole_number(
        distractors, "distractors", 0, where=where
    )
    needed = len(wanted) * (2 + per_fact)
    if needed > n:  # each fact, question and distractor takes a step of its own
        raise InvalidArgumentError(
            f"{where}: {len(wanted)} fact(s) with {per_fact} distractor(s) each need {needed} steps (a fact, its question "
            f"and its distractors each take one), but n_steps = {n}; ask for fewer facts or distractors, or more steps"
        )
    return n, wanted, per_fact


def _default_distances(n: int, count: int) -> list[int]:
    """Distances spread geometrically from 2 to about three quarters of the scenario."""
    low, high = min(2, n - 1), max(min(2, n - 1), (n - 1) * 3 // 4)
    if count == 1:
        return [high]
    ratio = (high / low) ** (1 / (count - 1))
    return [max(1, min(n - 1, round(low * ratio**i))) for i in range(count)]


@dataclass
class _Plan:
    """Where each fact, question and distractor goes (step numbers), facts in the order of their questions."""

    evidence: list[int]
    question: list[int]
    distractors: list[list[int]]
    distances: list[int]


def _place(rng: random.Random, n: int, distances: list[int], per_fact: int, *, apart: bool = False) -> _Plan:
    """Pick free steps for each fact's evidence e and question k = e + d, and for its distractors before k.

    The longest distances are placed first (they have the fewest choices). A
    question step is chosen uniformly among the free steps k whose step k − d
    is free too and before which enough free steps are left for the
    distractors; the distractors take a uniform sample of those. So the plan
    depends only on the seed. With ``apart``, no two questions are in
    consecutive steps (an agent's question is an input-only step, and the
    step after it holds the answer).
    """
    free = [True] * n
    evidence, question = [0] * len(distances), [0] * len(distances)
    planted: list[list[int]] = [[] for _ in distances]
    asked: set[int] = set()
    for i in sorted(range(len(distances)), key=lambda i: -distances[i]):
        d = distances[i]
        before = [0] * (n + 1)  # before[k]: free steps in 0 … k − 1
        for s, is_free in enumerate(free):
            before[s + 1] = before[s] + is_free
        options = [
            k for k in range(d, n)
            if free[k] and free[k - d] and before[k] - 1 >= per_fact
            and not (apart and (k - 1 in asked or k + 1 in asked))
        ]
        if not options:  # the plan's own rule: the steps left cannot hold this fact
            raise InvalidArgumentError(
                f"no free pair of steps {d} apart, with {per_fact} free step(s) before the question for the "
                f"distractors, is left for fact {i} in {n} steps; ask for fewer facts or distractors, shorter "
                f"distances or more steps"
            )
        k = rng.choice(options)
        asked.add(k)
        free[k] = free[k - d] = False
        evidence[i], question[i] = k - d, k
        planted[i] = sorted(rng.sample([s for s in range(k) if free[s]], per_fact))
        for s in planted[i]:
            free[s] = False
    order = sorted(range(len(distances)), key=lambda i: (question[i], evidence[i]))  # the probes' order
    return _Plan([evidence[i] for i in order], [question[i] for i in order], [planted[i] for i in order],
                 [distances[i] for i in order])


# ----------------------------------------------------------------- values that occur once


_SYLLABLES = (
    "ta", "lo", "mi", "ren", "vor", "sel", "dan", "ri", "ka", "bel", "nor", "vi", "sa", "tor", "li", "mar",
    "zen", "qui", "fa", "dol", "ny", "wen", "ox", "bre", "gal", "thu", "ira", "pel", "cas", "ul",
)
_WORDS = (
    "amber", "falcon", "cedar", "harbor", "lantern", "meadow", "copper", "willow", "thistle", "glacier",
    "ember", "saffron", "orchid", "pebble", "juniper", "quartz", "heron", "marble", "nutmeg", "violet",
)


class _Fresh:
    """Makes values that occur only once: none is a substring of another, or of the fixed texts of the scenario."""

    def __init__(self, rng: random.Random, fixed_text: str) -> None:
        self.rng = rng
        self.fixed = fixed_text.casefold()
        self.used: list[str] = []

    def __call__(self, make: Callable[[random.Random], str]) -> str:
        for _ in range(1000):
            value = make(self.rng)
            key = value.casefold()
            if key in self.fixed or any(key in old or old in key for old in self.used):
                continue
            self.used.append(key)
            return value
        # the generator's own limit (a thousand draws), not an argument's type
        raise InvalidArgumentError("could not make enough distinct values; ask for fewer facts or distractors")


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 3)))).capitalize()


def _digits(rng: random.Random, count: int) -> str:
    return str(rng.randrange(1, 10)) + "".join(str(rng.randrange(10)) for _ in range(count - 1))


def _letters(rng: random.Random, count: int) -> str:
    return "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(count))


# ----------------------------------------------------------------- the dialogue


# (attribute as spoken, the value's maker): the user tells the assistant these
_PERSONAL: tuple[tuple[str, Callable[[random.Random], str]], ...] = (
    ("locker code at the gym", lambda r: _digits(r, 4)),
    ("cat's name", _name),
    ("licence plate", lambda r: f"{_letters(r, 2)} {_digits(r, 3)} {_letters(r, 2)}"),
    ("wifi password", lambda r: f"{r.choice(_WORDS)}-{r.choice(_WORDS)}-{_digits(r, 2)}"),
    ("flight number", lambda r: f"{_letters(r, 2)} {_digits(r, 4)}"),
    ("dentist appointment time", lambda r: f"{r.randrange(8, 18)}:{r.randrange(60):02d}"),
    ("favourite restaurant", lambda r: f"{_name(r)} {r.choice(('Grill', 'Bistro', 'Kitchen', 'Tavern'))}"),
    ("parcel tracking number", lambda r: f"PW{_digits(r, 9)}"),
    ("hotel room number", lambda r: f"room {_digits(r, 3)}"),
    ("doctor's name", lambda r: f"Dr {_name(r)}"),
    ("bike lock combination", lambda r: "-".join(_digits(r, 2) for _ in range(3))),
    ("library card number", lambda r: f"LC-{_digits(r, 6)}"),
)
_RELATIONS = ("sister", "brother", "neighbour", "colleague", "friend", "cousin", "landlord", "boss")

_FACT_OPENERS = ("By the way,", "Just so you know,", "Please remember this for later:", "Oh, one more thing:",
                 "Before I forget,", "Something you should know:")
_QUESTION_OPENERS = ("Quick question:", "Can you remind me:", "I forgot,", "One thing I need now:", "Tell me,")
_ACKS = ("Got it, I will keep that in mind.", "Noted.", "Thanks, I have noted that.", "Understood, noted.")
_ANSWER_REPLIES = ("Here is what I have from earlier.", "Let me answer that from what you told me.",
                   "Answering from our conversation so far.")
_FILLER_OPENERS = ("So,", "Anyway,", "Today", "Yesterday", "This morning", "Last weekend", "Honestly,", "Also,")
_FILLER_DOING = (
    "I went for a long walk by the river", "I tried a new recipe with lentils and spinach",
    "I spent an hour tidying the garage", "I watched a documentary about glaciers", "I fixed the squeaky door",
    "I read a few chapters of a mystery novel", "I called my aunt to catch up", "I repotted the basil",
    "I sorted out a pile of old photos", "I practised the piano for a while", "I cleaned the windows",
    "I went to the market for vegetables", "I tried to learn a card trick", "I baked bread that came out flat",
)
_FILLER_COMMENTS = (
    "It was more tiring than I expected.", "The weather was grey but mild.", "I felt quite relaxed afterwards.",
    "I am not sure I will do that again.", "It reminded me of being a child.", "It took much longer than planned.",
    "The neighbours' dog barked the whole time.", "I would like to do more of that.", "Nothing special, really.",
)
_FILLER_REPLIES = (
    "That sounds like a nice way to spend the time.", "How did that make you feel?", "Interesting, tell me more.",
    "That sounds tiring but worth it.", "I hope the rest of the day is calmer.", "Good to hear from you.",
    "What would you like to do next?", "That is a good habit to keep.",
)
_OPENING = "Hi! I would like to chat for a while as I go through my week."
_DIALOGUE_QUERY = "You are a helpful personal assistant. Remember what the user tells you; answer their questions."

_DIALOGUE_TEXT = " ".join(
    [*_FACT_OPENERS, *_QUESTION_OPENERS, *_ACKS, *_ANSWER_REPLIES, *_FILLER_OPENERS, *_FILLER_DOING,
     *_FILLER_COMMENTS, *_FILLER_REPLIES, _OPENING, _DIALOGUE_QUERY, *(a for a, _ in _PERSONAL), *_RELATIONS,
     "what is my is the"]
)


@dataclass
class _Fact:
    """One planted fact and the similar-looking distractors about it."""

    statement: str
    question: str
    answer: str
    distractors: list[str]


def _personal_facts(rng: random.Random, fresh: _Fresh, count: int, per_fact: int) -> list[_Fact]:
    facts = []
    mine: set[str] = set()  # attributes already used with owner "my"
    for _ in range(count):
        attribute, make = rng.choice(_PERSONAL)
        if attribute not in mine and rng.random() < 0.5:
            mine.add(attribute)
            owner = "my"
        else:
            owner = f"my {rng.choice(_RELATIONS)} {fresh(_name)}'s"
        value = fresh(make)
        others = []
        for _ in range(per_fact):
            other = f"my {rng.choice(_RELATIONS)} {fresh(_name)}'s"
            others.append(f"{rng.choice(_FACT_OPENERS)} {other} {attribute} is {fresh(make)}.")
        facts.append(_Fact(
            statement=f"{rng.choice(_FACT_OPENERS)} {owner} {attribute} is {value}.",
            question=f"{rng.choice(_QUESTION_OPENERS)} what is {owner} {attribute}?",
            answer=value,
            distractors=others,
        ))
    return facts


def _filler_message(rng: random.Random) -> str:
    return f"{rng.choice(_FILLER_OPENERS)} {rng.choice(_FILLER_DOING)}. {rng.choice(_FILLER_COMMENTS)}"


def generate_dialogue(
    n_steps: int,
    *,
    facts: int | None = None,
    distances: int | Sequence[int] | None = None,
    distractors: int | None = None,
    seed: int = 0,
    name: str | None = None,
    v_max: float | None = None,
    mechanism: str | None = "SCM",
) -> Scenario:
    """A long synthetic conversation with personal facts planted early and asked about later.

    Steps follow :func:`~stmviz.scenarios.from_dialogue`: step 0 holds the
    user's first message; step s ≥ 1 holds the assistant's reply, then the
    user's next message. Facts ("By the way, my sister Talira's locker code at
    the gym is 4821."), distractors (the same attribute of another person)
    and questions ("Quick question: what is my sister Talira's locker code at
    the gym?") are user messages; the rest is small talk.

    Parameters
    ----------
    n_steps : int
        The number of steps (≥ 2).
    facts : int, optional
        How many facts to plant, one probe each (default: one per 50 steps,
        1 … 16; or the length of a list of ``distances``).
    distances : int or sequence of int, optional
        The distance d = k − e of each fact, from its evidence step e to the
        step k whose input asks about it (1 ≤ d ≤ n_steps − 1); the probe has
        t = k + 1, so t − e = d + 1. One number applies to every fact. Default:
        spread geometrically from 2 to about ¾ of the scenario.
    distractors : int, optional
        Similar-looking facts per planted fact, at random steps before its
        question (default 2, fewer when the scenario is too short).
    seed : int
        The same seed gives an identical scenario.
    name, v_max, mechanism : optional
        Passed to :class:`~stmviz.scenarios.Scenario` (``name`` defaults to
        ``"synthetic_dialogue_<n_steps>_seed<seed>"``).

    Raises
    ------
    InvalidArgumentError
        if a parameter is out of range, or the facts, questions and
        distractors do not fit in ``n_steps`` (each takes a step).
    """
    n, wanted, per_fact = _plan_parameters(n_steps, facts, distances, distractors, seed, "generate_dialogue")
    rng = random.Random(seed)
    plan = _place(rng, n, wanted, per_fact)
    planted = _personal_facts(rng, _Fresh(rng, _DIALOGUE_TEXT), len(wanted), per_fact)
    messages: list[tuple[str, dict[str, Any]]] = [("", {})] * n
    for i, fact in enumerate(planted):
        messages[plan.evidence[i]] = (fact.statement, {"planted": "fact", "fact": i})
        messages[plan.question[i]] = (fact.question, {"planted": "question", "fact": i})
        for s, text in zip(plan.distractors[i], fact.distractors):
            messages[s] = (text, {"planted": "distractor", "fact": i})
    steps = []
    for s in range(n):
        text, meta = messages[s]
        if not text:
            text = _OPENING if s == 0 else _filler_message(rng)
        previous = messages[s - 1][1].get("planted") if s else None
        if s == 0:
            reply = ""
        elif previous == "question":
            reply = rng.choice(_ANSWER_REPLIES)
        elif previous in ("fact", "distractor"):
            reply = rng.choice(_ACKS)
        else:
            reply = rng.choice(_FILLER_REPLIES)
        steps.append(AgentStep(thought=reply, observation=text, meta={"role": "user", **meta}))
    return _scenario(
        steps, planted, plan, name=name or f"synthetic_dialogue_{n}_seed{seed}", kind="dialogue",
        seed=seed, per_fact=per_fact, query=_DIALOGUE_QUERY, tools=(), v_max=v_max, mechanism=mechanism,
    )


# ----------------------------------------------------------------- the agent


def _window(rng: random.Random) -> str:
    start, minutes = rng.randrange(6, 18), rng.choice(("00", "10", "15", "20", "30", "40", "45", "50"))
    return f"{start:02d}:{minutes} to {start + rng.randrange(1, 4):02d}:{rng.choice(('00', '15', '30', '45'))}"


# (attribute in a record, the value's maker): a shipment record holds these
_RECORD: tuple[tuple[str, Callable[[random.Random], str]], ...] = (
    ("seal number", lambda r: f"S-{_digits(r, 4)}-{_letters(r, 1)}"),
    ("carrier", lambda r: f"{_name(r)} Freight"),
    ("destination", lambda r: f"Port {_name(r)}"),
    ("pallet count", lambda r: f"{r.randrange(100, 1000)} pallets"),
    ("customs reference", lambda r: f"CR/{_digits(r, 3)}/{_letters(r, 2)}"),
    ("consignee", lambda r: f"{_name(r)} {_name(r)}"),
    ("delivery window", _window),
    ("gross weight", lambda r: f"{r.randrange(1, 30)},{_digits(r, 3)} kg"),
)
_AGENT_QUERY = (
    "You are an operations agent at the Harbourline depot. Work through the shipment audit queue with the tools, "
    "and answer the supervisor's questions when they come in."
)
_AGENT_TOOLS = (
    "list_queue(): the next shipments waiting for an audit",
    "lookup(shipment_id): the shipment's record",
    "check_dock(dock): the dock's status",
    "note(text): write a line to the audit log",
)
_DOCKS = ("north", "south", "east", "west", "river", "rail", "cold store", "overflow")
_DOCK_STATES = (
    "two trailers waiting, forklift available, no incidents", "quiet, one crew on a break",
    "busy, a trailer is being unloaded", "closed for cleaning until the next shift", "all bays free",
    "one trailer waiting for a seal check",
)
_AUDIT_LINES = ("record complete, no issues", "documents checked, status cleared", "paperwork in order",
                "status cleared after a second look", "no discrepancies found")
_AGENT_THOUGHTS = ("Next I audit the queue.", "Keep going through the queue.", "Check the docks before the next batch.",
                   "Write down what I found.", "Look at the next shipment.")
_SUPERVISOR = ("Supervisor:", "Message from the supervisor:", "Supervisor, on the radio:")
_AGENT_TEXT = " ".join(
    [_AGENT_QUERY, *_AGENT_TOOLS, *_DOCKS, *_DOCK_STATES, *_AUDIT_LINES, *_AGENT_THOUGHTS, *_SUPERVISOR,
     *(a for a, _ in _RECORD), "Shipment shipment what is the of Noted in the audit log. Next in queue:",
     "I answer the supervisor from my notes, then return to the queue. Batch audit queue"]
)


def _shipment_id(rng: random.Random) -> str:
    return f"HX-{_digits(rng, 5)}"


def _lookalike(rng: random.Random, shipment: str) -> Callable[[random.Random], str]:
    """A maker of ids that differ from ``shipment`` by two swapped or one changed digit."""
    digits = shipment[3:]

    def make(r: random.Random) -> str:
        chars = list(digits)
        i = r.randrange(len(chars) - 1)
        if chars[i] != chars[i + 1] and r.random() < 0.5:
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        else:
            j = r.randrange(1, len(chars))
            chars[j] = r.choice([c for c in "0123456789" if c != chars[j]])
        return "HX-" + "".join(chars)

    return make


def _record(shipment: str, fields: list[tuple[str, str]]) -> str:
    return f"Shipment {shipment}: " + "; ".join(f"{attribute} {value}" for attribute, value in fields) + "."


def _shipment_facts(rng: random.Random, fresh: _Fresh, count: int, per_fact: int) -> list[tuple[_Fact, str, list[str]]]:
    """Each fact with its shipment id and the ids of its distractors."""
    out = []
    for _ in range(count):
        attribute, make = rng.choice(_RECORD)
        shipment = fresh(_shipment_id)
        others = [a for a in _RECORD if a[0] != attribute]
        context = [(a, fresh(m)) for a, m in rng.sample(others, 2)]
        value = fresh(make)
        fields = [*context, (attribute, value)]
        rng.shuffle(fields)
        distractor_texts, distractor_ids = [], []
        for _ in range(per_fact):
            other = fresh(_lookalike(rng, shipment))
            extra = [(a, fresh(m)) for a, m in rng.sample(others, 2)] + [(attribute, fresh(make))]
            rng.shuffle(extra)
            distractor_texts.append(_record(other, extra))
            distractor_ids.append(other)
        fact = _Fact(
            statement=_record(shipment, fields),
            question=f"{rng.choice(_SUPERVISOR)} what is the {attribute} of shipment {shipment}?",
            answer=value,
            distractors=distractor_texts,
        )
        out.append((fact, shipment, distractor_ids))
    return out


def generate_agent(
    n_steps: int,
    *,
    facts: int | None = None,
    distances: int | Sequence[int] | None = None,
    distractors: int | None = None,
    seed: int = 0,
    phase: int = 20,
    name: str | None = None,
    v_max: float | None = None,
    mechanism: str | None = "HiAgent",
) -> Scenario:
    """A long synthetic tool-using agent: a shipment audit, with records planted early and asked about later.

    Each step holds the agent's thought and tool call, then the tool's result
    — except a question, which is an input-only step from the supervisor
    (``meta["role"] = "user"``, as :func:`~stmviz.scenarios.from_openai_messages`
    makes a user message that follows tool results). A fact is the result of
    ``lookup("HX-48213")`` — a record of three fields, one of which is asked
    about ("what is the seal number of shipment HX-48213?"); a distractor is
    the record of a look-alike shipment (``HX-48231``) with the same field.
    Every ``phase`` steps the agent starts a new subgoal ("Audit batch 3"),
    for HiAgent.

    Parameters are those of :func:`generate_dialogue`, and

    phase : int
        Steps per subgoal (≥ 1).

    Raises
    ------
    InvalidArgumentError
        if a parameter is out of range or the planted steps do not fit.
    """
    n, wanted, per_fact = _plan_parameters(n_steps, facts, distances, distractors, seed, "generate_agent")
    phase = guards.whole_number(phase, "phase", 1, where="generate_agent")
    rng = random.Random(seed)
    plan = _place(rng, n, wanted, per_fact, apart=True)
    fresh = _Fresh(rng, _AGENT_TEXT)
    planted = _shipment_facts(rng, fresh, len(wanted), per_fact)
    kinds: list[tuple[str, dict[str, Any]]] = [("", {})] * n
    for i, (fact, shipment, others) in enumerate(planted):
        kinds[plan.evidence[i]] = (shipment, {"planted": "fact", "fact": i})
        kinds[plan.question[i]] = (fact.question, {"planted": "question", "fact": i})
        for s, other in zip(plan.distractors[i], others):
            kinds[s] = (other, {"planted": "distractor", "fact": i})
    texts = {}
    for i, (fact, shipment, others) in enumerate(planted):
        texts[shipment] = fact.statement
        texts.update(zip(others, fact.distractors))
    taken = set(texts)
    steps = []
    subgoal = -1
    for s in range(n):
        key, meta = kinds[s]
        if meta.get("planted") == "question":
            steps.append(AgentStep(observation=key, meta={"role": "user", **meta}))
            continue
        directives: dict[str, Any] = {}
        if s // phase > subgoal:
            subgoal = s // phase
            directives["subgoal"] = f"Audit batch {subgoal + 1} of the queue"
        after_question = s > 0 and kinds[s - 1][1].get("planted") == "question"
        thought = (
            "I answer the supervisor from my notes, then return to the queue."
            if after_question else rng.choice(_AGENT_THOUGHTS)
        )
        if meta.get("planted") in ("fact", "distractor"):
            action, observation = f'lookup("{key}")', texts[key]
        else:
            action, observation = _filler_call(rng, taken)
        steps.append(AgentStep(thought=thought, action=action, observation=observation, directives=directives,
                               meta={"role": "tool", **meta}))
    return _scenario(
        steps, [fact for fact, _, _ in planted], plan, name=name or f"synthetic_agent_{n}_seed{seed}",
        kind="agent", seed=seed, per_fact=per_fact, query=_AGENT_QUERY, tools=_AGENT_TOOLS, v_max=v_max,
        mechanism=mechanism,
    )


def _filler_call(rng: random.Random, planted: set[str]) -> tuple[str, str]:
    """A routine tool call and its result, with no value that a probe asks about and no planted shipment."""

    def other_shipment() -> str:
        while (shipment := _shipment_id(rng)) in planted:
            pass
        return shipment

    kind = rng.randrange(4)
    if kind == 0:
        queue = ", ".join(other_shipment() for _ in range(3))
        return "list_queue()", f"Next in queue: {queue}."
    if kind == 1:
        shipment = other_shipment()
        return f'lookup("{shipment}")', f"Shipment {shipment}: {rng.choice(_AUDIT_LINES)}."
    if kind == 2:
        dock = rng.choice(_DOCKS)
        return f'check_dock("{dock}")', f"The {dock} dock: {rng.choice(_DOCK_STATES)}."
    line = rng.choice(_AUDIT_LINES)
    return f'note("{line}")', "Noted in the audit log."


# ----------------------------------------------------------------- the scenario


def _scenario(
    steps: list[AgentStep], facts: list[_Fact], plan: _Plan, *, name: str, kind: str, seed: int, per_fact: int,
    query: str, tools: Sequence[str], v_max: float | None, mechanism: str | None,
) -> Scenario:
    v_max = guards.capacity(v_max, where=f"generate_{kind}", none_ok=True)
    probes = [
        Probe(t=k + 1, question=fact.question, answer=fact.answer, evidence_step=e)
        for fact, e, k in zip(facts, plan.evidence, plan.question)
    ]
    meta = {
        "generator": f"stmviz.scenarios.generate_{kind}",
        "seed": seed,
        "n_steps": len(steps),
        "distractors_per_fact": per_fact,
        "distances": plan.distances,
        "distractor_steps": plan.distractors,
        "license": "MIT",
        "note": "Synthetic: people, shipments and values are made up from a seed.",
    }
    title = "Synthetic dialogue" if kind == "dialogue" else "Synthetic agent (shipment audit)"
    description = (
        f"{len(steps)} generated steps (seed {seed}) with {len(facts)} planted fact(s), each asked about later at "
        f"distances {', '.join(map(str, plan.distances))}, and {per_fact} similar-looking distractor(s) per fact."
    )
    return Scenario(
        name=name, title=title, description=description, query=query, tools=tuple(tools), steps=tuple(steps),
        probes=tuple(probes), v_max=v_max, mechanism=mechanism, meta=Meta(meta),
    )
