"""Merged into :mod:`stmviz.mechanisms.fifo` (FIFOWindow is whole in its file): this old path still works for one release.

``OVERSIZE_POLICIES`` is read from :mod:`stmviz.mechanisms.fifo`, with a
DeprecationWarning. The helpers this module held — the pins, the tool pairs,
the ``oversize`` policy — are FIFOWindow's own now; the oldest-first eviction
that keeps a tool call with its result is
:func:`stmviz.managers.conversation.evict_oldest`.
"""

from .._moved import moved_to

__getattr__ = moved_to("stmviz.mechanisms.fifo", __name__)
