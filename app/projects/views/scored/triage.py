"""The manager's triage step: a linker's scored pairs in, counts and a histogram, then commit.

Upload (CSV or Parquet), or take the predictions of the project's own Splink model scored in
the app (``app.projects.scoring``) → preview (how many pairs fall above, inside and below the
band, how many are drawn for calibration, and the score's histogram) → change the thresholds
and preview again without uploading again → "Import round N". The file waits between the
steps as a staged upload of its own (``importing.uploads.stage_one``); nothing is written
before the commit. Rounds added here after assignments leave every assignment as it was.
A file of more than ``TRIAGE_JOB_THRESHOLD`` pairs is previewed and imported by jobs
(``app.projects.triage.job``) whose page shows their progress (a preview's page then comes back
here with its counts and histogram: ``?job=``); smaller ones in the request.
"""

from __future__ import annotations

from pathlib import Path

from flask import abort, flash, redirect, render_template, request, url_for
from flask_login import current_user
from werkzeug.datastructures import FileStorage

from app import charts
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Job
from app.projects.importing.uploads import UploadError, discard, load, stage_one
from app.projects.reading.predictions import PredictionsError
from app.projects.scoring.service import current_model
from app.projects.triage import (
    ScoredPairsError,
    TriageError,
    TriageSettings,
    add_scored_round,
    preview_scores,
    read_scores,
)
from app.projects.triage.job import KIND as JOB_KIND
from app.projects.triage.job import (
    PREVIEW_KIND,
    needs_job,
    stored_preview,
    submit_preview,
    submit_round,
)
from app.projects.triage.store import next_round
from app.projects.views.access import changeable_project
from app.projects.views.blueprint import bp

KIND, LABEL = "scores", "scores"
REFUSED = (PredictionsError, ScoredPairsError, TriageError, UploadError)
DEFAULTS = {"lower": "0.05", "upper": "0.95", "calibration": "50", "seed": "1",
            "score": "probability", "order": "uncertainty", "bins": "10"}  # fmt: skip
FIELDS = (*DEFAULTS, "source_a", "source_b")


def _form() -> dict:
    return {k: request.values.get(k, DEFAULTS.get(k, "")).strip() for k in FIELDS}


def _page(project, form, preview=None, token=None, problems=(), status=200, job_id=None):
    return render_template(
        "projects/triage.html", project=project, form=form, preview=preview, token=token,
        problems=list(problems), next_round=next_round(project),
        scored_in_app=_scored_in_app(project) is not None, job_id=job_id,
    ), status  # fmt: skip


def _preview_job(project, job_id: int) -> dict:
    """The result of this manager's finished preview job ``job_id`` of ``project``, or 404."""
    job = db.session.get(Job, job_id)
    mine = job is not None and job.kind == PREVIEW_KIND and job.created_by == current_user.id
    result = (job.result or {}) if mine else {}
    if result.get("project_id") != project.id or "preview" not in result:
        abort(404, "no such preview of yours")
    return result


def _scored_in_app(project) -> Path | None:
    """The predictions of the project's current Splink model scored in the app, if any."""
    model = current_model(project)
    if model is None or not model.predictions or not Path(model.predictions).is_file():
        return None
    return Path(model.predictions)


def _staged(project):
    """The staged file: a new upload, the app's own predictions, or the ``token``'s."""
    upload = request.files.get("scores")
    if upload is not None and upload.filename:
        return stage_one(KIND, LABEL, upload, current_user.id, project_id=project.id)
    scored = _scored_in_app(project) if request.form.get("source") == "scoring" else None
    if scored is not None:
        # the file may be replaced by a new scoring run: the preview and import read a copy
        upload = FileStorage(stream=scored.open("rb"), filename=scored.name)
        return stage_one(KIND, LABEL, upload, current_user.id, project_id=project.id)
    staged = load(request.values.get("token", ""), current_user.id, kind=KIND)
    if staged.meta.get("project_id") != project.id:
        raise UploadError("this upload belongs to another project; upload the file again")
    return staged


def _preview(project, staged, form):
    scored = read_scores(staged.path(LABEL))
    settings = TriageSettings.parse(form)
    sources = {k: form[f"source_{k.lower()}"] for k in "AB" if form[f"source_{k.lower()}"]}
    return scored, settings, sources or None


@bp.route("/<int:project_id>/triage", methods=["GET", "POST"])
@roles_required("manager")
def triage(project_id: int):
    project = changeable_project(project_id)
    form = _form()
    if request.method == "GET":
        job_id = request.args.get("job", type=int)
        if job_id is None:
            return _page(project, form)
        result = _preview_job(project, job_id)
        preview = stored_preview(result)
        return _page(project, result["form"], preview, result["token"], job_id=job_id)
    staged = None
    try:
        staged = _staged(project)
        if needs_job(staged.path(LABEL)):
            return _submit(project, staged, form, request.form.get("action") == "commit")
        scored, settings, sources = _preview(project, staged, form)
        if request.form.get("action") == "commit":
            name = staged.meta["filenames"].get(LABEL)
            made = add_scored_round(
                project, scored, settings, current_user, sources=sources, filename=name
            )
            db.session.commit()
            discard(staged)
            counts = made.counts
            flash(
                f"Round {made.number}: {counts['review']:,} pairs to review "
                f"({counts['calibration']:,} for calibration), {counts['model_match']:,} "
                f"matches and {counts['model_non_match']:,} non-matches decided by the model.",
                "info",
            )
            return redirect(url_for("projects.project", project_id=project.id))
        preview = preview_scores(project, scored, settings, sources=sources)
    except REFUSED as exc:
        db.session.rollback()
        if isinstance(exc, PredictionsError) and staged is not None:
            discard(staged)  # no setting reads this file: deleted at once, not left for the sweep
        problems = getattr(exc, "problems", [str(exc)])
        token = staged.token if staged is not None and staged.directory.is_dir() else None
        return _page(project, form, token=token, problems=problems, status=400)
    return _page(project, form, preview, staged.token)


def _submit(project, staged, form, commit: bool):
    """Queue a large file's import (``commit``) or preview as a job (settings checked first)
    and show its progress."""
    settings = TriageSettings.parse(form)
    sources = {k: form[f"source_{k.lower()}"] for k in "AB" if form[f"source_{k.lower()}"]}
    if commit:
        name = staged.meta["filenames"].get(LABEL)
        job_id = submit_round(project, staged.token, settings, sources or None, name, current_user)
    else:
        job_id = submit_preview(
            project, staged.token, form, settings, sources or None, current_user
        )
    return redirect(url_for("projects.triage_job", project_id=project.id, job_id=job_id))


@bp.get("/<int:project_id>/triage/jobs/<int:job_id>")
@roles_required("manager")
def triage_job(project_id: int, job_id: int):
    """A large import's or preview's progress, then the round's counts, the preview (on the
    triage page) or the file's problems."""
    project = changeable_project(project_id)
    job = db.session.get(Job, job_id)
    kinds = (JOB_KIND, PREVIEW_KIND)
    mine = job is not None and job.kind in kinds and job.created_by == current_user.id
    if not mine or (job.result or {}).get("project_id", project.id) != project.id:
        abort(404, "no such import of yours")
    if job.kind == PREVIEW_KIND and job.status == "done" and "preview" in (job.result or {}):
        return redirect(url_for("projects.triage", project_id=project.id, job=job.id))
    return render_template("projects/triage_job.html", project=project, job=job)


@bp.route("/<int:project_id>/triage/histogram.csv")
@roles_required("manager")
def triage_histogram(project_id: int):
    """The previewed histogram's data (a preview job's, or the staged file's with the
    query's settings)."""
    project = changeable_project(project_id)
    form = _form()
    job_id = request.args.get("job", type=int)
    if job_id is not None:
        preview = stored_preview(_preview_job(project, job_id))
        return charts.spec_csv_response(preview.chart, f"triage_{project.id}_histogram.csv")
    try:
        staged = load(request.args.get("token", ""), current_user.id, kind=KIND)
        scored, settings, sources = _preview(project, staged, form)
        preview = preview_scores(project, scored, settings, sources=sources)
    except REFUSED as exc:
        abort(404, str(exc))
    return charts.spec_csv_response(preview.chart, f"triage_{project.id}_histogram.csv")


@bp.post("/<int:project_id>/show-scores")
@roles_required("manager")
def show_scores(project_id: int):
    """Whether workers see the linker's scores and rule (off by default: blind review)."""
    project = changeable_project(project_id)
    project.show_scores = request.form.get("show_scores") == "on"
    db.session.commit()
    shown = "now see" if project.show_scores else "no longer see"
    flash(f"Workers {shown} the linker's scores and rule.", "info")
    return redirect(url_for("projects.project", project_id=project.id))
