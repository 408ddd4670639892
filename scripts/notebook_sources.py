"""Cell sources of the tutorial notebooks: ("md", text) and ("code", text) pairs, in order.

Edit here, then run ``python scripts/build_notebooks.py`` to rewrite and re-execute the notebooks.
"""

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {}


def notebook(name):
    def register(fn):
        NOTEBOOKS[name] = fn()
        return fn

    return register


def md(text):
    return ("md", text)


def code(text):
    return ("code", text)


@notebook("01_definition1_state_space")
def _():
    return [
        md(r"""
# 1 · Definition 1 — the state space of an agent's short-term memory

The paper separates an agent's short-term memory (STM) into a **carrier** — the current state,
a store of memory elements — and a **mechanism** that manages it. This notebook is about the
carrier. Definition 1 says which states are possible:

$$\Omega_{STM} = \{\, \omega \in 2^{E} \;\mid\; \textstyle\sum_{e \in \omega} \mu(e) \le V_{max} \,\}$$

| symbol | meaning | in stmviz |
|---|---|---|
| $e = (i, d) \in E = I \times D$ | an element: content $i$ and metadata $d$ | `Element(content, meta)` |
| $D = D_1 \times \dots \times D_k$ | metadata components (priority, source, time, …) | `element.meta` |
| $\mu : E \to \mathbb{R}^+$ | the size of an element (e.g. its tokens) | `sizes.tokens()`, `sizes.chars`, … |
| $V_{max}$ | the capacity | `StateSpace(μ, v_max)` |
| $\omega$ | the current state: a **set** of elements | `State` |
"""),
        code("""
from stmviz import Element, ImagePart, State, StateSpace, sizes
from stmviz.errors import CapacityError
"""),
        md(r"""
## Elements $e = (i, d)$

An element pairs an information carrier $i$ — here a sentence — with metadata $d$. The paper's
example uses two metadata components: a priority $D_1 = \{low, medium, high\}$ and a source
$D_2 = \{user, model, api\}$. We add a time $t$, which later lets a mechanism evict the oldest.
"""),
        code("""
allergy = Element("The user is allergic to peanuts.", {"t": 0, "priority": "high", "source": "user"})
weather = Element("Weather API: 14 °C and light rain in Riga.", {"t": 1, "priority": "low", "source": "api"})
plan = Element("I will suggest three nut-free restaurants.", {"t": 2, "priority": "medium", "source": "model"})
allergy
"""),
        code("""
allergy.meta["priority"], allergy.meta["source"]
"""),
        md(r"""
Elements are immutable and hashable, so a state can be a true set of them. Metadata is frozen
when the element is made: changing it means making a new element.
"""),
        code("""
louder = allergy.with_meta(priority="critical")
allergy.meta["priority"], louder.meta["priority"], allergy == louder
"""),
        md(r"""
## The size function $\mu$

Elements differ in size and modality, so the definition needs $\mu$. The usual choice is the
number of tokens the model will spend on the element. stmviz counts them with tiktoken's
`cl100k_base` encoding, offline.
"""),
        code("""
mu = sizes.tokens()
{e.text: mu(e) for e in (allergy, weather, plan)}
"""),
        code("""
sizes.chars(allergy), sizes.words(allergy)
"""),
        md(r"""
**Multimodal content.** An element is still a pair $(i, d)$; the alphabet behind $I$ just has to
represent every modality used. An image is represented by a reference and its pixel size, and
$\mu$ counts it with the published tile formula for vision models: 85 tokens, plus 170 per
512-pixel tile after scaling.
"""),
        code("""
chart = Element(("Here is the sales chart:", ImagePart("sales.png", width=1024, height=768)),
                {"t": 3, "source": "user"})
mu(chart), sizes.image_tokens(1024, 768)
"""),
        md(r"""
## Capacity $V_{max}$ and membership in $\Omega_{STM}$

A `StateSpace` fixes $\mu$ and $V_{max}$. A state belongs to it when its total size fits.
"""),
        code("""
space = StateSpace(mu, v_max=40)
omega = State([allergy, weather, plan])
space.size(omega), space.free(omega), omega in space
"""),
        md(r"""
## When a state does not fit

Adding the chart makes $\sum \mu(e)$ larger than $V_{max}$: the new set is not a point of
$\Omega_{STM}$. `space.contains` (and `in`) answers *no*; `space.check` explains why, in the
paper's notation. Some mechanism has to decide what to drop — that is Definition 2's job.
"""),
        code("""
bigger = omega | {chart}
bigger in space
"""),
        code("""
try:
    space.check(bigger)
except CapacityError as error:
    print(error)
"""),
        md(r"""
## Why a state is a set, and where order comes from

Definition 1 deliberately imposes **no order** on the elements. Two states with the same
elements are the same state, whatever order they were built in:
"""),
        code("""
State([plan, allergy, weather]) == State([allergy, weather, plan])
"""),
        md(r"""
Any order — by time, by priority — is expressed through metadata and applied where it is needed,
typically by the projection $\pi$ that turns the state into model input. stmviz lists a state in
one canonical order (by `meta["t"]`, then a stable id) so that printed output is reproducible;
a priority order is just another view:
"""),
        code("""
[e.text for e in omega]
"""),
        code("""
rank = {"high": 0, "medium": 1, "low": 2}
[e.text for e in sorted(omega, key=lambda e: rank[e.meta["priority"]])]
"""),
        md(r"""
## Exercise · is it a state?

Write `in_omega(elements, mu, v_max)`: `True` when the set made of `elements` is a state of
$\Omega_{STM}$, else `False` — straight from Definition 1, without `StateSpace`. The checker tries
it on small states measured in words: at the boundary, just over it, with a few large and many
small elements, and with an element listed twice.
"""),
        code("""
from stmviz.exercises import check_membership

def in_omega(elements, mu, v_max):
    # TODO: True when the set of `elements` is in Ω_STM (Definition 1), else False
    raise NotImplementedError("TODO: write in_omega")
"""),
        code("""
check_membership(in_omega)
"""),
        md(r"""
Each ✗ comes with a hint. Only after trying: `stmviz.exercises.solution("01-membership")` prints
one answer. More to try: lower `v_max` to 20 above — which of the three elements still fit together?
Give `weather` a huge `ImagePart` and watch $\mu$ grow.

## What to take away

* A state $\omega$ is a **set** of elements $e = (i, d)$ — content and metadata: no order, no
  duplicates. An order (by time, by priority) is a view, applied later by $\pi$.
* $\mu : E \to \mathbb{R}^+$ measures each element (tokens here, pixels turned into tokens for
  an image); $\Omega_{STM}$ holds exactly the sets with $\sum_{e \in \omega} \mu(e) \le V_{max}$ —
  equality included.
* Metadata $D = D_1 \times \dots \times D_k$ (priority, source, time) belongs to the element; it
  is what a mechanism can later decide by.
* Definition 1 only says which states are allowed. What happens when a new element would not fit
  is the mechanism's job: **02 · Definition 2**.
"""),
    ]


@notebook("02_definition2_mechanism")
def _():
    return [
        md(r"""
# 2 · Definition 2 — the mechanism that updates the memory

Definition 1 says which states are possible. Definition 2 says how the state **changes**. A
mechanism is the seven-tuple

$$(O,\; E,\; \Omega_{STM},\; C,\; U,\; X,\; \pi)$$

| symbol | meaning | in stmviz |
|---|---|---|
| $O = \bigcup_{a \in \tau} O_a$ | operations, grouped by type $a \in \tau$ | `Operation(type, params)`, `Mechanism.operations` |
| $E, \Omega_{STM}$ | elements and states (Definition 1) | `Element`, `StateSpace` |
| $C \subseteq C_1 \times \dots \times C_n$ | context information — **not** the context window | `Context` |
| $U : \Omega_{STM} \times O \times C \to \Omega_{STM}$ | the update | `Mechanism.update(state, operation, context)` |
| $X$ | the model's input space | `ModelInput` |
| $\pi : \Omega_{STM} \to X$ | the projection of the *whole* state into model input | `Mechanism.project(state)` |
"""),
        code("""
from stmviz import (AgentStep, Context, Element, Mechanism, Operation, OperationSet, State,
                    StateSpace, Transition, check_mechanism, run, sizes)
"""),
        md(r"""
## Operations $O$ and their types $\tau$

The paper fixes no particular set of operations. Each operation has a type $a \in \tau$; a
mechanism declares its types, so $O$ can be listed and shown.
"""),
        code("""
O = OperationSet({"append": "add the new observation",
                  "evict": "drop the lowest-priority, oldest element"})
O.types, Operation("evict", {"count": 1}) in O, Operation("fold") in O
"""),
        md(r"""
## Context $C$

$C$ is what the update may use: (1) the current request or input, (2) results of auxiliary model
calls, (3) request metadata. In stmviz a `Context` $c_t$ carries the agent step $t$ together with
the query, the tools, the step history and metadata.

**What a step holds, and in which order.** An `AgentStep` has two halves, in the order they
happen:

1. **the model's output** — `thought`, `action`, and any `directives` for the memory (a fold, a
   subgoal) — which the model produced from $x_t = \pi(\omega_t)$;
2. **the input that arrives after it** — `observation`: the tool's result when there is an
   action, else the user's next message (`meta["role"]` says whose). The model sees it from
   $x_{t+1} = \pi(\omega_{t+1})$ on.

`step.has_output` / `step.output` and `step.has_input` / `step.input` name the two halves. Either
may be missing: step 0 of a conversation holds the user's first message and no output (no model
call yet), and a conversation that ends on a reply ends with an output and no input.
"""),
        code("""
c = Context(t=4, step=AgentStep(thought="The user wants dinner.", action="search('nut-free')",
                                observation="3 restaurants found"),
            query="Plan a dinner", meta={"user": "ada"})
c.step.output, c.step.input, c.step.input_role, c["user"]
"""),
        code("""
first = AgentStep(observation="Hi! I am allergic to peanuts.", meta={"role": "user"})
first.has_output, first.has_input
"""),
        md(r"""
## A mechanism in a few lines: a sliding window

Here is a complete mechanism. $U$ adds the step's output, then its input — each as an element
stamped with its time, the output first because it came first — then, while
$\sum\mu > V_{max}$, drops the oldest element and says why. $\pi$ renders the state as
numbered lines, oldest first. The framework checks every result of $U$ against $\Omega_{STM}$.
(Notebook 08 asks you to write a smarter one that uses metadata.)
"""),
        code("""
class SlidingWindow(Mechanism):
    operations = {"append": "add the output and the input; on overflow drop the oldest"}

    def update(self, state, operation, context):
        halves = (context.step.output, context.step.input)  # the model's output, then the input after it
        state = state | {Element(text, {"t": context.t + k / 2}) for k, text in enumerate(halves) if text}
        reasons = {}
        for oldest in list(state):  # canonical order: by time
            if state in self.space:
                break
            state = state - {oldest}
            reasons[oldest] = f"oldest (step {int(oldest.meta['t'])}); Σμ > V_max"
        return Transition(state, reasons)

    def project(self, state):
        return "\\n".join(f"{k}. {e.text}" for k, e in enumerate(state, 1))

mechanism = SlidingWindow(StateSpace(sizes.tokens(), v_max=30))
"""),
        md(r"""
`check_mechanism` is the contract test a student runs on their own mechanism: $U$ stays in
$\Omega_{STM}$ (closure), leaves its inputs unchanged and is repeatable (purity), $\pi$ is
deterministic, and every declared operation type is handled.
"""),
        code("""
print(check_mechanism(mechanism))
"""),
        md(r"""
## The loop of Figure 1

At each step $t$ the mechanism projects the state, $x_t = \pi(\omega_t)$, and sends it to the
model; the model's output — and then the input that arrives after it — become the context
$c_t$; the controller picks an operation $o_t$; and $\omega_{t+1} = U(\omega_t, o_t, c_t)$.
`run` drives this loop over a stream of steps and records a `Trace`.

The trace answers, for every model output, *what did the model see when it produced this?*
`trace.project(t)` is $\pi(\omega_t)$: exactly the input from which step $t$'s output
(`trace[t].context.step.output`) was produced, and `trace[t].input_size` is its size
$|\pi(\omega_t)|$ in tokens. A step's input is not in $\pi(\omega_t)$ yet: it enters $\omega$
through $U$ and is seen from $\pi(\omega_{t+1})$ on. `trace.describe(t)` says it in words.

Each string below is a step with an input only (an observation, no model call):
"""),
        code("""
steps = [
    "The user is allergic to peanuts.",
    "It is raining in Riga today.",
    "The user prefers Italian food.",
    "The API returned 42 restaurants near the old town.",
    "Booking must be for 19:30 on Friday.",
]
trace = run(mechanism, steps)
print(trace.table(width=0))
"""),
        md(r"""
The trace keeps every step — the operation, what was added and removed and *why* — as diffs,
and rebuilds any $\omega_t$ on demand. Here is what the model would see after the last step:
"""),
        code("""
print(mechanism.project(trace.final))
"""),
        md(r"""
### Which input produced which output

A short conversation: the user speaks first (step 0: an input, no output); each reply is the
output of the next step, produced from $\pi(\omega_t)$, which holds the message it answers; the
last reply has no input after it.
"""),
        code("""
talk = run(mechanism, [
    AgentStep(observation="Hi! I am allergic to peanuts.", meta={"role": "user"}),
    AgentStep(thought="Noted: no peanuts.", observation="Find me a restaurant for tonight.", meta={"role": "user"}),
    AgentStep(thought="Trattoria Riga has a nut-free menu."),
])
for t in range(len(talk) + 1):
    print(talk.describe(t))
"""),
        code("""
print(talk.project(2).text())  # what the model saw when it answered "Trattoria Riga ..."
"""),
        code("""
len(trace), [e.text for e in trace.state_at(2)]
"""),
        md(r"""
$X$ is the model's input space. `ModelInput` holds messages and converts to the chat format an
API takes:
"""),
        code("""
mechanism.input(trace.final).to_messages()
"""),
        md(r"""
## Exercise · a window that never forgets the task

The window above forgot the allergy, the first thing it heard. Write `KeepFirst`: the same
sliding window, except that its $U$ never evicts the element of step 0 (the task). $U$ must
still land in $\Omega_{STM}$, so it evicts the others — the oldest first, and only while
$\sum\mu > V_{max}$. The checker runs `check_mechanism` and replays a six-step stream
(`stmviz.exercises.KEEP_FIRST_STEPS`) at $\mu$ = words, $V_{max} = 40$.
"""),
        code("""
from stmviz.exercises import check_keep_first

class KeepFirst(SlidingWindow):  # inherits O and π; only U changes
    def update(self, state, operation, context):
        # TODO: as SlidingWindow.update, but never evict the element of step 0 (its meta["t"] is below 1)
        raise NotImplementedError("TODO: write KeepFirst.update")
"""),
        code("""
check_keep_first(KeepFirst)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("02-keep-first")` prints one answer. Also try to
break the contract on purpose — drop the eviction loop — and read what `check_mechanism` says.

## What to take away

* A mechanism is the seven-tuple $(O, E, \Omega_{STM}, C, U, X, \pi)$: typed operations, the
  elements and states of Definition 1, the context $c_t$ (not the context window), the update $U$,
  the model's input space $X$ and the projection $\pi$.
* $U : \Omega_{STM} \times O \times C \to \Omega_{STM}$ must land in $\Omega_{STM}$: what does
  not fit is evicted, summarized or refused, and the trace records which rule did it.
* $\pi$ projects the **whole** state into the model's input: STM has no retrieval step; all
  selection happens in $U$.
* Step $t$'s output was produced from $\pi(\omega_t)$; its input enters $\omega$ through $U$ and
  is seen from $\pi(\omega_{t+1})$ on.
* `check_mechanism` tests the contract: closure, purity, a deterministic $\pi$, declared operations.

Next: **03 · The context window as FIFO**, the simplest mechanism of Section 4.
"""),
    ]


@notebook("00_start_here")
def _():
    return [
        md(r"""
# stmviz — how an LLM agent's short-term memory works

An agent calls a language model again and again. Between the calls it must decide what to keep
in front of the model: the user's request, what the tools returned, its own plans. The paper
*"Short-term memory of an LLM-based agent: a formal definition"* (Rafikov, Poptsov, Vyatkin,
Stolyarova; MIPT, 2026) gives this short-term memory (STM) a precise shape. It separates

1. the **carrier** — the current state $\omega$, a set of memory elements whose total size stays
   within a capacity $V_{max}$ (**Definition 1**), from
2. the **mechanism** $(O, E, \Omega_{STM}, C, U, X, \pi)$ — the operations that change the state
   and the projection $\pi$ that turns it into the model's input (**Definition 2**).

Unlike long-term memory, *everything* in the current state is used at every step: there is no
retrieval inside STM; selection happens in the update $U$.
"""),
        md(r"""
## The loop (the paper's Figure 1)

$$\omega_t \xrightarrow{\;\pi\;} x_t \xrightarrow{\text{LLM}} \text{output} \longrightarrow c_t
\xrightarrow{\;U(\omega_t,\,o_t,\,c_t)\;} \omega_{t+1}$$

## The notebooks

| notebook | what it shows |
|---|---|
| [01 · Definition 1](01_definition1_state_space.ipynb) | elements $(i, d)$, metadata, $\mu$, $V_{max}$, membership in $\Omega_{STM}$ |
| [02 · Definition 2](02_definition2_mechanism.ipynb) | $O$, $C$, $U$, $X$, $\pi$; the loop; a mechanism in a few lines |
| [03 · FIFO context window](03_fifo_context_window.ipynb) | the usual context window as a FIFO queue with identity $\pi$ |
| [04 · SCM](04_scm.ipynb) | Self-Controlled Memory: the memory controller, relevance ranking, flash memory, the judgement |
| [05 · HiAgent](05_hiagent.ipynb) | subgoals, summarized finished subgoals, trajectory retrieval |
| [06 · AgentFold](06_agentfold.ipynb) | summary blocks $s_{x,y}$, granular condensation, deep consolidation |
| [07 · Compare](07_compare.ipynb) | one scenario, four mechanisms, the same $V_{max}$ |
| [08 · Build your own](08_build_your_own.ipynb) | an exercise: a priority-based mechanism |
| [09 · Your own logs](09_your_own_logs.ipynb) | replay an OpenAI-style chat log through every mechanism |
| [10 · Measuring memory](10_measuring_memory.ipynb) | what survives to question time and what it costs; sweeps over $V_{max}$ |
| [11 · The managers you use](11_managers_you_use.ipynb) | practitioners' context managers (clearing, compaction, sessions, paging) in the paper's terms |

## The paper's symbols in stmviz

| paper | stmviz |
|---|---|
| $e = (i, d) \in E = I \times D$ | `Element(content, meta)` |
| $\mu : E \to \mathbb{R}^+$ | `sizes.tokens()`, `sizes.chars`, `sizes.words`, `sizes.image_tokens` |
| $V_{max}$, $\Omega_{STM}$ | `StateSpace(μ, v_max)` |
| $\omega$ | `State` |
| $O = \bigcup_{a\in\tau} O_a$ | `Operation(type, params)`, `Mechanism.operations` |
| $C$ | `Context` |
| $U$ | `Mechanism.update(state, operation, context)` |
| $X$, $\pi$ | `ModelInput`, `Mechanism.project(state)` |
| Figure 1 | `run(mechanism, steps) → Trace` |
"""),
        md(r"""
## A first look

A web-research agent answers a question in 34 steps. AgentFold keeps its context small by
*folding* finished steps into summary blocks. Press ▶ to watch the state change:

* the **chart** shows the occupancy $\sum\mu(\omega_t)$, stacked by element type, against
  $V_{max}$ — the bound of Definition 1; the line named $|\pi(\omega_t)|$ is the size of the
  model input, which also counts the labels $\pi$ adds around the elements. $V_{max}$ is the
  model's context limit here, so AgentFold leaves room for those labels: both lines stay under it;
* the **bar** is $\omega_t$ itself: one block per element, as wide as $\mu(e)$, in a bar of
  length $V_{max}$. A block with a **thick outline** is new — it entered $\omega_t$ at the previous
  step; a **hatched** block is leaving — step $t$'s update removes it;
* below is exactly what the model reads at step $t$, $\pi(\omega_t)$, token by token.
"""),
        code("""
from stmviz import AgentFold, StateSpace, load_scenario, run, sizes
from stmviz.widgets import TracePlayer

scenario = load_scenario("web_research")
agentfold = AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max))
trace = run(agentfold, scenario)
trace
"""),
        code("""
TracePlayer(trace)
"""),
        md(r"""
Next: **[01 · Definition 1](01_definition1_state_space.ipynb)**.
"""),
    ]


@notebook("03_fifo_context_window")
def _():
    return [
        md(r"""
# 3 · The context window as a FIFO queue

The paper's first example of Section 4 shows that the formalism contains the usual view of STM.
The store is a **first-in-first-out queue** of chat messages; when it overflows, the beginning is
cut off; and the projection is the **identity**, $\pi(\omega) = \omega$, because the context
window is both the carrier and the model input.

| | FIFO window |
|---|---|
| $E = I \times D$ | a chat message; $D$ = time, role, tool-call id, pinned flag |
| $\mu$, $V_{max}$ | tokens; the window size |
| $O$ | `append` (cutting off the beginning on overflow), `evict_oldest` |
| $C$ | the incoming step: the model's output, then the input that arrived after it |
| $U$ | the queue discipline: append the output's message (a reply, or a tool call), then the input's (the user's next message, or the tool's result) |
| $\pi$ | the identity: the ordered messages |

Messages enter in the order they happened. A step of a dialogue holds the model's reply and then the
user's next message (step 0 holds only the user's first message); a step of an agent holds the tool
call and then its result. So $\pi(\omega_t)$ — what the model saw when it produced step $t$'s output
— ends with the input that output answers.
"""),
        code("""
from stmviz import AgentStep, FIFOWindow, StateSpace, load_scenario, run, sizes
from stmviz.errors import CapacityError
from stmviz.viz import occupancy_figure
from stmviz.widgets import TracePlayer

scenario = load_scenario("tool_chat")
print(scenario.title, "—", len(scenario.steps), "steps,", scenario.token_count(), "tokens, V_max =", scenario.v_max)
"""),
        md(r"""
A customer-support chat with tool calls, about 3.6 times larger than the window. We pin a system
prompt, which must never be evicted.
"""),
        code("""
window = FIFOWindow(StateSpace(sizes.tokens(), v_max=scenario.v_max),
                    system="You are a courteous support agent for a parcel company.")
trace = run(window, scenario)
print(trace.table(width=30, limit=12))
"""),
        md(r"""
## Identity projection

$\pi$ returns the window's messages in order — exactly what a chat API would receive. The last
messages of $\pi(\omega_t)$, and the output the model produced from them at step $t$:
"""),
        code("""
t = next(t for t in range(8, len(trace)) if trace[t].context.step.model_output)
for message in trace.project(t)[-3:]:
    print(f"{message.role:9}| {message.text[:70]}")
print(f"→ output | {trace[t].context.step.model_output[:70]}")
"""),
        md(r"""
## Occupancy against $V_{max}$

The window fills up, then stays just under $V_{max}$: every new message pushes the oldest out.
Markers show the steps where messages were evicted (hover for what and why).
"""),
        code("""
occupancy_figure(trace)
"""),
        md(r"""
## The pinned system prompt

Pinned elements are never evicted, so the system prompt is in every state $\omega_t$:
"""),
        code("""
system_prompt = window.pins[0]
all(system_prompt in state for state in trace.states())
"""),
        md(r"""
## Tool calls and their results stay together

A tool result without its call would confuse the model (and chat APIs reject it). With
`keep_tool_pairs=True` (the default) a call is evicted together with its result:
"""),
        code("""
paired = [(t, why) for t, step in enumerate(trace) for why in step.reasons if "keep_tool_pairs" in why]
paired[:3]
"""),
        md(r"""
## A message larger than the window

What should happen to a message that alone exceeds $V_{max}$? The user decides: raise an error
(the default), skip it, or truncate it to fit.
"""),
        code("""
huge = [AgentStep(observation="Here is the full log: " + "error 503 " * 400)]
small = StateSpace(sizes.tokens(), v_max=200)
try:
    run(FIFOWindow(small), huge)
except CapacityError as error:
    print(error)
"""),
        code("""
cut = run(FIFOWindow(small, oversize="truncate"), huge)
[(e.meta["truncated"], e.meta["original_size"], small.measure(e)) for e in cut.final]
"""),
        md(r"""
## Watch it

Step through the run. The bar is $\omega_t$: one block per message, as wide as $\mu(e)$, in a
bar of length $V_{max}$. A **thick outline** marks a message that entered $\omega_t$ at the
previous step; **hatching** marks one that step $t$'s update evicts. The text below is
$\pi(\omega_t)$ — for FIFO, the messages themselves.
"""),
        code("""
TracePlayer(trace)
"""),
        md(r"""
## Exercise · FIFO's update, by hand

Write the queue discipline $U$ on a plain list. `push(window, new, mu, v_max)` gets the messages
oldest first and a new message, and returns the window after $U$: the new message at the end,
then — only while $\sum\mu > V_{max}$ — the oldest message that is not pinned
(`meta["pinned"]`) cut off. The checker feeds it small windows measured in words.
"""),
        code("""
from stmviz.exercises import check_fifo_push

def push(window, new, mu, v_max):
    # TODO: append `new`; while Σμ > V_max, remove the oldest message whose meta["pinned"] is not True
    raise NotImplementedError("TODO: write push")
"""),
        code("""
check_fifo_push(push)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("03-fifo-push")` prints one answer.

## What to take away

* The usual context window fits Definition 2: $E$ = chat messages, $U$ = a queue discipline
  (append, cut off the oldest), $\pi$ = the identity — the model reads exactly the messages in $\omega$.
* Under FIFO a fact stays only while everything said after it still fits in $V_{max}$: the first
  turns go first, however important they are.
* Metadata shapes $U$ even here: a pinned message never leaves, a tool call leaves with its result.
* An element with $\mu(e) > V_{max}$ is in no state of $\Omega_{STM}$: the mechanism must refuse,
  skip or truncate it — a choice the user makes.
"""),
    ]


@notebook("04_scm")
def _():
    return [
        md(r"""
# 4 · SCM — Self-Controlled Memory

SCM (Wang et al., 2023; code `wbbeyourself/SCM4LLMs`) keeps a memory stream of all past
interactions and puts a **memory controller** in front of the model. The paper's controller makes
two decisions for each incoming message:

1. **Is memory needed at all?** "Tell me a joke" needs nothing from the past; "what's my daughter's
   name again?" does. Only when memory is needed are older interactions retrieved.
   *The released code skips this decision:* its `is_history_need` is defined but never called, so
   the chatbot retrieves for every message from its third turn on. `SCM(space)` runs as released;
   `SCM(space, variant="paper")` asks the question.
2. **Which form of each retrieved memory answers the message?** When the retrieved memories do not
   fit, each (but the best-ranked) is judged: dropped when even its full text cannot answer the
   message, kept as its summary when the summary can, else kept in full; then full texts become
   summaries, lowest-ranked first, until they fit.

Around these decisions:

- **Relevance ranking.** The candidates are the older interactions — all but the previous one —
  ranked by the cosine similarity of their embedding to the message's, as the released code does;
  the top $k$ are activated. The paper also describes recency + relevance: `ranking="recency+relevance"`.
- **Flash memory** is the previous interaction: in full when it is short, its summary when it is
  500 tokens or longer (`flash_threshold`).
- **A turn's summary**, as released, is the turn itself unless the prompt that would summarize it
  (about 59 tokens of instructions plus the turn) exceeds 300 tokens; only then does a model write
  one (offline: an extractive summary of `summary_budget` tokens). With `variant="paper"` every
  turn is summarized.

| | SCM |
|---|---|
| $E = I \times D$ | $I$ = (observation, response, summary); $D$ = interaction index, embedding, type |
| type | **flash** memory (the previous interaction) / **activation** memory (older interactions brought back) / the current **message** |
| $\mu$, $V_{max}$ | tokens; the limit on activation + flash memory + the current message |
| $\omega$ | the elements fed to the model at the next step |
| $O$ | file the interaction; memory activation (top-$k$, with the judgement): as released for every message, in the paper only when memory is needed |
| $C$ | the incoming step (the reply, then the user's next message), the step before it, and the message's embedding |
| $U$ | file the previous interaction as flash memory, keep the new message; if needed, rank the older interactions by relevance, judge, summarize to fit |
| $\pi$ | related history (activated memories), previous conversation (flash), the current message — the order of SCM's prompt |

**SCM retrieves for the message it is about to answer.** Step $k$ of a dialogue holds the reply
$a_{k-1}$ and then the user's next message $u_k$. At that step $U$ files $(u_{k-1}, a_{k-1})$ (it
becomes flash memory), keeps $u_k$ as the current message and activates the older interactions
relevant to $u_k$ (with the paper's controller: only if it finds memory needed). The reply $a_k$, the output of step
$k+1$, is produced from $\pi(\omega_{k+1})$.

Offline, the two decisions are documented heuristics — *is memory needed?* (the paper's): a recall cue ("remember",
"again", "I told you", "what was", "my", …) or an earlier interaction sharing at least two (and half,
at most four for a long input) of the message's content words; *the judgement*: drop when no content
word of the message is in the memory, summary when the summary keeps every such word, else full. `needs_memory=` and `judge=`
take any callable, e.g. `OpenAIMemoryController(client, model)` and `OpenAIMemoryJudge(client, model)`
from `stmviz.text.openai`, which ask a chat model the original's yes/no questions.
"""),
        code("""
from collections import Counter
from stmviz import SCM, FIFOWindow, StateSpace, load_scenario, metrics, run, sizes
from stmviz.tables import table
from stmviz.viz import occupancy_figure
from stmviz.widgets import TracePlayer

scenario = load_scenario("long_dialogue")
space = StateSpace(sizes.tokens(), v_max=scenario.v_max)
scm = SCM(space, k=3)  # as released: retrieval for every message, ranking="relevance", flash_threshold=500
trace = run(scm, scenario)
trace
"""),
        md(r"""
## The controller's first decision: is memory needed?

Each step's operations say what the controller decided, and why. Near the end the user asks for a
joke. As released, SCM retrieves for it anyway; the paper's controller (`variant="paper"`) activates
no memory for the joke. The question about the allergy, stated in the second turn, activates memory
in both:
"""),
        code("""
paper = run(SCM(space, k=3, variant="paper"), scenario)
joke = next(t for t, step in enumerate(scenario.steps) if "joke" in step.observation)
allergy = next(p for p in scenario.probes if p.answer == "sesame")
for t in (joke, allergy.t - 1):
    print(f"step {t}: {scenario.steps[t].observation[:70]!r}")
    for name, run_ in (("released", trace), ("paper", paper)):
        for o in run_[t].operations:
            print(f"   {name:8} {o.type}: {o.reason or '(files the previous interaction as flash memory: it needs no decision)'}")
"""),
        md(r"""
## Relevance ranking: the scores of the top candidates

`activate_memory` records the top-$k$ candidates' scores (cosine similarity to the question),
best first. The interaction that states the allergy (filed at step 2: the user's message of step 1
with its reply) ranks first:
"""),
        code("""
trace[allergy.t - 1].operations[1]["scores"]
"""),
        code("""
for e in trace.state_at(allergy.t):
    print(f"{e.type:10} step {e.meta['step']!s:3} {e.meta.get('form', ''):8} {e.text[:60]!r}")
"""),
        md(r"""
With the paper's recency + relevance (0.5 · 0.99^age + 0.5 · cosine), recency lifts the newest
turns and pushes some evidence down:
"""),
        code("""
mixed = run(SCM(space, k=3, ranking="recency+relevance"), scenario)
for p in scenario.probes[:5]:
    print(f"{p.answer:14} evidence {p.evidence_step + 1:2}:",
          "relevance", [i for i, _ in trace[p.t - 1].operations[1]["scores"]],
          "| recency+relevance", [i for i, _ in mixed[p.t - 1].operations[1]["scores"]])
"""),
        md(r"""
## Flash memory and the judgement

Flash memory is the previous interaction — its summary once it reaches `flash_threshold` tokens
(as released, the "summary" of a turn this short is the turn itself). With a small $V_{max}$ the
activated memories no longer fit, and the controller judges them; each judgement is recorded with
its reason (and shown by the player):
"""),
        code("""
small = run(SCM(StateSpace(sizes.tokens(), v_max=260), k=3, flash_threshold=60), scenario)
for t in range(len(small)):
    for o in small[t].operations:
        for index, verdict, reason in o.get("judgements") or ():
            print(f"step {t}: memory {index:2} → {verdict:7} {reason}")
Counter(e.meta["form"] for s in small.states() for e in s.where(type="flash"))
"""),
        code("""
occupancy_figure(trace)
"""),
        md(r"""
## Retention of early facts, compared with FIFO

The scenario carries **probes**: questions asked late whose answers were stated early. A probe
counts as retained when its answer is in $\pi(\omega_t)$, the input from which the reply to its
question is produced. At the same $V_{max}$ a FIFO window has long forgotten the first turns; SCM
answers with the memories it retrieved for the question:
"""),
        code("""
table(metrics.compare([FIFOWindow, SCM], scenario),
      ["mechanism", "v_max", "mean_occupancy", "total_prompt_tokens", "evictions", "retained", "probes"])
"""),
        md(r"""
SCM counts more than twice FIFO's **evictions** (174<!-- printed: above --> against 66<!-- printed: above -->)
and still keeps 5<!-- printed: above --> probes to FIFO's 0<!-- printed: above -->: an eviction is
an element leaving $\omega$, not a fact lost. SCM re-ranks its activation memory for every message,
(as released, for every message), so a memory activated for one message and not for the next leaves $\omega$ — and stays in the
memory stream, outside $\omega$, to be activated again. FIFO's 66 are messages gone for good.
"""),
        code("""
for result in metrics.retention(trace, scenario.probes):
    print("✓" if result.retained else "✗", result.probe.question)
"""),
        md(r"""
## Why was this forgotten?

`stmviz.forgetting.why_forgotten(trace, probe)` follows the elements that held a probe's evidence
through the trace and names the step, the operation and the recorded rule that took it out of
$\pi(\omega_t)$. SCM never deletes an interaction from its memory stream — the stream lives
outside $\omega$ — so a probe is lost when the controller **did not activate** its evidence for
the question: the interaction was not among the top $k$ (its score is in the record), the
judgement dropped it, or — with the paper's controller (`variant="paper"`) — memory was judged not
needed.
"""),
        code("""
from stmviz.forgetting import why_forgotten_all

for f in why_forgotten_all(trace, scenario.probes):
    if not f.retained:
        print(f"✗ {f.probe.answer!r}: {f.kind} at step {f.step} ({f.operation})\\n  {f.explanation}\\n")
"""),
        md(r"""
What the model saw when it answered the last probe's question: the related history first, the
question last. (This question asks two things at once; the three best-ranked memories hold neither.)
The last line is the reply **recorded in the scenario**: the dialogue is scripted, so the reply
was written with the whole conversation in view, not produced from this input. It names both
facts; a model given only this input could not have.
"""),
        code("""
probe = scenario.probes[-1]
for message in trace.project(probe.t):
    print(f"{message.role:6}| {message.text[:90]!r}")
if probe.t < len(trace):
    print(f"→ the scenario's scripted reply (not produced from this input) | {trace[probe.t].context.step.model_output[:90]!r}")
"""),
        md(r"""
## Watch it

In the player, a step at which the controller activates memory lists under its operations the
**scores** — `#i` is interaction $i$, followed by its cosine similarity to the message, best
first — and, when the memories did not fit, each **judgement** (drop, summary or full) with its
reason. The bar is $\omega_t$, coloured by type (activation memory, flash memory, the current
message); a thick outline marks an element that entered at the previous step, hatching one that
step $t$'s update removes — for activation memory that means *re-ranked*, not deleted.
"""),
        code("""
TracePlayer(trace)
"""),
        md(r"""
## Exercise · SCM's judgement

When the activated memories do not fit, the controller asks of each: which form of it can still
answer the message? Write `judge(memory_text, summary_text, message)` returning `"drop"`,
`"summary"` or `"full"` by the offline rule, in content words (`content_words(text)`, a set):
the memory shares no content word with the message → drop; the summary keeps every content word
the memory shares with the message → summary; else full. A passing `judge` plugs into SCM:
`SCM(space, judge=lambda m, s, q: (judge(m, s, q), "my judge"))`.
"""),
        code("""
from stmviz.exercises import check_judge
from stmviz.mechanisms.scm_controller import content_words

def judge(memory_text, summary_text, message):
    # TODO: return "drop", "summary" or "full", comparing the content_words of the three texts
    raise NotImplementedError("TODO: write judge")
"""),
        code("""
check_judge(judge)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("04-judge")` prints one answer.

## What to take away

* SCM's $\omega_t$ is what the model reads next: activated memories, flash memory and the current
  message. The full history is a memory stream **outside** $\omega$ — long-term storage that $U$
  retrieves from; $\Sigma\mu \le V_{max}$ bounds only what is brought back.
* $U$ is the memory controller: per message it decides which older interactions to activate (top
  $k$ by relevance, scores recorded) and in which form (the judgement); the paper's controller
  (`variant="paper"`) first decides whether memory is needed at all, the released code never asks.
* So SCM uses a fraction of $V_{max}$ (see `mean_occupancy`) and keeps the facts a question asks
  about — provided the question arrives as its input; a fact is lost when it is not activated for it.
* Its parameters — $k$, `ranking`, `flash_threshold` — decide how much of $V_{max}$ it fills.
"""),
    ]


@notebook("05_hiagent")
def _():
    return [
        md(r"""
# 5 · HiAgent — hierarchical working memory

HiAgent (Hu et al., ACL 2025) organises an agent's working memory around **subgoals** that the
model itself writes. Its released agent (AgentBoard, `cme_final.py`) works like this, and so does
stmviz's `HiAgent`:

1. **The model states its subgoals.** When it starts one, its output holds a line
   `Subgoal: …` (in a scenario file: the `subgoal` directive). Subgoals are numbered 1, 2, 3, …
   as the released agent numbers them; steps before the first subgoal stay verbatim. No rule
   invents subgoals: a fixed-interval rule exists only as a *chunking baseline*
   (`subgoal_every=…`, off by default).
2. **A finished subgoal becomes a summarized observation.** Its action–observation pairs are
   replaced by one line, conditioned on the subgoal, that keeps *what was observed* and says
   *whether the subgoal was achieved*. HiAgent asks an LLM for it
   (`stmviz.text.openai.OpenAISubgoalSummarizer`); the offline default keeps the observations'
   informative sentences and gives a verdict by a stated heuristic (`subgoal_done`, or a
   done/success cue → achieved; a failure cue → not achieved; else *not confirmed*). As
   released, "check valid actions" pairs are not given to the summarizer.
3. **`retrieve(ids…)`.** The model may ask for the full trajectories of finished subgoals; the
   listed summaries give way to their pairs **until the next subgoal**, when they fold back —
   as many pairs as fit $V_{max}$: the overflow rule drops the oldest first, and the trace says
   which. π ends with a line telling the model which ids it may name.
4. **Overflow drops the oldest memory first** — old summaries before the current subgoal's pairs.

| | HiAgent |
|---|---|
| $E = I \times D$ | subgoals and action–observation pairs; $D$ = subgoal id, time, current-subgoal flag, verdict |
| $\omega$ | the task, summaries of finished subgoals (or their retrieved trajectories), the current subgoal and its pairs |
| $\mu$, $V_{max}$ | tokens; the context limit: $U$ keeps $\sum\mu(\omega) \le V_{max}$ (Definition 1) and leaves room for the labels $\pi$ adds, so the model input $\pi(\omega_t)$ fits $V_{max}$ too |
| $O$ | start a subgoal, observe, summarize a finished subgoal, retrieve, (select: an option, off) |
| $C$ | the model's output (subgoal, done, retrieve), the observation, the step history |
| $U$ | the hierarchical update, oldest memory dropped first on overflow |
| $\pi$ | task, finished subgoals, current subgoal and its pairs, the retrieval offer |
"""),
        code("""
from collections import Counter
from stmviz import HiAgent, StateSpace, load_scenario, metrics, run, sizes
from stmviz.viz import hierarchy_figure, occupancy_figure
from stmviz.widgets import TracePlayer

scenario = load_scenario("household")
hiagent = HiAgent(StateSpace(sizes.tokens(), v_max=scenario.v_max))
trace = run(hiagent, scenario)
print(scenario.title, "—", len(trace), "steps; subgoals:", len(scenario.subgoals))
"""),
        md(r"""
## Subgoals come from the model's output

Every subgoal switch below was written by the agent (a marker in the scenario, or a
`Subgoal:` line in its thought); the operation's reason says which.
"""),
        code("""
for t, step in enumerate(trace):
    for op in step.operations:
        if op.type == "subgoal":
            print(t, op.get("source"), "→", op.get("text"))
"""),
        md(r"""
## Finished subgoals become summarized observations with a verdict

Each summary keeps what the agent *saw* (not the actions it typed) and ends with the verdict.
The summaries in $\omega_{29}$ are all "achieved":
"""),
        code("""
for e in trace.state_at(29).where(type="summary"):
    print(f"[{e.meta['subgoal']}] {e.text}\\n")
"""),
        md(r"""
Two subgoals of `household` did end without a confirmation — the agent moved on before it found
what it looked for — but they are no longer in $\omega_{29}$. Each line below says at which step a
summary "not confirmed" left $\omega$, and the rule that took it out:
"""),
        code("""
for t, step in enumerate(trace):
    for e, why in zip(step.removed, step.reasons):
        if e.meta.get("type") == "summary" and "not confirmed" in e.text:
            print(f"step {t}: the summary of subgoal {e.meta['subgoal']} ('not confirmed') left ω — {why[:70]}…")
"""),
        md(r"""
## `retrieve(ids…)`: trajectories in place of summaries, until the next subgoal

At step 16 the agent asks for subgoals 1 and 3 at once (the two parts of the mug search, where
it saw the butterknife). From the next state on, each summary gives way to its subgoal's pairs —
those that fit $V_{max}$. Subgoal 3's five pairs all come back; of subgoal 1's three, the overflow
rule (the oldest memory first) drops steps 0 and 1 in the same update, so only step 2 comes
back. Those two pairs never enter $\omega$: the removal reason of subgoal 1's summary at step 16
names each, with the bound it would break, and $\pi$ labels subgoal 1 "retrieved in part (step 2;
…)" and subgoal 3 "retrieved in full". At the next subgoal switch both fold back to their
summaries.
"""),
        code("""
asks = [t for t, step in enumerate(trace) if any(op.type == "retrieve" for op in step.operations)]
t = asks[0]
print(t, next(op for op in trace[t].operations if op.type == "retrieve"))
for e, why in trace[t].why.items():
    if e.type == "summary" and "retrieved" in why:
        print(" -", why)
"""),
        code("""
print(trace.project(t + 1).text())
"""),
        code("""
switch = next(s for s in range(t + 1, len(trace)) if any(op.type == "subgoal" for op in trace[s].operations))
print("next switch at step", switch)
for why in trace[switch].reasons:
    if "folds back" in why or "retrieved pair" in why:
        print(" -", why)
"""),
        md(r"""
## Overflow: the oldest memory first

When the state would not fit — $\sum\mu > V_{max}$, or $|\pi(\omega)| > V_{max}$ once $\pi$'s
labels are counted (each reason says which bound) — HiAgent (like its released agent) gives up the
oldest memory first — old summaries and old retrieved pairs — and keeps the current subgoal's pairs.
"""),
        code("""
for t, step in enumerate(trace):
    for why in step.reasons:
        if "oldest memory first" in why:
            print(t, why)
"""),
        md(r"""
## What stays answerable

The scenario's probes ask about observations of finished subgoals. A probe is kept when its answer
is in $\pi(\omega_t)$: through a summary, or through a retrieved trajectory.
"""),
        code("""
metrics.retention(trace, scenario.probes)
"""),
        md(r"""
### Why was this forgotten?

`stmviz.forgetting.why_forgotten(trace, probe)` follows the elements that held a probe's evidence
through the trace: for each lost probe it names the step, the operation and the rule that removed
it — a summary of its subgoal that kept other sentences, or an overflow that dropped the oldest
memory:
"""),
        code("""
from stmviz.forgetting import why_forgotten_all

for f in why_forgotten_all(trace, scenario.probes):
    if not f.retained:
        print(f"✗ {f.probe.answer!r}: {f.kind} at step {f.step} ({f.operation})\\n  {f.explanation}\\n")
"""),
        md(r"""
## Options that are not HiAgent

`keep_pairs=k` is stmviz's reading of the paper's Section 4 ("select relevant pairs"), not in the
released agent; `subgoal_every=n` is a chunking baseline that treats every $n$ steps as a subgoal.
Both are off by default.

## The hierarchy as a graph

Task → subgoals → action–observation pairs. Finished subgoals are collapsed to their summary;
the current subgoal, and any retrieved one, is expanded.
"""),
        code("""
hierarchy_figure(trace, asks[0] + 1 if asks else len(trace))
"""),
        md(r"""
The occupancy chart stacks $\sum\mu$ by element type under $V_{max}$; the line named
$|\pi(\omega_t)|$ is the model input, with the labels $\pi$ adds (subgoal headers, the retrieval
offer). It runs above $\sum\mu$ by those labels and stays under $V_{max}$: when the next state's
input would not fit, the oldest memory goes, and the reason names the bound that was hit. In the player's bar a thick outline marks an element that entered at the previous step,
hatching one that step $t$'s update removes (summarized or dropped).
"""),
        code("""
occupancy_figure(trace)
"""),
        code("""
TracePlayer(trace)
"""),
        md(r"""
## Exercise · HiAgent's update when a subgoal starts

Write $U$ for the moment the model states a new subgoal, on a toy state whose elements are typed
by `meta["type"]`: `"task"`, `"summary"` (a finished subgoal), `"subgoal"` (the current one:
`meta["current"]` is true, `meta["subgoal"]` its id) and `"pair"` (an action–observation pair of
subgoal `meta["subgoal"]`). `start_subgoal(state, new_id, new_goal, summarize)` returns the new
state: the current subgoal and its pairs replaced by **one** element
`Element(summarize(goal_text, pair_texts), {"type": "summary", "subgoal": id})`, the task and the
older summaries untouched, and the new subgoal added as the current one.
"""),
        code("""
from stmviz import Element
from stmviz.exercises import check_subgoal_switch

def start_subgoal(state, new_id, new_goal, summarize):
    # TODO: replace the current subgoal and its pairs by one summary; add the new subgoal, current
    raise NotImplementedError("TODO: write start_subgoal")
"""),
        code("""
check_subgoal_switch(start_subgoal)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("05-subgoal")` prints one answer.

## What to take away

* HiAgent's $E$ is hierarchical — task → subgoals → action–observation pairs — yet $\omega$ is
  still a set: the hierarchy lives in metadata (subgoal id, current flag, verdict).
* $U$ follows the model's own output: a stated subgoal closes the previous one into one summarized
  observation with a verdict; `retrieve(ids…)` brings the pairs back until the next subgoal.
* Without subgoals stated by the model there is nothing to summarize or retrieve: HiAgent then
  keeps the latest pairs and drops the oldest, like a window (notebook 07 shows it).
* A fact is lost when its subgoal's summary leaves it out, or when overflow drops the oldest
  memory; `why_forgotten` says which.
"""),
    ]


@notebook("06_agentfold")
def _():
    return [
        md(r"""
# 6 · AgentFold — folding the context

AgentFold (2025) is the paper's running example. At step $t$ the agent's context is the tuple
$(Q, T, S_{t-2}, I_{t-1})$: the user query $Q$, the tools $T$, the multi-scale summaries
$S_{t-2}$ and the latest interaction $I_{t-1}$.

**Definition 1.** $E$ holds summary blocks $s_{x,y}$ (content: the summary text; metadata: the
step range $(x, y)$, the type "block", and who wrote the text) and one element "latest interaction"
(the full record of step $t-1$: explanation, action, observation). $\mu$ counts tokens, and
$V_{max}$ is the context limit: $U$ keeps $\sum\mu(\omega_t) \le V_{max}$ (Definition 1) and leaves
room for what $\pi$ adds — the headings of $Q$ and $T$, each block's label — so that the model
input fits too, $|\pi(\omega_t)| \le V_{max}$. The occupancy chart draws both.

**Definition 2.** What AgentFold's paper is about is that *the agent itself* decides how to fold.
With each response — reasoning, an explanation, one tool call — the model writes a *folding
directive*: a range $[x, t-1]$ and the summary text $\sigma$ it wrote for that range. When
$x = t-1$ this is a *granular condensation* (the latest interaction becomes one block
$s_{t-1,t-1}$); when $x < t-1$ it is a *deep consolidation* (the blocks from step $x$ on and the
latest interaction become one block $s_{x,t-1}$, typically at the end of a sub-task). $O$ holds these
two operations, $C$ = the query, the tools, the incoming step with its directive and the state;
$U$ puts $\sigma$ into the new block; $\pi$ renders $(Q, T, S, I)$ as text.

In `web_research` every response from step 1 on carries such a directive, and the agent's summaries
keep the figures and names it will need later (fleet sizes, contract values, who said what).
"""),
        code("""
from collections import Counter
from stmviz import AgentFold, StateSpace, load_scenario, run, sizes
from stmviz.metrics import retention
from stmviz.viz import hierarchy_figure, occupancy_figure
from stmviz.widgets import TracePlayer

scenario = load_scenario("web_research")
agentfold = AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max))
trace = run(agentfold, scenario)
print(scenario.query)
print(dict(scenario.steps[7].directives["fold"]))   # the agent folds steps 0-6 (Rivermouth) into one block
"""),
        md(r"""
## Definition 1: the state at step $t$

$\omega_t$ is a set of elements: $Q$, $T$, the blocks $s_{x,y}$ with their ranges, and the latest
interaction. `summary_by` says whether the block holds the agent's text:
"""),
        code("""
t = 20
for e in trace.state_at(t):
    print(f"{e.type:7} {str(e.meta.get('range', '')):9} {e.meta.get('summary_by', ''):8} μ={trace.sizes[e]:4}  {e.text[:50]!r}")
"""),
        md(r"""
## Definition 2: condensation and consolidation

Each step either condenses the previous interaction into its own block, or consolidates a chain
of blocks into one. The trace says which, and why blocks left the state:
"""),
        code("""
Counter(op.type for step in trace for op in step.operations)
"""),
        code("""
merge = next(t for t, step in enumerate(trace) if any(op.type == "consolidate" for op in step.operations))
print(trace[merge].operation)
for why in dict.fromkeys(trace[merge].reasons):
    print(" -", why)
"""),
        md(r"""
## $\pi$: the model input $(Q, T, S, I)$

Each block is labelled by the steps it covers. A block whose text the agent did not write — a
directive without summary text, filled by stmviz's extractive *fallback* summarizer — is marked
"stmviz fallback summary" in $\pi$ and `summary_by="fallback"` in its metadata. Compare what the
probes find when the agent's summaries are removed from the same run:
"""),
        code("""
print(trace.project(t).text()[:900])
"""),
        code("""
from stmviz.scenarios import Scenario
data = scenario.to_dict()
for step in data["steps"]:
    step.get("fold", {}).pop("summary", None)   # keep the ranges, drop the agent's text
no_text = Scenario.from_dict(data)
fallback = run(AgentFold(StateSpace(sizes.tokens(), v_max=scenario.v_max)), no_text)
for name, tr in [("agent's summaries", trace), ("fallback summarizer", fallback)]:
    kept = sum(r.retained for r in retention(tr, scenario.probes))
    print(f"{name:20} keeps {kept} of {len(scenario.probes)} probes")
"""),
        md(r"""
### Why was this forgotten?

`stmviz.forgetting.why_forgotten(trace, probe)` follows the elements that held a probe's evidence
through the trace and names the step, the operation and the rule that took it out of
$\pi(\omega_t)$. For the run without the agent's text, a lost probe is typically *summarized*: a
condensation or consolidation replaced the interaction by a block $s_{x,y}$ whose fallback text
dropped the figure or the name:
"""),
        code("""
from stmviz.forgetting import why_forgotten_all

for f in why_forgotten_all(fallback, scenario.probes):
    if not f.retained:
        print(f"✗ {f.probe.answer!r}: {f.kind} at step {f.step} ({f.operation})\\n  {f.explanation}\\n")
"""),
        md(r"""
## Without directives: a log-structured merge

stmviz also runs streams that carry no directives (any other scenario, a chat log). Then a rule
decides, and the default is multi-scale the way the paper intends: a *log-structured merge*. The
latest interaction is a run of one step; while the newest block covers as many steps as the run
(1, 2, 4, …) it joins it, like carrying in a binary counter. Old blocks are coarse and left alone;
recent ones are fine. Each step is summarized again only when its block doubles, so at most about
$\log_2 t$ times over a run — not at every consolidation, as a rolling summary would. (The old
rules, `"share"` and `"count"`, which consolidate "the newer half" and so keep re-summarizing one big
block, are kept as labelled baselines.)
"""),
        code("""
steps = [{"thought": f"Read page {i}.", "action": f"open_page({i})", "observation": f"Page {i} says fact {i}."}
         for i in range(300)]
lsm = run(AgentFold(StateSpace(sizes.tokens(), v_max=20000)), steps)
print("block lengths, oldest first:", [y - x + 1 for x, y in (b.meta["range"] for b in AgentFold.blocks(lsm.final))])
print("most summarizations of any one step:", max(b.meta["passes"] for b in AgentFold.blocks(lsm.final)))
"""),
        md(r"""
## Overflow is named

The original agent has no hard capacity — its context stays short because it folds. stmviz keeps
$\Sigma\mu \le V_{max}$ and $|\pi(\omega_t)| \le V_{max}$: when the fold asked for would overflow once
the new interaction arrives, $U$ applies the fold and then consolidates further *the way the
log-structured merge would* — two neighbouring blocks of the same scale, finest first — never a big
block with a small one, which would turn the multi-scale summaries into one rolling summary. The
operation keeps the agent's fold, says `overflow=True` and names the merges. The steps of
`web_research` where it happens:
"""),
        code("""
for t_, step in enumerate(trace):
    for op in step.operations:
        if op.get("overflow"):
            print(t_, op.type, "-- overflow once" + op.reason.split("overflow once", 1)[1][:230], "…")
"""),
        md(r"""
## The fold tree

Blocks $s_{x,y}$ are nodes over the steps $x \dots y$ they cover; a deep consolidation is the
parent of the blocks it merged. The released code replaces the blocks that *start* inside the
folded range, so a range that starts inside a block overlaps it; the agent's ranges here never do.
"""),
        code("""
hierarchy_figure(trace, len(trace))
"""),
        code("""
occupancy_figure(trace)
"""),
        md(r"""
## Replaying a real AgentFold transcript

AgentFold's released inference code (`WebAgent/AgentFold/infer.py`) writes one JSON line per
question, `{question, answer, final_response, full_traj}`; `full_traj` holds every prompt and every
reply. `stmviz.scenarios.load_agentfold_log(path)` reads such a file (or a bare `full_traj`), and
`from_agentfold_records` reads replies held as chat records. A reply is read as the original reads
it: the reasoning before `</think>` stays out of $I_t$, `<compress>` holds the range and the summary,
`<motivation>` is the explanation. With `layout="original"`, $\pi$ is the original's own prompt, so
you can set the two side by side:
"""),
        code("""
from stmviz.scenarios import from_agentfold_records
records = [
    {"role": "user", "content": "How many e-bikes does Norby run?"},
    {"role": "assistant", "content": '<think>Search.</think><motivation>Look it up.</motivation><tool_call>{"name": "search", "arguments": {"q": "NorbyCykel"}}</tool_call>'},
    {"role": "tool", "content": "NorbyCykel: 640 e-bikes at 58 stations."},
    {"role": "assistant", "content": '<think>Check the date.</think><compress>{"compress_range": [0], "compress_text": "NorbyCykel has 640 e-bikes, 58 stations."}</compress><motivation>Is it current?</motivation><tool_call>{"name": "search", "arguments": {"q": "NorbyCykel 2025"}}</tool_call>'},
    {"role": "tool", "content": "2025 report: still 640."},
]
small = from_agentfold_records(records, "norby")
print(run(AgentFold(StateSpace(sizes.tokens(), v_max=500)), small).project(2).text())
print("----")
print(run(AgentFold(StateSpace(sizes.tokens(), v_max=500), layout="original"), small).project(2)[-1].text)
"""),
        md(r"""
Play the run and watch the tree grow and fold. In the bar, a thick outline marks a block that
entered $\omega_t$ at the previous step; hatching marks one that step $t$'s fold removes — merged
into a deeper block, not lost.
"""),
        code("""
TracePlayer(trace)
"""),
        md(r"""
## Exercise · apply a folding directive

Write the fold on plain data. `blocks` is a list of `((x, y), text)`, oldest first — the blocks
$s_{x,y}$; `latest` is `(t - 1, text)`, the latest interaction $I_{t-1}$; the directive is the
range $[x, t-1]$ with the agent's summary $\sigma$. `fold(blocks, latest, x, sigma)` returns the
new list of blocks: for $x = t-1$ a granular condensation ($I_{t-1}$ becomes $s_{t-1,t-1}$), for
$x < t-1$ a deep consolidation (the blocks from step $x$ on and $I_{t-1}$ become $s_{x,t-1}$).
"""),
        code("""
from stmviz.exercises import check_fold

def fold(blocks, latest, x, sigma):
    # TODO: return the list of blocks after the directive [x, t - 1] with the agent's summary sigma
    raise NotImplementedError("TODO: write fold")
"""),
        code("""
check_fold(fold)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("06-fold")` prints one answer.

## What to take away

* AgentFold's $E$ holds summary blocks $s_{x,y}$ with their step range in metadata, plus the
  latest interaction $I_{t-1}$; $\pi$ renders the context $(Q, T, S_{t-2}, I_{t-1})$.
* $U$ has two operations — granular condensation ($x = t-1$) and deep consolidation ($x < t-1$) —
  and the agent itself chooses which, and writes the summary $\sigma$, in its folding directive.
* What survives depends on $\sigma$: with the agent's summaries the probes' figures and names stay;
  with a fallback summarizer they are lost at the fold that summarized them.
* Without directives a rule decides (a log-structured merge); when a fold would overflow
  $V_{max}$, $U$ consolidates further the same multi-scale way and the trace says so.
"""),
    ]


@notebook("07_compare")
def _():
    return [
        md(r"""
# 7 · One scenario, four mechanisms, the same $V_{max}$

The paper proposes comparing memory methods *within one formal model*, and leaves the choice of
metrics open. stmviz fills that gap with a few metrics computed from the trace:

* **occupancy** $\sum\mu(\omega_t) / V_{max}$ — how full the memory is (Definition 1 keeps it $\le 1$);
* **prompt tokens** $|\pi(\omega_t)|$ summed over steps — what the run would be billed;
* **evictions** — elements that left $\omega$, with their reasons;
* **summarizer calls** — steps that produced a new summary;
* **retention** — whether each probe's answer is still in $\pi(\omega_t)$, the input the model answers
  the probe's question from (the question arrives as the input of step $t-1$).
"""),
        code("""
from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, load_scenario, metrics, run
from stmviz.tables import table
from stmviz.viz import occupancy_figure
from stmviz.widgets import compare_player

scenario = load_scenario("long_dialogue")
mechanisms = [FIFOWindow, SCM, HiAgent, AgentFold]
results = metrics.compare(mechanisms, scenario)
table(results, ["mechanism", "mean_occupancy", "max_occupancy", "total_prompt_tokens",
                "evictions", "summarizer_calls", "retained", "probes"])
"""),
        md(r"""
## What each mechanism does at this $V_{max}$

All four run with their defaults at the scenario's $V_{max}$:
"""),
        code("""
print("V_max =", scenario.v_max, "tokens; the whole dialogue has", scenario.token_count())
for cls in mechanisms:
    print(f"{cls.__name__:10}", cls(scenario.space()).params())
"""),
        md(r"""
* **FIFO** has no parameter that matters in a plain dialogue: it keeps the newest messages that
  fit, a few turns out of the whole dialogue. Every probe asks about a turn long gone.
* **SCM** (`k=3`, `flash_threshold=500`, `ranking="relevance"`) puts at most three activated older
  interactions, the previous one (flash) and the current message into $\omega$. $k$, not $V_{max}$,
  limits it: it fills a fraction of $V_{max}$ and still retrieves the turn a question asks about.
* **HiAgent** (`summary_budget=64`) would summarize each finished subgoal in at most 64 tokens — but
  a conversation states no subgoal, so it never summarizes (see `summarizer_calls`) and, on overflow,
  drops the oldest pair: here it *is* a window over the latest pairs.
* **AgentFold** (`block_budget=48`, `controller_rule="lsm"`) folds by a log-structured rule because
  a dialogue carries no folding directives, and stmviz's extractive fallback summarizer writes each
  block in at most 48 tokens — it keeps sentences, not the names and dates the probes ask for.

"""),
        md(r"""
## Where this comparison is unfair, and why

* **HiAgent without subgoal markers behaves as a window.** Its memory is organised by the subgoals
  the model states; none are stated here. Its showcase is `household` (notebook 05).
* **AgentFold without directives uses a rule.** In the original the agent writes every fold and its
  summary; here a rule and a fallback summarizer stand in. Its showcase is `web_research`, where
  notebook 06 compares the agent's summaries with the fallback.
* **SCM needs the questions in its input.** It retrieves for the message it is about to answer; in
  this dialogue every probe's question arrives as the user's message, so SCM is at its best. An
  agent whose questions never reach the input gives it nothing to retrieve for.
* **Each scenario is one mechanism's showcase**: `long_dialogue` SCM's, `household` HiAgent's,
  `web_research` AgentFold's; `tool_chat` shows the FIFO window's own rules (a pinned prompt, a tool
  call evicted with its result). A fair comparison runs each mechanism where it gets what it needs
  — or says what it lacked.
* **The same $V_{max}$ is not the same spending.** SCM leaves most of $V_{max}$ free, so its prompt
  tokens are low by design; a FIFO window has to be much larger to keep as much (the exercise below).

"""),
        md(r"""
## What the numbers mean

* **retained** counts the probes whose answer string is in $\pi(\omega_t)$ at the step whose output
  answers the question. It is necessary for a correct answer, not sufficient (a model may still
  miss it), and a summary that keeps the fact in other words counts as lost. With 7 probes, one
  probe is 14 %: a difference of one is an anecdote.
* **mean / max occupancy** is $\sum\mu(\omega_t)/V_{max}$: Definition 1's constraint
  $\sum\mu \le V_{max}$ holds at every step, for every mechanism — stmviz checks it as the run goes.
* **total prompt tokens** adds up $|\pi(\omega_t)|$, the model input with the labels $\pi$ adds
  around the elements (the line named $|\pi(\omega_t)|$ in the charts). Here $\mu$ counts tokens
  and $V_{max}$ is the context limit, so every mechanism also keeps $|\pi(\omega_t)| \le V_{max}$:
  HiAgent and AgentFold leave room for their labels, FIFO and SCM add none (`docs/fidelity.md`).
* **evictions** are elements that left $\omega$, not facts lost: SCM's re-ranked activation memories
  stay in its memory stream, AgentFold's merged blocks live on in the deeper block.
* **summarizer calls** are steps that produced a new summary.
"""),
        code("""
traces = {cls.__name__: run(cls(scenario.space()), scenario) for cls in mechanisms}
occupancy_figure(traces, layout="side")
"""),
        md(r"""
## Which facts survive?

One row per probe, one column per mechanism:
"""),
        code("""
rows = []
for probe in scenario.probes:
    row = {"t": probe.t, "question": probe.question}
    for name, trace in traces.items():
        row[name] = metrics.retention(trace, [probe])[0].retained
    rows.append(row)
table(rows)
"""),
        md(r"""
### Why was each one forgotten?

`stmviz.forgetting.why_forgotten_all(trace, probes)` names, for every lost probe, how its evidence
left $\pi(\omega_t)$ — evicted, summarized, or (SCM) not activated — at which step and by which
operation. Each `Forgetting` also has `.rule` and a full sentence in `.explanation`:
"""),
        code("""
from stmviz.forgetting import why_forgotten_all

for name, trace in traces.items():
    lost = [f for f in why_forgotten_all(trace, scenario.probes) if not f.retained]
    print(f"{name}: {len(lost)} of {len(scenario.probes)} probes lost")
    for f in lost:
        print(f"   {f.probe.answer!r:16} {f.kind} at step {f.step} by {f.operation}")
"""),
        md(r"""
Step all four together:
"""),
        code("""
compare_player(traces)
"""),
        md(r"""
## Exercise · what would FIFO need?

SCM keeps most probes at $V_{max}$ = 800 tokens. How large must a FIFO window be to keep as many?
Find the **smallest** $V_{max}$ (a whole number of tokens) at which `FIFOWindow` retains at least as
many probes of this scenario as SCM does at 800. `scenario.space(v_max=...)` gives the state space;
a binary search needs about a dozen runs. Then compare the prompt tokens both would be billed.
"""),
        code("""
from stmviz.exercises import check_fifo_match

fifo_v_max = None  # TODO: the smallest V_max at which FIFOWindow keeps as many probes as SCM at 800
"""),
        code("""
check_fifo_match(fifo_v_max)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("07-fifo-match")` prints one answer.

## What to take away

* Definition 1 and 2 put every mechanism in one formal model, so one trace format and one set of
  metrics compare them: occupancy $\sum\mu/V_{max}$, $|\pi(\omega_t)|$, evictions with their
  reasons, retention.
* A comparison is only as fair as its scenario: each mechanism's $U$ reads something from the agent
  (subgoals, folding directives, questions in the input); without it, it falls back to a rule.
* The same $V_{max}$ is a ceiling, not a budget spent: what a mechanism puts into $\omega$ — and how
  much $\pi$ adds — decides the prompt tokens.
* Retention is presence of the answer in $\pi(\omega_t)$; `why_forgotten` turns every ✗ into a
  step, an operation and a rule.
"""),
    ]


@notebook("08_build_your_own")
def _():
    return [
        md(r"""
# 8 · Build your own mechanism: priority from metadata

The paper's example of metadata: $D_1 = \{low, medium, high\}$ (priority) and
$D_2 = \{user, model, api\}$ (source). Metadata is what lets a mechanism be smarter than FIFO
*without changing the definition* — the paper's "scalability" property.

**Exercise.** Write a mechanism whose update $U$

1. adds each observation as one element whose metadata keeps the step's `priority` and `source`
   (and a time `t`);
2. when $\sum\mu > V_{max}$, removes elements with the **lowest priority first**, within a
   priority the **oldest first**, and **no more than needed** to fit;

and whose projection $\pi$ lists every element, **high priority first**, then medium, then low.
The checker replays seven observations at $\mu$ = words, $V_{max} = 26$.
"""),
        code("""
from stmviz import Element, Mechanism, StateSpace, Transition, run, sizes
from stmviz.exercises import PRIORITY_STEPS, check_priority_memory

for step in PRIORITY_STEPS:
    print(f"{step.meta['priority']:6} {step.meta['source']:5} {step.observation}")
"""),
        md(r"""
## A first attempt

This one is a plain FIFO: it ignores the priority. Run the check and read what fails.
"""),
        code("""
class FirstAttempt(Mechanism):
    operations = {"append": "add the observation, drop the oldest on overflow"}

    def update(self, state, operation, context):
        new = Element(context.observation, {"t": context.t, **context.step.meta})
        state = state | {new}
        while state not in self.space:
            state = state - {state.ordered()[0]}
        return state

    def project(self, state):
        return "\\n".join(e.text for e in state)

print(check_priority_memory(FirstAttempt))
"""),
        md(r"""
The trace shows the moment it goes wrong: the allergy, a high-priority user fact, leaves while
low-priority API chatter stays.
"""),
        code("""
print(run(FirstAttempt(StateSpace(sizes.words, v_max=26)), PRIORITY_STEPS).table(width=0))
"""),
        md(r"""
## Your turn

Write `update` and `project` of `PriorityMemory`, then run the check until every line shows ✓.
Each ✗ names the step where a rule was broken and gives a hint. `Transition(state, reasons)` lets
$U$ say why each element left (see notebook 02).
"""),
        code("""
RANK = {"low": 0, "medium": 1, "high": 2}

class PriorityMemory(Mechanism):
    operations = {"append": "add the observation; on overflow drop the lowest priority, oldest first"}

    def update(self, state, operation, context):
        # TODO: add the observation with its metadata; while Σμ > V_max drop the lowest priority, oldest first
        raise NotImplementedError("TODO: write PriorityMemory.update")

    def project(self, state):
        # TODO: every element, high priority first
        raise NotImplementedError("TODO: write PriorityMemory.project")
"""),
        code("""
check_priority_memory(PriorityMemory)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("08-priority")` prints one answer. When every line
shows ✓, see what the model reads at the end: `mine = PriorityMemory(StateSpace(sizes.words, v_max=26))`,
then `print(mine.project(run(mine, PRIORITY_STEPS).final))`.

### Going further

* Make the source matter too: never evict a `user` fact while an `api` fact of the same priority
  remains.
* Summarize instead of evicting: `stmviz.text.summarize(texts, budget)` is an offline summarizer.

## What to take away

* Metadata $D = D_1 \times D_2$ (priority, source) changes what a mechanism can do without changing
  Definition 1: the state is still a set of $(i, d)$ within $V_{max}$.
* $U$'s eviction rule is an order on the elements — here (priority, time) — applied only as far as
  $\sum\mu > V_{max}$ demands; removing more than needed wastes capacity.
* $\pi$ is where order is made for the model: the same $\omega$ can be shown high priority first.
* A checker that tests each rule separately tells *which* rule a mechanism breaks, and at which step.
"""),
    ]


@notebook("09_your_own_logs")
def _():
    return [
        md(r"""
# 9 · Your own logs

You probably have agent transcripts already, as OpenAI-style chat messages: roles `system`,
`user`, `assistant` and `tool`, assistant `tool_calls`, tool results with `tool_call_id`. stmviz
turns them into steps of the Figure 1 loop and replays them through any mechanism.

A step $t$ holds, in this order, **the model's output** — produced from $x_t = \pi(\omega_t)$ —
and then **the input that arrives after it**, which the model sees from $x_{t+1}$ on. So the
importer reads the messages in order and cuts them like this:

| messages | step |
|---|---|
| leading `system` message(s) | the query $Q$ (no step) |
| everything before the first `assistant` message | step 0: no output, input = the user's message |
| an `assistant` message | a new step: its content is the `thought`, its `tool_calls` the `action` |
| the `user` or `tool` messages after it, up to the next `assistant` message | that step's input (`observation`): the user's next message, or the tool results in the order of the calls |
| a `user` message right after tool results | a step of its own with no output (a step's input is a tool's or a person's, never both) |
| a later `system` message | a step of its own with no output, `meta["role"] == "system"` |
| an `assistant` message followed by another, or the last one | a step with an output and no input |

For a plain chat $[u_0, a_0, u_1, a_1, \dots]$ that gives step 0 $= (\,\text{—}, u_0)$, step
$k = (a_{k-1}, u_k)$: reply $a_k$ is the output of step $k+1$, produced from $\pi(\omega_{k+1})$,
which holds the message $u_k$ it answers. Each step's `meta` keeps the `role` of its input, the
indices of its `messages`, their `roles`, and the `tool` names and `call` ids.
"""),
        code("""
import json
import tempfile
from pathlib import Path

from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, metrics, run
from stmviz.scenarios import from_openai_messages, load_chat_log
from stmviz.tables import table

messages = [
    {"role": "system", "content": "You are a travel assistant."},
    {"role": "user", "content": "I'm Ada. I need a hotel in Lisbon for May 3-6, under 150 EUR a night."},
    {"role": "assistant", "content": "Let me search.", "tool_calls": [
        {"id": "call_1", "type": "function",
         "function": {"name": "search_hotels", "arguments": "{\\"city\\": \\"Lisbon\\", \\"max_price\\": 150}"}}]},
    {"role": "tool", "tool_call_id": "call_1",
     "content": "Casa Azul 120 EUR (Alfama, 4.6 stars); Hotel Tejo 145 EUR (Baixa, 4.4 stars)"},
    {"role": "assistant", "content": "Casa Azul in Alfama is 120 EUR a night and rated 4.6."},
    {"role": "user", "content": "Book Casa Azul, and remember I'm vegetarian for the dinner tips."},
    {"role": "assistant", "content": "Booked Casa Azul for May 3-6. Noted: vegetarian."},
]
scenario = from_openai_messages(messages, name="lisbon")
for t, step in enumerate(scenario.steps):
    print(t, "| output:", (step.thought or "—")[:35], step.action[:40], "| then input:", (step.observation or "—")[:45],
          "|", step.meta["role"], step.meta["messages"])
"""),
        md(r"""
The system message became the query $Q$. Step 0 is Ada's first message (no output yet); step 1
is the tool call and, after it, its result; step 2 the reply about Casa Azul and then Ada's next
message; step 3 the last reply, with nothing after it. Logs also load from a JSON file (a list, or
`{"messages": [...]}`) or a JSONL file with one message per line:
"""),
        code("""
folder = Path(tempfile.mkdtemp())
(folder / "chat.jsonl").write_text("\\n".join(json.dumps(m) for m in messages))
from_file = load_chat_log(folder / "chat.jsonl")
len(from_file.steps) == len(scenario.steps), from_file.query
"""),
        md(r"""
Malformed logs fail with a message that says which line and which field:
"""),
        code("""
(folder / "broken.jsonl").write_text('{"role": "user", "content": "hi"}\\n{"role": "robot", "content": 3}\\n')
try:
    load_chat_log(folder / "broken.jsonl")
except Exception as error:
    print(type(error).__name__, ":", str(error).replace(str(folder), "<folder>"))
"""),
        md(r"""
## Replay through every mechanism

A small $V_{max}$ makes the mechanisms differ even on a short log. `trace.project(t)` is the
input the model saw when it produced step $t$'s output. For the last reply (step 3): did the
model see the message it answers ("remember I'm vegetarian"), and does it still see the price
limit Ada gave in her first message?
"""),
        code("""
small = scenario.space(v_max=100)
last = len(scenario.steps) - 1  # the step whose output is the last reply
rows = []
for cls in (FIFOWindow, SCM, HiAgent, AgentFold):
    trace = run(cls(small), scenario)
    seen = trace.project(last).text()
    rows.append({"mechanism": cls.__name__, **{k: v for k, v in metrics.summary(trace).items()
                 if k in ("mean_occupancy", "total_prompt_tokens", "evictions")},
                 "saw the message it answers": "vegetarian" in seen,
                 "still sees the 150 EUR limit": "150 EUR" in seen})
table(rows)
"""),
        md(r"""
## Exercise · a chat as steps of the loop

Write the importer's rule for a plain chat yourself. `chat_steps(messages)` gets a list of
`{"role": "user" | "assistant", "content": ...}` starting with the user, and returns one
`(output, input)` pair per step, `None` where a half is missing: step 0 $= (\text{None}, u_0)$,
step $k = (a_{k-1}, u_k)$, and a last reply with nothing after it is a step $(a_n, \text{None})$.
"""),
        code("""
from stmviz.exercises import check_chat_steps

def chat_steps(messages):
    # TODO: return [(output, input), ...]: a reply opens a step, the user's next message closes it
    raise NotImplementedError("TODO: write chat_steps")
"""),
        code("""
check_chat_steps(chat_steps)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("09-chat-steps")` prints one answer.

## What to take away

* Any chat log is a run of Figure 1's loop: each step holds the model's output, produced from
  $x_t = \pi(\omega_t)$, then the input that arrived after it, seen from $x_{t+1}$ on.
* Cutting a log this way tells, for every reply, exactly which input it was produced from —
  `trace.project(t)` — and so whether the model could have seen a fact.
* The same log replays through every mechanism of Definition 2; a small $V_{max}$ shows quickly
  where they differ.
* Malformed logs fail loudly, naming the line and the field, rather than replaying something else.
"""),
    ]


@notebook("10_measuring_memory")
def _():
    return [
        md(r"""
# 10 · Measuring memory: what survives to question time, and what it costs

The paper defines the state $\omega$ and the mechanism $(O, E, \Omega_{STM}, C, U, X, \pi)$ but leaves
the *metrics of effectiveness* open, and names the systematic comparison of mechanisms within one
formal model as the first direction its definitions open. This notebook measures two things
for every question a scenario asks:

- **what survived**: how much of the question's evidence is in the model input
  $x_t = \pi(\omega_t)$ the answer is produced from — raw, summarized, or not at all;
- **what it cost**: the input tokens of every model call so far, $\sum_{s \le t} |\pi(\omega_s)|$.

Then it sweeps $V_{max}$ for the four mechanisms, draws cost against quality with the Pareto front,
asks *why* one fact was lost, and ends on real data: the LoCoMo benchmark, where the four mechanisms
keep very different things at question time.
"""),
        md(r"""
## The measures, in the paper's notation

A probe $p$ asks its question at $t$: the answer is produced from $x_t = \pi(\omega_t)$, built from
the state after steps $0 \dots t-1$ (`trace.project(t)`). Its evidence lies in the steps
$S_p$ (`probe.evidence_steps`); write $T(S_p)$ for their text (thought, action, observation) and
$X_t$ for the text of $x_t$. For a text $y$:

- $N(y)$, its **normalized tokens** (SQuAD's answer normalization): lower case, no punctuation or
  symbols, no articles *a, an, the*, split on whitespace;
- $C(y) = \{ w \in N(y) : w \notin \text{STOP\_WORDS} \}$, its **content tokens**, as a set;
- $G(S_p)$, the evidence's **4-grams**: every run of four consecutive tokens of $N$ of each evidence
  step's parts, less those the question itself holds; $g \sqsubseteq N(X_t)$ when the tokens of $g$
  occur in a row in $N(X_t)$.

| measure | definition | `stmviz.metrics` |
|---|---|---|
| evidence recall | $\lvert \{ g \in G(S_p) : g \sqsubseteq N(X_t) \} \rvert \,/\, \lvert G(S_p) \rvert$ | `evidence_recall` |
| evidence word overlap | $\lvert C(T(S_p)) \cap C(X_t) \rvert \,/\, \lvert C(T(S_p)) \rvert$ | `evidence_word_overlap` |
| whole turns | share of $s \in S_p$ whose every part occurs verbatim in $X_t$ | `whole_turns` |
| key-string retention | $[\,\text{answer} \subseteq X_t\,]$, ignoring case | `retention` |
| answer recall | $\lvert N(r) \cap N(X_t) \rvert \,/\, \lvert N(r) \rvert$, multisets, $r$ the reference answer | `answer_recall` |
| cost | $\sum_{s=0}^{t} \lvert \pi(\omega_s) \rvert$ | `cost_at` |

Evidence recall counts what reached the model *in any form*: a summary that copies phrases of the
evidence earns part of it although no turn survived whole. None of them judges meaning — a
paraphrase that keeps the meaning but not the words counts as lost.
"""),
        code("""
from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, StateSpace, load_scenario, run, sizes
from stmviz import metrics
from stmviz.tables import table

scenario = load_scenario("long_dialogue")
scm = run(SCM(StateSpace(sizes.tokens(), v_max=scenario.v_max)), scenario)
columns = ["t", "answer", "evidence_steps", "retained", "evidence_recall", "evidence_word_overlap", "whole_turns",
           "answer_recall", "cost"]
table(metrics.probe_metrics(scm, scenario.probes), columns)
"""),
        md(r"""
Read the second row: SCM at $V_{max} = 800$ still has *aisle seat* in $x_{37}$ (retained, answer
recall 1.0), yet no evidence turn is there whole (whole turns 0.0); about a third of the evidence's
4-grams are (evidence recall 0.36): the fact reached the model as the summary of an activated memory,
which copies some of the turn's phrases. The last two key strings did not reach the model at all:
their evidence recall is 0.04 and 0.00, although a quarter to a third of their evidence's words
(word overlap 0.31 and 0.24) are found elsewhere in $x_{41}$ — the false credit of a bag of words.

One record per run sums it up (`run_metrics`: `summary`'s keys plus the means):
"""),
        code("""
record = metrics.run_metrics(scm, scenario.probes)
{k: record[k] for k in ("retention", "evidence_recall", "whole_turns", "answer_recall", "cost")}
"""),
        md(r"""
## Why 4-grams? A measure must tell a kept fact from a lost one

stmviz's first evidence measure was the word overlap: the share of the evidence's content words
found *anywhere* in $X_t$. On a long conversation that is not enough: the names and common words of
the evidence are everywhere, and a question repeats its evidence's words. On the first five
conversations of LoCoMo (below), with FIFO windows of 2,048 and 8,192 tokens, the word overlap
averages **0.646 on the 1,187 questions none of whose evidence turns is in $x_t$** — and 1.000 where
all are. The candidates, measured the same way (`benchmarks/evidence_measures.py`):

| candidate | none present | all present | ranks FIFO, HiAgent, SCM, AgentFold as whole turns do |
|---|---|---|---|
| word overlap (the old measure) | 0.646 | 1.000 | no |
| words weighted by rarity in the conversation (IDF) | 0.535 | 1.000 | no |
| the evidence's words that the question lacks | 0.599 | 1.000 | no |
| both | 0.492 | 1.000 | no |
| evidence bigrams | 0.228 | 1.000 | no |
| evidence 3-grams | 0.070 | 1.000 | yes |
| **evidence 4-grams** (`evidence_recall`) | **0.026** | **1.000** | yes |
| sentences found whole | 0.077 | 1.000 | no |

A rare word still recurs in a conversation about the same people; four words in a row rarely do.
The same contrast on the bundled dialogue, with FIFO windows of 300, 1,200 and 2,000 tokens — the
probes whose evidence turns are all gone, and those whose turns are all there:
"""),
        code("""
rows = []
for v_max in (300, 1200, 2000):
    fifo = run(FIFOWindow(StateSpace(sizes.tokens(), v_max=v_max)), scenario)
    rows += metrics.probe_metrics(fifo, scenario.probes)
for present in (0.0, 1.0):
    chosen = [r for r in rows if r["whole_turns"] == present]
    print(f"whole turns = {present}: {len(chosen)} probes, "
          f"evidence recall {sum(r['evidence_recall'] for r in chosen) / len(chosen):.2f}, "
          f"word overlap {sum(r['evidence_word_overlap'] for r in chosen) / len(chosen):.2f}")
"""),
        md(r"""
## A sweep over $V_{max}$

`sweep(mechanisms, scenarios, v_max=[…], **grids)` runs every combination — here 4 mechanisms ×
4 capacities — and returns one record per run. The runs share what is a pure function of its
input: μ of each element, each summary by its texts and budget, SCM's embeddings. So the traces
are those of independent `run()` calls, computed with less work. By default a progress bar counts
the runs (`progress=False` hides it, as here, so that the notebook's output stays the same).

The records are plain dicts with the same keys, so `pandas.DataFrame(records)` — or
`records.to_pandas()` — makes a table of them. A sweep too large for one machine runs on any
`concurrent.futures.Executor`: a process pool, or a Dask cluster, unchanged
(`pip install 'stmviz[dask]'`):

```python
from dask.distributed import Client
client = Client("tcp://scheduler:8786")          # or Client() for a local cluster
records = sweep(mechanisms, scenarios, v_max=[...], executor=client.get_executor())
```
"""),
        code("""
from stmviz.sweep import sweep

records = sweep([FIFOWindow, SCM, HiAgent, AgentFold], scenario, v_max=[300, 600, 1200, 2000], progress=False)
table(records, ["mechanism", "v_max", "retention", "evidence_recall", "whole_turns", "answer_recall", "cost"])
"""),
        code("""
from stmviz.viz import pareto_figure, recall_figure

recall_figure(records)
"""),
        md(r"""
FIFO's and HiAgent's evidence recall stays near 0 until 2,000 tokens, where the window reaches back
to some evidence. SCM's is the same at every capacity (0.37): it activates the top $k = 3$ memories
whatever the room, so extra capacity stays empty. Cost tells the other half of the story:
"""),
        code("""
pareto_figure(records)
"""),
        md(r"""
A run is on the **Pareto front** when no other run is at least as cheap *and* at least as good
(one of them strictly). On this dialogue the front is SCM's alone: its runs reach the best evidence
recall (0.37) with a fraction of the input tokens the others spend — the largest FIFO window bills
58,808 tokens for 0.16.

With a kernel, the explorer below shows one $V_{max}$ at a time (move the slider):
"""),
        code("""
from stmviz.widgets import SweepExplorer

SweepExplorer(records, v_max=600)
"""),
        md(r"""
## Why was this lost?

`why_forgotten(trace, probe)` follows the elements that held a probe's evidence and names the
step, the operation and the recorded rule that took it out of $\pi(\omega_t)$. Take the probe
about the user's family name, lost by SCM at $V_{max} = 800$ above:
"""),
        code("""
from stmviz.forgetting import why_forgotten

okafor = next(p for p in scenario.probes if p.answer == "Okafor")
print(why_forgotten(scm, okafor).explanation)
"""),
        md(r"""
SCM did not forget the fact: interaction 1 is still in its memory stream. It was *not activated*:
three other interactions ranked higher for the question, and $k = 3$. A larger $V_{max}$ cannot
help; a larger $k$ might (try `sweep([SCM], scenario, v_max=[800], k=[3, 5, 8])`). The FIFO window
loses the same fact differently — it was evicted as the oldest message:
"""),
        code("""
fifo = run(FIFOWindow(StateSpace(sizes.tokens(), v_max=600)), scenario)
why_forgotten(fifo, okafor)
"""),
        md(r"""
## On real data: LoCoMo

LoCoMo (Maharana et al., 2024) holds ten long conversations between two people — 5,882 turns over up
to 35 sessions — and questions on them, each with its evidence turns: 1,535 with an answer and
evidence, in four categories (multi-hop, temporal, open-domain, single-hop). It is published by
snap-research/locomo under CC BY-NC 4.0, so stmviz does not bundle it: download `data/locomo10.json`
(or `data/locomo10.zip`) from that repository, keep it outside your code, and load it:

```python
from stmviz.scenarios import load_locomo
conversations = load_locomo("locomo10.json")     # 10 scenarios; a warning lists the file's 12 anomalies
```

Every turn becomes a step the model listens to, and the questions are appended after the
conversation. `stmviz.locomo_eval` applies LoCoMo's protocol to a run: `locomo_records(trace,
scenario)` measures each question (its category, LoCoMo's whole-turn evidence recall, stmviz's
evidence recall), `by_category` averages them, and with an OpenAI-compatible client
(`reader=`, `judge=`) a model answers from $x_t$ and is scored by LoCoMo's F1 and by a judge.

What the four mechanisms keep at question time, on all ten conversations (evidence recall /
whole turns, the mean per conversation; cost $\sum_t |\pi(\omega_t)|$ over the ten runs):

| $V_{max}$ | FIFO | HiAgent | SCM ($k = 3$) | AgentFold |
|---|---|---|---|---|
| 2,048 | 0.049 / 0.031, 14.4 M tokens | 0.026 / 0.013, 14.5 M | 0.093 / 0.092, 1.2 M | 0.014 / 0.001, 7.9 M |
| 8,192 | 0.380 / 0.352, 50.8 M | 0.287 / 0.259, 52.4 M | the same | the same |
| unbounded | 1.000 / 1.000, 96.3 M | 1.000 / 1.000, 115.2 M | the same | the same |

Evidence recall now agrees with whole turns: FIFO at 2,048 tokens keeps 0.049 of its evidence's
4-grams while 3.1 % of its evidence turns are in its input — the old word overlap said 0.566.
SCM keeps the most at 2,048 tokens, for a twelfth of FIFO's cost, and not one token more with
more room; AgentFold keeps summaries only (0.014 of the 4-grams, almost no turn whole). By
category, SCM's three retrieved memories serve single-hop (0.121) and temporal (0.100) questions,
which need one turn, far better than multi-hop (0.014) and open-domain (0.024) ones, which need
several.

reproduced with `python benchmarks/locomo_table.py locomo10.json --scm-k 3 10 30` (numbers only).
The cells below compute the same on the bundled dialogue, which runs anywhere.
"""),
        md(r"""
### Why SCM and AgentFold do not use more room

The FIFO window and HiAgent keep more of the conversation when $V_{max}$ grows; SCM and AgentFold
keep the same whatever the room:

- **SCM** answers from its flash memory and the $k = 3$ memories it activates — as released, for
  every message once there are older turns, ranked by relevance to the message. Its model input holds at most those, so extra capacity stays
  empty: the evidence reaches the model only when retrieval finds it.
- **AgentFold** here has no agent writing folding directives, so stmviz's rule controller folds every
  turn into summary blocks as it arrives (blocks grow coarser with age). Its input is the summaries
  and the latest turn; the summaries have their own budget, so more room changes nothing either.

What *would* make SCM use more room is a larger $k$:
"""),
        code("""
by_k = sweep([SCM], scenario, v_max=[800, 2000], k=[1, 3, 5, 8], progress=False)
table(by_k, ["k", "v_max", "evidence_recall", "whole_turns", "cost", "max_prompt_tokens"])
"""),
        md(r"""
With $k = 1$ SCM keeps less (0.27<!-- printed: above -->), with $k = 5$ more (0.40<!-- printed: above -->)
at a higher cost (19,855 against 13,786 tokens), and only at $k = 8$ does its largest input grow with
$V_{max}$ (786<!-- printed: above --> → 813<!-- printed: above --> tokens): the room
matters once retrieval brings more than fits. On LoCoMo the same sweep
(`benchmarks/locomo_table.py --scm-k 3 10 30`) gives evidence recall 0.093 → 0.191 → 0.327 for
1.2 → 3.0 → 8.1 M tokens, identical at 2,048 and 8,192 tokens: thirty activated turns still fit in
2,048 tokens. What SCM keeps is set by $k$, not by $V_{max}$.
"""),
        md(r"""
## Takeaways

- Key-string retention says *whether* a short answer reached the model; **evidence recall** says
  how much of the evidence did, raw or summarized, and **whole turns** whether it came raw.
- **Cost** $\sum_t |\pi(\omega_t)|$ belongs next to every quality number: a mechanism that keeps
  little but bills little can sit on the Pareto front.
- Curves against $V_{max}$ separate mechanisms that use more room (FIFO and HiAgent here) from
  those that stop using it: SCM, whose retrieval takes $k$ memories whatever the room, and
  AgentFold, whose blocks on this short dialogue fit from 1,200 tokens on.
- A bag of words over-counts common words — on real conversations it finds most of a lost turn's
  words anyway — which is why evidence recall counts runs of four words; no measure here sees a
  paraphrase. Compare mechanisms on the same probes, and read the explanation of a loss before
  trusting a number.
- On LoCoMo the mechanisms differ in *what* they keep: FIFO and HiAgent keep more turns with more
  room, SCM only what its $k$ activations retrieve, AgentFold only summaries.

## Exercise

Compute the evidence word overlap *by hand* with only `trace.project(t)`, the steps' texts
`trace[s].context.step.text` and `metrics.content_tokens`, following the definition above.
Replace the TODO in `my_evidence_recall`; the checker compares it with `metrics.evidence_word_overlap`
on every probe, for the four mechanisms at the sweep's smallest $V_{max}$, and says ✓ or ✗ for
each criterion, with a hint for every ✗.
"""),
        code("""
from stmviz.exercises import check_evidence_recall

def my_evidence_recall(trace, probe):
    # TODO: the share of the evidence's content words (probe.evidence_steps) found in π(ω_t), t = probe.t
    raise NotImplementedError("TODO: write my_evidence_recall")
"""),
        code("""
check_evidence_recall(my_evidence_recall)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("10-evidence-recall")` prints one answer.

Back to the start: **[00 · Start here](00_start_here.ipynb)**.
"""),
    ]


@notebook("11_managers_you_use")
def _():
    return [
        md(r"""
# 11 · The managers you use: practitioners' context managers in the paper's terms

The four architectures of the paper's Section 4 are research systems. What people run in 2026
are the context managers of their APIs and frameworks: Anthropic's tool-result clearing and
compaction, Claude Code's auto-compact, LangChain's summarization middleware, LlamaIndex's
`Memory`, the OpenAI Agents SDK's sessions, Letta (MemGPT), Google ADK's event compaction.
Each is a mechanism $(O, E, \Omega_{STM}, C, U, X, \pi)$ — the paper's first claimed property,
universality — and they split along the paper's own line, **separation of concerns**:

- some rewrite the state: **$U$** removes or replaces elements, and $\pi$ shows what is left;
- some keep the whole history in $\omega$ and only edit a copy of it for each model call:
  **$\pi$** hides or replaces what the model sees; $\omega$ never loses anything;
- server-side compaction does both: $U$ adds a summary to $\omega$, and $\pi$ shows nothing before it.

| stmviz | original | $U$ (rewrites $\omega$) | $\pi$ (builds each model input) |
|---|---|---|---|
| `ClearToolUses` | Anthropic context editing; LangChain `ClearToolUsesEdit` | appends | old tool results → a placeholder (and old thinking) |
| `Compaction` | Anthropic `compact_20260112`; `Compaction.claude_code` its auto-compact | appends; at the trigger adds a summary block | the system prompt, then nothing before the last block |
| `LangChainSummarization` | LangChain `SummarizationMiddleware` | the oldest messages → one summary message | the identity |
| `LlamaIndexMemory` | LlamaIndex `Memory` | flushes the oldest messages into memory blocks | blocks rendered into the system message, dropped by priority |
| `TrimmingSession`, `SummarizingSession` | OpenAI Agents SDK session recipes | keeps the last user turns / replaces older turns by a summary pair | the identity |
| `LettaMemory` | MemGPT / Letta | sliding-window summary, core-memory edits, paging by tool calls | system prompt with core memory, summary, queue |
| `ADKCompaction` | Google ADK `EventsCompactionConfig` | appends summaries; never deletes an event | hides the events a summary covers |

Their sources, defaults and every departure are in each class's docstring and in `docs/fidelity.md`.
Each class also declares where each part of its work happens, as `placement`:
"""),
        code("""
import dataclasses

from stmviz import (ADKCompaction, ClearToolUses, Compaction, FIFOWindow, LangChainSummarization, LettaMemory,
                    LlamaIndexMemory, StateSpace, SummarizingSession, TrimmingSession, load_scenario, metrics, run, sizes)
from stmviz.forgetting import why_forgotten
from stmviz.scenarios import Probe, example_transcript, load_transcript, recorded_compactions
from stmviz.tables import table

table([{"manager": cls.__name__, "part of its work": part, "in": where}
       for cls in (ClearToolUses, Compaction, LangChainSummarization, LlamaIndexMemory, TrimmingSession,
                   SummarizingSession, LettaMemory, ADKCompaction)
       for part, where in cls.placement.items()])
"""),
        md(r"""
Drawn, the split reads at a glance: everything in the left column rewrites $\omega$, so what it
drops is gone for good; everything in the right column only shapes $x_t$, and $\omega$ still
holds what the model no longer sees.
"""),
        code("""
from stmviz.viz import placement_figure

placement_figure([ClearToolUses, Compaction, LangChainSummarization, LlamaIndexMemory, TrimmingSession,
                  SummarizingSession, LettaMemory, ADKCompaction])
"""),
        md(r"""
## A transcript you already have

Practitioners' transcripts are not stmviz scenarios. `load_transcript` recognises a Claude Code
session file, an Anthropic Messages request or response, OpenAI chat messages or Responses /
Agents SDK items, OpenTelemetry GenAI spans, LangChain messages and AgentFold logs, and reads each
by one rule: a step $t$ holds the model's output, produced from $x_t = \pi(\omega_t)$, then the input
that arrives after it. The model's thinking goes into the step's metadata, never into its text.

stmviz ships one small Claude Code session (written for this notebook, no real user's data): a
coding agent fixes invoice totals that are off by a cent. Its file also holds a sub-agent's
sidechain, a message the user rewound, and one **automatic compaction** Claude Code made.
"""),
        code("""
session = load_transcript(example_transcript("claude_code_session"))
print(session.description)
table([{"t": t, "output": step.thought or step.action, "input": step.observation, "role": step.input_role}
       for t, step in enumerate(session.steps)], width=48)
"""),
        md(r"""
The compaction Claude Code recorded (its `compact_boundary` and the summary after it) is kept as
an event, not replayed as a message: each manager below makes its own.
"""),
        code("""
(real,) = recorded_compactions(session)
print(real.label, "— before the output of step", real.t)
print(real.summary[:420], "…")
"""),
        md(r"""
Four facts the agent needs later become **probes**: the finance ticket (the user's first message,
needed for the commit at step 14), the tax rate (a file read at step 3), the failing test (step 7)
and the billing rule (step 10).
"""),
        code("""
session = dataclasses.replace(session, probes=(
    Probe(14, "Which finance ticket goes in the commit message?", "FIN-2291", 0),
    Probe(11, "What is the regional tax rate?", "0.0725", 3),
    Probe(12, "Which test still failed after the first fix?", "test_total_with_discount_rounds_half_even", 7),
    Probe(11, "What do the billing rules say a discount applies to?", "net amount", 10),
))
session.token_count()
"""),
        md(r"""
## Every manager on the same transcript

The originals' thresholds are set for windows of about 200,000 tokens; this session has 1,828.
`managers(v_max, window)` keeps each original's rule and scales its thresholds to a model window
`window` by the same fractions (Anthropic clears tool results from 100,000 of 200,000 tokens: half
the window; compacts from 150,000: three quarters; Claude Code at 95 %; Letta at 0.9 of its window).
$V_{max}$ is the capacity of the store: large enough here for the whole transcript, so the FIFO
window — the plain context window — forgets nothing and is the baseline. The session recipes and ADK count user turns, not
tokens, and this session has three: here they keep 2 turns (`max_turns`), summarize past 2 keeping 1,
and compact every 2 invocations (the defaults, 8, 3 and 3, come back for the long chat below).
"""),
        code("""
def managers(v_max, window, max_turns=8, context_limit=3, keep_last_n_turns=3, adk_interval=3):
    space = StateSpace(sizes.tokens(), v_max)
    return {
        "FIFO window": FIFOWindow(space),
        "ClearToolUses": ClearToolUses(space, trigger=window // 2, keep=3),
        "Compaction": Compaction(space, trigger=window * 3 // 4),
        "Claude Code": Compaction.claude_code(space, window=window, percent=95),
        "LangChainSummarization": LangChainSummarization(space, trigger=("tokens", window * 3 // 5), keep=("messages", 6)),
        "LlamaIndexMemory": LlamaIndexMemory(space, token_limit=window * 3 // 4),
        "TrimmingSession": TrimmingSession(space, max_turns=max_turns),
        "SummarizingSession": SummarizingSession(space, context_limit=context_limit, keep_last_n_turns=keep_last_n_turns),
        "LettaMemory": LettaMemory(space, context_window=window),
        "ADKCompaction": ADKCompaction(space, compaction_interval=adk_interval, overlap_size=1),
    }


def scorecard(traces, probes):
    rows = []
    for name, trace in traces.items():
        record = metrics.run_metrics(trace, probes)
        kept = {p.answer[:14]: r.retained for p, r in zip(probes, metrics.retention(trace, probes))}
        rows.append({"manager": name, "max Σμ": max(s.size_after for s in trace), "max |π|": record["max_prompt_tokens"],
                     "cost": record["cost"], "summaries": record["summarizer_calls"], **kept})
    return table(rows)


fitted = managers(2400, 1700, max_turns=2, context_limit=2, keep_last_n_turns=1, adk_interval=2)
traces = {name: run(m, session) for name, m in fitted.items()}
scorecard(traces, session.probes)
"""),
        md(r"""
Read the columns. **max Σμ** is the largest stored state, **max |π|** the largest model input,
**cost** $\sum_t |\pi(\omega_t)|$ the input tokens of every model call, **summaries** the summarizer
calls; the last four say whether each probe's key string reached the model when it was needed.

- The $\pi$-managers keep everything: `ClearToolUses` stores as much as the FIFO window (more: it
  also keeps the thinking, which π shows only for the last turn) yet costs a third less, because
  $\pi$ shows old tool results as a placeholder. `Compaction` and Claude Code store *more* than the
  transcript — the history and the summary block —, and `Compaction` costs least of all.
- The $U$-managers store less: `LangChainSummarization`, `LlamaIndexMemory`, the session recipes
  and Letta remove elements from $\omega$.
- Nobody keeps everything at a lower cost: each saving lost some probe.

## Occupancy against $V_{max}$, and where the real system compacted

Four of them side by side: the baseline, a $\pi$-manager, a $U$-manager, and Claude Code's preset.
The dashed line is where Claude Code itself compacted this session (`mark_recorded_compactions`).
"""),
        code("""
from stmviz.viz import mark_recorded_compactions, occupancy_figure

four = {name: traces[name] for name in ("FIFO window", "ClearToolUses", "LangChainSummarization", "Claude Code")}
mark_recorded_compactions(occupancy_figure(four, layout="side"), session)
"""),
        md(r"""
In the `ClearToolUses` panel the stored $\Sigma\mu$ keeps growing while $|\pi(\omega_t)|$ falls away
from it once the trigger is passed: the history is whole, the input is not. In the
`LangChainSummarization` panel both fall together, at the steps where $U$ summarized. Claude Code's
preset (`Compaction.claude_code`, 95 % of a 1,700-token window) compacted at step 11, so the first
output it changed is step 12's — exactly where the recorded compaction stands.

## What each loses, and why

`why_forgotten(trace, probe)` names the step, the operation and the rule that took a fact out of
$\pi(\omega_t)$ — and tells $U$'s losses from $\pi$'s:
"""),
        code("""
rate, ticket = session.probes[1], session.probes[0]
for name, probe in (("ClearToolUses", rate), ("LangChainSummarization", rate), ("TrimmingSession", ticket),
                    ("LlamaIndexMemory", rate), ("Claude Code", ticket)):
    print(f"{name}: {why_forgotten(traces[name], probe).explanation}\\n")
"""),
        md(r"""
- `ClearToolUses` still *has* the tax rate in $\omega_{11}$; its $\pi$ shows a placeholder instead
  (Anthropic's documentation: "your client application maintains the full, unmodified
  conversation history"). Raising `keep` or excluding the `Read` tool would bring it back.
- `LangChainSummarization` lost the tax rate in $U$: the file it was read from was summarized away
  at step 7, and the offline summary kept the ticket instead. `TrimmingSession` lost the ticket in
  $U$ too: trimmed with the oldest user turn (the recipe keeps `max_turns` user turns, whatever
  they said).
- `LlamaIndexMemory` flushed the tax rate (and the ticket) from its queue into its memory blocks;
  with no fact-extraction block configured, nothing of them comes back in $\pi$.
- Claude Code's preset keeps the message in $\omega$ but $\pi$ shows nothing before the summary,
  and stmviz's offline, extractive summary did not keep the ticket number.

## The real compaction beside the mechanism's

The recorded summary was written by a model. Give the preset that very text as its summarizer:
the same trigger, the same place, the real summary. Which probes survive now?
"""),
        code("""
recorded_text = real.summary.split("\\n", 1)[1]  # its first line is the prefix the preset writes itself
space = StateSpace(sizes.tokens(), 2400)
with_real = run(Compaction.claude_code(space, window=1700, percent=95, summarizer=lambda texts, budget: recorded_text), session)
offline = traces["Claude Code"]
table([{"summary": name, **{p.answer[:14]: r.retained for p, r in zip(session.probes, metrics.retention(trace, session.probes))}}
       for name, trace in (("stmviz's offline summary", offline), ("Claude Code's recorded summary", with_real))])
"""),
        md(r"""
The recorded summary kept the ticket (its "Primary Request and Intent" section names FIN-2291),
so the commit at step 14 could cite it — as the session shows it did. It did not keep the failing
test's name, which the offline summary did: that one copies sentences, and the pytest output was
among them. (The tax rate was last needed at step 11, before either compaction.) The offline
summarizer is a stand-in; `Compaction.openai_summarizer(client, model)` sends the original's
prompt to a real model.

## A long chat

The same managers on the bundled `long_dialogue` (44 steps, no tool calls, seven probes of facts
told early), with a 1,600-token window. ADK never deletes an event and adds its summaries, so its
store needs room beyond the chat itself: $V_{max} = 8{,}000$ for all.
"""),
        code("""
chat = load_scenario("long_dialogue")
chat_traces = {name: run(m, chat) for name, m in managers(8000, 1600).items()}
rows = []
for name, trace in chat_traces.items():
    record = metrics.run_metrics(trace, chat.probes)
    rows.append({"manager": name, "max Σμ": max(s.size_after for s in trace), "max |π|": record["max_prompt_tokens"],
                 "cost": record["cost"], "summaries": record["summarizer_calls"],
                 "retention": record["retention"], "evidence recall": record["evidence_recall"]})
table(rows)
"""),
        md(r"""
With no tool results, `ClearToolUses` has nothing to clear: it *is* the FIFO window.
`LangChainSummarization` called its summarizer at 30 of the 44 steps: once past the trigger, the
summary and the 6 messages it keeps stay close to it, so almost every new message sets it off
again. Of the managers that save anything, ADK keeps the most evidence and pays the most for it:
its summaries overlap (`overlap_size`) and stay in $\pi$ beside each other. The session
recipes trim by user turns (`TrimmingSession` keeps 8, `SummarizingSession` summarizes past 3), so
their inputs stay small whatever the window; the sesame allergy told at step 1 is long gone when
the question comes at step 40:
"""),
        code("""
sesame = next(p for p in chat.probes if p.answer == "sesame")
for name in ("TrimmingSession", "SummarizingSession", "Compaction", "LettaMemory"):
    print(f"{name}: {why_forgotten(chat_traces[name], sesame).explanation}\\n")
"""),
        code("""
occupancy_figure({name: chat_traces[name] for name in ("FIFO window", "Compaction", "TrimmingSession", "LettaMemory")},
                 layout="side")
"""),
        md(r"""
$V_{max}$, the store's capacity, is far above every curve: what bounds these inputs is each
manager's own rule — Compaction's trigger (the dotted $|\pi(\omega_t)|$ drops at each new block
while $\Sigma\mu$ keeps growing), the recipe's turn count, Letta's 0.9 of its window — not
Definition 1's bound.
"""),
        md(r"""
## Takeaways

- The managers practitioners run are mechanisms of Definition 2, and the paper's split tells them
  apart: **$U$-managers** (summarization middleware, LlamaIndex, the session recipes, Letta) lose
  facts from $\omega$; **$\pi$-managers** (tool-result clearing) keep $\omega$ whole and hide facts
  from the input; **compaction** (Anthropic, Claude Code, ADK) adds a summary in $U$ and hides the
  rest in $\pi$. `why_forgotten` says which one happened.
- A $\pi$-manager's cost is not its occupancy: plot $|\pi(\omega_t)|$ beside $\Sigma\mu(\omega_t)$.
- Turn-based recipes bound turns, not tokens: one long tool result or one chatty turn is kept
  whole, and an early fact goes with its turn.
- A summary is only as good as its summarizer: the same compaction at the same step kept the ticket
  with the recorded model summary and lost it with the offline stand-in.
- A real transcript's own compaction (`recorded_compactions`) can be set against every mechanism on
  the same steps: `mark_recorded_compactions` draws it on any figure over $t$.

## Exercise · tool-result clearing is $\pi$'s work

Write $\pi$ of tool-result clearing on a list of messages `{"role", "content", "call"}` (the stored
history $\omega$, oldest first): every tool result (role `"tool"`) except the `keep` most recent
shows `placeholder`; everything else is shown as it is, in order. $\pi$ must not change $\omega$.
"""),
        code("""
from stmviz.exercises import check_clear_tool_results

def project(messages, keep, placeholder):
    # TODO: return a new list: the `keep` newest tool results as they are, older ones as `placeholder`
    raise NotImplementedError("TODO: write π of tool-result clearing")
"""),
        code("""
check_clear_tool_results(project)
"""),
        md(r"""
Only after trying: `stmviz.exercises.solution("11-clear-results")` prints one answer.

Back to the start: **[00 · Start here](00_start_here.ipynb)**.
"""),
    ]
