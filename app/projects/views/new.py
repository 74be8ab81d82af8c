"""Create a project in the browser: upload → preview and mapping → validation → import."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user

from app.auth.decorators import roles_required
from app.core.attributes import AttributeType
from app.extensions import db
from app.models import EvidenceModel, Job
from app.projects.importing import (
    FILES,
    Staged,
    UploadError,
    check_upload,
    default_role,
    default_type,
    discard,
    import_upload,
    load,
    mapping_columns,
    needs_job,
    previews,
    stage,
    submit_import,
)
from app.projects.lifecycle import ProjectSpecError
from app.projects.reading import CsvImportError
from app.projects.views.blueprint import bp
from app.projects.views.forms import ROLES, FormError, parse_columns, parse_settings

REJECTED = (FormError, ProjectSpecError, CsvImportError)


def _problems(exc: Exception) -> list[str]:
    return [str(p) for p in getattr(exc, "problems", [exc])]


def _staged(token: str) -> Staged:
    try:
        return load(token, current_user.id)
    except UploadError as exc:
        abort(404, str(exc))


def _mapping_page(staged: Staged, shown, columns, problems=(), status=200):
    return render_template(
        "projects/map.html", staged=staged, shown=shown, columns=columns,
        problems=list(problems), roles=ROLES, types=list(AttributeType),
        default_type=default_type, default_role=default_role, models=list(EvidenceModel),
        form=request.form,
    ), status  # fmt: skip


@bp.route("/new", methods=["GET", "POST"])
@roles_required("manager")
def new():
    if request.method == "GET":
        return render_template("projects/new.html", files=FILES, form={})
    kind = request.form.get("kind", "")
    try:
        staged = stage(request.form.get("name", ""), kind, request.files, current_user.id)
    except UploadError as exc:
        flash(str(exc), "error")
        return render_template("projects/new.html", files=FILES, form=request.form), 400
    return redirect(url_for("projects.map_columns", token=staged.token))


@bp.route("/new/<token>/map", methods=["GET", "POST"])
@roles_required("manager")
def map_columns(token: str):
    staged = _staged(token)
    try:
        shown = previews(staged)
    except CsvImportError as exc:
        return _mapping_page(staged, {}, [], _problems(exc), 400)
    columns = mapping_columns(staged, shown)
    if request.method == "GET":
        return _mapping_page(staged, shown, columns)
    try:
        plan = parse_columns(request.form, columns, with_id=staged.kind != "pairfile")
        plan["header"], plan["settings"] = columns, parse_settings(request.form)
        plan["on_duplicate_id"] = (
            "keep_first" if request.form.get("on_duplicate_id") == "keep_first" else "error"
        )
        checked = check_upload(staged, plan)
    except REJECTED as exc:
        return _mapping_page(staged, shown, columns, _problems(exc), 400)
    staged.meta["plan"] = plan
    staged.meta["rows"] = sum(checked.records.values())
    staged.save()
    return render_template("projects/checked.html", staged=staged, plan=plan, checked=checked)


@bp.post("/new/<token>/import")
@roles_required("manager")
def import_project(token: str):
    staged = _staged(token)
    if "plan" not in staged.meta:
        return redirect(url_for("projects.map_columns", token=token))
    if needs_job(staged):
        job_id = submit_import(staged, current_user)
        return redirect(url_for("projects.import_job", job_id=job_id))
    try:
        project = import_upload(staged, staged.meta["plan"], current_user)
    except REJECTED as exc:
        db.session.rollback()
        shown = previews(staged)
        return _mapping_page(staged, shown, mapping_columns(staged, shown), _problems(exc), 400)
    db.session.commit()
    discard(staged)
    flash(f"Project {project.name!r} created.", "info")
    return redirect(url_for("projects.project", project_id=project.id))


@bp.get("/jobs/<int:job_id>")
@roles_required("manager")
def import_job(job_id: int):
    job = db.session.get(Job, job_id)
    if job is None or job.created_by != current_user.id or job.kind != "import":
        abort(404, "no such import of yours")
    return render_template("projects/import_job.html", job=job)
