"""The offline text helpers: the extractive summarizer and the hashing embedder."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stmviz.sizes import count_tokens
from stmviz.text import cosine, embed, split_sentences, summarize, truncate_to_tokens
from stmviz.errors import InvalidArgumentError


def test_summary_stays_within_budget_and_keeps_order():
    texts = ["Alpha is first. Beta follows with 42 items.", "Gamma closes. Beta again with 42 items."]
    for budget in (3, 8, 15, 40):
        out = summarize(texts, budget)
        assert count_tokens(out) <= budget
    full = summarize(texts, 1000)
    assert full == " ".join(texts)


def test_boilerplate_present_in_every_text_loses_to_facts():
    steps = [
        f"Action: search(query=\"bike share {city}\") Observation: {fact}"
        for city, fact in [("Rivermouth", "Rivermouth runs 1,450 bikes."), ("Castellan", "Castellan charges 1 euro a ride."),
                           ("Norby", "Norby's program is led by Tomasz Lindqvist.")]
    ]
    texts = [s.replace(" Observation: ", "\n") for s in steps]
    # each line is 9–13 tokens: a budget of 25 holds two lines, and both go to facts, not tool calls
    out = summarize(texts, 25)
    assert "1,450" in out and "1 euro" in out
    assert "search(query" not in out


def test_bad_budget():
    with pytest.raises(InvalidArgumentError):
        summarize(["x"], 0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=200), max_size=5), st.integers(1, 60))
def test_summary_never_exceeds_its_budget(texts, budget):
    assert count_tokens(summarize(texts, budget)) <= budget


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=300), st.integers(0, 50))
def test_truncate_to_tokens(text, budget):
    out = truncate_to_tokens(text, budget)
    assert count_tokens(out) <= max(budget, 0) or out == ""


def test_embedding_is_deterministic_unit_and_similar_for_shared_words():
    a, b, c = embed("the cat sat on the mat"), embed("a cat on a mat"), embed("stock prices fell sharply")
    assert a == embed("the cat sat on the mat") and len(a) == 64
    assert abs(sum(x * x for x in a) - 1) < 1e-3
    assert cosine(a, b) > cosine(a, c)
    assert embed("") == (0.0,) * 64 and cosine(embed(""), a) == 0.0


def test_split_sentences():
    assert split_sentences("One. Two!\nThree") == ["One.", "Two!", "Three"]


def test_fit_text_checks_its_arguments_and_record_size_is_a_flag():
    from stmviz import Element, StateSpace, sizes
    from stmviz.text import fit_text

    space = StateSpace(sizes.chars, 100)
    # record_size="no" was read as true: the cut element recorded its original size
    with pytest.raises(InvalidArgumentError, match="fit_text: record_size must be True or False, got str 'no'"):
        fit_text(space, Element("abcdefghij"), 5, record_size="no")
    with pytest.raises(InvalidArgumentError, match="fit_text: space must be a StateSpace"):
        fit_text("chars", Element("abcdefghij"), 5)
    with pytest.raises(InvalidArgumentError, match="fit_text: room must be a finite number, got str '5'"):
        fit_text(space, Element("abcdefghij"), "5")
    assert "original_size" not in fit_text(space, Element("abcdefghij"), 5, record_size=False).meta


def test_a_summarizer_that_returns_no_text_is_named_by_the_one_check_of_guards():
    from stmviz.text.pluggable import cached_summarizer

    silent = cached_summarizer(lambda texts, budget: None)
    with pytest.raises(InvalidArgumentError, match=r"summarize returned NoneType None; summarize\(texts, budget\) -> str must return a string"):
        silent(["a"], 3)
    with pytest.raises(InvalidArgumentError, match=r"summarize must be a callable \(texts, budget\) -> str, got int 3"):
        cached_summarizer(3)


def test_the_default_summarizer_names_a_text_that_is_no_str():
    with pytest.raises(InvalidArgumentError, match=r"summarize: texts\[1\] must be a str, got int 3"):
        summarize(["a", 3], 5)
    with pytest.raises(InvalidArgumentError, match="summarize: budget must be a whole number ≥ 1, got int 0; a summary budget"):
        summarize(["a"], 0)
