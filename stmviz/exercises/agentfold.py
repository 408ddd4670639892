"""Notebook 06's exercises — AgentFold: predict the blocks after a deep consolidation; apply a folding directive."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ..core.i18n import N_, ngettext
from ..core.i18n import gettext as _
from .checking import Checks, ExerciseReport, call_answer, error_text

__all__ = ["check_blocks_prediction", "check_fold"]

# Every sentence a student reads, whole, with named placeholders (translatable).
TEXT = {
    "ranges": N_("a list of step ranges (x, y), oldest first"),
    "ranges hint": N_("answer a list of pairs of ints, e.g. [(0, 2), (3, 3)]: the ranges of the blocks s_{x,y}"),
    "got": N_("got {got!r}"),
    "merged leave": N_("the blocks the directive folds, {merged}, are no longer separate blocks"),
    "merged leave got": N_("you kept {kept} as blocks of their own; the directive [{x}, {t_1}] folds them into one"),
    "merged leave hint": N_("a deep consolidation [x, t−1] replaces every block from step x on: they leave ω"),
    "new block": N_("the new block s_{{{x},{t_1}}} covers the directive's range"),
    "new block got": N_("you predicted {got}; the run's new block is {want}"),
    "new block hint": N_("the directive [x, t−1] makes ONE block s_{x,t−1}: it covers the folded blocks and I_{t−1}"),
    "nothing else": N_("no other block: the blocks ω_{t} holds are exactly the run's"),
    "nothing else hint": N_("I_{t−1} does not become a block of its own in a consolidation: it is folded in with the rest"),
    "list": N_("the result is a list of ((x, y), text)"),
    "list got": N_("fold from x = {x}: {what}"),
    "list hint": N_("return a list of blocks, each ((x, y), text), oldest first"),
    "pure": N_("the blocks you were given are unchanged"),
    "pure got": N_("fold from x = {x} changed the list passed as blocks: it was {before}, it is now {after}"),
    "pure hint": N_("build a new list (kept + [new block]); do not append to, pop from or sort the list you were given"),
    "kept": N_("the blocks that end before x stay, unchanged and in order"),
    "kept got": N_("fold from x = {x}: expected the blocks {want} to stay, got {got}"),
    "kept hint": N_("keep every block whose range ends before x, as it is: [(r, text) for r, text in blocks if r[1] < x]"),
    "merged gone": N_("no block from step x on stays beside the new one"),
    "merged gone hint": N_("a merged block must not stay next to the block that replaces it: drop every block with r[1] >= x"),
    "one new": N_("exactly one new block, the last of the list"),
    "one new hint": N_("add exactly one block for the directive, at the end of the list"),
    "range": N_("the new block covers [x, t−1]"),
    "range got": N_("fold from x = {x}: the new block covers {got}, expected ({x}, {t_1})"),
    "range hint": N_("the new block's range is (x, t - 1), where t - 1 = latest[0]: it ends at the latest interaction, not at t"),
    "text": N_("the new block holds σ, the summary the agent wrote"),
    "text got": N_("fold from x = {x}: the new block holds {got!r}, the agent wrote {want!r}"),
    "text hint": N_("use sigma as the new block's text, as the agent wrote it"),
}

#: notebook 06's prediction: web_research, the deep consolidation of step 7
FOLD_STEP = 7


def _fold_at(t: int) -> tuple[tuple[int, int], list[tuple[int, int]], list[tuple[int, int]]]:
    """(the directive's range at step t, the block ranges in ω_t, those in ω_{t+1}) on web_research."""
    from ..core.trace import run
    from ..mechanisms import AgentFold
    from ..scenarios import load_scenario

    scenario = load_scenario("web_research")
    trace = run(AgentFold(scenario.space()), scenario)
    ranges = [[(int(e.meta["range"][0]), int(e.meta["range"][1])) for e in AgentFold.blocks(trace.state_at(s))]
              for s in (t, t + 1)]
    x, y = scenario.steps[t].directives["fold"]["range"]
    return (int(x), int(y)), ranges[0], ranges[1]


def check_blocks_prediction(prediction: Any) -> ExerciseReport:
    """Notebook 06, predict then run: the ranges of the blocks in ω_8, after step 7's directive [0, 6].

    >>> check_blocks_prediction([(0, 6)]).ok
    True
    """
    (x, t_1), before, after = _fold_at(FOLD_STEP)
    merged = [r for r in before if r not in after]
    new = [r for r in after if r not in before]
    needs = ("a list of ranges",)
    criteria: dict[str, tuple[Any, ...]] = {
        N_("a list of ranges"): (TEXT["ranges"], TEXT["ranges hint"]),
        N_("merged blocks leave"): (_(TEXT["merged leave"]).format(merged=merged), TEXT["merged leave hint"], needs),
        N_("the new block"): (_(TEXT["new block"]).format(x=x, t_1=t_1), TEXT["new block hint"], needs),
        N_("nothing else"): (_(TEXT["nothing else"]).format(t=FOLD_STEP + 1), TEXT["nothing else hint"], needs),
    }
    c = Checks(N_("06 · predict: the blocks after a deep consolidation"), criteria)
    if prediction is None or prediction is ...:
        return c.not_done(NotImplementedError("blocks_after is None"))
    try:
        ranges = [(r[0], r[1]) for r in prediction] if isinstance(prediction, (list, tuple)) else None
    except (TypeError, IndexError, KeyError):
        ranges = None
    whole = ranges is not None and all(
        len(r) == 2 and isinstance(v, int) and not isinstance(v, bool) for r in prediction for v in r)
    if not c.check("a list of ranges", whole, _(TEXT["got"]).format(got=prediction)):
        return c.report()
    mine = set(ranges or ())
    kept = sorted(mine & set(merged))
    c.check("merged blocks leave", not kept, _(TEXT["merged leave got"]).format(kept=kept, x=x, t_1=t_1))
    c.check("the new block", set(new) <= mine, _(TEXT["new block got"]).format(got=sorted(mine), want=new))
    extra = sorted(mine - set(after) - set(merged))
    c.check("nothing else", not extra, ngettext("block(s) {extra} are not in ω_{t}; it holds {want}",
                                                "block(s) {extra} are not in ω_{t}; it holds {want}",
                                                len(extra)).format(extra=extra, t=FOLD_STEP + 1, want=after))
    return c.report()


def check_fold(fold: Callable[..., Any]) -> ExerciseReport:
    """Notebook 06: ``fold(blocks, latest, x, sigma)`` applies an AgentFold directive [x, t−1] with summary σ.

    ``blocks`` is a list of ``((x, y), text)`` oldest first: the blocks s_{x,y};
    ``latest`` is ``(t - 1, text)``: the latest interaction I_{t-1}. The result
    is the new list of blocks: x = t−1 is a granular condensation (I_{t-1}
    becomes s_{t-1,t-1}); x < t−1 a deep consolidation (the blocks from step x
    on and I_{t-1} become one block s_{x,t-1}). Each criterion is one property
    of the result, judged on every case: a fault shows in its own criterion.
    """
    needs = ("a list of blocks",)
    criteria: dict[str, tuple[Any, ...]] = {
        N_("a list of blocks"): (TEXT["list"], TEXT["list hint"]),
        N_("inputs unchanged"): (TEXT["pure"], TEXT["pure hint"]),
        N_("kept blocks"): (TEXT["kept"], TEXT["kept hint"], needs),
        N_("merged blocks gone"): (TEXT["merged gone"], TEXT["merged gone hint"], needs),
        N_("one new block"): (TEXT["one new"], TEXT["one new hint"], needs),
        N_("range"): (TEXT["range"], TEXT["range hint"], ("a list of blocks", "one new block")),
        N_("agent's text"): (TEXT["text"], TEXT["text hint"], ("a list of blocks", "one new block")),
    }
    c = Checks(N_("06 · AgentFold's fold"), criteria)
    blocks = [((0, 3), "searched the fleet size"), ((4, 4), "found 640 e-bikes"), ((5, 6), "read the contract")]
    latest = (7, "opened the news page: the deal is worth 2.1 M EUR")
    t_1 = latest[0]
    cases = [  # (x, sigma): a condensation, then deep consolidations
        (7, "deal worth 2.1 M EUR"),
        (4, "640 e-bikes; contract read; deal 2.1 M EUR"),
        (5, "contract and deal: 2.1 M EUR"),
        (0, "NorbyCykel: 640 e-bikes, contract read, deal 2.1 M EUR"),
    ]
    try:
        for x, sigma in cases:
            given = copy.deepcopy(blocks)
            ok, got = call_answer(fold, given, latest, x, sigma)
            if got is None:
                raise NotImplementedError(_("fold returned None"))
            c.check("inputs unchanged", given == blocks, _(TEXT["pure got"]).format(x=x, before=blocks, after=given))
            if not ok:
                c.fail("a list of blocks", _(TEXT["list got"]).format(x=x, what=error_text(got)))
                continue
            try:
                got = [((int(r[0]), int(r[1])), str(text)) for r, text in got]
            except (TypeError, ValueError, IndexError) as exc:
                c.fail("a list of blocks", _(TEXT["list got"]).format(x=x, what=error_text(exc)))
                continue
            want_kept = [b for b in blocks if b[0][1] < x]
            c.check("kept blocks", [b for b in got if b in want_kept] == want_kept,
                    _(TEXT["kept got"]).format(x=x, want=want_kept, got=got))
            left = [b[0] for b in got if b in blocks and b[0][1] >= x]
            c.check("merged blocks gone", not left, ngettext(
                "fold from x = {x}: block(s) {left} are still there next to the block that replaces them",
                "fold from x = {x}: block(s) {left} are still there next to the block that replaces them",
                len(left)).format(x=x, left=left))
            new = [(i, b) for i, b in enumerate(got) if b not in blocks]
            if not c.check("one new block", len(new) == 1 and new[0][0] == len(got) - 1,
                           ngettext("fold from x = {x}: new block(s) {new} at position(s) {where} of {n}",
                                    "fold from x = {x}: new block(s) {new} at position(s) {where} of {n}",
                                    len(new)).format(x=x, new=[b for _i, b in new], where=[i for i, _b in new],
                                                     n=len(got))):
                continue
            (r, text) = new[0][1]
            c.check("range", r == (x, t_1), _(TEXT["range got"]).format(x=x, got=r, t_1=t_1))
            c.check("agent's text", text == sigma, _(TEXT["text got"]).format(x=x, got=text, want=sigma))
    except NotImplementedError as exc:
        return c.not_done(exc)
    return c.report()
