"""A project's Splink model: upload or train it, see its weights, score the records as a job."""

from __future__ import annotations

import json
from pathlib import Path

from flask import (
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask_login import current_user

from app import charts
from app.auth.decorators import roles_required
from app.extensions import db
from app.headers import attachment
from app.models import Job
from app.projects.scoring import (
    CHOICES,
    ScoringRefused,
    current_model,
    load_model,
    project_jobs,
    submit_scoring,
    submit_training,
    upload_model,
)
from app.projects.scoring.charts import level_rows, m_u_chart, match_weights_chart
from app.projects.scoring.model.budget import bounds
from app.projects.views.access import MANAGERS, changeable_project, owned_project
from app.projects.views.blueprint import bp
from app.projects.views.forms import FormError, parse_training

JOB_KINDS = ("scoring", "scoring-train")
CHARTS = {"weights": match_weights_chart, "m_u": m_u_chart}


def _page(project, problems=(), status=200):
    row = current_model(project)
    model = load_model(project, row) if row is not None else None
    jobs = project_jobs(project)
    return render_template(
        "projects/scoring.html", project=project, row=row, model=model, problems=list(problems),
        rows=level_rows(model) if model else [], choices=CHOICES, form=request.form, jobs=jobs,
        charts={name: build(model) for name, build in CHARTS.items()} if model else {},
        scoring_bounds=bounds(current_app.config),
    ), status  # fmt: skip


@bp.route("/<int:project_id>/scoring", methods=["GET"])
@roles_required(*MANAGERS)
def scoring(project_id: int):
    return _page(owned_project(project_id))


@bp.post("/<int:project_id>/scoring/model")
@roles_required("manager")
def scoring_upload(project_id: int):
    project = changeable_project(project_id)
    upload = request.files.get("model")
    if upload is None or not upload.filename:
        return _page(project, ["choose a Splink model file (JSON)"], 400)
    try:
        row = upload_model(project, upload.read(1_000_001), current_user)
    except ScoringRefused as exc:
        db.session.rollback()
        return _page(project, exc.problems, 400)
    notes = list(row.notes)
    db.session.commit()
    flash("Model checked and stored." + "".join(f" Note: {n}." for n in notes), "info")
    return redirect(url_for("projects.scoring", project_id=project.id))


@bp.post("/<int:project_id>/scoring/train")
@roles_required("manager")
def scoring_train(project_id: int):
    project = changeable_project(project_id)
    try:
        training = parse_training(request.form, {a.name: a.kind for a in project.identifying})
        job_id = submit_training(
            project, training, current_user, then_score=request.form.get("then_score") == "on"
        )
    except (FormError, ScoringRefused) as exc:
        db.session.rollback()
        return _page(project, exc.problems, 400)
    db.session.commit()
    return redirect(url_for("projects.scoring_job", project_id=project.id, job_id=job_id))


@bp.post("/<int:project_id>/scoring/run")
@roles_required("manager")
def scoring_run(project_id: int):
    project = changeable_project(project_id)
    try:
        job_id = submit_scoring(project, current_user)
    except ScoringRefused as exc:
        return _page(project, exc.problems, 400)
    db.session.commit()
    return redirect(url_for("projects.scoring_job", project_id=project.id, job_id=job_id))


@bp.get("/<int:project_id>/scoring/jobs/<int:job_id>")
@roles_required(*MANAGERS)
def scoring_job(project_id: int, job_id: int):
    project = owned_project(project_id)
    job = db.session.get(Job, job_id)
    if job is None or job not in project_jobs(project, limit=1000):
        abort(404, "no such scoring job")
    return render_template("projects/scoring_job.html", project=project, job=job)


@bp.get("/<int:project_id>/scoring/model.json")
@roles_required(*MANAGERS)
def scoring_model_json(project_id: int):
    row = current_model(owned_project(project_id))
    if row is None:
        abort(404, "no model yet")
    body = json.dumps(row.settings, indent=2)
    return attachment(body, "application/json", f"splink_model_{project_id}.json")


@bp.get("/<int:project_id>/scoring/predictions.parquet")
@roles_required(*MANAGERS)
def scoring_predictions(project_id: int):
    row = current_model(owned_project(project_id))
    if row is None or not row.predictions or not Path(row.predictions).is_file():
        abort(404, "no predictions yet")
    return send_file(
        row.predictions, mimetype="application/vnd.apache.parquet", as_attachment=True,
        download_name=f"splink_predictions_{project_id}.parquet", max_age=0,
    )  # fmt: skip


@bp.get("/<int:project_id>/scoring/<name>.<ext>")
@roles_required(*MANAGERS)
def scoring_chart_data(project_id: int, name: str, ext: str):
    """One model chart's data: ``.csv`` (its table) or ``.json`` (its spec)."""
    project = owned_project(project_id)
    build, row = CHARTS.get(name), current_model(project)
    if build is None or ext not in ("csv", "json") or row is None:
        abort(404, "no such chart")
    spec = build(load_model(project, row))
    if ext == "json":
        return jsonify(spec), 200, {"Cache-Control": "no-store"}
    return charts.spec_csv_response(spec, f"model_{project_id}_{name}.csv")
