"""scripts/check_site.py finds what it promises on a small site written here: broken links, missing
anchors, resources from outside (scripts, stylesheets, images, a stylesheet's url()), and passes a sound site."""

from __future__ import annotations

from pathlib import Path


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


SOUND = {
    "index.html": '<link rel="stylesheet" href="_static/site.css"><script src="_static/app.js"></script>'
                  '<a href="api/page.html#stmviz.core.Element">Element</a> <a href="#top" id="top">top</a>'
                  '<a href="https://example.org/">outside, followed by a reader only</a><img src="_images/a.png">'
                  '<link rel="next" href="api/page.html">',
    "api/page.html": '<dt id="stmviz.core.Element">class Element</dt><a href="../index.html">home</a><a href="">self</a>',
    "_static/site.css": "/* see https://example.org/ */ body { background: url(bg.png); }",
    "_static/app.js": "",
    "_static/bg.png": "",
    "_images/a.png": "",
}


def test_a_sound_site_has_no_problem(tmp_path, check_site):
    assert check_site.check_site(write(tmp_path, SOUND)) == []


def test_every_kind_of_problem_is_found(tmp_path, check_site):
    broken = dict(SOUND)
    broken["index.html"] += (
        '<a href="api/missing.html">gone</a>'
        '<a href="api/page.html#stmviz.core.Nothing">no such entry</a>'
        '<script src="https://cdn.example.org/plotly.min.js"></script>'
        '<link rel="stylesheet" href="//fonts.example.org/font.css">'
        '<img src="_images/missing.png">'
        '<a href="../../outside.html">out of the site</a>'
    )
    broken["_static/site.css"] += "@import 'https://fonts.example.org/x.css'; p { background: url(none.png); }"
    problems = check_site.check_site(write(tmp_path, broken))
    expected = [
        "index.html: api/missing.html: no such file",
        "index.html: api/page.html#stmviz.core.Nothing: api/page.html has no element with id 'stmviz.core.Nothing'",
        "index.html: loads https://cdn.example.org/plotly.min.js from outside the site",
        "index.html: loads //fonts.example.org/font.css from outside the site",
        "index.html: _images/missing.png: no such file",
        "index.html: ../../outside.html leaves the site",
        "_static/site.css: loads https://fonts.example.org/x.css from outside the site",
        "_static/site.css: url(none.png) names no file",
    ]
    assert sorted(problems) == sorted(expected)


def test_the_command_line_exits_1_on_a_problem(tmp_path, check_site, capsys):
    assert check_site.main([str(write(tmp_path / "good", SOUND))]) == 0
    bad = dict(SOUND, **{"index.html": '<a href="nowhere.html">x</a>'})
    assert check_site.main([str(write(tmp_path / "bad", bad))]) == 1
    assert "nowhere.html: no such file" in capsys.readouterr().out
