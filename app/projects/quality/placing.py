"""Known-truth checks in a new assignment: which pairs, where, and what is recorded.

The checks are ``share`` of the pairs. Synthetic ones are made for the round
(:mod:`app.projects.quality.synthetic`); truth ones are pairs whose answer the project holds,
those already chosen first. Shared among workers like the real pairs (double coding codes
the checks twice too), each assignment's pairs are then put in a seeded random order, so
that no pair's place tells a check (a check made today would otherwise sit among pairs
ordered by their ids, or by their blocks), and named by random handles
(:mod:`app.review.handles`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import select

from app.extensions import db
from app.models import REVIEWED, Assignment, CheckSource, Pair, Project, QualityCheck
from app.projects.quality.synthetic import CheckError, add_synthetic
from app.projects.quality.truth import known_answers

__all__ = [
    "CheckPlan",
    "CheckSpec",
    "Placed",
    "parse_checks",
    "place",
    "plan_checks",
    "record_checks",
]

#: The largest share of checks an assignment may hold.
MAX_SHARE = 0.5


@dataclass(frozen=True)
class CheckSpec:
    share: float
    source: str


@dataclass
class CheckPlan:
    """A round's checks: the pairs they add to the chosen real ones, and their answers.

    ``extra`` are the pairs added (synthetic checks, or real pairs with a known answer not
    chosen already); ``checks`` maps every check's pair to its expected answer;
    ``synthetic`` the synthetic ones to their characters.
    """

    spec: CheckSpec
    extra: np.ndarray
    checks: dict[int, str] = field(default_factory=dict)
    synthetic: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Placed:
    """One assignment's share of a plan: its pairs in their random order and its checks."""

    pair_ids: np.ndarray
    checks: dict[int, str]
    synthetic: int  # how many of its pairs are synthetic
    characters: int  # their characters


def parse_checks(spec: object) -> CheckSpec | None:
    """The ``checks`` of an assignment request (``{"share": 0.05, "source": "synthetic"}``),
    None for none; :class:`CheckError` naming what is wrong."""
    if spec is None:
        return None
    if not isinstance(spec, Mapping) or set(spec) - {"share", "source"}:
        raise CheckError('\'checks\' is {"share": 0.05, "source": "synthetic" or "truth"}')
    share, source = spec.get("share"), spec.get("source", CheckSource.SYNTHETIC.value)
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share <= MAX_SHARE:
        raise CheckError(f"'checks.share' is a share of the pairs above 0 and at most {MAX_SHARE}")
    if source not in {s.value for s in CheckSource}:
        raise CheckError('\'checks.source\' is "synthetic" or "truth"')
    return CheckSpec(float(share), source)


def plan_checks(
    project: Project, round: int, chosen: np.ndarray, spec: CheckSpec, rng: np.random.Generator
) -> CheckPlan:
    """``spec``'s checks for the ``chosen`` real pairs of ``round`` (``share`` of the whole)."""
    chosen = np.asarray(chosen, dtype=np.int64)
    wanted = max(1, math.ceil(spec.share * len(chosen) / (1 - spec.share) - 1e-9))
    if spec.source == CheckSource.SYNTHETIC:
        made = add_synthetic(project, round, wanted, rng)
        return CheckPlan(
            spec,
            np.array([pair for pair, _e, _c in made], dtype=np.int64),
            {pair: expected for pair, expected, _c in made},
            {pair: chars for pair, _e, chars in made},
        )
    checks, extra = _truth_checks(project, chosen, wanted, rng)
    return CheckPlan(spec, extra, dict(checks))


def place(plan: CheckPlan, pair_ids, rng: np.random.Generator) -> Placed:
    """An assignment of ``pair_ids`` (real and the plan's), in a seeded random order: no
    pair's place tells a check (it would sit among pairs in id or block order)."""
    ids = rng.permutation(np.asarray(pair_ids, dtype=np.int64))
    mine = [int(p) for p in ids if int(p) in plan.checks]
    synthetic = [p for p in mine if p in plan.synthetic]
    return Placed(
        ids,
        {p: plan.checks[p] for p in mine},
        len(synthetic),
        sum(plan.synthetic[p] for p in synthetic),
    )


def _truth_checks(project: Project, chosen: np.ndarray, wanted: int, rng):
    """``wanted`` pairs with a known answer, from the chosen ones first, then others of the
    project that people review."""
    known = known_answers(project)
    if not known:
        raise CheckError(
            "this project holds no answer to check against (no ground-truth column, no "
            "adjudicated pair); use synthetic checks"
        )
    inside = [p for p in chosen.tolist() if p in known]
    picked = rng.permutation(inside)[:wanted].tolist() if inside else []
    extra: list[int] = []
    if len(picked) < wanted:
        taken = set(chosen.tolist())
        reviewable = set(
            db.session.scalars(
                select(Pair.id).where(
                    Pair.id.in_([p for p in known if p not in taken][:100_000]),
                    Pair.project_id == project.id,
                    Pair.purpose.in_([p.value for p in REVIEWED]),
                )
            )
        )
        others = sorted(reviewable)
        extra = rng.permutation(others)[: wanted - len(picked)].tolist() if others else []
    if not picked and not extra:
        raise CheckError("no pair of this project with a known answer can be a check")
    checks = [(p, known[p]) for p in picked + extra]
    return checks, np.array(extra, dtype=np.int64)


def record_checks(assignment: Assignment, spec: CheckSpec, placed: Placed) -> None:
    """Write an assignment's checks and its check settings. Flushes."""
    assignment.check_share, assignment.check_source = spec.share, spec.source
    assignment.synthetic_pairs = placed.synthetic
    assignment.checks_chars_total = placed.characters  # the real pairs' are chars_total
    db.session.add_all(
        QualityCheck(
            project_id=assignment.project_id,
            assignment_id=assignment.id,
            pair_id=pair,
            source=spec.source,
            expected=expected,
        )
        for pair, expected in placed.checks.items()
    )
    db.session.flush()
