"""Belief-function audits: bodies of evidence (text, JSON), a project's display, linkage outputs."""

# Names load on first use (app.lazy): the command line's audits of a file (json_body,
# linkage) import no model.
from app.lazy import exports

_WHERE = {
    "charts": ("CHARTS", "kapr_against_probability"),
    "json_body": ("BeliefRequestError", "evaluate"),
    "linkage": ("audit_trajectory_result", "audit_upload"),
    "report": ("project_audit", "project_trails", "rows_csv", "trail_json", "trails_csv"),
    "state": ("AuditError", "Scope", "audit_scope", "resolve"),
    "text_form": ("BeliefInputError", "run_audit"),
}
__all__ = sorted(name for names in _WHERE.values() for name in names)
__getattr__, __dir__ = exports(__name__, _WHERE)
