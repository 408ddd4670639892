"""Shared helpers of the figures: colours of element types e.type, escaping, shortening.

Every figure of :mod:`stmviz.viz` colours an element e ∈ ω by its type
``e.meta["type"]`` with :func:`color_for`, so one type has one colour in every
figure (the occupancy areas, the blocks of the state bar, the nodes of the
hierarchy graph). The colours are the ones the mechanism declares
(``Mechanism.element_types``, see :mod:`stmviz.protocol`); a type no
mechanism declares gets a stable colour picked from its name. Every string
that comes from agent content goes through :func:`escape` before it reaches a
hover text, a label or an HTML page: agent content is untrusted.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

# absolute imports of the core (standard library only), so this module also loads on its own,
# without plotly (tests/test_imports.py checks it)
from stmviz.core import guards
from stmviz.core.errors import InvalidArgumentError, STMError
from stmviz.io.files import html_text
from stmviz.core.formatting import format_number
from stmviz.core.formatting import shorten as _shorten
from stmviz.mechanisms.catalog import declared_types
from stmviz.protocol import ElementType, types_of

if TYPE_CHECKING:  # pragma: no cover
    from ..core.element import Element
    from ..core.trace import Trace

__all__ = [
    "TYPE_COLORS",
    "UNTYPED_COLOR",
    "FREE_COLOR",
    "FALLBACK_COLORS",
    "TOKEN_COLORS",
    "color_for",
    "element_types_of_trace",
    "escape",
    "shorten",
    "hover_text",
    "element_lines",
    "count_of",
]


class _DeclaredColors(Mapping[str, str]):
    """The colour of every element type a mechanism class declares, read live from the declarations."""

    def __getitem__(self, name: str) -> str:
        declared = declared_types().get(name)
        if declared is not None and declared.color is not None:
            return declared.color
        if name == "element":
            return UNTYPED_COLOR
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        names = [n for n, d in declared_types().items() if d.color is not None]
        return iter(names + ([] if "element" in names else ["element"]))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"TYPE_COLORS({dict(self)!r})"


#: Colour of each element type declared by a mechanism class (``Mechanism.element_types``),
#: and of ``"element"``, the type of an element without ``meta["type"]``. A read-only, live view.
TYPE_COLORS: Mapping[str, str] = _DeclaredColors()

#: Colour of an element without ``meta["type"]`` (its type is ``"element"``).
UNTYPED_COLOR = "#c7c7c7"

#: Colour of the free space V_max − Σμ(ω) in the state bar.
FREE_COLOR = "rgba(0,0,0,0.06)"

#: Colours for undeclared types, chosen by a stable hash of the type name.
FALLBACK_COLORS: tuple[str, ...] = (
    "#5254a3", "#8ca252", "#bd9e39", "#843c39", "#7b4173",
    "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363",
)

#: Alternating pastel backgrounds of tokens in :func:`stmviz.viz.tokens_html`.
TOKEN_COLORS: tuple[str, ...] = (
    "#fde2e4", "#e2ece9", "#dfe7fd", "#fff1c1", "#e8dff5", "#d7f2f9",
)


def color_for(element_type: object, types: Mapping[str, ElementType] | Any = None) -> str:
    """The colour of an element type e.type (``meta["type"]``), as its mechanism declares it.

    Parameters
    ----------
    element_type : object
        The type, usually a string; other values are turned into strings.
    types : mapping, Mechanism or Trace, optional
        Where to look first: a mapping name → :class:`~stmviz.protocol.ElementType`
        (``Mechanism.element_types``), a mechanism, or a trace (its
        mechanism's). Then every type any mechanism class declares
        (:data:`TYPE_COLORS`); a type declared nowhere, or declared without a
        colour, gets one of :data:`FALLBACK_COLORS`, the same one in every
        process (the choice hashes the name with SHA-1, not Python's salted ``hash``).

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
    name = _as_text(element_type, "color_for", "element_type")
    if types is not None:
        own = _types_from(types).get(name)
        if own is not None and own.color is not None:
            return own.color
    known = TYPE_COLORS.get(name)
    if known is not None:
        return known
    digest = hashlib.sha1(name.encode("utf-8", "surrogatepass")).digest()  # a lone surrogate (half an emoji) too
    return FALLBACK_COLORS[digest[0] % len(FALLBACK_COLORS)]


def _types_from(source: Any) -> Mapping[str, ElementType]:
    types: Any
    if isinstance(source, Mapping):
        types = source
    else:
        try:
            mechanism = getattr(source, "mechanism", source)  # a Trace holds its mechanism
            types = types_of(mechanism) if getattr(mechanism, "element_types", None) is not None else None
        except STMError:
            raise  # a bad declaration is named, as when its class was defined
        except Exception:  # an object whose attribute lookup fails declares nothing
            return {}
    if not isinstance(types, Mapping):
        return {}
    try:  # only the entries that are ElementTypes: a hand-made mapping may hold anything
        return {k: v for k, v in types.items() if isinstance(k, str) and isinstance(v, ElementType)}
    except Exception:
        return {}


def element_types_of_trace(trace: "Trace") -> Mapping[str, ElementType]:
    """The element types of a trace's mechanism, over every declared type (its own win).

    A trace loaded from a file whose mechanism could not be rebuilt has only
    the types every mechanism class declares.
    """
    own = _types_from(trace)
    return {**declared_types(), **own} if own else declared_types()


def _as_text(value: object, where: str, name: str) -> str:
    """``value`` if a str, else ``str(value)``; a value whose ``str`` fails is an InvalidArgumentError, not its own error."""
    if isinstance(value, str):
        return value
    try:
        return str(value)
    except Exception as exc:  # the rule "any value str() can show" is no guard's: the guards read only types
        raise InvalidArgumentError(
            f"{where}: {name} must be a str (or a value str() can turn into one); str() of a "
            f"{type(value).__name__} raised {type(exc).__name__}"
        ) from None


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
    # a lone surrogate (half an emoji) shows as U+FFFD, the HTML half of the encoding policy: plotly
    # serializes with orjson when it is installed, and orjson refuses lone surrogates
    return html.escape(html_text(_as_text(text, "escape", "text")), quote=True).replace("&quot;", "&#34;")


def shorten(text: object, n: int = 60) -> str:
    """A one-line version of a text of at most ``n`` characters (not escaped); :func:`stmviz.core.formatting.shorten`.

    >>> shorten("a  long\\ntext that goes on", 12)
    'a long text…'
    """
    return _shorten(text, guards.whole_number(n, "n", 1, where="shorten"))


def hover_text(*lines: object, width: int = 80) -> str:
    """Join shortened, escaped lines with ``<br>`` for a plotly hover text.

    Each line is shortened to ``width`` characters, then escaped; only the
    ``<br>`` separators are markup.

    Examples
    --------
    >>> hover_text("e#1 <b>", "why: over V_max")
    'e#1 &lt;b&gt;<br>why: over V_max'
    """
    width = guards.whole_number(width, "width", 1, where="hover_text")
    return "<br>".join(escape(shorten(_as_text(line, "hover_text", "a line"), width)) for line in lines if line is not None)


def count_of(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun, singular for one: ``"1 element"``, ``"3 elements"``, ``"0 elements"``.

    >>> count_of(1, "element"), count_of(3, "element"), count_of(2, "child", "children")
    ('1 element', '3 elements', '2 children')
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def element_lines(element: "Element", size: float | None = None, width: int = 60) -> list[str]:
    """Unescaped hover lines of an element: its label, type and μ, and its shortened content."""
    head = f"e#{element.id[:8]} · {element.type}"
    if size is not None:
        head += f" · μ = {format_number(size, 4)}"
    return [head, shorten(element.text, width)]

