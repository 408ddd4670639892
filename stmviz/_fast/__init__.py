"""stmviz's private fast path: speed-ups that hide the definitions they compute, kept apart from them.

Each one is used only where a benchmark (``benchmarks/``) shows a gain a user
sees, and ``tests/test_fast.py`` holds it equal to the plain definition it
stands for. Private to stmviz: any stmviz module may use it; a user should not.

- :mod:`~stmviz._fast.memo` — ``Memo``, the bounded cache of the mechanisms'
  token counts, embeddings and summaries (equal to computing each value afresh).
- :mod:`~stmviz._fast.tokens` — ``TokenCounter``: μ = tokens with the counts of
  recent strings cached and long texts encoded in segments (equal to tiktoken's count).
- :mod:`~stmviz._fast.carry` — a state's canonical order and Σμ carried from
  state to state (equal to sorting and summing afresh).
- :mod:`~stmviz._fast.views` — ω grouped by type, each view derived from the
  previous ω's (HiAgent's and AgentFold's blocks, pairs and subgoals).
- :mod:`~stmviz._fast.lines` — |π(ω)| from per-line token counts carried from ω
  to ω (``LineTokens``, ``Tally``).
- :mod:`~stmviz._fast.ranking` — SCM's top k by matrix–vector products
  (``StreamMatrix``, equal to scoring each candidate by the definition).
- :mod:`~stmviz._fast.last_call` — ``LastCall``, the FIFO window's result for the
  last context, so its controller and U build a step's messages once (equal to
  building them afresh).

``memo``, ``tokens``, ``carry``, ``lines`` and ``last_call`` import the standard
library only, so the core may use them without a layer pointing up; ``views`` and
``ranking`` read the core's classes and errors, and only the mechanisms use them.
"""
