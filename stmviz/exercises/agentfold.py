"""Notebook 06's exercise — AgentFold: applying a folding directive to the blocks s_{x,y}."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_fold"]


def check_fold(fold: Callable[..., Any]) -> ExerciseReport:
    """Notebook 06: ``fold(blocks, latest, x, sigma)`` applies an AgentFold directive [x, t−1] with summary σ.

    ``blocks`` is a list of ``((x, y), text)`` oldest first: the blocks s_{x,y};
    ``latest`` is ``(t - 1, text)``: the latest interaction I_{t-1}. The result
    is the new list of blocks: x = t−1 is a granular condensation (I_{t-1}
    becomes s_{t-1,t-1}); x < t−1 a deep consolidation (the blocks from step x
    on and I_{t-1} become one block s_{x,t-1}).
    """
    c = Checks("06 · AgentFold's fold", {
        "condensation": ("x = t−1 appends s_{t−1,t−1} and leaves the other blocks alone",
                         "when x == t - 1 the result is blocks + [((t - 1, t - 1), sigma)]"),
        "consolidation": ("x < t−1 merges the blocks from step x on, with I_{t−1}, into s_{x,t−1}",
                          "keep the blocks that end before x; replace the rest and I_{t-1} by ((x, t - 1), sigma)"),
        "cover": ("the blocks cover steps 0 … t−1 in order, without gaps or overlaps",
                  "a merged block must not stay next to the block that replaces it"),
        "agent's text": ("the new block holds σ, the summary the agent wrote", "use sigma as the block's text"),
    })
    blocks = [((0, 3), "searched the fleet size"), ((4, 4), "found 640 e-bikes"), ((5, 6), "read the contract")]
    latest = (7, "opened the news page: the deal is worth 2.1 M EUR")
    cases = [  # (criterion, x, sigma, expected)
        ("condensation", 7, "deal worth 2.1 M EUR", blocks + [((7, 7), "deal worth 2.1 M EUR")]),
        ("consolidation", 4, "640 e-bikes; contract read; deal 2.1 M EUR",
         blocks[:1] + [((4, 7), "640 e-bikes; contract read; deal 2.1 M EUR")]),
        ("consolidation", 5, "contract and deal: 2.1 M EUR", blocks[:2] + [((5, 7), "contract and deal: 2.1 M EUR")]),
    ]
    try:
        for name, x, sigma, expected in cases:
            ok, got = call_answer(fold, list(blocks), latest, x, sigma)
            if got is None:
                raise NotImplementedError("fold returned None")
            if not ok:
                c.fail(name, error_text(got))
                continue
            try:
                got = [((int(r[0]), int(r[1])), str(text)) for r, text in got]
            except (TypeError, ValueError, IndexError) as exc:
                c.fail(name, f"the result is not a list of ((x, y), text): {error_text(exc)}")
                continue
            ranges = [r for r, _ in got]
            steps = [s for x_, y_ in ranges for s in range(x_, y_ + 1)]
            c.check("cover", steps == list(range(latest[0] + 1)), f"fold from x = {x}: ranges {ranges}")
            new = [text for r, text in got if r == (x, latest[0])]
            c.check("agent's text", new == [sigma], f"fold from x = {x}: the block s_{{{x},{latest[0]}}} holds {new}")
            c.check(name, got == expected, f"fold from x = {x}: got {got}")
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
