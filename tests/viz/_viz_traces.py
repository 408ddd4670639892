"""Small mechanisms and traces for the tests of stmviz.viz (not a test module itself)."""

from __future__ import annotations

from stmviz import AgentStep, Element, Mechanism, Operation, State, StateSpace, Transition, run, sizes

PAYLOADS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">click</a>',
    "<svg onload=alert(1)>",
    '" onerror="alert(1)',
)

#: Raw fragments that must never appear unescaped in any figure or exported file.
DANGEROUS = ("<script>alert", "<img src=x", "<svg onload", '<a href="javascript:', "<a href=", '" onerror="')


class ChatWindow(Mechanism):
    """A FIFO window: append the user message and the reply; evict the oldest while Σμ > V_max."""

    name = "chat-window"
    operations = {"append": "add the user message and the reply, evicting the oldest on overflow"}

    def initial_state(self, context):
        return State([Element("You are a helpful agent.", {"t": -1, "type": "system", "role": "system"})])

    def update(self, state, operation, context):
        new = []
        if context.observation:
            new.append(Element(context.observation, {"t": 2 * context.t, "type": "user", "role": "user", "step": context.t}))
        if context.thought:
            new.append(Element(context.thought, {"t": 2 * context.t + 1, "type": "assistant", "role": "assistant", "step": context.t}))
        new = [e for e in new if self.space.measure(e) <= self.space.v_max - 5]
        state = state | new
        ordered = [e for e in state.ordered() if e.type != "system"]
        total = self.space.size(state)
        reasons = {}
        while total > self.space.v_max:
            oldest = ordered.pop(0)
            total -= self.space.measure(oldest)
            reasons[oldest] = "evicted: oldest first while Σμ > V_max"
        return Transition(state - reasons.keys(), reasons)

    def project(self, state):
        return [{"role": str(e.meta.get("role", "user")), "content": e.text} for e in state]


class Folder(Mechanism):
    """Append each step as a "latest" element; fold the two oldest into a "block" when Σμ > V_max."""

    name = "folder"
    operations = {"append": "add the step", "fold": "fold the oldest elements into one summary block"}

    def controller(self, state, context):
        element = self._element(context)
        if self.space.size(state) + self.space.measure(element) > self.space.v_max:
            return [Operation("fold"), Operation("append")]
        return Operation("append")

    def _element(self, context):
        words = (context.observation or "(empty)").split()
        text = " ".join(words[:4] + words[-1:])
        return Element(text, {"t": context.t, "type": "latest", "step": context.t})

    def update(self, state, operation, context):
        if operation.type == "append":
            element = self._element(context)
            state = state | {element}
            reasons = {}
            for old in state.ordered():
                if self.space.size(state) <= self.space.v_max:
                    break
                if old is not element and old != element:
                    state = state - {old}
                    reasons[old] = "evicted: still too big after folding"
            return Transition(state, reasons)
        ordered = state.ordered()
        if len(ordered) < 2:
            return state
        first, second = ordered[0], ordered[1]
        block = Element(
            f"summary of {first.text.split()[0] if first.text.split() else '?'} …",
            {"t": first.t, "type": "block", "range": (first.meta.get("step", 0), second.meta.get("step", 0))},
        )
        why = f"folded into block {block.label(20)}"
        return Transition(state.replace({first, second}, {block}), {first: why, second: why})

    def project(self, state):
        return "\n".join(e.text for e in state)

    def projection_size(self, state):
        return int(self.space.size(state)) + 1


def chat_steps(n: int, payload: bool = False) -> list[AgentStep]:
    steps = []
    for t in range(n):
        extra = f" {PAYLOADS[t % len(PAYLOADS)]}" if payload else ""
        steps.append(
            AgentStep(
                thought=f"reply {t} with some words{extra}",
                observation=f"user message number {t} asks a question{extra}",
            )
        )
    return steps


def chat_trace(n: int = 12, v_max: float = 40, payload: bool = False, size=sizes.words):
    return run(ChatWindow(StateSpace(size, v_max=v_max)), chat_steps(n, payload), query="the query")


def fold_trace(n: int = 12, v_max: float = 20, payload: bool = False):
    return run(Folder(StateSpace(sizes.words, v_max=v_max)), chat_steps(n, payload), query="the query")


REAL_MECHANISMS = ("FIFOWindow", "SCM", "HiAgent", "AgentFold")


def real_trace(name: str, n: int = 24, v_max: float = 250, payload: bool = True):
    """A run of one of the paper's mechanisms from stmviz.mechanisms."""
    from stmviz import mechanisms

    mechanism = getattr(mechanisms, name)(StateSpace(sizes.tokens(), v_max=v_max))
    query = "find the answer <script>alert(1)</script>" if payload else "find the answer"
    return run(mechanism, chat_steps(n, payload), query=query)
