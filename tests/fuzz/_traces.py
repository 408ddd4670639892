"""Valid arguments for the fuzz suite: small traces of the four mechanisms, built once (not a test module).

The traces are shared by every case, so the harness also checks that no call
changes them (their JSON before and after).
"""

from __future__ import annotations

from functools import lru_cache

from stmviz import AgentStep, StateSpace, Trace, run, sizes


def steps(n: int = 8) -> list[AgentStep]:
    return [
        AgentStep(thought=f"reply {t} <b>bold</b>", action=f"search(q{t})", observation=f"user message {t} asks a question")
        for t in range(n)
    ]


@lru_cache(maxsize=None)
def trace(name: str = "FIFOWindow") -> Trace:
    """A run of one of the paper's mechanisms over 8 steps at μ = tokens, V_max = 120 (evictions happen)."""
    from stmviz import mechanisms

    mechanism = getattr(mechanisms, name)(StateSpace(sizes.tokens(), v_max=120))
    return run(mechanism, steps(), query="find the answer", tools=("search",))


@lru_cache(maxsize=None)
def empty_trace() -> Trace:
    """A run of no steps: only ω_0."""
    from stmviz import FIFOWindow

    return run(FIFOWindow(StateSpace(sizes.tokens(), v_max=120)), [])


@lru_cache(maxsize=None)
def loaded_trace() -> Trace:
    """A trace read back from its JSON without its mechanism (what a figure gets from a file)."""
    return Trace.from_json(trace("AgentFold").to_json())
