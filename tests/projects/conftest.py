"""Fixtures for the managers' workflow: uploads under a temporary folder, users, staging."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from werkzeug.datastructures import FileStorage

from app.extensions import db
from app.models import (
    Assignment,
    NameFrequency,
    Pair,
    Project,
    Record,
    Source,
    VaultRecord,
)
from app.projects.importing.uploads import stage
from tests.factories import make_user

DATA = Path(__file__).parent.parent / "data"
MINDFIRL = DATA / "mindfirl"
MALFORMED = DATA / "malformed"
TABLES = (Project, Source, Record, VaultRecord, Pair, NameFrequency, Assignment)


@pytest.fixture
def app_overrides(tmp_path):
    return {"UPLOAD_FOLDER": str(tmp_path / "uploads")}


@pytest.fixture
def people(app):
    with app.app_context():
        users = {
            name: make_user(name, role)
            for name, role in [("max", "manager"), ("wes", "worker"), ("wen", "worker")]
        }
        return {name: u.id for name, u in users.items()}


def stage_files(name: str, kind: str, owner_id: int, **paths: Path):
    """Stage ``paths`` (label → file) as if uploaded by ``owner_id``."""
    files = {
        label: FileStorage(stream=open(path, "rb"), filename=path.name)  # noqa: SIM115
        for label, path in paths.items()
    }
    try:
        return stage(name, kind, files, owner_id)
    finally:
        for f in files.values():
            f.close()


def row_counts() -> dict[str, int]:
    """Rows in every table an import writes (to prove a failed import wrote nothing)."""
    return {t.__tablename__: db.session.scalar(select(func.count()).select_from(t)) for t in TABLES}


def dev_plan(**overrides) -> dict:
    """The mapping of MINDFIRL's dev files: ids, six identifying and five sensitive columns."""
    header = ["voter_reg_num", "first_name", "last_name", "dob", "sex", "race"]
    plan = {
        "id_column": "ID",
        "identifying": {
            "voter_reg_num": "id", "first_name": "string", "last_name": "string",
            "dob": "date", "sex": "category", "race": "category",
        },
        "sensitive": [f"info{i}" for i in range(1, 6)],
        "header": ["ID", *header, *(f"info{i}" for i in range(1, 6))],
        "settings": {"kappa": 1, "default_budget": 0.5, "page_size": 10},
        "on_duplicate_id": "keep_first",
    }  # fmt: skip
    plan.update(overrides)
    return plan


def linked_project(people):
    """MINDFIRL's dev files linked as sources A and B (no pairs yet), committed."""
    from app.models import User
    from app.projects.importing.service import import_upload

    staged = stage_files(
        "Dev", "link", people["max"], A=MINDFIRL / "dev_file1.csv", B=MINDFIRL / "dev_file2.csv"
    )
    project = import_upload(staged, dev_plan(), db.session.get(User, people["max"]))
    db.session.commit()
    return project


def decide(assignment, pair_id, decision, confidence="high"):
    """Record a reviewer's answer as the worker's decision service would."""
    from app.models import DecisionEvent

    db.session.add(
        DecisionEvent(
            assignment_id=assignment.id, pair_id=pair_id, user_id=assignment.worker_id,
            decision=decision, confidence=confidence,
        )
    )  # fmt: skip
