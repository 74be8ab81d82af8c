"""The close-out page: the final exports to take, then close (or automatically later)."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user

from app.auth.decorators import roles_required
from app.extensions import db
from app.headers import attachment
from app.models import CloseOut, User
from app.projects.custody import (
    CloseOutRefused,
    close_project,
    completed_at,
    digest,
    final_archive,
    final_exports,
    latest_erasure,
    set_auto_close,
    unsettled_pairs,
)
from app.projects.custody.erasing import erase_in_background, erasure_job, erasure_news
from app.projects.custody.prepare import final_hashes, prepared_hashes
from app.projects.views.access import MANAGERS, changeable_project, owned_project
from app.projects.views.blueprint import bp


@bp.route("/<int:project_id>/closeout")
@roles_required(*MANAGERS)
def closeout(project_id: int):
    """The close-out record of a closed project; else what closing would record."""
    project = owned_project(project_id)
    if project.closed:
        row = db.session.query(CloseOut).filter_by(project_id=project.id).one()
        by = db.session.get(User, row.closed_by) if row.closed_by else None
        erasure = latest_erasure(project.id)
        job = erasure_job(request.args.get("job", type=int), project.id)  # the pass, running
        return render_template(
            "projects/closeout.html", project=project, row=row, by=by, erasure=erasure, job=job
        )
    open_pairs = unsettled_pairs(project)
    hashes, job = {}, None
    if not open_pairs:  # the exports' hashes by a job with progress (FEBRL4: ~3 s)
        hashes, job = final_hashes(project, request.args.get("job", type=int), current_user)
        db.session.commit()  # a preparation started now is queued for good
        if not hashes and request.args.get("job", type=int) != job.id:
            return redirect(url_for("projects.closeout", project_id=project.id, job=job.id))
    return render_template(
        "projects/closeout.html", project=project, row=None, open_pairs=open_pairs,
        hashes=hashes, digest=digest(hashes) if hashes else "", done=completed_at(project),
        job=job,
    )  # fmt: skip


@bp.route("/<int:project_id>/closeout/exports.zip")
@roles_required("manager")
def closeout_exports(project_id: int):
    """The final exports and their SHA-256 manifest, as one zip (the owner's only)."""
    project = changeable_project(project_id)
    name = f"project-{project.id}-final-exports.zip"
    return attachment(final_archive(final_exports(project)), "application/zip", name)


@bp.post("/<int:project_id>/closeout")
@roles_required("manager")
def closeout_confirm(project_id: int):
    """Close the project if the exports are still those shown (``digest``): their hashes
    from the page's preparation while the project is as it was then (FEBRL4: no export
    written again)."""
    project = changeable_project(project_id)
    if request.form.get("confirm") != "yes":
        flash("Tick the box to confirm you have stored the final exports.", "error")
        return redirect(url_for("projects.closeout", project_id=project.id))
    try:
        expected = request.form.get("digest", "")
        close_project(project, current_user, expected=expected, prepared=prepared_hashes)
    except CloseOutRefused as exc:
        db.session.rollback()
        flash(str(exc), "error")
        return redirect(url_for("projects.closeout", project_id=project.id))
    db.session.commit()
    job = erase_in_background([project_id], current_user)  # VACUUM: seconds to minutes
    said, well = erasure_news(job, project_id)
    flash(
        f"The project is closed out: its identifying and vault values are destroyed, {said}.",
        "info" if well else "error",
    )
    return redirect(url_for("projects.closeout", project_id=project_id, job=job.id))


@bp.post("/<int:project_id>/closeout/auto")
@roles_required("manager")
def closeout_auto(project_id: int):
    """Close automatically N days after completion (empty: never)."""
    project = changeable_project(project_id)
    raw = request.form.get("days", "").strip()
    try:
        set_auto_close(project, int(raw) if raw else None)
    except ValueError:
        abort(400, "the days after completion are a whole number from 0, or empty for never")
    db.session.commit()
    flash("Automatic close-out " + (f"{raw} day(s) after completion." if raw else "off."), "info")
    return redirect(url_for("projects.closeout", project_id=project.id))
