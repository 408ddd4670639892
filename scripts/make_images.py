"""Render the README's figures to PNG with kaleido (which drives Debian's /usr/bin/chromium; nothing downloads).

    python scripts/make_images.py        # writes docs/images/*.png
"""

from __future__ import annotations

from pathlib import Path

import kaleido

from stmviz import AgentFold, FIFOWindow, HiAgent, SCM, load_scenario, run
from stmviz.viz import hierarchy_figure, loop_figure, occupancy_figure, state_figure

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    research = load_scenario("web_research")
    fold = run(AgentFold(research.space()), research)
    dialogue = load_scenario("long_dialogue")
    compared = {cls.__name__: run(cls(dialogue.space()), dialogue) for cls in (FIFOWindow, SCM, HiAgent, AgentFold)}
    household = load_scenario("household")
    hi = run(HiAgent(household.space()), household)
    figures = {
        "occupancy_compare": (occupancy_figure(compared, layout="side"), 1100, 700),
        "agentfold_tree": (hierarchy_figure(fold, len(fold)), 1100, 420),
        "hiagent_tree": (hierarchy_figure(hi, 17), 1100, 420),
        "state_bar": (state_figure(fold, 20), 1100, 260),
        "loop": (loop_figure(fold, 20), 900, 520),
    }
    kaleido.start_sync_server()
    try:
        for name, (figure, width, height) in figures.items():
            path = OUT / f"{name}.png"
            figure.write_image(path, width=width, height=height, scale=1)
            print(f"{path.relative_to(OUT.parent.parent)}  {path.stat().st_size / 1024:.0f} KiB")
    finally:
        kaleido.stop_sync_server()


if __name__ == "__main__":
    main()
