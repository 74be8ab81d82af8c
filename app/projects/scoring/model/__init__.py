"""A scoring model: its definition, its check, the date forms it reads and what it may compute."""

from app.projects.scoring.model.budget import Estimate, bounds, estimate, note_lengths, refusal
from app.projects.scoring.model.checking import ModelError, check_model
from app.projects.scoring.model.definition import Comparison, Level, Model
from app.projects.scoring.model.forms import DATE, ISO, Forms, read_forms, write_dates

__all__ = [
    "DATE",
    "ISO",
    "Comparison",
    "Estimate",
    "Forms",
    "Level",
    "Model",
    "ModelError",
    "bounds",
    "check_model",
    "estimate",
    "note_lengths",
    "read_forms",
    "refusal",
    "write_dates",
]
