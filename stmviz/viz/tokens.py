"""The model input x = π(ω_t) as the model sees it: one coloured span per token.

:func:`tokens_html` splits each message of x with a tiktoken encoding and
gives every token an alternating pastel background, as token visualizers
do, under a header naming the message's role and its token count. Every
string is escaped (agent content is untrusted); only the markup built here is
HTML. :class:`TokensHTML` wraps the same output for notebooks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..core import guards
from ..core.errors import InvalidArgumentError
from ..core.i18n import gettext as _, ngettext
from ..core.model_input import Message, ModelInput
from ..core.sizes import count_tokens, encode_tokens, get_encoding
from ._common import TOKEN_COLORS, escape, shorten

__all__ = ["TokenPiece", "token_pieces", "tokens_html", "TokensHTML"]


@dataclass(frozen=True)
class TokenPiece:
    """A piece of text shown as one span: usually one token, several when a character spans tokens."""

    text: str
    ids: tuple[int, ...]


def token_pieces(text: str, encoding: str = "cl100k_base") -> list[TokenPiece]:
    """Split a text into its tokens under a tiktoken encoding, each with its text.

    A character whose UTF-8 bytes are split across tokens (some emoji, CJK)
    makes one piece of those tokens, so every piece is valid text and the
    pieces join back into ``text`` exactly.

    Parameters
    ----------
    text : str
    encoding : str
        A tiktoken encoding or model name (loaded offline, see :func:`stmviz.sizes.get_encoding`).

    Returns
    -------
    list of TokenPiece

    Examples
    --------
    >>> [p.text for p in token_pieces("hello world")]
    ['hello', ' world']
    >>> [p.ids for p in token_pieces("hello world")]
    [(15339,), (1917,)]
    """
    text = guards.instance(text, "text", str, where="token_pieces", fix="; for a model input x = π(ω) use tokens_html")
    enc = get_encoding(_encoding_name(encoding, "token_pieces"))
    pieces: list[TokenPiece] = []
    buffer = b""
    ids: list[int] = []
    for token in encode_tokens(text, enc.name):
        buffer += enc.decode_single_token_bytes(token)
        ids.append(token)
        try:
            piece = buffer.decode("utf-8")
        except UnicodeDecodeError:
            continue
        pieces.append(TokenPiece(piece, tuple(ids)))
        buffer, ids = b"", []
    if ids:  # pragma: no cover - encode_ordinary of a str always ends on a character boundary
        pieces.append(TokenPiece(buffer.decode("utf-8", errors="replace"), tuple(ids)))
    return pieces


def _span(piece: TokenPiece, index: int) -> str:
    """One token as an escaped span; colours alternate by the token's index within its message."""
    color = TOKEN_COLORS[index % len(TOKEN_COLORS)]
    ids = " ".join(str(i) for i in piece.ids)
    return (
        f'<span class="stmviz-token" style="background:{color};border-radius:2px" '
        f'title="token {escape(ids)}">{escape(piece.text)}</span>'
    )


class _Renderer:
    """Token ids → spans for one encoding, with the spans of single tokens cached.

    A player redraws π(ω_t) for every t; most of its tokens were drawn before,
    so the span of a token that is a whole character sequence on its own is
    kept per (token id, colour). The caches are bounded (cleared when full).
    """

    #: cached spans (token, colour) at most; the cache is emptied when it grows past this
    MAX_SPANS = 1 << 17

    def __init__(self, encoding: str) -> None:
        self.encoding = get_encoding(encoding)
        self._text: dict[int, str | None] = {}  # token → its text, None if it is not valid UTF-8 alone
        self._spans: dict[tuple[int, int], str] = {}

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` exactly as μ counts them (a huge text is encoded in pieces, see :mod:`stmviz.sizes`)."""
        return encode_tokens(text, self.encoding.name)

    def _token_text(self, token: int) -> str | None:
        try:
            return self._text[token]
        except KeyError:
            pass
        try:
            text: str | None = self.encoding.decode_single_token_bytes(token).decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if len(self._text) >= self.MAX_SPANS:
            self._text.clear()
        self._text[token] = text
        return text

    def render(self, ids: Sequence[int], budget: int | None = None) -> tuple[str, int]:
        """The spans of the pieces of ``ids`` (as :func:`token_pieces` groups them) and the tokens shown.

        With a ``budget``, pieces are added while fewer than ``budget`` tokens are shown.
        """
        n_colors = len(TOKEN_COLORS)
        spans = self._spans
        out: list[str] = []
        shown = 0
        index = 0
        position = 0
        count = len(ids)
        while position < count:
            if budget is not None and shown >= budget:
                break
            token = ids[position]
            text = self._token_text(token)
            if text is not None:  # the common case: one token, one piece
                key = (token, index % n_colors)
                span = spans.get(key)
                if span is None:
                    span = _span(TokenPiece(text, (token,)), index)
                    if len(spans) >= self.MAX_SPANS:
                        spans.clear()
                    spans[key] = span
                out.append(span)
                position += 1
                shown += 1
            else:  # a character split across tokens: gather tokens until the bytes decode
                buffer = b""
                group: list[int] = []
                piece = None
                while position < count:
                    buffer += self.encoding.decode_single_token_bytes(ids[position])
                    group.append(ids[position])
                    position += 1
                    try:
                        piece = buffer.decode("utf-8")
                    except UnicodeDecodeError:
                        continue
                    break
                if piece is None:  # pragma: no cover - encode_ordinary of a str ends on a character boundary
                    piece = buffer.decode("utf-8", errors="replace")
                out.append(_span(TokenPiece(piece, tuple(group)), index))
                shown += len(group)
            index += 1
        return "".join(out), shown


def _encoding_name(encoding: object, where: str) -> str:
    """The encoding's name; whether tiktoken knows it is found when it is loaded (once per name: the players' hot path)."""
    return guards.instance(encoding, "encoding", str, where=where,
                           what="the name of a tiktoken encoding or model (a str such as 'cl100k_base')")


def _reason(exc: Exception) -> str:
    try:
        return shorten(str(exc), 200)
    except Exception:
        return type(exc).__name__


@lru_cache(maxsize=None)
def _renderer(encoding: str) -> _Renderer:
    return _Renderer(encoding)


#: How many messages shown whole a process keeps the spans of (players redraw the same messages often).
WHOLE_CACHE = 4096
_WHOLE: dict[tuple[str, str], tuple[str, int]] = {}


def _message(text: str, encoding: str, budget: int | None) -> tuple[str, int, int]:
    """The spans of one message within a token budget: (html, tokens of the text, tokens shown).

    A message shown whole is cached per text (bounded by :data:`WHOLE_CACHE`,
    oldest first out); a message cut by the budget is encoded once and only
    its first tokens are turned into spans.
    """
    key = (text, encoding)
    hit = _WHOLE.get(key)
    renderer = _renderer(encoding)
    if hit is not None:
        body, count = hit
        if budget is None or count <= budget:
            return body, count, count
        ids = renderer.encode(text)
    else:
        ids = renderer.encode(text)
        count = len(ids)
        if budget is None or count <= budget:
            body = renderer.render(ids)[0]
            if len(_WHOLE) >= WHOLE_CACHE:
                del _WHOLE[next(iter(_WHOLE))]
            _WHOLE[key] = (body, count)
            return body, count, count
    body, seen = renderer.render(ids, budget)
    return body, count, seen


def _messages(value: Any) -> tuple[list[Message], bool]:
    """The messages of a model input, and whether it was a bare string (no role headers)."""
    if isinstance(value, str):
        return [Message("text", value)], True
    try:
        model_input = ModelInput.coerce(value)
    except Exception as exc:  # X's own rule of what a model input is (ModelInput.coerce); also a hostile object's error
        raise InvalidArgumentError(
            f"tokens_html needs a text or a model input x = π(ω) (a ModelInput, a list of messages or "
            f"of {{'role', 'content'}} dicts), got {type(value).__name__}: {_reason(exc)}"
        ) from None
    return list(model_input), False


_WRAP = (
    'font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;'
    "line-height:1.7;white-space:pre-wrap;word-break:break-word"
)
_ROLE = "font-family:sans-serif;font-size:11px;font-weight:600;color:#555;margin:8px 0 2px 0;text-transform:none"
_MESSAGE = "border-left:3px solid #ccc;padding:2px 0 2px 8px;margin-bottom:4px"


class TokensHTML:
    """The token-coloured HTML of a model input x = π(ω), for notebooks (``_repr_html_``).

    Parameters are those of :func:`tokens_html`; ``str(obj)`` and ``obj.html``
    are the HTML, ``obj.n_tokens`` counts every token of x (also those beyond
    ``max_tokens``), ``obj.shown`` those shown.

    Examples
    --------
    >>> view = TokensHTML([{"role": "user", "content": "<b>hi</b>"}])
    >>> view.n_tokens, "<b>" in view.html, "&lt;b" in view.html
    (6, False, True)
    """

    def __init__(self, text_or_model_input: Any, *, encoding: str = "cl100k_base", max_tokens: int | None = None) -> None:
        max_tokens = guards.whole_number(max_tokens, "max_tokens", 0, where="tokens_html", none_ok=True)
        encoding = _encoding_name(encoding, "tokens_html")
        messages, bare = _messages(text_or_model_input)
        self.encoding = encoding
        self.max_tokens = max_tokens
        self.n_messages = 0 if bare else len(messages)
        parts: list[str] = []
        total = 0
        shown = 0
        budget = max_tokens
        for message in messages:
            text = message.text
            if budget is not None and budget <= 0:
                total += count_tokens(text, encoding)  # not shown: count only (cached), no spans
                continue
            body, count, seen = _message(text, encoding, budget)
            total += count
            shown += seen
            if budget is not None:
                budget -= seen
            if bare:
                parts.append(f'<div class="stmviz-message" style="{_WRAP}">{body}</div>')
            else:
                name = f" ({escape(message.name)})" if message.name else ""
                parts.append(
                    f'<div class="stmviz-role" style="{_ROLE}">{_role_line(escape(message.role) + name, count)}</div>'
                    f'<div class="stmviz-message" style="{_WRAP};{_MESSAGE}">{body}</div>'
                )
        self.n_tokens = total
        self.shown = shown
        summary = ngettext("|π(ω)| = {total} tokens ({encoding})", "|π(ω)| = {total} tokens ({encoding})",
                           total).format(total=total, encoding=escape(encoding))
        if not bare:
            summary = ngettext("{summary}, {n} message", "{summary}, {n} messages",
                               len(messages)).format(summary=summary, n=len(messages))
        if shown < total:
            summary = _("{summary}; showing the first {shown}").format(summary=summary, shown=shown)
        footer = ""
        if shown < total:
            rest = ngettext("… {n} more tokens not shown (max_tokens = {max_tokens})",
                            "… {n} more tokens not shown (max_tokens = {max_tokens})",
                            total - shown).format(n=total - shown, max_tokens=max_tokens)
            footer = f'<div class="stmviz-more" style="{_ROLE}">{rest}</div>'
        self.html = (
            f'<div class="stmviz-tokens" style="max-width:100%">'
            f'<div class="stmviz-summary" style="{_ROLE}">{summary}</div>{"".join(parts)}{footer}</div>'
        )

    def _repr_html_(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return f"<TokensHTML: {self.n_tokens} tokens, {self.n_messages} messages, encoding {self.encoding!r}>"


def _role_line(role: str, count: int) -> str:
    """A message's header: its role (escaped by the caller) and its token count, in the language set."""
    return ngettext("{role} · {n} tokens", "{role} · {n} tokens", count).format(role=role, n=count)


def tokens_html(
    text_or_model_input: str | ModelInput | Sequence[Any],
    *,
    encoding: str = "cl100k_base",
    max_tokens: int | None = None,
) -> str:
    """The projection π(ω_t) as HTML, every token on its own pastel background.

    Parameters
    ----------
    text_or_model_input : str, ModelInput or list of messages
        A text, or a model input x ∈ X (e.g. ``trace.project(t)``): each
        message gets a header with its role and token count.
    encoding : str
        The tiktoken encoding (or model name) that splits the text.
    max_tokens : int, optional
        Show at most this many tokens (the header still counts all).

    Returns
    -------
    str
        An HTML fragment; all text in it is escaped.

    Examples
    --------
    >>> html = tokens_html("<script>alert(1)</script>")
    >>> "<script" in html, html.count('class="stmviz-token"')
    (False, 7)
    """
    return TokensHTML(text_or_model_input, encoding=encoding, max_tokens=max_tokens).html
