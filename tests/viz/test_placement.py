"""The U-or-π placement figure draws what each mechanism declares, and refuses what it cannot draw."""

from __future__ import annotations

import pytest

from stmviz import ADKCompaction, ClearToolUses, FIFOWindow, LangChainSummarization, StateSpace, sizes
from stmviz.errors import InvalidArgumentError
from stmviz.viz import placement_figure, placements


def test_every_declared_part_is_one_bar_in_its_column():
    fig = placement_figure([ClearToolUses, LangChainSummarization, ADKCompaction])
    u, pi = fig.data
    assert (u.name, pi.name) == ("U", "π")
    for trace, column in ((u, 0), (pi, 1)):
        for base, width in zip(trace.base, trace.x):
            assert column <= base and base + width <= column + 1 + 1e-9  # inside its column
    declared = {cls.__name__: cls.placement for cls in (ClearToolUses, LangChainSummarization, ADKCompaction)}
    for trace, place in ((u, "U"), (pi, "π")):
        drawn = sorted((name, hover.split(": ", 1)[1]) for name, hover in zip(trace.y, trace.hovertext))
        expected = sorted((name, part) for name, parts in declared.items() for part, where in parts.items() if where == place)
        assert drawn == expected


def test_an_instance_counts_as_its_class_and_the_first_mechanism_is_on_top():
    space = StateSpace(sizes.tokens(), v_max=200_000)
    rows = placements([ClearToolUses(space), LangChainSummarization])
    assert [name for name, _, _ in rows] == ["ClearToolUses", "LangChainSummarization"]
    fig = placement_figure([ClearToolUses(space), LangChainSummarization])
    assert list(fig.layout.yaxis.categoryarray) == ["LangChainSummarization", "ClearToolUses"]


def test_labels_and_hovers_are_escaped():
    class Hostile:
        placement = {"<img src=x onerror=alert(1)>": "π"}

    fig = placement_figure([Hostile])
    assert "<img" not in fig.data[1].text[0] and "&lt;img" in fig.data[1].text[0]
    assert "<img" not in fig.data[1].hovertext[0]


@pytest.mark.parametrize("bad, words", [
    ([FIFOWindow], "declares no placement"),
    ("ClearToolUses", r"mechanisms must be a list \(or another iterable\) of mechanisms"),
    ([], "at least one"),
    ([type("Odd", (), {"placement": {"keep": "X"}})], "placed in 'U' or 'π'"),
])
def test_what_cannot_be_drawn_gets_a_clear_error(bad, words):
    with pytest.raises(InvalidArgumentError, match=words):
        placement_figure(bad)


def test_the_same_mechanism_twice_gets_two_rows():
    rows = placements([ClearToolUses, ClearToolUses])
    assert [name for name, _, _ in rows] == ["ClearToolUses", "ClearToolUses (2)"]
    u = placement_figure([ClearToolUses, ClearToolUses]).data[0]
    assert all(width == 1 for width in u.x)  # ClearToolUses has one part in U: each row's bar spans its column
