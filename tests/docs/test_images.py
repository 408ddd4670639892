"""The README's and the site's images are true: each is what scripts/make_images.py draws from today's code.

Git keeps no file times, and a PNG's bytes depend on the browser that drew it, so the check compares
content: docs/images/images.json records, for each image, the hash of the figure it was drawn from and
of the PNG written; the test rebuilds every figure (seconds, no browser) and compares. When the code
that draws an image changes, this fails and says to run ``python scripts/make_images.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"


def test_each_image_is_what_the_code_draws_now(make_images):
    problems = make_images.stale()
    assert problems == [], "\n".join(problems) + "\nrun: python scripts/make_images.py"


def test_every_shown_image_exists_and_is_drawn_by_the_script():
    """The README and the site show only images the script draws, and docs/images holds no other PNG."""
    manifest = json.loads((IMAGES / "images.json").read_text(encoding="utf-8"))
    shown = set(re.findall(r"docs/images/([\w-]+\.png)", (ROOT / "README.md").read_text(encoding="utf-8")))
    for page in (ROOT / "docs").glob("*.md"):
        shown |= set(re.findall(r"\bimages/([\w-]+\.png)", page.read_text(encoding="utf-8")))
    assert shown, "the README shows images"
    for name in sorted(shown):
        assert (IMAGES / name).is_file(), f"{name} is shown but missing"
    assert {f"{name}.png" for name in manifest} == {p.name for p in IMAGES.glob("*.png")}, "every PNG here is drawn by make_images.py"
    assert shown <= {f"{name}.png" for name in manifest}


def test_a_changed_figure_makes_its_image_stale(make_images, monkeypatch, tmp_path):
    """The check can fail: a figure drawn differently, a PNG replaced, an image never recorded."""
    real = make_images.figures()
    changed = dict(real)
    figure, width, height = changed["loop"]
    changed["loop"] = (type(figure)(figure).update_layout(title_text="another title"), width, height)
    monkeypatch.setattr(make_images, "figures", lambda: changed)
    assert make_images.stale() == ["loop.png: the code now draws another figure"]

    manifest = json.loads((IMAGES / "images.json").read_text(encoding="utf-8"))
    for name in real:
        (tmp_path / f"{name}.png").write_bytes((IMAGES / f"{name}.png").read_bytes())
    (tmp_path / "state_bar.png").write_bytes(b"not the PNG that was drawn")
    del manifest["hiagent_tree"]
    (tmp_path / "images.json").write_text(json.dumps(manifest), encoding="utf-8")
    monkeypatch.setattr(make_images, "OUT", tmp_path)
    monkeypatch.setattr(make_images, "MANIFEST", tmp_path / "images.json")
    monkeypatch.setattr(make_images, "figures", lambda: real)
    assert sorted(make_images.stale()) == [
        "hiagent_tree.png: not in images.json",
        "state_bar.png: the file is not the one make_images.py wrote",
    ]
