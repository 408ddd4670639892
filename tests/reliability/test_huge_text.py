"""Huge texts: a 10 MB observation without spaces runs through every mechanism, and long texts keep tiktoken's tokens.

tiktoken's BPE is superlinear in the length of one pre-token, and cut-to-fit
used to re-encode the whole text at every step of its search: a 10 MB
observation without a space took minutes (issue 17). μ now encodes a long text
in segments cut where no token spans the cut (stmviz._fast.tokens.segments),
which gives exactly tiktoken's tokens unless 64 K characters in a row hold no
such place; the timing is in benchmarks/huge_text.py, not asserted here.
"""

from __future__ import annotations

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stmviz
from stmviz import AgentStep, Element, StateSpace, run, sizes
from stmviz._fast.tokens import segments as _segments
from stmviz.core.sizes import count_tokens, encode_tokens, get_encoding
from stmviz.text.fit import ELLIPSIS, fit_text
from stmviz.text import truncate_to_tokens

MB = 1_000_000
ENC = get_encoding("cl100k_base")


@pytest.fixture(scope="module")
def huge() -> str:
    """10 MB of seeded random lower-case letters: one pre-token for tiktoken, the worst case."""
    return "".join(random.Random(17).choices(string.ascii_lowercase, k=10 * MB))


def _steps(observation: str) -> list[AgentStep]:
    return [
        AgentStep(thought="Open it.", action="open('f')", observation="A big file.", directives={"subgoal": "read f"}),
        AgentStep(thought="Dump it.", action="cat('f')", observation=observation),
        AgentStep(thought="Unreadable.", action="stop()", observation="Nothing useful.", directives={"subgoal_done": True}),
    ]


@pytest.mark.parametrize("name", ["FIFOWindow", "SCM", "HiAgent", "AgentFold"])
def test_a_10_mb_observation_without_spaces_runs_through_every_mechanism(name, huge):
    options = {"oversize": "truncate"} if name == "FIFOWindow" else {}
    mechanism = getattr(stmviz, name)(StateSpace(sizes.tokens(), v_max=4096), **options)
    trace = run(mechanism, _steps(huge), query="What does the file hold?")
    for t in range(len(trace) + 1):
        assert trace.space.size(trace.state_at(t)) <= 4096
    # the observation was cut or summarized (SCM may summarize it away), never held whole
    assert not any(len(e.text) > MB for e in trace.sizes)


def test_a_huge_text_is_cut_to_a_token_budget_from_its_beginning(huge):
    cut = truncate_to_tokens(huge, 500)
    assert cut.endswith(ELLIPSIS) and huge.startswith(cut[:-1])
    assert count_tokens(cut) <= 500 and len(cut) > 500  # most of the budget is used


@pytest.mark.parametrize(("mu", "room"), [(sizes.tokens(), 300), (sizes.chars, 300), (sizes.words, 2)], ids=["tokens", "chars", "words"])
def test_fit_text_cuts_a_huge_text_under_every_size_function(mu, room, huge):
    text = huge[: 2 * MB] + " tail words here"
    space = StateSpace(mu, v_max=10**7)
    cut = fit_text(space, Element(text, {"t": 0}), room)
    assert cut is not None and space.measure(cut) <= room
    assert text.startswith(cut.text.rstrip(ELLIPSIS)) and cut.meta["truncated"] is True


def test_the_count_of_a_huge_text_is_tiktokens_but_near_the_forced_cuts():
    """A 200 K run of letters: counted in segments cut by position, within a token per cut of tiktoken's count."""
    text = "".join(random.Random(3).choices(string.ascii_lowercase, k=200_000))
    pieces = list(_segments(text))
    assert len(pieces) > 1 and "".join(pieces) == text
    exact = len(ENC.encode_ordinary(text))
    assert abs(count_tokens(text) - exact) <= len(pieces)
    assert len(encode_tokens(text)) == count_tokens(text)


def test_a_long_text_with_spaces_gets_exactly_tiktokens_tokens():
    rng = random.Random(5)
    words = ["agent", "memory", "naïve", "日本語", "1234567", "don't", "x=y+1;", "\n\n", "  ", "\t", "🙂", "http://a.b/c"]
    text = " ".join(rng.choice(words) for _ in range(60_000))  # ≈ 400 K characters: many segments
    assert len(list(_segments(text))) > 10
    assert encode_tokens(text) == ENC.encode_ordinary(text)
    assert count_tokens(text) == len(ENC.encode_ordinary(text))
    assert encode_tokens(text, limit=100) == ENC.encode_ordinary(text)[: len(encode_tokens(text, limit=100))]


# Texts built from the characters that decide tiktoken's pre-tokens: letters of several scripts,
# digits, punctuation, apostrophes (contractions), spaces, tabs, newlines, carriage returns, emoji.
_ATOMS = st.sampled_from(
    ["a", "Z", "é", "ß", "日", "7", "42", "'s", "'", "-", ".", "!", "/", "{", " ", "  ", "\t", "\n", "\r\n", "\n\n", "🙂", "\u00a0"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ATOMS, max_size=60).map("".join), st.integers(1, 12))
def test_segments_cut_only_where_no_token_spans(text, size):
    """With no forced cut (reach past the end), the segments' tokens are exactly the text's (cl100k_base)."""
    pieces = list(_segments(text, size=size, reach=len(text) + 1))
    assert "".join(pieces) == text
    ids = [token for piece in pieces for token in ENC.encode_ordinary(piece)]
    assert ids == ENC.encode_ordinary(text)
