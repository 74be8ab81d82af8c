"""A project's Splink models: uploaded or trained, checked, with their last predictions."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, CheckConstraint, DateTime, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.models.base import Timestamped


class ScoringModel(Timestamped, db.Model):
    """One Splink model of a project (the newest is the one in use).

    ``settings`` is the model as Splink writes it, rewritten by the application from the
    checked model (``app.projects.scoring.model.definition``): its SQL is the application's own.
    ``training`` holds what a manager chose when the model was trained here. The
    predictions of the last scoring run are a Parquet file under the instance folder
    (record ids and scores only, no identifying value).
    """

    __tablename__ = "scoring_models"
    __table_args__ = (CheckConstraint("origin IN ('uploaded', 'trained')", name="origin_known"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), index=True
    )
    origin: Mapped[str] = mapped_column(String(12))
    settings: Mapped[dict | None] = mapped_column(JSON)  # None until its training succeeds
    training: Mapped[dict | None] = mapped_column(JSON)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    job_id: Mapped[int | None] = mapped_column(  # the training job (trained models)
        ForeignKey("jobs.id", ondelete="SET NULL")
    )
    predictions: Mapped[str | None] = mapped_column(String(300))
    predicted_pairs: Mapped[int | None]
    predicted_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # The last scoring job submitted with this model (the predictions are its output once done).
    run_job_id: Mapped[int | None] = mapped_column(ForeignKey("jobs.id", ondelete="SET NULL"))
    backend: Mapped[str | None] = mapped_column(String(12))
