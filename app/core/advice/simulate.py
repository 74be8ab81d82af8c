"""Run a disclosure policy over the CHI 2018 pairs under a reviewer model (the CLI's
``advice simulate``, the bench's study rows)."""

from __future__ import annotations

from fractions import Fraction

from app.core.advice.models.reviewers import EvidenceReviewer, HumanReviewer, Reviewer
from app.core.advice.policies import POLICIES, Case, raw_columns, run_policy
from app.core.advice.study.data import ATTRIBUTES, DISPLAYS, StudyPair
from app.core.advice.study.fit import ROLES
from app.core.advice.study.stored import Stored
from app.core.kapr import AnonymityIndex

__all__ = ["REVIEWERS", "simulate_study", "study_cases", "study_reviewer"]

REVIEWERS = ("human", "evidence")
_MODES = {name: number for number, name in DISPLAYS.items()}


def study_reviewer(name: str, stored: Stored) -> Reviewer:
    """The stored human model, or the evidence model of the stored world."""
    if name == "human":
        return HumanReviewer(stored.human, ROLES, stored.world)
    if name == "evidence":
        return EvidenceReviewer(stored.world)
    raise ValueError(f"unknown reviewer {name!r} (one of {', '.join(REVIEWERS)})")


def simulate_study(
    pairs: list[StudyPair],
    reviewer: str,
    policy: str,
    stored: Stored,
    *,
    budget: Fraction | None = None,
) -> list[dict]:
    """One object per presented pair: ``sample``, ``question``, ``mode`` (the study's mode
    number for its five displays, else the policy's name), ``p_correct``, ``chars_shown``,
    ``chars_total`` and ``kapr`` (the pair's term of its sample's KAPR)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (one of {', '.join(POLICIES)})")
    model = study_reviewer(reviewer, stored)
    world = stored.world
    out = []
    for case in study_cases(pairs):
        done = run_policy(case, policy, model, world, budget=budget)
        out.append(
            {
                "sample": case.key[0],
                "question": case.key[1],
                "mode": _MODES.get(policy, policy),
                "p_correct": round(done.p_correct, 6),
                "chars_shown": done.chars_shown,
                "chars_total": done.chars_total,
                "kapr": float(done.kapr),
            }
        )
    return out


def study_cases(pairs, *, model: str = "row") -> list[Case]:
    """The CHI 2018 pairs as cases: one anonymity-set index over every record of the samples
    (each row once), each sample one assignment of its 36 pairs (``N = 72``, ``D = 6``)."""
    index = AnonymityIndex.build(
        raw_columns([v for p in pairs for v in p.values], ATTRIBUTES), ATTRIBUTES
    )
    per_sample: dict[int, int] = {}
    for p in pairs:
        per_sample[p.sample] = per_sample.get(p.sample, 0) + 1
    return [
        Case(
            (p.sample, p.question),
            p.comparisons,
            (index, index),
            {
                "kappa": 1,
                "n_rows": 2 * per_sample[p.sample],
                "n_attributes": len(ATTRIBUTES),
                "model": model,
            },
            p.truth,
            p.swapped,
            p.rare,
            ("sex",),
        )
        for p in pairs
    ]
