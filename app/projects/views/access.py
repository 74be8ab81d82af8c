"""Who may touch a project, and the CSV download every export goes through."""

from __future__ import annotations

from flask import Response, abort, request, stream_with_context
from flask_login import current_user

from app.extensions import db
from app.headers import attachment
from app.jobs.status import waiting_reason
from app.models import Project, ProjectState
from app.projects.exports import (
    ExportOptionError,
    ExportOptions,
    ExportRefused,
    export_chunks,
    export_filename,
    export_mimetype,
    label_purpose,
)
from app.projects.ownership import Access, project_access
from app.projects.release import release_gate
from app.projects.views.blueprint import bp

MANAGERS = ("manager", "admin")  # the roles every managers' page admits
# Exports carrying record values (linked: the sensitive columns; legacy: the identifying
# values). Like changes, they are the owning manager's only (app.projects.ownership);
# admins read reports, progress and the other exports (README, Security model).
IDENTIFYING_EXPORTS = ("linked", "legacy")


def _project(project_id: int, needed: Access, refusal: str) -> Project:
    project = db.session.get(Project, project_id)
    if project is None or project.state != ProjectState.READY:  # an import not finished
        abort(404, "no such project")
    if project_access(current_user, project) < needed:
        abort(403, refusal)
    return project


def owned_project(project_id: int) -> Project:
    """The project, if the current user may read it (:mod:`app.projects.ownership`)."""
    return _project(project_id, Access.READ, "this project belongs to another manager")


def may_change(project: Project) -> bool:
    """Whether the current user may change ``project``: its owning manager. An admin reads
    every project but changes none (read-only pages); pages ask this too."""
    return project_access(current_user, project) == Access.CHANGE


def changeable_project(project_id: int) -> Project:
    """The project, if the current user may change it: 403 for anyone but its owner."""
    return _project(
        project_id, Access.CHANGE, "read-only: only the project's own manager changes it"
    )


def export_download(project: Project, kind: str, *, confirmed: bool = False) -> Response:
    """One export of ``project`` as a CSV attachment (404 for an unknown or refused kind),
    streamed (:func:`~app.projects.exports.export_chunks`).

    An identifying export (``IDENTIFYING_EXPORTS``) is the owning manager's only: 403 for an
    admin. ``?purpose=`` and ``?score=`` choose among a label export's pairs and scores; the
    label exports say which purpose they hold (``X-Labels-Purpose``, ``all`` for every
    reviewed pair) and, when it matters to the linker, why (``X-Labels-Note``).
    """
    if kind in IDENTIFYING_EXPORTS and not may_change(project):
        abort(403, f"the {kind} export carries record values: only the project's manager takes it")
    if kind == "linked" and not confirmed:
        check_release(project)
    try:
        options = ExportOptions.of(request.args)
    except ExportOptionError as exc:
        abort(400, str(exc))
    try:
        body = export_chunks(project, kind, options)
    except ExportRefused as exc:
        abort(404, str(exc))
    if not isinstance(body, list):  # read from the database while it is sent
        body = stream_with_context(body)
    response = attachment(body, export_mimetype(kind), export_filename(project, kind))
    if kind in ("labels", "splink", "splink_matches", "recordlinkage"):
        purpose, note = label_purpose(project, kind, options)
        response.headers["X-Labels-Purpose"] = purpose or "all"
        if note:
            response.headers["X-Labels-Note"] = note
    return response


def check_release(project: Project) -> None:
    """Stop a linked export above the project's release thresholds (docs/release-risk.md).

    409 when the project asks for a confirmation (recorded on the Release risk page, or by
    ``POST /api/v1/projects/<id>/export/linked`` with a ``reason``), 403 when it refuses.
    """
    gate = release_gate(project)
    if gate.refused:
        abort(403, "refused: the linked export is above this project's release thresholds ("
              + "; ".join(gate.exceeded) + ")")  # fmt: skip
    if gate.exceeded:
        abort(409, "the linked export is above this project's release thresholds ("
              + "; ".join(gate.exceeded) + "): confirm it, with a reason, on the Release risk "
              f"page or by POST /api/v1/projects/{project.id}/export/linked "
              "with {\"reason\": ...}")  # fmt: skip


bp.add_app_template_global(may_change)
bp.add_app_template_global(waiting_reason, "job_waiting")
