"""Who saw what of whom over JSON: a project's summary, its disclosures, one record."""

from __future__ import annotations

from flask import abort, jsonify, request

from app.api.blueprint import bp
from app.api.openapi import documented
from app.auth.decorators import roles_required
from app.projects.custody import (
    RecordNotFound,
    disclosure_summary,
    project_disclosures,
    record_disclosures,
    summaries,
)
from app.projects.views.access import MANAGERS, owned_project

BASE = "/projects/<int:project_id>/accountability"
OBJECT = {"type": "object"}
SUMMARY = {
    "type": "object",
    "required": ["project", "records", "reveals", "by_attribute"],
    "properties": {
        "project": {"type": "integer"},
        "records": {"type": "integer"},
        "reveals": {"type": "integer"},
        "closed": {"type": "boolean"},
        "by_attribute": OBJECT,
    },
}
DISCLOSURES = {
    "type": "object",
    "required": ["disclosures"],
    "properties": {"disclosures": {"type": "array", "items": OBJECT}},
}
RECORD = {
    "type": "object",
    "required": ["source", "record", "highest", "disclosures"],
    "properties": {
        "source": {"type": "string"},
        "record": {"type": "string"},
        "highest": OBJECT,
        "disclosures": {"type": "array", "items": OBJECT},
    },
}
RECORD_QUERY = {
    "source": {"type": "string", "maxLength": 8},
    "record": {"type": "string", "maxLength": 100},
}


@bp.get(BASE)
@roles_required(*MANAGERS)
@documented("How many people had nothing, something, everything disclosed", ok=SUMMARY)
def accountability_view(project_id: int):
    return jsonify(disclosure_summary(owned_project(project_id)).as_json())


@bp.get(f"{BASE}/disclosures")
@roles_required(*MANAGERS)
@documented("Every disclosure of the project's records (never a value)", ok=DISCLOSURES)
def accountability_disclosures_view(project_id: int):
    items = project_disclosures(owned_project(project_id))
    return jsonify(disclosures=[d.as_json() for d in items])


@bp.get(f"{BASE}/record")
@roles_required(*MANAGERS)
@documented(
    "One record's disclosures, chosen by ?source= and ?record= (its id)",
    ok=RECORD,
    query=RECORD_QUERY,
    errors=(400,),
)
def accountability_record_view(project_id: int):
    project = owned_project(project_id)
    source, record = request.args.get("source", "A"), request.args.get("record", "")
    if not record or len(record) > 100 or len(source) > 8:
        abort(400, "give ?record= (a record id, up to 100 characters) and ?source= (A or B)")
    try:
        return jsonify(record_disclosures(project, source, record).as_json())
    except RecordNotFound as exc:
        abort(404, str(exc))


@bp.get("/admin/accountability")
@roles_required("admin")
@documented(
    "Every project's people by what was disclosed (admins)",
    ok={"type": "object", "properties": {"projects": {"type": "array", "items": SUMMARY}}},
)
def accountability_all_view():
    return jsonify(projects=[s.as_json() for s in summaries()])
