"""What the figures, players and tables show a student, in Russian (issue 35): every figure the notebooks draw and
the players' step text, under ``stmviz.language("ru")``.

Two checks per text. ``english_sentences`` (tests/russian_text.py) finds an English sentence; and, since a label is
often too short to be a sentence ("free", "depth", "removed by append"), every Latin word left in it must be a name
that stays as it is in both languages: an element type, an operation, a mechanism's or run's name, a symbol (V_max,
LLM). What is not stmviz's own words is taken out first: the agent's content (quoted), element labels, operations
in ``<code>``, and the reasons a mechanism records (translated by the mechanisms' own catalog at run time, not here).
English output stays as it was: the tests of the modules and the English notebooks hold it byte for byte; here, one
figure drawn in English, then in Russian, then in English again comes out the same (no cache keeps a language).
"""

from __future__ import annotations

import html
import re
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("plotly")
pytest.importorskip("ipywidgets")

import stmviz  # noqa: E402
from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, StateSpace, load_scenario, metrics, run, sizes  # noqa: E402
from stmviz.core.formatting import shorten  # noqa: E402
from stmviz.core.i18n import gettext as _, set_language  # noqa: E402
from stmviz.viz.hierarchy import hierarchy_graph  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from russian_text import english_sentences  # noqa: E402

#: Latin words that stay as they are in a Russian label: symbols, units and names of the paper and of the code.
NAMES = {"V_max", "max", "LLM", "STM", "cl100k_base", "cl100k", "base", "tokens", "max_tokens", "full", "Pareto"}
#: The notebooks' runs: each paper mechanism on the scenario its notebook uses.
RUNS = {"FIFOWindow": (FIFOWindow, "tool_chat"), "SCM": (SCM, "long_dialogue"), "HiAgent": (HiAgent, "household"),
        "AgentFold": (AgentFold, "web_research")}


@pytest.fixture(autouse=True)
def english_after():
    yield
    set_language("en")


@pytest.fixture(scope="module")
def traces():
    """The four paper mechanisms' runs, recorded in Russian (as a Russian notebook runs them)."""
    with stmviz.language("ru"):
        out = {}
        for name, (cls, scenario_name) in RUNS.items():
            scenario = load_scenario(scenario_name)
            out[name] = run(cls(scenario.space()), scenario)
        return out


def _allowed(*traces_) -> set[str]:
    """The names a label may show in Latin letters: the runs' element types, operations and mechanisms, and NAMES."""
    allowed = set(NAMES) | set(RUNS)
    for trace in traces_:
        allowed.add(trace.name)
        allowed.update(e.type for e in trace.sizes)
        for step in trace:
            allowed.update(str(getattr(o, "type", o)) for o in step.operations)
            allowed.update(step.context.step.directives)  # a folding directive's name, as the agent wrote it
    return {word for name in allowed for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", name)} | allowed


def _strip_agent_text(text: str, traces_=()) -> str:
    """``text`` without what is not stmviz's words: tags, code, recorded reasons, element labels, quoted content."""
    text = re.sub(r"<code>.*?</code>", " ", text, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    for trace in traces_:
        reasons = {r for step in trace for r in step.reasons}
        reasons |= {o.reason for step in trace for o in step.operations if getattr(o, "reason", "")}
        cut = {shorten(r, width) for r in reasons for width in (60, 70, 80, 90)} | reasons
        for reason in sorted(cut, key=len, reverse=True):
            text = text.replace(reason, " ")
        # the title a mechanism gives its hierarchy is its own words (its module marks them), like its reasons
        title = hierarchy_graph(trace, len(trace)).graph.get("title") or ""
        for words in {title, _(title) if title else ""} - {""}:
            text = text.replace(words, " ")
        labels = {e.label(width) for e in trace.sizes for width in (30, 40)}
        for label in sorted(labels, key=len, reverse=True):
            text = text.replace(label, " ")
    return re.sub(r"«[^»]*»|“[^”]*”|'[^'\n]*'|\"[^\"\n]*\"", " ", text)


def _english_in(texts, allowed: set[str], traces_=()) -> list[str]:
    """The texts that read as English, or hold a Latin word that is not one of the ``allowed`` names."""
    found = []
    for text in texts:
        plain = _strip_agent_text(text, traces_)
        words = {w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", plain) if len(w) > 1}
        foreign = sorted(words - allowed)
        if english_sentences(plain) or foreign:
            found.append(f"{text.strip()!r} (English: {english_sentences(plain) or foreign})")
    return found


def _text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return getattr(value, "text", None) or ""


def _labels(figure) -> list[str]:
    """What a figure shows in words: its title and subtitle, axis titles, annotations, legend names, buttons."""
    layout = figure.layout
    labels = [_text(layout.title), _text(layout.title.subtitle) if layout.title else ""]
    full = figure.to_plotly_json()["layout"]
    labels += [_text(axis.get("title", {}).get("text") if isinstance(axis.get("title"), dict) else axis.get("title"))
               for key, axis in full.items() if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict)]
    labels += [a.text or "" for a in layout.annotations]
    labels += [d.name or "" for d in figure.data if d.showlegend is not False and d.name]
    for menu in layout.updatemenus or ():
        labels += [button.label or "" for button in menu.buttons]
    return [label for label in labels if label]


def _figures_of_the_notebooks(traces) -> dict[str, object]:
    from stmviz.viz import hierarchy_figure, occupancy_figure
    from stmviz.widgets import TracePlayer, compare_player

    figures = {f"occupancy_figure({name})": occupancy_figure(trace) for name, trace in traces.items()}
    figures["hierarchy_figure(HiAgent)"] = hierarchy_figure(traces["HiAgent"], len(traces["HiAgent"]) // 2)
    figures["hierarchy_figure(AgentFold)"] = hierarchy_figure(traces["AgentFold"], len(traces["AgentFold"]))
    figures["occupancy_figure(side)"] = occupancy_figure(traces, layout="side")
    for name, trace in traces.items():
        player = TracePlayer(trace, len(trace) // 2)
        figures[f"TracePlayer({name}).static_figure"] = player.static_figure()
        figures[f"TracePlayer({name}).state"] = player.state
        if player.hierarchy is not None:
            figures[f"TracePlayer({name}).hierarchy"] = player.hierarchy
    figures["compare_player.static_figure"] = compare_player(traces, 5).static_figure()
    return figures


def test_every_figure_the_notebooks_draw_has_russian_titles_axes_legends_and_annotations(traces):
    with stmviz.language("ru"):
        figures = _figures_of_the_notebooks(traces)
        allowed = _allowed(*traces.values())
        found = {name: _english_in(_labels(fig), allowed, traces.values()) for name, fig in figures.items()}
    assert {name: f for name, f in found.items() if f} == {}
    assert figures["occupancy_figure(SCM)"].layout.title.text == "Объём Σμ(ω_t) и ограничение V_max"
    assert figures["occupancy_figure(FIFOWindow)"].layout.xaxis.title.text == "t (состояние ω_t)"


def test_the_legend_names_removals_in_russian_and_keeps_the_operation_s_name(traces):
    from stmviz.viz import occupancy_figure

    with stmviz.language("ru"):
        fig = occupancy_figure(traces["FIFOWindow"])
    removals = [d for d in fig.data if d.meta["role"] == "removals"]
    assert removals and all(d.name.startswith(("удалено операцией ", "удалено операциями ")) for d in removals)
    assert {d.meta["operations"] for d in removals} == {r.label for r in _removals(traces["FIFOWindow"])}


def _removals(trace):
    from stmviz.viz import occupancy_data

    return occupancy_data(trace).removals


def test_the_player_s_step_text_is_russian_for_each_paper_mechanism(traces):
    from stmviz.widgets.player import step_html

    with stmviz.language("ru"):
        for name, trace in traces.items():
            removing = [step.t + 1 for step in trace if step.removed]
            collapsed = [step.t + 1 for step in trace if len(step.removed) > 4 or len(step.added) > 4]
            shown = sorted({0, 1, len(trace) // 2, len(trace), *removing[:3], *collapsed[:2]})
            allowed = _allowed(trace)
            texts = [step_html(trace, t) for t in shown]
            assert _english_in(texts, allowed, [trace]) == [], name
            assert "начальное состояние" in texts[0]
    assert collapsed, "AgentFold's consolidations remove more than four elements: a collapsed group was shown"


def test_the_player_s_buttons_static_copy_and_token_view_are_russian(traces):
    from stmviz.widgets import TracePlayer

    trace = traces["FIFOWindow"]
    with stmviz.language("ru"):
        player = TracePlayer(trace, 3)
        player.view.show(5, tokens=False)  # the token view lags while playing: its header says so
        texts = [player.play.description, player.back_button.description, player.next_button.description,
                 player.back_button.tooltip, player.next_button.tooltip, player.tokens_header.value,
                 re.search(r"<h4.*?</h4>", player.static_html()).group(0), player.info.value]
        summary = re.search(r"class=\"stmviz-summary\"[^>]*>(.*?)</div>", player.tokens.value).group(1)
        texts.append(summary)
        assert _english_in(texts, _allowed(trace), [trace]) == []
    assert player.next_button.description == "шаг ▶"
    assert "токен" in summary


def test_the_trace_s_words_and_tables_are_russian(traces):
    from stmviz.tables import Log, table

    trace = traces["FIFOWindow"]
    with stmviz.language("ru"):
        words = [trace.describe(t) for t in (*range(min(4, len(trace))), len(trace))]  # ω_n: the final state
        header = trace.table(width=20, limit=3).splitlines()[:2]
        compared = table(metrics.compare([FIFOWindow, SCM], load_scenario("tool_chat")),
                         ["mechanism", "v_max", "mean_occupancy", "total_prompt_tokens", "evictions", "retained",
                          "probes"])
        log = Log([f"line {i}" for i in range(7)], "суждения", head=2)
        texts = words + header + [" ".join(compared.header()), repr(log).splitlines()[0], repr(log).splitlines()[-1],
                                  log._repr_html_().split("<pre>")[0]]
        assert _english_in(texts, _allowed(trace), [trace]) == []
        assert compared.header()[0] == "механизм" and compared.columns[0] == "mechanism"  # the key stays a key
    assert header[0].split()[:2] == ["t", "операция"]
    assert compared.header()[0] == "mechanism"  # a header is written when shown, in the language set then


def test_the_sweep_figures_and_explorer_are_russian():
    from stmviz.sweep import sweep
    from stmviz.viz import pareto_figure, recall_figure
    from stmviz.widgets.sweep import SweepExplorer

    scenario = load_scenario("long_dialogue")
    records = sweep([FIFOWindow, SCM], scenario, v_max=[300, 1200], progress=False)
    with stmviz.language("ru"):
        figures = [recall_figure(records), pareto_figure(records)]
        explorer = SweepExplorer(records, v_max=300)
        texts = [label for fig in figures for label in _labels(fig)] + _labels(explorer.figure) + [explorer.table.value]
        texts += [h for fig in figures for d in fig.data for h in (d.hovertext or ()) if isinstance(h, str)]
        assert _english_in(texts, _allowed() | {"SCM", "FIFOWindow", "k"}) == []


def test_the_placement_and_recorded_compaction_figures_are_russian():
    from stmviz.managers import ClearToolUses, Compaction, TrimmingSession
    from stmviz.scenarios import example_transcript, load_transcript
    from stmviz.viz import mark_recorded_compactions, occupancy_figure, placement_figure

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = load_transcript(example_transcript("claude_code_session"))
    trace = run(FIFOWindow(StateSpace(sizes.tokens(), v_max=2400)), session)
    with stmviz.language("ru"):
        placed = placement_figure([ClearToolUses, Compaction, TrimmingSession])
        marked = mark_recorded_compactions(occupancy_figure({"FIFO window": trace, "copy": trace}, layout="side"), session)
        hovers = [a.hovertext for a in marked.layout.annotations if a.hovertext]
        allowed = _allowed(trace) | {"FIFO", "window", "copy", "Claude", "Code", "auto", "ClearToolUses", "Compaction",
                                     "TrimmingSession"}
        # the bars' texts are the managers' own words (their modules mark them): only the figure's own words here
        own = [placed.layout.title.text] + [a.text for a in placed.layout.annotations]
        assert _english_in(own + _labels(marked), allowed) == []
        assert _english_in([h.split("<br>")[0] for h in hovers], allowed) == []
    assert any("уплотнение контекста" in a.text for a in marked.layout.annotations)


def test_english_is_unchanged_after_russian_no_cache_keeps_a_language(traces):
    """A figure and a step text drawn in English, in Russian, then in English again: the two English ones are equal."""
    from stmviz.viz import hierarchy_figure
    from stmviz.widgets.player import step_html

    trace = traces["AgentFold"]

    def drawn():
        fig = hierarchy_figure(trace, len(trace))
        return fig.to_plotly_json(), step_html(trace, 8), trace.table(width=20, limit=2)

    before = drawn()
    with stmviz.language("ru"):
        russian = drawn()
    after = drawn()
    assert after == before
    assert russian != before
    assert before[0]["layout"]["title"]["text"].startswith("Hierarchy of ω_")
    assert russian[0]["layout"]["title"]["text"].startswith("Иерархия ω_")
