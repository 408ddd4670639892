"""Tests of stmviz.viz.tokens: π(ω_t) with every token coloured, every string escaped."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from _viz_traces import DANGEROUS, PAYLOADS, REAL_MECHANISMS, chat_trace, real_trace
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz import ModelInput, sizes
from stmviz.core.model_input import Message
from stmviz.errors import InvalidArgumentError
from stmviz.viz import TokensHTML, token_pieces, tokens_html
from stmviz.viz._common import TOKEN_COLORS

ALLOWED_TAGS = {"div", "span"}


class Collector(HTMLParser):
    """Parse the fragment: tags seen, attributes, and the text of each token span."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.tokens: list[str] = []
        self.roles: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        cls = dict(attrs).get("class", "")
        self._in.append(cls)
        if cls == "stmviz-token":
            self.tokens.append("")
        if cls == "stmviz-role":
            self.roles.append("")

    def handle_endtag(self, tag):
        self._in.pop()

    def handle_data(self, data):
        if self._in and self._in[-1] == "stmviz-token":
            self.tokens[-1] += data
        if self._in and self._in[-1] == "stmviz-role":
            self.roles[-1] += data


def parse(fragment: str) -> Collector:
    parser = Collector()
    parser.feed(fragment)
    parser.close()
    return parser


def test_one_span_per_token_with_alternating_pastel_backgrounds():
    fragment = tokens_html("hello world, how are you?")
    spans = re.findall(r'<span class="stmviz-token" style="background:([^;]+);', fragment)
    pieces = token_pieces("hello world, how are you?")
    assert len(spans) == len(pieces) == sizes.count_tokens("hello world, how are you?")
    assert spans == [TOKEN_COLORS[i % len(TOKEN_COLORS)] for i in range(len(spans))]
    assert all(a != b for a, b in zip(spans, spans[1:]))
    assert parse(fragment).tokens == [p.text for p in pieces]


def test_token_ids_are_in_the_title():
    fragment = tokens_html("hello world")
    assert 'title="token 15339"' in fragment and 'title="token 1917"' in fragment


def test_role_headers_per_message_with_token_counts():
    x = ModelInput([Message("system", "Be brief."), Message("user", "What is STM?"), Message("assistant", "Memory.")])
    view = TokensHTML(x)
    roles = parse(view.html).roles
    assert [r.split(" · ")[0] for r in roles] == ["system", "user", "assistant"]
    counts = [int(r.split(" · ")[1].split()[0]) for r in roles]
    assert counts == [sizes.count_tokens(m.text) for m in x]
    assert view.n_tokens == sum(counts) and view.n_messages == 3
    assert f"|π(ω)| = {sum(counts)} tokens" in view.html


def test_plain_text_has_no_role_header():
    assert parse(tokens_html("just text")).roles == []


def test_accepts_lists_of_dicts_and_a_trace_projection():
    fragment = tokens_html([{"role": "user", "content": "hi"}, "there"])
    assert [r.split(" · ")[0] for r in parse(fragment).roles] == ["user", "user"]
    trace = chat_trace(5)
    x = trace.project(3)
    view = TokensHTML(x)
    assert view.n_tokens == sum(sizes.count_tokens(m.text) for m in x)


@pytest.mark.parametrize("payload", PAYLOADS + ('<iframe src="javascript:alert(1)">', "&lt;already&gt; & raw"))
def test_payloads_appear_as_text_and_no_raw_tag_survives(payload):
    text = f"before {payload} after"
    fragment = tokens_html([{"role": "user<script>", "content": text}, {"role": "tool", "content": payload}])
    parsed = parse(fragment)
    assert set(parsed.tags) <= ALLOWED_TAGS
    assert {name for name, _ in parsed.attrs} <= {"class", "style", "title"}
    assert "".join(parsed.tokens).startswith(text)  # the payload is there, as text
    assert parsed.roles[0].startswith("user<script>")  # shown as text
    for bad in DANGEROUS + ("<iframe",):
        assert bad not in fragment


def test_max_tokens_truncates_and_says_so():
    text = "one two three four five six seven eight nine ten"
    total = sizes.count_tokens(text)
    view = TokensHTML(text, max_tokens=4)
    assert view.shown == 4 and view.n_tokens == total
    assert len(parse(view.html).tokens) == 4
    assert f"{total - 4} more tokens not shown" in view.html
    many = TokensHTML([{"role": "user", "content": text}, {"role": "assistant", "content": text}], max_tokens=total + 2)
    assert many.shown == total + 2 and many.n_tokens == 2 * total
    assert len(parse(many.html).roles) == 2
    assert TokensHTML(text, max_tokens=0).shown == 0


def test_multibyte_characters_split_across_tokens_stay_whole():
    text = "emoji 🧠🤖 and 日本語 and é"
    pieces = token_pieces(text)
    assert "".join(p.text for p in pieces) == text
    assert "\ufffd" not in "".join(p.text for p in pieces)
    assert sum(len(p.ids) for p in pieces) == sizes.count_tokens(text)


def test_special_token_text_is_treated_as_ordinary_text():
    fragment = tokens_html("<|endoftext|> is just text")
    assert "<|" not in fragment and "100257" not in fragment  # not the special token id
    assert "".join(parse(fragment).tokens) == "<|endoftext|> is just text"


def test_repr_html_and_str():
    view = TokensHTML("hi")
    assert view._repr_html_() == str(view) == view.html == tokens_html("hi")
    assert repr(view) == "<TokensHTML: 1 tokens, 0 messages, encoding 'cl100k_base'>"


@pytest.mark.parametrize(
    "value, kwargs, error",
    [
        (42, {}, TypeError),
        (object(), {}, TypeError),
        ("x", {"max_tokens": -1}, ValueError),
        ("x", {"max_tokens": 2.5}, ValueError),
        ("x", {"max_tokens": True}, ValueError),
        ("x", {"encoding": "no-such-encoding"}, InvalidArgumentError),
    ],
)
def test_bad_input_is_refused(value, kwargs, error):
    with pytest.raises(error):
        tokens_html(value, **kwargs)


def test_token_pieces_refuses_non_text():
    with pytest.raises(TypeError, match="str"):
        token_pieces(b"bytes")  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=80))
def test_property_tokens_join_back_into_the_text_and_nothing_is_markup(text):
    fragment = tokens_html([{"role": "user", "content": text}])
    parsed = parse(fragment)
    assert "".join(parsed.tokens) == text
    assert set(parsed.tags) <= ALLOWED_TAGS
    assert len(parsed.tokens) == len(token_pieces(text))


@pytest.mark.parametrize("name", REAL_MECHANISMS)
def test_real_mechanism_projections(name):
    trace = real_trace(name, n=10)
    x = trace.project(len(trace))
    view = TokensHTML(x)
    parsed = parse(view.html)
    assert set(parsed.tags) <= ALLOWED_TAGS
    assert "".join(parsed.tokens) == "".join(m.text for m in x)
    for bad in DANGEROUS:
        assert bad not in view.html


def test_common_escape_and_shorten():
    from stmviz.viz._common import escape, hover_text, shorten

    assert escape("<a href=\"x\">'") == "&lt;a href=&#34;x&#34;&gt;&#x27;"
    assert escape(3) == "3"
    assert shorten("a\n\n b   c", 10) == "a b c"
    assert shorten("abcdefghij", 5) == "abcd…" and len(shorten("x" * 100, 7)) == 7
    with pytest.raises(ValueError):
        shorten("x", 0)
    assert hover_text("<b>", None, "ok") == "&lt;b&gt;<br>ok"
