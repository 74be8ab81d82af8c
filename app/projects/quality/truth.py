"""The answers a project holds for its own pairs: adjudications (with their provenance) and
its ground truth."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import and_, func, or_, select

from app.analytics.utility import TruthError, default_truth_column, truth_from_vault
from app.extensions import db
from app.models import ConflictResolution, Pair, PairAnswers, Project, User
from app.projects.progress.outcomes import outcomes

__all__ = ["Adjudication", "adjudicated", "known_answers"]


@dataclass(frozen=True)
class Adjudication:
    """How a pair its reviewers disagreed on was settled: the answer, by whom, in what role
    (``manager``: a resolution; ``reviewer``: an additional reviewer's answer made a
    majority), and when."""

    answer: str
    by: str
    role: str
    at: dt.datetime | None

    def as_dict(self) -> dict:
        at = self.at.isoformat() if self.at else None
        return {"answer": self.answer, "by": self.by, "role": self.role, "at": at}


def adjudicated(project_id: int) -> dict[int, Adjudication]:
    """``pair id -> Adjudication`` of each settled pair its reviewers disagreed on."""
    same, different, unsure = (
        PairAnswers.same > 0,
        PairAnswers.different > 0,
        PairAnswers.unsure > 0,
    )
    disputed = select(PairAnswers.pair_id).where(
        PairAnswers.project_id == project_id,
        or_(and_(same, different), and_(same, unsure), and_(different, unsure)),
    )
    newest = (
        select(func.max(ConflictResolution.id))
        .join(Pair, Pair.id == ConflictResolution.pair_id)
        .where(Pair.project_id + 0 == project_id)
        .group_by(ConflictResolution.pair_id)
    )
    resolved = {
        pair: (name, at)
        for pair, name, at in db.session.execute(
            select(ConflictResolution.pair_id, User.username, ConflictResolution.at)
            .join(User, User.id == ConflictResolution.resolved_by)
            .where(ConflictResolution.id.in_(newest))
        )
    }
    pairs = sorted(set(db.session.scalars(disputed)) | set(resolved))
    out = {}
    for pair, outcome in outcomes(project_id, only=pairs).items():
        final = outcome.final
        if final is None or not (outcome.conflict or outcome.resolution):
            continue
        if outcome.resolution is not None and pair in resolved:
            by, at = resolved[pair]
            out[pair] = Adjudication(final, by, "manager", at)
            continue
        agreeing = [a for a in outcome.answers if a.decision == final and a.at is not None]
        deciding = max(agreeing, key=lambda a: a.at)  # the answer that made the majority
        out[pair] = Adjudication(final, deciding.reviewer, "reviewer", deciding.at)
    return out


def known_answers(project: Project) -> dict[int, str]:
    """``pair id -> "same" | "different"``: the ground-truth column where the project has
    one, else (and for pairs it does not cover) the pairs' adjudicated answers."""
    known = {pair: a.answer for pair, a in adjudicated(project.id).items()}
    column = default_truth_column(project)
    if column:
        try:
            truth = truth_from_vault(project, column)
        except TruthError:
            truth = {}
        known.update((pair, "same" if same else "different") for pair, same in truth.items())
    return known
