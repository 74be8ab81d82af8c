"""Splink on Spark (local mode) gives the DuckDB predictions, through the batch command.

pyspark comes from requirements-spark.txt (part of requirements-dev.txt); Java 17 from
Debian. One Spark session serves the whole run (``spark_session`` keeps it per process).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from app.extensions import db
from app.models import ScoringModel, User
from tests.projects.scoring.conftest import MODEL_FILE
from tests.projects.scoring.febrl import febrl4_project

pytest.importorskip("pyspark")
# Edit distances, dates, term frequencies: what both backends compute alike. (Splink's Spark
# UDF for Jaro-Winkler is another implementation than DuckDB's; on FEBRL4 one pair of 482,
# "mason"/"manson", falls on the other side of a threshold: docs/scoring.md.)
LEVENSHTEIN_MODEL = MODEL_FILE.with_name("febrl4_model_levenshtein.json")
pytestmark = [
    pytest.mark.slow,
    # Under CI=true (make test installs Java 17 as root) a missing Java fails the test.
    pytest.mark.skipif(
        shutil.which("java") is None and os.environ.get("CI") != "true", reason="Spark needs Java"
    ),
]


@pytest.fixture
def app_overrides(tmp_path):
    """Small data: two partitions, intermediate tables kept in memory, not written."""
    return {
        "SCORING_WORK_DIR": str(tmp_path / "work"),
        "SCORING_OUTPUT_DIR": str(tmp_path / "scores"),
        "SPARK_PARTITIONS": 2,
        "SPARK_BREAK_LINEAGE": "persist",
    }


def test_spark_local_mode_predicts_what_duckdb_predicts(app, runner, manager):
    with app.app_context():
        project_id = febrl4_project(db.session.get(User, manager), limit=300).id
    files = {}
    for backend in ("duckdb", "spark"):
        result = runner.invoke(
            args=["scoring", "run", str(project_id), "--model", str(LEVENSHTEIN_MODEL),
                  "--backend", backend]
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert f"on {backend} in" in result.output
        with app.app_context():
            row = db.session.scalars(
                db.select(ScoringModel).order_by(ScoringModel.id.desc())
            ).first()
            assert row.backend == backend
            files[backend] = pq.read_table(row.predictions).to_pandas()
    duck, spark = files["duckdb"], files["spark"]
    key = ["unique_id_l", "unique_id_r"]
    merged = duck.merge(spark, on=key, suffixes=("", "_spark"), validate="one_to_one")
    assert len(merged) == len(duck) == len(spark) > 400
    assert (merged.match_key == merged.match_key_spark).all()
    assert (merged.match_weight - merged.match_weight_spark).abs().max() < 1e-6
    assert (merged.match_probability - merged.match_probability_spark).abs().max() < 1e-9
    assert not list(Path(app.config["SCORING_WORK_DIR"]).iterdir())  # working files gone
