"""A project's Splink model: upload one, train one, score the project's records with it.

Training and scoring run as jobs (:mod:`app.jobs`): :func:`submit_training` and
:func:`submit_scoring` check what they can at once (the model, the menu, the rules) and
queue the work; :func:`run_training` and :func:`run_predictions` are the jobs. The caller
commits what the submitting functions add.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from flask import current_app
from sqlalchemy import select

from app.extensions import db
from app.jobs import submit
from app.models import Job, Project, ProjectKind, ScoringModel, User
from app.models.base import utcnow
from app.projects.scoring.menu import Training, TrainingError, model_to_train
from app.projects.scoring.model.checking import ModelError, check_model
from app.projects.scoring.model.definition import Model
from app.projects.scoring.runs.engine import run_scoring

__all__ = [
    "MAX_MODEL_BYTES",
    "ScoringRefused",
    "current_model",
    "load_model",
    "predictions_file",
    "project_jobs",
    "remove_project_files",
    "run_predictions",
    "run_training",
    "submit_scoring",
    "submit_training",
    "upload_model",
]

MAX_MODEL_BYTES = 1_000_000


class ScoringRefused(ValueError):
    """The model or the request is refused; ``problems`` says why, place by place."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def _kind(project: Project) -> str:
    if project.kind == ProjectKind.PAIRFILE:
        raise ScoringRefused(
            ["a pair-file project has its pairs already; it has no records to score"]
        )
    return "link" if project.kind == ProjectKind.LINK else "dedupe"


def _attributes(project: Project) -> dict:
    return {a.name: a.type for a in project.identifying}


def upload_model(project: Project, raw: bytes | str, by: User) -> ScoringModel:
    """Check a Splink model JSON for ``project`` and store it as the project's model."""
    kind = _kind(project)
    if len(raw) > MAX_MODEL_BYTES:
        raise ScoringRefused([f"a model file has at most {MAX_MODEL_BYTES:,} bytes"])
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: deep nesting
        raise ScoringRefused(["not a JSON file (save the model with save_model_to_json)"]) from None
    try:
        others = [a.name for a in project.sensitive]
        model = check_model(data, _attributes(project), kind, others)
    except ModelError as exc:
        raise ScoringRefused(exc.problems) from None
    row = ScoringModel(
        project_id=project.id, origin="uploaded", settings=model.as_json(), created_by=by.id
    )
    db.session.add(row)
    db.session.flush()
    row.notes = model.notes  # what the model asked for that the application decides itself
    return row


def current_model(project: Project) -> ScoringModel | None:
    """The project's newest model with settings (a training still running has none)."""
    query = (
        select(ScoringModel)
        .where(ScoringModel.project_id == project.id, ScoringModel.settings.is_not(None))
        .order_by(ScoringModel.id.desc())
        .limit(1)
    )
    return db.session.scalars(query).first()


def load_model(project: Project, row: ScoringModel) -> Model:
    """The stored model, checked again (what is stored was written by the application)."""
    return check_model(row.settings, _attributes(project), _kind(project))


def predictions_file(project_id: int, model_id: int) -> Path:
    root = current_app.config.get("SCORING_OUTPUT_DIR") or Path(
        current_app.instance_path, "scoring"
    )
    return Path(root) / f"project_{project_id}" / f"model_{model_id}.parquet"


def remove_project_files(project_id: int) -> None:
    """Delete the project's predictions (when the project is deleted)."""
    root = current_app.config.get("SCORING_OUTPUT_DIR") or Path(
        current_app.instance_path, "scoring"
    )
    shutil.rmtree(Path(root) / f"project_{project_id}", ignore_errors=True)


def submit_training(project: Project, training: Training, by: User, *, then_score: bool) -> int:
    """Check ``training`` for ``project`` and queue the training job; return its id.

    The model's row exists from now on (without settings until the training succeeds), so
    the project's page lists the job whatever becomes of it.
    """
    try:
        model_to_train(training, _attributes(project), _kind(project))
    except TrainingError as exc:
        raise ScoringRefused(exc.problems) from None
    if not training.em_rules:
        raise ScoringRefused(["m is estimated by EM: give at least one EM blocking rule"])
    row = ScoringModel(
        project_id=project.id, origin="trained", training=training.as_json(), created_by=by.id
    )
    db.session.add(row)
    db.session.flush()
    row_id = row.id
    job_id = submit("scoring-train", run_training, project.id, row_id, then_score, created_by=by.id)
    db.session.get(ScoringModel, row_id).job_id = job_id
    return job_id


def submit_scoring(project: Project, by: User) -> int:
    """Queue the scoring of ``project``'s records with its current model; the job id."""
    row = current_model(project)
    if row is None:
        raise ScoringRefused(["upload or train a model first"])
    row_id = row.id
    job_id = submit("scoring", run_predictions, project.id, row_id, created_by=by.id)
    db.session.get(ScoringModel, row_id).run_job_id = job_id
    return job_id


def project_jobs(project: Project, limit: int = 10) -> list[Job]:
    """The project's latest training and scoring jobs."""
    ids = (
        select(ScoringModel.job_id)
        .where(ScoringModel.project_id == project.id)
        .union(select(ScoringModel.run_job_id).where(ScoringModel.project_id == project.id))
    )
    query = select(Job).where(Job.id.in_(ids)).order_by(Job.id.desc()).limit(limit)
    return list(db.session.scalars(query))


def run_training(project_id: int, model_id: int, then_score: bool, *, progress) -> dict:
    """The job: train the model of row ``model_id`` from the manager's choices (and score)."""
    project = db.session.get(Project, project_id)
    row = db.session.get(ScoringModel, model_id)
    chosen = Training.from_json(row.training)
    model, em, deterministic = model_to_train(chosen, _attributes(project), _kind(project))
    path = predictions_file(project_id, model_id) if then_score else None
    outcome = run_scoring(
        project, model, training=(chosen, em, deterministic), predict_to=path, progress=progress
    )
    row = db.session.get(ScoringModel, model_id)
    row.settings = outcome.model.as_json()
    row.backend = outcome.backend
    if path is not None and outcome.refused is None:
        _record_predictions(row, path, outcome.pairs)
    db.session.commit()
    return _result(project_id, model_id, outcome)


def run_predictions(project_id: int, model_id: int, *, progress) -> dict:
    """The job: score the project's records with a stored model; Parquet under instance/."""
    project = db.session.get(Project, project_id)
    row = db.session.get(ScoringModel, model_id)
    try:
        model = load_model(project, row)
    except ModelError as exc:  # the project's attributes changed since
        raise ScoringRefused(exc.problems) from None
    path = predictions_file(project_id, model_id)
    outcome = run_scoring(project, model, predict_to=path, progress=progress)
    row = db.session.get(ScoringModel, model_id)
    row.backend = outcome.backend
    if outcome.refused is None:
        _record_predictions(row, path, outcome.pairs)
    db.session.commit()
    return _result(project_id, model_id, outcome)


def _result(project_id: int, model_id: int, outcome) -> dict:
    """A job's result: what was scored, or why nothing was (its estimate and the bound)."""
    return {"project_id": project_id, "model_id": model_id, "pairs": outcome.pairs,
            "backend": outcome.backend, "seconds": round(outcome.seconds, 1),
            "estimate": outcome.estimate, "refused": outcome.refused}  # fmt: skip


def _record_predictions(row: ScoringModel, path: Path, pairs: int | None) -> None:
    row.predictions = str(path)
    row.predicted_pairs = pairs
    row.predicted_at = utcnow()
