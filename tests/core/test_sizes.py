"""Size functions μ : E → ℝ⁺."""

import math

import pytest

from stmviz import Element, ImagePart, StateSpace, sizes
from stmviz.errors import InvalidArgumentError, ContractError


def test_tokens_counts_real_cl100k_tokens_offline():
    mu = sizes.tokens()
    assert mu(Element("hello world")) == 2
    assert sizes.count_tokens("hello world") == 2
    assert sizes.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]


def test_model_names_map_to_their_encoding():
    assert sizes.tokens("gpt-4")(Element("hello world")) == 2
    assert sizes.get_encoding("gpt-3.5-turbo").encode("hello world") == [15339, 1917]


def test_unavailable_encoding_names_what_is_installed():
    with pytest.raises(InvalidArgumentError) as info:
        sizes.tokens("o200k_base")
    assert "cl100k_base" in str(info.value) and "offline" in str(info.value)
    with pytest.raises(InvalidArgumentError, match="gpt-4o"):
        sizes.tokens("gpt-4o")
    with pytest.raises(InvalidArgumentError, match="neither"):
        sizes.tokens("no-such-encoding")


def test_image_tokens_follow_the_published_tile_formula():
    # OpenAI's documented examples: 1024×1024 high → 765; 2048×4096 high → 1105; low → 85
    assert sizes.image_tokens(1024, 1024, "high") == 765
    assert sizes.image_tokens(2048, 4096, "high") == 1105
    assert sizes.image_tokens(4096, 8192, "low") == 85
    assert sizes.image_tokens(512, 512) == 85 + 170
    with pytest.raises(InvalidArgumentError):
        sizes.image_tokens(0, 10)


def test_tokens_measures_multimodal_content():
    mu = sizes.tokens()
    e = Element(("hello world", ImagePart("cat.png", 1024, 1024, "high")))
    assert mu(e) == 2 + 765


def test_chars_and_words():
    assert sizes.chars(Element("hello")) == 5
    assert sizes.words(Element("a b  c")) == 3
    with pytest.raises(InvalidArgumentError, match="tokens"):
        sizes.chars(Element(ImagePart("a.png", 1, 1)))


def test_overhead():
    assert sizes.tokens(overhead=4)(Element("hello world")) == 6
    with pytest.raises(InvalidArgumentError):
        sizes.tokens(overhead=-1)


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, "3", None, True, [1]])
def test_a_bad_size_function_is_rejected_naming_the_element(bad):
    space = StateSpace(lambda e: bad, v_max=10)
    element = Element("the offending element")
    with pytest.raises(ContractError) as info:
        space.measure(element)
    assert element.id[:8] in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_size_function_that_raises_is_wrapped():
    def mu(e):
        raise RuntimeError("boom")

    with pytest.raises(ContractError, match="boom"):
        StateSpace(mu, 10).measure(Element("x"))


def test_empty_text_has_no_tokens_and_the_error_says_how_to_fix_it():
    with pytest.raises(ContractError, match="overhead"):
        StateSpace(sizes.tokens(), 10).measure(Element(""))
    assert StateSpace(sizes.tokens(overhead=1), 10).measure(Element("")) == 1


def test_mu_is_evaluated_once_per_element():
    calls = []

    def mu(e):
        calls.append(e)
        return 1

    space = StateSpace(mu, 10)
    e = Element("x")
    for _ in range(5):
        space.measure(e)
    assert len(calls) == 1


@pytest.mark.parametrize("text", ["hello world", "", "a\ud800b lone surrogate", "naïve café 😀 " * 5, "<|endoftext|> as text"])
def test_count_tokens_equals_tiktoken_encode_ordinary(text):
    from stmviz.core.sizes import count_tokens, get_encoding

    assert count_tokens(text) == len(get_encoding("cl100k_base").encode_ordinary(text))
