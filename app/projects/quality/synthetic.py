"""Synthetic known-truth checks written into a project's checks project."""

from __future__ import annotations

import numpy as np

from app.core.disclosure import AttributeType, value_characters
from app.datagen.checks import make_checks
from app.extensions import db
from app.models import EvidenceModel, Pair, Project, ProjectKind, Purpose, Record
from app.projects.quality.profiles import profiles
from app.projects.quality.shadow import checks_project, next_positions

__all__ = ["CheckError", "add_synthetic", "check_synthetic_allowed"]


class CheckError(ValueError):
    """A user-facing reason known-truth checks cannot be added."""


def check_synthetic_allowed(project: Project) -> None:
    """Refuse synthetic checks where the worker could tell them from real pairs."""
    if project.evidence_model != EvidenceModel.ROW:
        raise CheckError(
            "synthetic checks need the row evidence model (the pair model counts record "
            "pairs a synthetic record cannot join); use checks from the truth"
        )
    if project.show_scores:
        raise CheckError(
            "this project shows workers the linker's scores, which a synthetic check has "
            "none of; use checks from the truth"
        )
    if not project.identifying:
        raise CheckError("a project without identifying attributes has nothing to check")


def add_synthetic(project: Project, round: int, n: int, rng: np.random.Generator) -> list[tuple]:
    """Make ``n`` synthetic check pairs for ``round``; return ``(pair id, expected answer,
    characters)`` of each. Flushes; the caller commits."""
    check_synthetic_allowed(project)
    shadow = checks_project(project)
    found = profiles(project, round, rng)
    labels = sorted(found)
    first, second = labels[0], labels[-1] if project.kind == ProjectKind.LINK else labels[0]
    made = make_checks(found[first], n, rng)
    kinds = {a.name: AttributeType(a.kind) for a in project.identifying}
    sources = next_positions(shadow)
    out = []
    for pair in made:
        records = []
        for label, values in ((first, pair.a), (second, pair.b)):
            source_id, position = sources[label]
            sources[label] = (source_id, position + 1)
            chars = sum(value_characters(v, kinds[k]) for k, v in values.items())
            record = Record(
                project_id=shadow.id,
                source_id=source_id,
                external_id=f"check-{position}",
                position=position,
                values=values,
                characters=chars,
            )
            records.append(record)
        db.session.add_all(records)
        db.session.flush()
        row = Pair(
            project_id=shadow.id,
            record_a_id=records[0].id,
            record_b_id=records[1].id,
            purpose=Purpose.BLOCKING.value,
            round=round,
        )
        db.session.add(row)
        db.session.flush()
        out.append((row.id, pair.expected, records[0].characters + records[1].characters))
    return out
