"""A FEBRL4 link project and the FEBRL4 Splink model (trained by Splink alone)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.models import User
from tests.factories import make_user
from tests.projects.scoring.febrl import febrl4_project

MODEL_FILE = Path(__file__).parents[2] / "data" / "splink" / "febrl4_model.json"


@pytest.fixture
def app_overrides(tmp_path):
    return {
        "UPLOAD_FOLDER": str(tmp_path / "uploads"),
        "SCORING_WORK_DIR": str(tmp_path / "work"),
        "SCORING_OUTPUT_DIR": str(tmp_path / "scores"),
    }


@pytest.fixture
def febrl_model() -> dict:
    return json.loads(MODEL_FILE.read_text(encoding="utf-8"))


@pytest.fixture
def manager(app):
    with app.app_context():
        return make_user("max", "manager").id


@pytest.fixture
def febrl(app, manager):
    """The full FEBRL4 project (5,000 + 5,000 records); its id."""
    with app.app_context():
        from app.extensions import db

        return febrl4_project(db.session.get(User, manager)).id
