"""The advisor's hint for one pair of a worker's page (docs/advice.md §4, §6).

The hint is computed from exactly what the page shows the worker: the pair's display state
(:func:`app.review.services.pair_states`, the frequency markers of the page) and the costs the
page previews (:func:`app.review.services.state_costs`, the function that charges a reveal).
The models are the project's: the stored human model and the CHI 2018 world model by attribute
role, with a Splink model's exact-match levels when the project has one. So two pairs that
display alike get the same hint, a known-truth check pair is advised like any other, and the
hint never opens a cell: it only names one.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from app.core.advice import (
    Advice,
    EvidenceReviewer,
    HumanReviewer,
    Reviewer,
    World,
    advise,
    roles_of,
    shown_pair,
    with_splink,
)
from app.core.advice.study import stored
from app.extensions import db
from app.models import Pair, ScoringModel
from app.review import services
from app.review.grid import name_attributes, page_frequencies
from app.review.handles import NO_PAIR, pair_of

__all__ = ["REVIEWERS", "AdviceOff", "PairAdvice", "advice_json", "pair_advice", "project_models"]

REVIEWERS = ("human", "evidence")
_RARE = frozenset({"unique", "rare"})


class AdviceOff(LookupError):
    """The project's manager has not turned the hint on."""


@dataclass(frozen=True)
class PairAdvice:
    pair_id: int  # the worker's name for the pair, as asked
    reviewer: str
    advice: Advice
    show_scores: bool


def project_models(project, attributes) -> tuple[Reviewer, World]:
    """The reviewer model the project's hint advises for, and the world model."""
    kinds = {a.name: a.kind for a in attributes}
    roles = roles_of(kinds)
    fitted = stored.load()
    world = fitted.world.renamed(roles)
    settings = db.session.scalar(
        select(ScoringModel.settings)
        .where(ScoringModel.project_id == project.id, ScoringModel.settings.is_not(None))
        .order_by(ScoringModel.id.desc())
        .limit(1)
    )
    if settings:
        world = with_splink(world, settings, kinds)
    if project.advice_reviewer == "evidence":
        return EvidenceReviewer(world), world
    return HumanReviewer(fitted.human, roles, world), world


def pair_advice(ctx: services.Context, pair_id: int) -> PairAdvice:
    """The hint for one pair of ``ctx``'s assignment (read only: nothing is revealed).

    Raises :class:`AdviceOff` when the project's hint is off and
    :class:`~app.review.services.NotInAssignment` for a pair outside the assignment.
    """
    project = ctx.project
    if not project.advice_hint:
        raise AdviceOff("the advisor's hint is off for this project")
    pair = _named_pair(ctx.assignment.id, pair_id)
    if pair is None:
        raise services.NotInAssignment("this pair is not in this assignment")
    (state,) = services.pair_states(ctx, [pair])
    costs = services.state_costs(state, ctx.indexes(pair), ctx.scale_args())
    shown = shown_pair(
        state.comparisons,
        state.levels,
        name_swap=frozenset(name_attributes(ctx.attributes) or ())
        if state.name_swap
        else frozenset(),
        rare=_rare(ctx, pair, state),
    )
    reviewer, world = project_models(project, ctx.attributes)
    advice = advise(
        shown,
        {(row, name): cost for (_p, row, name), cost in costs.items()},
        reviewer,
        world,
        room=ctx.budget - ctx.kapr,
    )
    return PairAdvice(pair_id, project.advice_reviewer, advice, project.show_scores)


def _named_pair(assignment_id: int, name: int) -> Pair | None:
    """The pair the worker calls ``name``: its handle in an assignment with known-truth checks
    (``AssignmentPair.handle``, issue 38), else its id; a real pair's id names nothing in an
    assignment with handles, so the hint tells a check from a real pair no more than the page
    (:func:`app.review.handles.pair_of`)."""
    found = pair_of(assignment_id, name)
    if found == NO_PAIR:
        return None
    return db.session.scalar(
        select(Pair)
        .where(Pair.id == found)
        .options(selectinload(Pair.record_a), selectinload(Pair.record_b))
    )


def _rare(ctx, pair, state) -> frozenset[str]:
    """Names whose frequency marker says unique or rare on both rows (what the page shows)."""
    classes = page_frequencies(ctx, [pair], [state])
    rows = [classes.get((pair.id, row), {}) for row in (0, 1)]
    return frozenset(a for a in rows[0] if rows[0][a] in _RARE and rows[1].get(a) in _RARE)


def advice_json(found: PairAdvice) -> dict:
    """The hint's JSON (docs/api.md): the suggested cell (or none) and whether the display
    suffices; the expected P(correct) and each cell's gain only when the project shows
    workers the linker's scores (a score reaches a worker only then)."""
    advice = found.advice
    suggestion = advice.suggestion
    out = {
        "pair_id": found.pair_id,
        "reviewer": found.reviewer,
        "suggestion": None
        if suggestion is None
        else {"row": suggestion[0], "attribute": suggestion[1]},
        "suffices": advice.suffices,
    }
    if found.show_scores:
        out["p_correct"] = round(advice.p_correct, 4)
        out["cells"] = [
            {
                "row": c.row,
                "attribute": c.attribute,
                "gain": round(c.gain, 4),
                "step_cost": float(c.step_cost),
            }
            for c in advice.cells
        ]
    return out
