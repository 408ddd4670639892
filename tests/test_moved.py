"""Modules that moved leave a stub at their old path: it gives the same object, with a DeprecationWarning."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "old, new, name",
    [
        ("stmviz.mechanisms.fit", "stmviz.text.fit", "fit_text"),
        ("stmviz.mechanisms.fit", "stmviz.text.fit", "ELLIPSIS"),
        # SCM's offline stand-ins for the model, and its own released rule
        *[
            ("stmviz.mechanisms.scm_controller", "stmviz.text.scm_judges", name)
            for name in ("RecallHeuristic", "OverlapJudge", "always_needs_memory", "content_words", "RECALL_CUES", "VERDICTS")
        ],
        ("stmviz.mechanisms.scm_controller", "stmviz.mechanisms.scm", "retrieves_as_released"),
        # HiAgent's offline subgoal summarizer, from its old module and from hiagent.py, which re-exported it
        *[
            (old, "stmviz.text.subgoal_summary", name)
            for old in ("stmviz.mechanisms.hiagent_summarizer", "stmviz.mechanisms.hiagent")
            for name in ("SubgoalPair", "ObservationSummarizer", "verdict_of", "informative_sentences", "SubgoalSummarizer")
        ],
        # AgentFold whole in its module
        ("stmviz.mechanisms.agentfold_extras", "stmviz.mechanisms.agentfold", "block_label"),
        # the mechanisms' private helpers, until no module imports Memo from there
        ("stmviz.mechanisms._shared", "stmviz._fast.memo", "Memo"),
    ],
)
def test_an_old_path_gives_the_new_object_and_warns(old, new, name):
    with pytest.warns(DeprecationWarning, match=rf"{old} is deprecated .* import {name} from {new}"):
        value = getattr(importlib.import_module(old), name)
    assert value is getattr(importlib.import_module(new), name)


def test_an_unknown_name_at_an_old_path_is_an_attribute_error():
    stub = importlib.import_module("stmviz.mechanisms.fit")
    with pytest.raises(AttributeError, match="moved to stmviz.text.fit"):
        stub.no_such_name


def test_a_stub_whose_names_went_to_two_homes_warns_at_the_callers_line():
    """scm_controller's names went to stmviz.text.scm_judges and stmviz.mechanisms.scm: each warns, naming this file."""
    import stmviz.mechanisms.scm_controller as stub

    for name, home in (("OverlapJudge", "stmviz.text.scm_judges"), ("retrieves_as_released", "stmviz.mechanisms.scm")):
        with pytest.warns(DeprecationWarning, match=f"import {name} from {home}") as caught:
            value = getattr(stub, name)
        assert value is getattr(importlib.import_module(home), name)
        assert caught[0].filename == __file__  # shown by Python's default filters in a user's script
