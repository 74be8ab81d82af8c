"""The state audit as JSON and CSV, per project, per worker and per reveal (aggregates only).

Every exact number is written ``{"exact": "7/26", "float": 0.2692...}`` (:func:`exact`); no
record value and no record position leaves this module, only pair ids, rows and counts.
"""

from __future__ import annotations

from fractions import Fraction

from app.analytics.belief.json_body import exact
from app.analytics.belief.state import Scope, audit_scope, project_assignments, resolve
from app.analytics.belief.trail import TrailStep, audit_trail
from app.core.belief import RowAudit, StateAudit

ROW_COLUMNS = [
    "pair", "row", "k", "k_row", "k_pair", "true_set_size", "true_in_candidates", "compatible",
    "max_violation", "true_probability", "true_probability_float", "argmax_outside_true_set",
    "nonspecificity_bits", "disclosed", "kapr_term",
]  # fmt: skip
TRAIL_COLUMNS = [
    "step", "event", "pair", "row", "attribute", "level", "kapr_charged", "kapr",
    "mean_true_probability", "mean_true_probability_float", "max_true_probability",
    "unique_rows", "nonspecificity_bits",
]  # fmt: skip


def row_json(row: RowAudit, scale: Fraction) -> dict:
    return {
        "pair": row.pair,
        "row": row.row,
        "k": row.k,
        "k_by_model": dict(row.ks),
        "true_set_size": row.true_set_size,
        "true_in_candidates": row.true_in_candidates,
        "compatible": row.compatible,
        "max_violation": exact(row.max_violation),
        "true_probability": exact(row.true_probability),
        "argmax_outside_true_set": row.argmax_outside_true_set,
        "nonspecificity": {"bits": row.nonspecificity_bits, "nats": row.nonspecificity_nats},
        "disclosed": exact(row.disclosed),
        "kapr_term": exact(row.kapr_term(scale)),
    }


def summary_json(audit: StateAudit) -> dict:
    s = audit.summary
    return {
        "rows": s.rows,
        "mean_true_probability": exact(s.mean_true_probability),
        "max_true_probability": exact(s.max_true_probability),
        "rows_below_kappa": s.rows_below_kappa,
        "unique_rows": s.unique_rows,
        "incompatible_rows": s.incompatible_rows,
        "argmax_outside_rows": s.argmax_outside_rows,
        "nonspecificity_bits": s.nonspecificity_bits,
        "kapr": exact(s.kapr),
    }


def audit_json(scope: Scope, audit: StateAudit, rows: bool = True) -> dict:
    out = {
        "project": scope.project.id,
        "scope": "pooled" if scope.assignment is None else "assignment",
        "assignment": None if scope.assignment is None else scope.assignment.id,
        "model": audit.model,
        "kappa": audit.kappa,
        "summary": summary_json(audit),
    }
    if rows:
        out["rows"] = [row_json(r, audit.scale) for r in audit.rows]
    return out


def project_audit(project_id: int, model: str | None = None, assignment_id: int | None = None):
    """The audit JSON of a project pooled (or one assignment), with each worker's summary."""
    scope = resolve(project_id, model, assignment_id)
    out = audit_json(scope, audit_scope(scope))
    if assignment_id is None:
        out["assignments"] = [
            {
                "assignment": a.id,
                "worker": worker,
                "kapr_charged": exact(Fraction(a.kapr_exact)),
                **audit_json(Scope(scope.project, a, scope.model), _audit_one(scope, a), False),
            }
            for a, worker in project_assignments(scope.project)
        ]
    return out


def _audit_one(scope: Scope, assignment) -> StateAudit:
    return audit_scope(Scope(scope.project, assignment, scope.model))


def trail_json(step_list: list[TrailStep]) -> list[dict]:
    return [
        {
            "step": number,
            "event": s.event,
            "pair": s.pair,
            "row": s.row,
            "attribute": s.attribute,
            "level": s.level,
            "kapr_charged": exact(s.kapr_charged),
            "kapr": exact(s.kapr),
            "mean_true_probability": exact(s.mean_true_probability),
            "max_true_probability": exact(s.max_true_probability),
            "unique_rows": s.unique_rows,
            "nonspecificity_bits": s.nonspecificity_bits,
        }
        for number, s in enumerate(step_list)
    ]


def project_trails(project_id: int, model: str | None = None) -> dict[str, list[TrailStep]]:
    """Every assignment's trail, keyed ``"worker (#assignment)"``."""
    scope = resolve(project_id, model)
    return {
        f"{worker} (#{a.id})": audit_trail(Scope(scope.project, a, scope.model))
        for a, worker in project_assignments(scope.project)
    }


def rows_csv(audit: StateAudit) -> tuple[list[str], list[list]]:
    """Header and rows of the per-row CSV download."""
    out = []
    for r in audit.rows:
        out.append([
            r.pair, r.row, r.k, r.ks.get("row"), r.ks.get("pair"), r.true_set_size,
            r.true_in_candidates, r.compatible, str(r.max_violation), str(r.true_probability),
            float(r.true_probability), r.argmax_outside_true_set, r.nonspecificity_bits,
            str(r.disclosed), str(r.kapr_term(audit.scale)),
        ])  # fmt: skip
    return ROW_COLUMNS, out


def trails_csv(trails: dict[str, list[TrailStep]]) -> tuple[list[str], list[list]]:
    out = []
    for name, steps in trails.items():
        for number, s in enumerate(steps):
            out.append([
                name, number, s.event, s.pair, s.row, s.attribute, s.level, str(s.kapr_charged),
                str(s.kapr), str(s.mean_true_probability), float(s.mean_true_probability),
                str(s.max_true_probability), s.unique_rows, s.nonspecificity_bits,
            ])  # fmt: skip
    return ["assignment", *TRAIL_COLUMNS], out
