"""stmviz.tables.Log: a long log folded to a summary line, the whole log on demand (issue 34: 04's judgement log)."""

from __future__ import annotations

import pytest

from stmviz.core.errors import InvalidArgumentError
from stmviz.tables import Log


def test_a_long_log_prints_its_summary_the_first_lines_and_how_to_see_the_rest(capsys):
    log = Log((f"step {t}: memory → drop" for t in range(150)), "the judgements", head=3)
    text = repr(log)
    assert text.splitlines()[0] == "the judgements: 150 lines, the first 3 below"
    assert len(text.splitlines()) == 5 and "147 more lines: .full() prints them all" in text
    log.full()
    assert capsys.readouterr().out.splitlines() == [f"step {t}: memory → drop" for t in range(150)]


def test_a_short_log_prints_whole_without_a_more_line():
    assert repr(Log(["one", "two"], "log")) == "log: 2 lines, the first 2 below\none\ntwo"


def test_the_html_is_a_details_box_with_every_line_escaped():
    page = Log(["<script>alert(1)</script>", "a & b"], "agent <b>output</b>")._repr_html_()
    assert page.startswith("<details><summary>") and "<script>" not in page and "<b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\na &amp; b" in page and "agent &lt;b&gt;output&lt;/b&gt;: 2 lines" in page


@pytest.mark.parametrize("args", [("not lines", "log"), (["a"], ""), (["a"], "log", -1)])
def test_bad_arguments_are_a_clear_error(args):
    with pytest.raises(InvalidArgumentError):
        Log(*args)
