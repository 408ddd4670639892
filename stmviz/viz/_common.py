"""Shared helpers of the figures: colours of element types e.type, escaping, shortening.

Every figure of :mod:`stmviz.viz` colours an element e ∈ ω by its kind
``e.meta["type"]`` with :func:`color_for`, so one kind has one colour in every
figure (the occupancy areas, the blocks of the state bar, the nodes of the
hierarchy graph). Every string that comes from agent content goes through
:func:`escape` before it reaches a hover text, a label or an HTML page: agent
content is untrusted.

This module imports only the standard library.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..core.element import Element
    from ..core.trace import Trace

__all__ = [
    "TYPE_COLORS",
    "FREE_COLOR",
    "FALLBACK_COLORS",
    "TOKEN_COLORS",
    "color_for",
    "escape",
    "shorten",
    "hover_text",
    "check_trace",
    "check_step_index",
    "element_lines",
    "fmt",
]

#: Colour of each element type named by the metadata conventions of the mechanisms.
#: FIFO window: system, user, assistant, tool. SCM: flash, activation.
#: HiAgent: task, subgoal, pair, summary, retrieved. AgentFold: query, tools, block, latest.
#: ``element`` is the type of an element without ``meta["type"]``.
TYPE_COLORS: Mapping[str, str] = MappingProxyType(
    {
        # FIFO window (the context window as a queue)
        "system": "#7f7f7f",
        "user": "#1f77b4",
        "assistant": "#ff7f0e",
        "tool": "#2ca02c",
        # SCM
        "flash": "#d62728",
        "activation": "#9467bd",
        # HiAgent
        "task": "#8c564b",
        "subgoal": "#e377c2",
        "pair": "#17becf",
        "summary": "#bcbd22",
        "retrieved": "#aec7e8",
        # AgentFold
        "query": "#393b79",
        "tools": "#637939",
        "block": "#ad494a",
        "latest": "#ffbb78",
        # no meta["type"]
        "element": "#c7c7c7",
    }
)

#: Colour of the free space V_max − Σμ(ω) in the state bar.
FREE_COLOR = "rgba(0,0,0,0.06)"

#: Colours for types not in :data:`TYPE_COLORS`, chosen by a stable hash of the type name.
FALLBACK_COLORS: tuple[str, ...] = (
    "#5254a3", "#8ca252", "#bd9e39", "#843c39", "#7b4173",
    "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
)

#: Alternating pastel backgrounds of tokens in :func:`stmviz.viz.tokens_html`.
TOKEN_COLORS: tuple[str, ...] = (
    "#fde2e4", "#e2ece9", "#dfe7fd", "#fff1c1", "#e8dff5", "#d7f2f9",
)


def color_for(element_type: object) -> str:
    """The colour of an element type e.type (``meta["type"]``).

    Known types (:data:`TYPE_COLORS`) have fixed colours; any other type gets
    one of :data:`FALLBACK_COLORS`, the same one in every process (the choice
    hashes the name with SHA-1, not Python's salted ``hash``).

    Parameters
    ----------
    element_type : object
        The type, usually a string; other values are turned into strings.

    Returns
    -------
    str
        A CSS colour.

    Examples
    --------
    >>> color_for("user")
    '#1f77b4'
    >>> color_for("my-own-type") == color_for("my-own-type")
    True
    >>> color_for("my-own-type") in FALLBACK_COLORS
    True
    """
    name = element_type if isinstance(element_type, str) else str(element_type)
    known = TYPE_COLORS.get(name)
    if known is not None:
        return known
    digest = hashlib.sha1(name.encode("utf-8")).digest()
    return FALLBACK_COLORS[digest[0] % len(FALLBACK_COLORS)]


def escape(text: object) -> str:
    """Escape a string from agent content for HTML and for plotly's text (``html.escape`` with quotes).

    Parameters
    ----------
    text : object
        Any value; non-strings are turned into strings first.

    Returns
    -------
    str
        The text with ``& < > " '`` replaced by entities, safe inside HTML
        text and attribute values. The double quote becomes the numeric
        ``&#34;``, not ``&quot;``: plotly.js decodes numeric entities in
        labels and hovers but only a few named ones, and would show
        ``&quot;`` literally.

    Examples
    --------
    >>> escape('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&#34;alert(1)&#34;&gt;'
    """
    return html.escape(text if isinstance(text, str) else str(text), quote=True).replace("&quot;", "&#34;")


def shorten(text: object, n: int = 60) -> str:
    """A one-line version of a text of at most ``n`` characters (not escaped).

    Runs of whitespace become one space; a cut text ends with ``…``.

    Parameters
    ----------
    text : object
        The text (non-strings are turned into strings).
    n : int
        The maximum length, at least 1.

    Returns
    -------
    str

    Examples
    --------
    >>> shorten("a  long\\ntext that goes on", 12)
    'a long text…'
    >>> shorten("short", 12)
    'short'
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"shorten: n must be a positive int, got {n!r}")
    s = " ".join((text if isinstance(text, str) else str(text)).split())
    if len(s) <= n:
        return s
    return s[: max(1, n - 1)] + "…"


def hover_text(*lines: object, width: int = 80) -> str:
    """Join shortened, escaped lines with ``<br>`` for a plotly hover text.

    Each line is shortened to ``width`` characters, then escaped; only the
    ``<br>`` separators are markup.

    Examples
    --------
    >>> hover_text("e#1 <b>", "why: over V_max")
    'e#1 &lt;b&gt;<br>why: over V_max'
    """
    return "<br>".join(escape(shorten(line, width)) for line in lines if line is not None)


# -- input checking shared by the figure functions ---------------------------------


def check_trace(value: object, where: str) -> "Trace":
    """Return ``value`` if it is a :class:`~stmviz.Trace`, else raise a clear ``TypeError``."""
    from ..core.trace import Trace

    if not isinstance(value, Trace):
        raise TypeError(
            f"{where} needs a Trace (the record of run(mechanism, steps)), got {type(value).__name__}; "
            f"build one with stmviz.run(mechanism, steps)"
        )
    return value


def check_step_index(trace: "Trace", t: object, where: str, *, states: bool = True) -> int:
    """Check a time index t and return it as a non-negative int.

    With ``states=True`` t indexes the states ω_0 … ω_n (0 ≤ t ≤ n); otherwise
    the steps 0 … n − 1 (step t is ω_t → ω_{t+1}). Negative t counts from the end.
    """
    n = len(trace)
    if isinstance(t, bool) or not isinstance(t, int):
        raise TypeError(f"{where}: t must be a whole number, got {t!r}")
    top = n if states else n - 1
    if top < 0:
        raise IndexError(f"{where}: the trace has no steps, so there is no step t = {t}")
    original = t
    if t < 0:
        t += top + 1
    if not 0 <= t <= top:
        what = f"states ω_0 … ω_{n}" if states else f"steps 0 … {n - 1} (ω_t → ω_{{t+1}})"
        raise IndexError(f"{where}: the trace has {what}; t = {original} is out of range")
    return t


def element_lines(element: "Element", size: float | None = None, width: int = 60) -> list[str]:
    """Unescaped hover lines of an element: its label, type and μ, and its shortened content."""
    head = f"e#{element.id[:8]} · {element.type}"
    if size is not None:
        head += f" · μ = {fmt(size)}"
    return [head, shorten(element.text, width)]


def fmt(x: float) -> str:
    """A number for a label: integers without ``.0``, others with 4 significant digits.

    >>> fmt(12.0), fmt(3.14159), fmt(7)
    ('12', '3.142', '7')
    """
    if isinstance(x, float):
        if x.is_integer():
            return str(int(x))
        return f"{x:.4g}"
    return str(x)
