"""Scoring: a project's Splink model, checked, trained or uploaded, and its predictions."""

from app.projects.scoring.menu import CHOICES, Training
from app.projects.scoring.model.checking import ModelError, check_model
from app.projects.scoring.model.definition import Model
from app.projects.scoring.runs import recovery  # noqa: F401 (registers the stale-job clean-up)
from app.projects.scoring.service import (
    ScoringRefused,
    current_model,
    load_model,
    project_jobs,
    run_predictions,
    run_training,
    submit_scoring,
    submit_training,
    upload_model,
)

__all__ = [
    "CHOICES",
    "Model",
    "ModelError",
    "ScoringRefused",
    "Training",
    "check_model",
    "current_model",
    "load_model",
    "project_jobs",
    "run_predictions",
    "run_training",
    "submit_scoring",
    "submit_training",
    "upload_model",
]
