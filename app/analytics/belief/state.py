"""Load a project's disclosure state from the database and audit it (read-only).

Three scopes: one assignment (what its worker has seen), or ``pooled``: every assignment of the
project together, as if their workers colluded. A pooled cell shows the most any assignment
showed of it (levels are nested, so that is the union of what they disclosed), and a pooled
row's candidate set is the intersection of theirs under the ``row`` model: the acceptable
combination of Definition 27. Recognising one record across different pairs is not modelled:
the display never says that two rows are the same record.

The pairs and their levels come from :func:`app.analytics.kapr.collusion.pooled_state` (one
loader for the pooled state) and the anonymity-set indexes from
:func:`app.review.grid.indexes.source_index` (one per-process cache per source, shared with the
review path).

Only aggregates leave this module: record positions and values stay inside the core audit.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from app.analytics.kapr import pooled_state
from app.core import disclosure
from app.core.belief import MODELS, DisplayedPair, StateAudit, audit_state
from app.core.disclosure import AttributeType, Level
from app.core.kapr import Evidence, Marker, PairView
from app.extensions import db
from app.models import Assignment, Pair, Project, User
from app.review.grid import source_index


class AuditError(LookupError):
    """No such project or assignment, or an unknown model; the message says which."""


@dataclass(frozen=True)
class Scope:
    """What was audited: a project pooled, or one assignment of it."""

    project: Project
    assignment: Assignment | None
    model: str

    @property
    def name(self) -> str:
        return "pooled" if self.assignment is None else f"assignment {self.assignment.id}"


def _evidence(kind: AttributeType, a, b, row: int, level: Level) -> Evidence:
    cmp = disclosure.compare(kind, a, b)
    return Evidence.trusted(level, cmp.total(row), disclosure.shown(cmp, row, level))


def displayed_pair(project: Project, pair: Pair, levels: dict) -> DisplayedPair:
    """One pair as the core sees it, from its records and ``{(row, attribute): Level}``."""
    a, b = pair.record_a, pair.record_b
    rows = []
    for number in (0, 1):
        rows.append(
            {
                attr.name: _evidence(
                    attr.type,
                    a.values.get(attr.name),
                    b.values.get(attr.name),
                    number,
                    levels.get((number, attr.name), Level.MASKED),
                )
                for attr in project.identifying
            }
        )
    markers = {
        attr.name: Marker.between(a.values.get(attr.name), b.values.get(attr.name))
        for attr in project.identifying
    }
    left = source_index(project, a.source_id)
    right = left if b.source_id == a.source_id else source_index(project, b.source_id)
    return DisplayedPair(PairView(rows[0], rows[1], markers), (a.position, b.position),
                         (left, right), pair.id)  # fmt: skip


def resolve(project_id: int, model: str | None = None, assignment_id: int | None = None) -> Scope:
    """The scope to audit, or :class:`AuditError` naming what is missing."""
    project = db.session.get(Project, project_id)
    if project is None:
        raise AuditError(f"no project {project_id}")
    model = model or project.evidence_model
    if model not in MODELS:
        raise AuditError(f"unknown evidence model {model!r}: use row or pair")
    assignment = None
    if assignment_id is not None:
        assignment = db.session.get(Assignment, assignment_id)
        if assignment is None or assignment.project_id != project.id:
            raise AuditError(f"no assignment {assignment_id} in project {project_id}")
    return Scope(project, assignment, model)


def project_assignments(project: Project) -> list[tuple[Assignment, str]]:
    """The project's assignments with their worker's name, by id."""
    return list(
        db.session.execute(
            select(Assignment, User.username)
            .join(User, Assignment.worker_id == User.id)
            .where(Assignment.project_id == project.id)
            .order_by(Assignment.id)
        ).tuples()
    )


def audit_scope(scope: Scope, models=MODELS) -> StateAudit:
    """Audit the disclosure state of ``scope`` (see the module docstring)."""
    project = scope.project
    if scope.assignment is not None:
        ids = [scope.assignment.id]
    else:
        ids = [a.id for a, _ in project_assignments(project)]
    pooled = pooled_state(project, ids)
    shown = [
        displayed_pair(project, pair, state.levels)
        for pair, state in zip(pooled.pairs, pooled.states, strict=True)
    ]
    return audit_state(
        shown,
        model=scope.model,
        kappa=project.kappa,
        n_attributes=max(len(project.identifying), 1),
        models=models,
    )
