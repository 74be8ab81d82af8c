"""The state audit read from the database: paper project, pooling, the reveal trail."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.analytics.belief import (
    AuditError,
    Scope,
    audit_scope,
    project_audit,
    project_trails,
    resolve,
)
from app.core import disclosure
from app.core.disclosure import Level
from app.extensions import db
from app.models import Assignment, CellState, Pair
from tests.api.conftest import make_worker
from tests.factories import make_assignment, make_user, paper_project


def open_cells(assignment: Assignment, level: str, attributes=None) -> None:
    """Store ``level`` in every cell that offers it (partial: where a partial level exists)."""
    project = assignment.project
    for link in assignment.pairs:
        pair = db.session.get(Pair, link.pair_id)
        for attr in project.identifying:
            if attributes and attr.name not in attributes:
                continue
            a, b = pair.record_a.values.get(attr.name), pair.record_b.values.get(attr.name)
            cmp = disclosure.compare(attr.type, a, b)
            for row in (0, 1):
                if cmp.values[row] is None:
                    continue
                if level == "partial" and not disclosure.partial_available(cmp, row):
                    continue
                db.session.add(
                    CellState(
                        assignment_id=assignment.id,
                        pair_id=pair.id,
                        row=row,
                        attribute_id=attr.id,
                        level=level,
                    )  # fmt: skip
                )
    db.session.commit()


@pytest.fixture
def paper(app):
    with app.app_context():
        manager = make_user("max", "manager")
        project = paper_project(manager)
        assignment = make_assignment(project, make_user("wes"))
        yield project, assignment


@pytest.mark.parametrize(
    ("level", "model", "mean"),
    [
        (None, "row", Fraction(1, 4)),
        ("partial", "row", Fraction(41, 72)),
        ("partial", "pair", Fraction(3, 4)),
        ("full", "row", Fraction(3, 4)),
    ],
)
def test_paper_project(paper, level, model, mean):
    project, assignment = paper
    if level:
        open_cells(assignment, level)
    result = project_audit(project.id, model)
    assert result["summary"]["mean_true_probability"] == {
        "exact": str(mean),
        "float": float(mean),
    }
    assert len(result["rows"]) == 12 and result["summary"]["incompatible_rows"] == 0
    (one,) = result["assignments"]
    assert one["summary"] == result["summary"] and one["worker"] == "wes"


def test_pooled_is_the_acceptable_combination(app, paper):
    project, first = paper
    second = make_assignment(project, make_user("wen"))
    open_cells(first, "full", ["name"])
    open_cells(second, "full", ["dob"])
    audits = [audit_scope(resolve(project.id, "row", a.id)) for a in (first, second)]
    pooled = audit_scope(resolve(project.id, "row"))
    for number, row in enumerate(pooled.rows):
        own = [a.rows[number] for a in audits]
        assert row.k <= min(r.k for r in own)
        assert row.nonspecificity_bits <= min(r.nonspecificity_bits for r in own)  # Def. 27
        assert row.compatible
    assert pooled.summary.mean_true_probability > max(
        a.summary.mean_true_probability for a in audits
    )


def test_unknown_scope_is_a_clear_error(paper):
    project, _ = paper
    with pytest.raises(AuditError, match="no project 999"):
        resolve(999)
    with pytest.raises(AuditError, match="unknown evidence model 'both'"):
        resolve(project.id, "both")
    with pytest.raises(AuditError, match="no assignment 999 in project"):
        resolve(project.id, None, 999)


@pytest.mark.parametrize("model", ["row", "pair"])
def test_trail_never_gains_nonspecificity_and_ends_at_the_state(app, client, model):
    worker = make_worker(app, client, model=model, budget=1.0)
    for pair_id, row, attribute, _cell in list(worker.cells())[:9]:
        assert worker.reveal(pair_id, row, attribute).status_code == 200
    with app.app_context():
        assignment = db.session.get(Assignment, worker.assignment_id)
        (steps,) = project_trails(assignment.project_id).values()
        assert steps[0].event is None and len(steps) == 10
        assert steps[0].mean_true_probability <= steps[-1].mean_true_probability
        for before, after in zip(steps, steps[1:], strict=False):
            assert after.nonspecificity_bits <= before.nonspecificity_bits + 1e-12
            assert after.kapr == after.kapr_charged  # the audit's KAPR is the one charged
        final = audit_scope(Scope(assignment.project, assignment, model)).summary
        assert steps[-1].mean_true_probability == final.mean_true_probability
        assert steps[-1].kapr == final.kapr == Fraction(assignment.kapr_exact)
        assert steps[-1].level in (Level.PARTIAL, Level.FULL)
