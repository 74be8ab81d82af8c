"""Parquet read footer first, then in batches under a byte budget (issue 42.2), and every
malformed scored-pairs file of the attack round answers 400 with its staged file gone (42.7).

The attack round's file: 2.9 KB of Parquet holding 200,000 dictionary-encoded 10,000-character
ids (2 GB once decoded). Its memory is measured in a process of its own (the peak resident
set, ``ru_maxrss``, and Arrow's pool, which tracemalloc does not see), through the JSON API
and the triage page: under 100 MB of growth, and refused by row and column.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Pair
from app.projects.reading.predictions import PredictionsError, read_predictions
from tests.factories import PASSWORD, make_token, make_user

ROOT = Path(__file__).resolve().parents[3]
SECRET = "Q~"
ROWS = 200_000


def parquet(columns: dict, **options) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink, **options)
    return sink.getvalue()


def bomb(rows: int = ROWS, chars: int = 10_000) -> bytes:
    """``rows`` pairs whose ids are one ``chars``-character value, dictionary-encoded (built as
    a dictionary: never decoded here either)."""
    ids = pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(rows, np.int32)), pa.array([(SECRET * chars)[:chars]])
    )
    return parquet(
        {"unique_id_l": ids, "unique_id_r": ids, "match_probability": np.full(rows, 0.5)},
        compression="zstd", store_schema=False,  # as other writers: no Arrow type to read back
    )  # fmt: skip


MEASURE = textwrap.dedent(
    """
    import io, json, resource, sys
    import pyarrow as pa
    from app import create_app
    from app.extensions import db
    from app.projects.lifecycle import create_project
    from tests.factories import PASSWORD, make_token, make_user

    folder, data = sys.argv[1], open(sys.argv[2], "rb").read()
    app = create_app({
        "TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False, "AUTO_UPGRADE": False,
        "SESSION_COOKIE_SECURE": False, "UPLOAD_FOLDER": folder + "/uploads",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/main.sqlite",
        "VAULT_DATABASE_URI": f"sqlite:///{folder}/vault.sqlite",
    })
    with app.app_context():
        db.create_all()
        owner = make_user("max", "manager")
        spec = {"name": "p", "kind": "link", "attributes": [{"name": "name"}],
                "records_a": [{"id": "a1", "name": "Ann"}],
                "records_b": [{"id": "b1", "name": "Ann"}]}
        project_id = create_project(spec, owner).id
        db.session.commit()
        token = make_token(owner)
    client = app.test_client()
    client.post("/login", data={"username": "max", "password": PASSWORD})
    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    start, pool = peak(), pa.default_memory_pool().max_memory()
    api = client.post(
        f"/api/v1/projects/{project_id}/predictions?lower=0.1&upper=0.9", data=data,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"},
    )
    form = {"lower": "0.1", "upper": "0.9", "calibration": "0", "seed": "1",
            "score": "probability", "order": "uncertainty", "bins": "10", "action": "preview",
            "scores": (io.BytesIO(data), "p.parquet")}
    page = client.post(f"/projects/{project_id}/triage", data=form,
                       content_type="multipart/form-data")
    print(json.dumps({
        "growth": peak() - start, "pool": pa.default_memory_pool().max_memory() - pool,
        "api": [api.status_code, api.get_json()["problems"][:3]],
        "page": [page.status_code, page.get_data(as_text=True).count("unique_id_l")],
    }))
    """
)


def test_the_attack_rounds_3_kb_parquet_is_refused_within_100_mb(tmp_path):
    data = bomb()
    assert len(data) < 4_000
    path = tmp_path / "bomb.parquet"
    path.write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(tmp_path), str(path)], cwd=ROOT,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["growth"] < 100 * 2**20, found  # the resident set's peak, in bytes
    assert found["pool"] < 100 * 2**20, found  # Arrow's own allocations
    status, problems = found["api"]
    assert status == 400 and problems[0].startswith("row 1, column 'unique_id_l': longer than 100")
    assert found["page"][0] == 400
    assert list((tmp_path / "uploads").rglob("*.csv")) == []  # the staged file is gone


def test_a_column_too_large_for_its_rows_is_refused_from_the_footer():
    """Plain-encoded 1,000-character ids: 20 MB uncompressed where 20,000 ids of at most 100
    characters take 8 MB. Refused before a page is decoded."""
    rows = 20_000
    ids = pa.array([SECRET * 500] * rows)
    data = parquet(
        {"unique_id_l": ids, "unique_id_r": ids, "match_probability": np.full(rows, 0.5)},
        use_dictionary=False, compression="zstd",
    )  # fmt: skip
    with pytest.raises(PredictionsError) as refused:
        read_predictions(data)
    assert refused.value.problems[0].startswith("column 'unique_id_l', rows 1-20,000: ")
    assert "bytes uncompressed, more than 20,000 values within the bound take" in str(refused.value)


def test_rows_past_the_limit_are_refused_from_the_footer():
    with pytest.raises(PredictionsError, match="200,000 pairs is more than the limit of 10"):
        read_predictions(bomb(), max_rows=10)


def test_a_long_id_in_the_statistics_is_refused_from_the_footer():
    with pytest.raises(PredictionsError) as refused:
        read_predictions(bomb(rows=1_000, chars=101))  # min and max kept (under 4 KB)
    assert refused.value.problems[0] == (
        "column 'unique_id_l', rows 1-1,000: longer than 100 characters, the longest id kept "
        "whole (MAX_RECORD_ID_CHARS)"
    )


def test_a_long_id_in_many_rows_is_listed_then_counted():
    with pytest.raises(PredictionsError) as refused:
        read_predictions(bomb(rows=1_000, chars=5_000))  # too long for the statistics
    problems = refused.value.problems
    assert problems[0] == (
        "row 1, column 'unique_id_l': longer than 100 characters, the longest id kept whole "
        "(MAX_RECORD_ID_CHARS)"
    )
    assert problems[-1].endswith("in 1,000 rows in all") and SECRET not in str(problems)


def test_a_missing_id_beside_a_long_one_is_named_by_row():
    ids = pa.array([None, "a1", "x" * 5_000, None]).dictionary_encode()
    data = parquet({"unique_id_l": ids, "unique_id_r": ["b1"] * 4, "match_probability": [0.5] * 4})
    with pytest.raises(PredictionsError) as refused:
        read_predictions(data)
    assert [p.split(":")[0] for p in refused.value.problems] == ["row 3, column 'unique_id_l'"]
    missing = pa.array([None, "a1"]).dictionary_encode()
    data = parquet({"unique_id_l": missing, "unique_id_r": ["b1"] * 2, "match_weight": [1.0, 2.0]})
    with pytest.raises(PredictionsError, match="row 1, column 'unique_id_l': empty"):
        read_predictions(data)


def test_within_the_bounds_a_dictionary_file_reads_whole_in_batches(monkeypatch):
    from app.projects.reading.parquet import bounded as module

    monkeypatch.setattr(module, "BATCH_BYTES", 4096)  # a few rows a batch
    ids = pa.array([f"a{i % 7}" for i in range(500)]).dictionary_encode()
    data = parquet({"unique_id_l": ids, "unique_id_r": pa.array([f"b{i}" for i in range(500)]),
                    "match_weight": np.arange(500, dtype=np.int64)})  # fmt: skip
    scored = read_predictions(data)
    assert len(scored) == 500 and scored.id_l.to_pylist()[:8] == [f"a{i % 7}" for i in range(8)]
    assert scored.id_r.to_pylist()[-1] == "b499" and scored.match_weight[-1] == 499


# --- the attack round's malformed files (42.7) -------------------------------------------------


def _invalid_utf8() -> pa.Array:
    return pa.array([b"a1", b"\xff\xfe" + SECRET.encode()], pa.binary()).view(pa.string())


def _damaged_pages() -> bytes:
    """A valid footer over data pages overwritten with noise."""
    good = bytearray(parquet({"unique_id_l": ["a1", "a2"] * 50, "unique_id_r": ["b1"] * 100,
                              "match_probability": [0.5] * 100}, compression="snappy"))  # fmt: skip
    for i in range(8, len(good) // 2):
        good[i] = (good[i] * 7 + 13) % 256
    return bytes(good)


GOOD = {"unique_id_r": ["b1", "b1"], "match_probability": [0.9, 0.2]}
MALFORMED = {
    "list": (parquet({"unique_id_l": [["a1"], ["a1"]], **GOOD}), "column 'unique_id_l' must hold"),
    "nested-list": (parquet({"unique_id_l": [[["a1"]], [["a1"]]], **GOOD}), "must hold text"),
    "struct": (parquet({"unique_id_l": [{"x": "a1"}, {"x": "a1"}], **GOOD}), "it holds struct"),
    "map": (
        parquet(
            {
                "unique_id_l": pa.array(
                    [[("k", "a1")], [("k", "a1")]], pa.map_(pa.string(), pa.string())
                ),
                **GOOD,
            }
        ),
        "it holds map",
    ),  # fmt: skip
    "binary": (
        parquet({"unique_id_l": pa.array([b"a1", b"\xff\xfe"], pa.binary()), **GOOD}),
        "it holds binary",
    ),
    "invalid-utf8": (parquet({"unique_id_l": _invalid_utf8(), **GOOD}), "row 2, column "),
    "score-text": (
        parquet(
            {
                "unique_id_l": ["a1", "a1"],
                "unique_id_r": ["b1", "b1"],
                "match_probability": pa.array([[0.5], [0.5]]),
            }
        ),
        "column 'match_probability' must hold numbers",
    ),  # fmt: skip
    "truncated": (parquet({"unique_id_l": ["a1", "a1"], **GOOD})[:-30], "cannot be read"),
    "damaged-pages": (_damaged_pages(), "cannot be read"),
}


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_a_malformed_file_is_refused_by_column(kind):
    data, expected = MALFORMED[kind]
    with pytest.raises(PredictionsError) as refused:
        read_predictions(data)
    assert any(expected in p for p in refused.value.problems), refused.value.problems
    assert SECRET not in str(refused.value)


@pytest.fixture
def manager(app, client):
    from app.projects.lifecycle import create_project

    with app.app_context():
        owner = make_user("max", "manager")
        spec = {
            "name": "scored", "kind": "link", "attributes": [{"name": "name"}],
            "records_a": [{"id": "a1", "name": "Ann"}], "records_b": [{"id": "b1", "name": "Ann"}],
        }  # fmt: skip
        project_id = create_project(spec, owner).id
        db.session.commit()
        token = make_token(owner)
    client.post("/login", data={"username": "max", "password": PASSWORD})
    return project_id, token


@pytest.mark.parametrize("kind", list(MALFORMED))
def test_every_malformed_file_answers_400_with_its_staged_file_gone(app, client, manager, kind):
    project_id, token = manager
    data, expected = MALFORMED[kind]
    form = {"lower": "0.1", "upper": "0.9", "calibration": "0", "seed": "1",
            "score": "probability", "order": "uncertainty", "bins": "10", "action": "preview",
            "scores": (io.BytesIO(data), "p.parquet")}  # fmt: skip
    page = client.post(f"/projects/{project_id}/triage", data=form)
    text = page.get_data(as_text=True).replace("&#39;", "'")
    assert page.status_code == 400 and expected in text and SECRET not in text
    assert 'name="token" value="' not in text  # nothing staged to try again with
    uploads = Path(app.config["UPLOAD_FOLDER"])
    assert not uploads.is_dir() or list(uploads.rglob("*.csv")) == []
    api = client.post(
        f"/api/v1/projects/{project_id}/predictions?lower=0.1&upper=0.9", data=data,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"},
    )  # fmt: skip
    assert api.status_code == 400 and any(expected in p for p in api.get_json()["problems"])
    with app.app_context():
        assert db.session.scalar(select(func.count(Pair.id))) == 0


def test_a_large_damaged_file_through_the_job_path_is_refused_too(app, client, manager):
    """A file counted for the job threshold (its footer read first) is refused, not a 500."""
    project_id, _ = manager
    app.config["TRIAGE_JOB_THRESHOLD"] = 1
    data, _ = MALFORMED["truncated"]
    form = {"lower": "0.1", "upper": "0.9", "calibration": "0", "seed": "1",
            "score": "probability", "order": "uncertainty", "bins": "10", "action": "preview",
            "scores": (io.BytesIO(data), "p.parquet")}  # fmt: skip
    page = client.post(f"/projects/{project_id}/triage", data=form)
    assert page.status_code == 400 and "cannot be read" in page.get_data(as_text=True)
    uploads = Path(app.config["UPLOAD_FOLDER"])
    assert not uploads.is_dir() or list(uploads.rglob("*.csv")) == []
