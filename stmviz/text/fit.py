"""Cutting an element to fit: the one place where a mechanism shortens a text so that μ(e) ≤ room.

A mechanism that must keep an element which alone does not fit (the FIFO
window's oversized message, SCM's current interaction, HiAgent's task,
AgentFold's blocks) keeps its beginning and marks the cut with "…". The cut
honours μ: when μ counts tokens it cuts by tokens *of μ's encoding*; when μ
counts words, by words; for any other μ (characters, a user's function) it
searches for the longest prefix that fits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import guards
from ..core.element import Element
from ..core.errors import STMError
from ..core.sizes import words as _words_mu
from ..core.space import StateSpace
from .summarize import truncate_to_tokens

__all__ = ["fit_text", "ELLIPSIS"]

#: What marks a cut text (and what is left of a text cut to nothing).
ELLIPSIS = "…"


def fit_text(space: StateSpace, element: Element, room: float, *, record_size: bool = True) -> Element | None:
    """The element e′ with its text cut so that μ(e′) ≤ ``room``; ``None`` if nothing fits.

    Parameters
    ----------
    space : StateSpace
        Ω_STM, whose μ measures the result.
    element : Element
        The element to cut; returned unchanged if μ(e) ≤ room already.
    room : float
        The largest μ the result may have.
    record_size : bool
        Also record ``meta["original_size"]`` = μ(e) (``meta["truncated"]``
        is always set on a cut element).

    Returns
    -------
    Element or None
        The beginning of the text, ending in "…": the longest such prefix
        that fits, cut by tokens of μ's encoding, by words, or by characters.

    Examples
    --------
    >>> from stmviz import StateSpace, sizes
    >>> fit_text(StateSpace(sizes.chars, v_max=100), Element("abcdefghij", {"t": 0}), 5).content
    'abcd…'
    >>> fit_text(StateSpace(sizes.words, 100), Element("one two three four", {"t": 0}), 2).content
    'one two…'
    """
    guards.instance(space, "space", StateSpace, where="fit_text", what="a StateSpace Ω_STM (its μ measures the cut)")
    guards.instance(element, "element", Element, where="fit_text")
    room = guards.real_number(room, "room", where="fit_text")
    record_size = guards.flag(record_size, "record_size", where="fit_text")
    content = element.content
    if not isinstance(content, str) or room < 1:
        return None
    original = space.measure(element)
    if original <= room:
        return element
    meta = element.meta.set(truncated=True, original_size=original) if record_size else element.meta.set(truncated=True)

    def fits(text: str) -> Element | None:
        candidate = Element(text, meta)
        try:
            return candidate if space.measure(candidate) <= room else None
        except STMError:
            return None

    if space.counts_tokens:
        return _by_tokens(space, content, room, meta)
    if space.mu is _words_mu:
        parts = content.split()
        for keep in range(int(room), 0, -1):
            found = fits(" ".join(parts[:keep]) + ELLIPSIS)
            if found is not None:
                return found
        return None
    # any other μ (chars, or a user's function): the longest prefix that fits
    lo, hi, best = 0, len(content) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        found = fits(content[:mid].rstrip() + ELLIPSIS)
        if found is not None:
            best, lo = found, mid + 1
        else:
            hi = mid - 1
    return best


def _by_tokens(space: StateSpace, content: str, room: float, meta: Mapping[str, Any]) -> Element | None:
    """The longest token prefix (in μ's encoding) that fits: step the budget down by the overshoot."""
    encoding = space.mu.encoding  # type: ignore[attr-defined]
    budget = int(room)
    while budget >= 1:
        cut = truncate_to_tokens(content, budget, encoding)
        if not cut:
            return None
        candidate = Element(cut, meta)
        try:
            size: float | None = space.measure(candidate)
        except STMError:
            size = None
        if size is not None and size <= room:
            return candidate
        budget -= max(1, int(size - room) if size is not None else 1)
    return None
