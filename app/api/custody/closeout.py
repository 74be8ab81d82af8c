"""A project's close-out over JSON: what closing would record, close, automatic close-out."""

from __future__ import annotations

from flask import abort, jsonify
from flask_login import current_user
from sqlalchemy import select

from app.api.blueprint import bp
from app.api.openapi import documented
from app.api.projects import json_body
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import CloseOut, User
from app.projects.custody import (
    CloseOutRefused,
    close_project,
    digest,
    export_hashes,
    final_exports,
    latest_erasure,
    set_auto_close,
    unsettled_pairs,
)
from app.projects.custody.erasing import erase_in_background
from app.projects.views.access import MANAGERS, changeable_project, owned_project

BASE = "/projects/<int:project_id>/closeout"
SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
CLOSEOUT = {
    "type": "object",
    "required": ["closed"],
    "properties": {
        "closed": {"type": "boolean"},
        "at": {"type": "string"},
        "by": {"type": ["string", "null"]},
        "automatic": {"type": "boolean"},
        "destroyed": {"type": "object"},
        "erasure": {
            "type": ["object", "null"],
            "description": "the newest pass over the database files: complete, at, "
            "databases (done or pending, per database) and beyond_reach; null until the "
            "first pass has run (after a close, GET again)",
        },
        "erasure_job": {
            "type": "integer",
            "description": "after a close: the job that rewrites the database files",
        },
        "exports": {"type": "object"},
        "digest": {"type": ["string", "null"]},
        "unsettled_pairs": {"type": "integer"},
        "auto_close_days": {"type": ["integer", "null"]},
    },
}
CLOSE_BODY = {
    "type": "object",
    "required": ["digest"],
    "properties": {"digest": SHA256},
    "additionalProperties": False,
}
AUTO_BODY = {
    "type": "object",
    "required": ["days"],
    "properties": {"days": {"type": ["integer", "null"], "minimum": 0, "maximum": 36500}},
    "additionalProperties": False,
}


def _record(project) -> dict:
    row = db.session.scalar(select(CloseOut).where(CloseOut.project_id == project.id))
    by = db.session.get(User, row.closed_by) if row.closed_by else None
    erasure = latest_erasure(project.id)
    return {
        "closed": True, "at": row.at.isoformat(), "by": by.username if by else None,
        "automatic": row.automatic, "destroyed": row.destroyed, "exports": row.exports,
        "digest": digest(row.exports),
        "erasure": None if erasure is None else {
            "complete": erasure.complete, "at": erasure.at.isoformat(), **erasure.detail,
        },
    }  # fmt: skip


@bp.get(BASE)
@roles_required(*MANAGERS)
@documented(
    "The close-out record; for an open project the exports' hashes closing would record",
    ok=CLOSEOUT,
)
def closeout_view(project_id: int):
    project = owned_project(project_id)
    if project.closed:
        return jsonify(_record(project))
    open_pairs = unsettled_pairs(project)
    hashes = {} if open_pairs else export_hashes(final_exports(project))
    return jsonify(
        closed=False, unsettled_pairs=open_pairs, exports=hashes,
        digest=digest(hashes) if hashes else None, auto_close_days=project.auto_close_days,
    )  # fmt: skip


@bp.post(BASE)
@roles_required("manager")
@documented(
    "Close out a finished project: record the exports' hashes, destroy its values",
    body=CLOSE_BODY,
    ok=CLOSEOUT,
    status=201,
    errors=(400, 409),
)
def closeout_close_view(project_id: int):
    """``{"digest": ...}``: the digest of the exports the caller took (``GET`` gives it)."""
    project = changeable_project(project_id)
    try:
        close_project(project, current_user, expected=json_body()["digest"])
    except CloseOutRefused as exc:
        db.session.rollback()
        abort(409, str(exc))
    db.session.commit()
    job = erase_in_background([project_id], current_user)  # VACUUM: seconds to minutes
    return jsonify({**_record(project), "erasure_job": job.id}), 201


@bp.post(f"{BASE}/auto")
@roles_required("manager")
@documented(
    "Close out automatically N days after completion (null: never)",
    body=AUTO_BODY,
    ok={"type": "object", "properties": {"auto_close_days": {"type": ["integer", "null"]}}},
    errors=(400,),
)
def closeout_auto_view(project_id: int):
    project = changeable_project(project_id)
    try:
        set_auto_close(project, json_body()["days"])
    except ValueError as exc:
        abort(400, str(exc))
    db.session.commit()
    return jsonify(auto_close_days=project.auto_close_days)
