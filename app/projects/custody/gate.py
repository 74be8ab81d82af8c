"""A closed project answers every request that would need a record value with a clear 410.

Deny by default: any page or API call naming a project (``project_id``) or an assignment
(``assignment_id``) of a closed-out project is refused, except the ones known to need no
value (:data:`OPEN_AFTER_CLOSE`: the overview, the value-free exports, progress counts, the
accountability report and the close-out record). A page added later is refused on a closed
project until someone checks it needs no value and adds it here.
"""

from __future__ import annotations

from flask import abort, request
from flask_login import current_user
from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, Project
from app.projects.exports import VALUE_KINDS

__all__ = ["OPEN_AFTER_CLOSE", "closed_message", "refuse_closed_projects"]

#: Endpoints that read no record value: they still answer for a closed project.
OPEN_AFTER_CLOSE = frozenset(
    {
        "projects.project",
        "projects.export",
        "projects.delete",
        "projects.accountability",
        "projects.accountability_download",
        "projects.accountability_chart",
        "projects.closeout",
        "api.export_view",
        "api.progress_view",
        "api.rounds_view",
        "api.accountability_view",
        "api.accountability_disclosures_view",
        "api.accountability_record_view",
        "api.closeout_view",
        # The hot paths check in the read they already make (no query more per request):
        # reveal_cell and save_answer refuse a closed project with a 410 of their own.
        "api.reveal",
        "api.save_decision",
    }
)

_EXPORTS = ("projects.export", "api.export_view")  # open, but not for exports of values


def closed_message(project_id: int, closed_at) -> str:
    return (
        f"project {project_id} was closed out on {closed_at:%Y-%m-%d}: its identifying values "
        "and sensitive (vault) values were destroyed, so this cannot be shown. Its close-out "
        "record, accountability report, decisions and value-free exports remain."
    )


def refuse_closed_projects() -> None:
    """``before_request``: 410 for a request that needs values of a closed project."""
    args = request.view_args or {}
    value_export = request.endpoint in _EXPORTS and args.get("kind") in VALUE_KINDS
    if (request.endpoint in OPEN_AFTER_CLOSE and not value_export) or not (
        "project_id" in args or "assignment_id" in args
    ):
        return
    if not current_user.is_authenticated:  # the view asks to log in first
        return
    if "project_id" in args:
        query = select(Project.id, Project.closed_at).where(Project.id == args["project_id"])
    else:
        query = (
            select(Project.id, Project.closed_at)
            .join(Assignment, Assignment.project_id == Project.id)
            .where(Assignment.id == args["assignment_id"])
        )
    found = db.session.execute(query).first()
    if found is not None and found.closed_at is not None:
        abort(410, closed_message(found.id, found.closed_at))
