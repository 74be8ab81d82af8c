"""Create a project in the browser: upload → mapping → one-pass check → confirm.

Submitting the mapping checks every row while writing the records into a project that waits,
unlisted, for its manager (:mod:`app.projects.importing.pending.waiting`); "Import" publishes it.
Large uploads are checked by a job behind a progress page that leads to the same checked page.
"""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user

from app.auth.decorators import roles_required
from app.core.disclosure import AttributeType
from app.extensions import db
from app.limits import past_a_limit
from app.models import EvidenceModel, Job, Project
from app.projects.importing import (
    FILES,
    Staged,
    UploadError,
    check_and_write,
    check_plan,
    checked_of,
    default_role,
    default_type,
    discard,
    discard_pending,
    load,
    mapping_columns,
    needs_job,
    previews,
    publish,
    remember,
    submit_check,
)
from app.projects.importing.layouts import HEADER_CHOICES, set_layout, stage_upload
from app.projects.importing.recovery import reconcile_imports
from app.projects.lifecycle import ProjectSpecError
from app.projects.reading import CsvImportError
from app.projects.views.blueprint import bp
from app.projects.views.forms import ROLES, FormError, parse_columns, parse_settings
from app.projects.views.new.mapping import Problems, mapping_context

REJECTED = (FormError, ProjectSpecError, CsvImportError)
#: How record ids are made (the "Record ids" choice of the mapping form).
ID_POLICIES = ("error", "keep_first", "generate")


def _problems(exc: Exception) -> Problems:
    listed = [str(p) for p in getattr(exc, "problems", [exc])]
    return Problems(listed, getattr(exc, "total", len(listed)))


def _staged(token: str) -> Staged:
    try:
        return load(token, current_user.id)
    except UploadError as exc:
        abort(404, str(exc))


def _mapping_page(
    staged: Staged, shown, columns, problems=None, status=200, form=None, discarded=False
):
    return render_template(
        "projects/map.html", staged=staged, shown=shown, columns=columns,
        problems=problems or Problems([], 0), roles=ROLES, types=list(AttributeType),
        default_type=default_type, default_role=default_role, models=list(EvidenceModel),
        form=request.form if form is None else form, discarded=discarded,
        **mapping_context(staged, shown),
    ), status  # fmt: skip


def _plan(staged: Staged, columns: list[str]) -> dict:
    """The mapping form as a plan; raises ``FormError`` / ``ProjectSpecError`` if it is bad."""
    policy = request.form.get("on_duplicate_id", "error")
    policy = policy if policy in ID_POLICIES and staged.kind != "pairfile" else "error"
    plan = parse_columns(
        request.form, columns, with_id=staged.kind != "pairfile",
        generate_ids=policy == "generate",
    )  # fmt: skip
    plan["header"], plan["settings"] = columns, parse_settings(request.form)
    plan["on_duplicate_id"] = policy
    plan["invalid_dates"] = "missing" if request.form.get("invalid_dates") == "missing" else "error"
    plan["frequencies"] = staged.has("freq")
    check_plan(plan)
    return plan


def _refused_files(staged: Staged, exc: Exception):
    """The mapping page for files no mapping can import; they are deleted at once."""
    discard(staged)
    staged.meta.pop("layout", None)  # nothing left to lay out
    return _mapping_page(staged, {}, [], _problems(exc), 400, discarded=True)


def _checked_page(staged: Staged, checked):
    return render_template(
        "projects/checked.html", staged=staged, plan=staged.meta["plan"], checked=checked
    )


def _new_page(form, status=200):
    return render_template(
        "projects/new.html", files=FILES, form=form, header_choices=HEADER_CHOICES
    ), status


@bp.route("/new", methods=["GET", "POST"])
@roles_required("manager")
def new():
    if request.method == "GET":  # "upload again" comes back with the name and kind
        return _new_page({k: v for k, v in request.args.items() if k in ("name", "kind")})
    form = request.form
    try:
        staged = stage_upload(
            form.get("name", ""), form.get("kind", ""), request.files, current_user.id,
            header=form.get("header", "auto"),
        )  # fmt: skip
    except UploadError as exc:
        flash(str(exc), "error")
        return _new_page(form, 400)
    reconcile_imports()  # projects waiting on uploads the stage just swept go with them
    return redirect(url_for("projects.map_columns", token=staged.token))


@bp.post("/new/<token>/layout")
@roles_required("manager")
def file_layout(token: str):
    """Which files have a header row, and the names of the others' columns."""
    staged = _staged(token)
    headers = {label: request.form.get(f"header-{label}") == "yes" for label in staged.labels()}
    names = (request.form.get("names") or "").split(",")
    try:
        discard_pending(staged)
        set_layout(staged, headers, names)
    except UploadError as exc:
        flash(str(exc), "error")
        return redirect(url_for("projects.map_columns", token=token))
    db.session.commit()
    return redirect(url_for("projects.map_columns", token=token))


@bp.route("/new/<token>/map", methods=["GET", "POST"])
@roles_required("manager")
def map_columns(token: str):
    staged = _staged(token)
    try:
        shown = previews(staged)
    except CsvImportError as exc:  # no mapping can read the file
        return _refused_files(staged, exc)
    columns = mapping_columns(staged, shown)
    if request.method == "GET":  # after a failed job check: its problems, the form as sent
        form = staged.meta.get("form", {})
        listed = staged.meta.get("problems", [])
        found = Problems(listed, staged.meta.get("problems_total", len(listed)))
        return _mapping_page(staged, shown, columns, found, form=form)
    try:
        plan = _plan(staged, columns)
        discard_pending(staged)  # a new check replaces the one waiting for confirmation
    except (*REJECTED, UploadError) as exc:
        return _mapping_page(staged, shown, columns, _problems(exc), 400)
    db.session.commit()
    staged.meta["plan"] = plan
    staged.meta["form"] = {k: v for k, v in request.form.items() if k != "csrf_token"}
    if needs_job(staged):
        remember(staged, None, None)
        job_id = submit_check(staged, current_user)
        return redirect(url_for("projects.import_job", job_id=job_id, token=token))
    try:
        project, checked = check_and_write(staged, plan, current_user)
    except REJECTED as exc:
        db.session.rollback()
        if past_a_limit(getattr(exc, "problems", ())):
            return _refused_files(staged, exc)
        remember(staged, None, None)  # kept: another mapping may import the files
        return _mapping_page(staged, shown, columns, _problems(exc), 400)
    remember(staged, project, checked)
    db.session.commit()
    return _checked_page(staged, checked)


@bp.get("/new/<token>/checked")
@roles_required("manager")
def checked(token: str):
    staged = _staged(token)
    found = checked_of(staged)
    if found is None:
        return redirect(url_for("projects.map_columns", token=token))
    return _checked_page(staged, found)


@bp.post("/new/<token>/back")
@roles_required("manager")
def back_to_mapping(token: str):
    staged = _staged(token)
    try:
        discard_pending(staged)
    except UploadError as exc:
        flash(str(exc), "error")
    staged.save()
    db.session.commit()
    return redirect(url_for("projects.map_columns", token=token))


@bp.post("/new/<token>/import")
@roles_required("manager")
def import_project(token: str):
    staged = _staged(token)
    try:
        project = publish(staged)
    except UploadError as exc:
        flash(str(exc), "error")
        return redirect(url_for("projects.map_columns", token=token))
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
    token = request.args.get("token") or (job.result or {}).get("token")
    try:
        staged = load(token, current_user.id) if job.status in ("done", "failed") else None
    except UploadError:  # confirmed (or expired) since: the page says how the job ended
        staged = None
    if staged is not None and job.status == "done" and checked_of(staged) is not None:
        return redirect(url_for("projects.checked", token=token))
    if staged is not None and job.status == "failed" and staged.meta.get("problems"):
        return redirect(url_for("projects.map_columns", token=token))
    project = db.session.get(Project, (job.result or {}).get("project_id") or 0)
    return render_template("projects/import_job.html", job=job, project=project)
