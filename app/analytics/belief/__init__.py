"""Belief-function audits: bodies of evidence (text, JSON), a project's display, linkage outputs."""

from app.analytics.belief.charts import CHARTS, kapr_against_probability
from app.analytics.belief.json_body import BeliefRequestError, evaluate
from app.analytics.belief.linkage import audit_trajectory_result, audit_upload
from app.analytics.belief.report import (
    project_audit,
    project_trails,
    rows_csv,
    trail_json,
    trails_csv,
)
from app.analytics.belief.state import AuditError, Scope, audit_scope, resolve
from app.analytics.belief.text_form import BeliefInputError, run_audit

__all__ = [
    "CHARTS",
    "AuditError",
    "BeliefInputError",
    "BeliefRequestError",
    "Scope",
    "audit_scope",
    "audit_trajectory_result",
    "audit_upload",
    "evaluate",
    "kapr_against_probability",
    "project_audit",
    "project_trails",
    "resolve",
    "rows_csv",
    "run_audit",
    "trail_json",
    "trails_csv",
]
