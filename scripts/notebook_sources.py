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
from stmviz import CapacityError, Element, ImagePart, State, StateSpace, sizes
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
### Try it

* Lower `v_max` to 20: which of the three elements still fit together?
* Give `weather` a huge `ImagePart` and watch $\mu$ grow.
* Next: **02 · Definition 2**, where a mechanism decides what enters and leaves $\omega$.
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
calls, (3) request metadata. In stmviz a `Context` carries the incoming agent step — the model's
output and the observation — together with the query, the tools, the step history and metadata.
"""),
        code("""
c = Context(t=4, step=AgentStep(thought="The user wants dinner.", action="search('nut-free')",
                                observation="3 restaurants found"),
            query="Plan a dinner", meta={"user": "ada"})
c.observation, c.model_output, c["user"]
"""),
        md(r"""
## A mechanism in a few lines: keep high priority longest

Here is a complete mechanism. $U$ adds the observation as an element whose metadata holds the
step's priority, then — while $\sum\mu > V_{max}$ — drops the lowest-priority, oldest element and
says why. $\pi$ renders the state as text, high priority first. The framework checks every
result of $U$ against $\Omega_{STM}$.
"""),
        code("""
RANK = {"low": 0, "medium": 1, "high": 2}

class KeepImportant(Mechanism):
    operations = {"append": "add the observation; on overflow drop the lowest priority, oldest"}

    def update(self, state, operation, context):
        new = Element(context.observation, {"t": context.t, "priority": context.step.meta.get("priority", "low")})
        state = state | {new}
        reasons = {}
        for victim in sorted(state, key=lambda e: (RANK[e.meta["priority"]], e.meta["t"])):
            if state in self.space:
                break
            state = state - {victim}
            reasons[victim] = f"{victim.meta['priority']} priority, oldest; Σμ > V_max"
        return Transition(state, reasons)

    def project(self, state):
        ranked = sorted(state, key=lambda e: -RANK[e.meta["priority"]])
        return "\\n".join(f"[{e.meta['priority']}] {e.text}" for e in ranked)

mechanism = KeepImportant(StateSpace(sizes.tokens(), v_max=30))
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

At each step the mechanism projects the state, $x_t = \pi(\omega_t)$, and sends it to the model;
the model's output and the observation become the context $c_t$; the controller picks an
operation $o_t$; and $\omega_{t+1} = U(\omega_t, o_t, c_t)$. `run` drives this loop over a
stream of steps and records a `Trace`.
"""),
        code("""
steps = [
    AgentStep(observation="The user is allergic to peanuts.", meta={"priority": "high"}),
    AgentStep(observation="It is raining in Riga today.", meta={"priority": "low"}),
    AgentStep(observation="The user prefers Italian food.", meta={"priority": "medium"}),
    AgentStep(observation="The API returned 42 restaurants near the old town.", meta={"priority": "low"}),
    AgentStep(observation="Booking must be for 19:30 on Friday.", meta={"priority": "high"}),
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
### Try it

* Break the contract on purpose — e.g. make `update` forget the eviction loop — and read what
  `check_mechanism` says.
* Next: **03 · The context window as FIFO**, the simplest mechanism of Section 4.
"""),
    ]
