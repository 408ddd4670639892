"""Draw the README's and the site's figures as PNG with kaleido, and record what each was drawn from.

    python scripts/make_images.py            # writes docs/images/*.png and docs/images/images.json
    python scripts/make_images.py --check    # says which images are stale, without drawing (exit 1 if any)

kaleido drives a Chromium it finds on the machine (Debian's /usr/bin/chromium here, or the one
named by BROWSER_PATH); nothing is downloaded (this script never calls plotly_get_chrome).

``docs/images/images.json`` holds, for each image, the SHA-256 of the figure it was drawn from (the
figure's data and layout as stmviz built them, without plotly's template) and of the PNG written.
``--check`` (and tests/docs/test_images.py) rebuilds each figure, which takes seconds, and compares:
an image is stale when the code that draws it now draws something else. Git keeps no file times,
and the PNG's bytes depend on the browser's fonts, so the figure's content is what is compared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images"
MANIFEST = OUT / "images.json"


def figures() -> dict[str, tuple[Any, int, int]]:
    """Each image's figure and its size in pixels: name → (figure, width, height)."""
    from stmviz import SCM, AgentFold, FIFOWindow, HiAgent, load_scenario, run
    from stmviz.viz import hierarchy_figure, loop_figure, occupancy_figure, state_figure

    research = load_scenario("web_research")
    fold = run(AgentFold(research.space()), research)
    dialogue = load_scenario("long_dialogue")
    compared = {cls.__name__: run(cls(dialogue.space()), dialogue) for cls in (FIFOWindow, SCM, HiAgent, AgentFold)}
    household = load_scenario("household")
    hi = run(HiAgent(household.space()), household)
    return {
        "occupancy_compare": (occupancy_figure(compared, layout="side"), 1100, 700),
        "agentfold_tree": (hierarchy_figure(fold, len(fold)), 1100, 420),
        "hiagent_tree": (hierarchy_figure(hi, 17), 1100, 420),
        "state_bar": (state_figure(fold, 20), 1100, 260),
        "loop": (loop_figure(fold, 20), 900, 520),
    }


def spec_hash(figure: Any, width: int, height: int) -> str:
    """The SHA-256 of what a figure shows: its data and layout (plotly's template left out: it is plotly's), and its size."""
    spec = figure.to_dict()
    spec.get("layout", {}).pop("template", None)
    text = json.dumps({"figure": spec, "width": width, "height": height}, sort_keys=True, ensure_ascii=False,
                      default=lambda value: value.tolist())
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stale() -> list[str]:
    """What is out of date, one line per image (empty when every image is what the code draws now)."""
    recorded = json.loads(MANIFEST.read_text(encoding="utf-8")) if MANIFEST.is_file() else {}
    problems = []
    drawn = figures()
    for name, (figure, width, height) in drawn.items():
        path = OUT / f"{name}.png"
        entry = recorded.get(name)
        if entry is None:
            problems.append(f"{path.name}: not in {MANIFEST.name}")
        elif not path.is_file():
            problems.append(f"{path.name}: missing")
        elif entry.get("png") != file_hash(path):
            problems.append(f"{path.name}: the file is not the one make_images.py wrote")
        elif entry.get("figure") != spec_hash(figure, width, height):
            problems.append(f"{path.name}: the code now draws another figure")
    for name in sorted(set(recorded) - set(drawn)):
        problems.append(f"{name}.png: recorded in {MANIFEST.name} but no longer drawn")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say which images are stale (exit 1 if any)")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        for line in problems:
            print(line)
        if problems:
            print("run: python scripts/make_images.py")
        return 1 if problems else 0

    import warnings

    import kaleido

    # plotly hands its kaleido options to every call; with the one server started here they are not needed
    warnings.filterwarnings("ignore", message="The kopts argument is ignored if using a server")
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = {}
    kaleido.start_sync_server()
    try:
        for name, (figure, width, height) in figures().items():
            path = OUT / f"{name}.png"
            figure.write_image(path, width=width, height=height, scale=1)
            manifest[name] = {"figure": spec_hash(figure, width, height), "png": file_hash(path), "width": width, "height": height}
            print(f"{path.relative_to(ROOT)}  {path.stat().st_size / 1024:.0f} KiB")
    finally:
        kaleido.stop_sync_server()
    MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
