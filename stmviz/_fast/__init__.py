"""stmviz's private fast path: speed-ups that hide the definitions they compute, kept apart from them.

Each one is used only where a benchmark (``benchmarks/``) shows a gain a user
sees, and ``tests/test_fast.py`` holds it equal to the plain definition it
stands for. Private to stmviz: any stmviz module may use it; a user should not.

- :mod:`~stmviz._fast.memo` — ``Memo``, the bounded cache of the mechanisms'
  token counts, embeddings and summaries (equal to computing each value afresh).
- :mod:`~stmviz._fast.last_call` — ``LastCall``, the FIFO window's result for the
  last context, so its controller and U build a step's messages once (equal to
  building them afresh).
"""
