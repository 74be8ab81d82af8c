"""Close-out: the final exports hashed, then no identifying or vault value left anywhere.

The scan reads every column of every table of both binds (the main database and the vault)
as text and looks for each uploaded value, raw and normalised; before the close-out it finds
them (so it can fail), after it finds none. Run on PostgreSQL too (TEST_DATABASE_URL).
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

import pytest
import sqlalchemy as sa
from werkzeug.datastructures import FileStorage

from app.extensions import db
from app.models import CloseOut, Pair, Project, Record, SourceIndex, User, VaultRecord
from app.projects.custody import (
    CloseOutRefused,
    close_project,
    digest,
    export_hashes,
    final_exports,
    project_disclosures,
    record_disclosures,
)
from app.projects.importing.uploads import stage_one
from app.projects.lifecycle import create_project
from app.projects.scoring.service import predictions_file
from app.review.answers.save import save_answer
from app.review.services import reveal_cell
from tests.factories import make_assignment, make_user

A = [
    {
        "id": "a1",
        "first_name": "Quenbyx",
        "last_name": "Zorvath",
        "dob": "03/14/1931",
        "ssn": "XK-55-7781",
        "diagnosis": "Hemochromatosis-7",
        "income": "INC88123",
    },
    {
        "id": "a2",
        "first_name": "Wrelda",
        "last_name": "Plimsoll",
        "dob": "11/29/1947",
        "ssn": "XK-90-1234",
        "diagnosis": "Sarcoidosis-3",
        "income": "INC77004",
    },
]
B = [
    {
        "id": "b1",
        "first_name": "Quenbyxe",
        "last_name": "Zorvath",
        "dob": "03/14/1931",
        "ssn": "XK-55-7718",
        "diagnosis": "Hemochromatosis-7b",
        "income": "INC88124",
    },
    {
        "id": "b2",
        "first_name": "Wrelda",
        "last_name": "Plimsol",
        "dob": "11/29/1947",
        "ssn": "XK-90-1243",
        "diagnosis": "Sarcoidosis-3b",
        "income": "INC77005",
    },
]
FREQUENCIES = {"first": {"Quenbyx": 3, "Wrelda": 5}, "last": {"Zorvath": 2, "Plimsollia": 1}}
SPEC = {
    "name": "Close-out",
    "kind": "link",
    "attributes": [
        {"name": "first_name", "type": "string"},
        {"name": "last_name", "type": "string"},
        {"name": "dob", "type": "date"},
        {"name": "ssn", "type": "id"},
        {"name": "diagnosis", "type": "string", "sensitive": True},
        {"name": "income", "type": "string", "sensitive": True},
    ],
    "records_a": A,
    "records_b": B,
    "pairs": [["a1", "b1"], ["a2", "b2"], ["a1", "b2"]],
    "name_frequencies": FREQUENCIES,
}
UPLOADED = sorted(
    {v for r in A + B for k, v in r.items() if k != "id"}
    | {"1931-03-14", "1947-11-29", *FREQUENCIES["first"], *FREQUENCIES["last"]}
)


@pytest.fixture
def app_overrides(tmp_path):
    return {
        "UPLOAD_FOLDER": str(tmp_path / "uploads"),
        "SCORING_OUTPUT_DIR": str(tmp_path / "scoring"),
        "SCORING_WORK_DIR": str(tmp_path / "scoring-work"),
    }


def scan(values) -> dict[str, list[str]]:
    """``{table.column: values found}`` over every table of both binds."""
    found: dict[str, set[str]] = {}
    for engine in {id(e): e for e in db.engines.values()}.values():
        with engine.connect() as conn:
            for table in sa.inspect(conn).get_table_names():
                if table.startswith("alembic_version"):
                    continue
                rows = conn.execute(sa.text(f'SELECT * FROM "{table}"')).mappings()
                for row in rows:
                    for column, cell in row.items():
                        text = str(cell).lower()
                        for value in values:
                            if value.lower() in text:
                                found.setdefault(f"{table}.{column}", set()).add(value)
    return {k: sorted(v) for k, v in found.items()}


@pytest.fixture
def finished(app, tmp_path):
    """The project, reviewed to the end by wes (a reveal on the first pair), a scores file
    staged on its triage page and a predictions file of its scoring."""
    with app.app_context():
        manager, wes = make_user("max", "manager"), make_user("wes")
        project = create_project(SPEC, manager)
        db.session.commit()
        assignment = make_assignment(project, wes, 1.0)
        pairs = [link.pair_id for link in assignment.pairs]
        ids = (project.id, assignment.id, manager.id)
        db.session.commit()
        reveal_cell(ids[1], pairs[0], 0, "first_name", by=wes)
        db.session.commit()
        for pair_id, decision in zip(pairs, ["same", "same"], strict=False):
            save_answer(ids[1], pair_id, decision, "high", by=wes)
            db.session.commit()
        upload = FileStorage(io.BytesIO(b"a,b\nQuenbyx,Zorvath\n"), filename="scores.csv")
        staged = stage_one("scores", "scores", upload, manager.id, project_id=ids[0])
        predictions = predictions_file(ids[0], 1)
        predictions.parent.mkdir(parents=True)
        predictions.write_bytes(b"Wrelda")
        db.session.commit()
    return {"ids": ids, "pairs": pairs, "staged": staged.directory, "file": predictions}


def test_close_out_is_refused_until_every_pair_is_settled(app, finished):
    project_id, assignment_id, manager_id = finished["ids"]
    with app.app_context():
        project = db.session.get(Project, project_id)
        manager = db.session.get(User, manager_id)
        with pytest.raises(CloseOutRefused, match="1 pair"):
            close_project(project, manager)
        assert not project.closed and db.session.scalar(sa.select(sa.func.count(CloseOut.id))) == 0


def _settle(app, finished):
    _, assignment_id, _ = finished["ids"]
    with app.app_context():
        wes = db.session.scalar(sa.select(User).where(User.username == "wes"))
        save_answer(assignment_id, finished["pairs"][2], "different", "high", by=wes)
        db.session.commit()


def test_close_out_destroys_every_value_in_both_databases(app, finished):
    _settle(app, finished)
    project_id, _, manager_id = finished["ids"]
    with app.app_context():
        assert set(scan(UPLOADED)) >= {
            "records.values",
            "vault_records.values",
            "name_frequencies.name",
        }
        project = db.session.get(Project, project_id)
        manager = project.owner
        # the import stored the anonymity-set index (normalised values) of each source
        assert db.session.scalar(sa.select(sa.func.count(SourceIndex.source_id))) == 2
        before = [d.as_json() for d in project_disclosures(project)]
        record_before = record_disclosures(project, "A", "a1").as_json()
        files = final_exports(project)
        hashes = export_hashes(files)
        assert {"sha256", "bytes"} <= set(next(iter(hashes.values())))
        assert any(name.endswith("-linked.csv") for name in files)
        row = close_project(project, manager, expected=digest(hashes))
        db.session.commit()
        assert row.closed_by == manager_id and not row.automatic and project.closed
        assert row.exports == hashes
        for name, data in files.items():
            assert row.exports[name]["sha256"] == hashlib.sha256(data).hexdigest()
        assert row.destroyed == {
            "records_identifying_values": 4,
            "vault_rows": 4,
            "name_frequencies": 4,
            "prediction_files": 0,
            "staged_uploads": 1,
            "working_folders": 0,
        }
        db.session.remove()
    with app.app_context():
        assert scan(UPLOADED) == {}
        assert db.session.scalar(sa.select(sa.func.count(VaultRecord.pseudonym))) == 0
        assert db.session.scalar(sa.select(sa.func.count(SourceIndex.source_id))) == 0
        # pseudonyms, record ids, pairs and decisions remain; so does the accountability
        project = db.session.get(Project, project_id)
        assert db.session.scalar(sa.select(sa.func.count(Record.id))) == 4
        # nor do the values' lengths (the characters meter's stored counts)
        assert db.session.scalar(sa.select(sa.func.max(Record.characters))) == 0
        assert db.session.scalar(sa.select(sa.func.count(Pair.id))) == 3
        assert [d.as_json() for d in project_disclosures(project)] == before
        assert record_disclosures(project, "A", "a1").as_json() == record_before
        # the value-free exports come out the same as the hashes recorded
        again = export_hashes(final_exports(project))
        for name in ("labels", "clusters", "linkage", "splink"):
            (key,) = [k for k in again if k.endswith(f"-{name}.csv")]
            assert again[key] == row.exports[key]
        with pytest.raises(CloseOutRefused, match="closed out already"):
            close_project(project, project.owner)
    assert not finished["staged"].exists() and not finished["file"].exists()


def test_close_out_refuses_exports_that_changed_since_download(app, finished):
    _settle(app, finished)
    project_id, _, _ = finished["ids"]
    with app.app_context():
        project = db.session.get(Project, project_id)
        stale = digest(export_hashes(final_exports(project)))
        project.name = "Renamed"  # the export file names change
        with pytest.raises(CloseOutRefused, match="download the final exports again"):
            close_project(project, project.owner, expected=stale)
        assert not project.closed
        db.session.rollback()
        assert scan(["Hemochromatosis-7"])  # nothing destroyed


def test_a_pair_file_project_with_name_counts_from_upload_to_close_out(app, runner):
    """Through the file import (as the upload does): pair file and frequency file on disk,
    every pair answered, closed; the legacy export is hashed first, refused after."""
    import csv as csv_module

    from tests.projects.conftest import MINDFIRL

    pairfile, freq = MINDFIRL / "pairfile_extra.csv", MINDFIRL / "name_freq.csv"
    with pairfile.open(newline="") as f:
        rows = list(csv_module.DictReader(f))
    columns = ("voter_reg_num", "first_name", "last_name", "dob")
    uploaded = sorted({r[c] for r in rows for c in columns if len(r[c]) >= 4})
    with app.app_context():
        make_user("max", "manager"), make_user("wes")
    out = runner.invoke(
        args=[
            "projects",
            "import",
            "Pairs",
            str(pairfile),
            "--kind",
            "pairfile",
            "--owner",
            "max",
            "--freq",
            str(freq),
        ]
    )
    assert out.exit_code == 0, out.output
    with app.app_context():
        project = db.session.scalar(sa.select(Project))
        wes = db.session.scalar(sa.select(User).where(User.username == "wes"))
        assignment = make_assignment(project, wes, 1.0)
        for link in assignment.pairs:
            save_answer(assignment.id, link.pair_id, "same", "high", by=wes)
            db.session.commit()
        assert set(scan(uploaded)) >= {"records.values", "name_frequencies.name"}
        files = final_exports(project)
        legacy = [name for name in files if name.endswith("-legacy.csv")]
        assert legacy and any(v in files[legacy[0]].decode() for v in uploaded)
        row = close_project(project, project.owner)
        db.session.commit()
        assert row.exports[legacy[0]]["sha256"] == hashlib.sha256(files[legacy[0]]).hexdigest()
        assert row.destroyed["name_frequencies"] > 0
        db.session.remove()
    with app.app_context():
        assert scan(uploaded) == {}
        with pytest.raises(Exception, match="closed out"):
            from app.projects.exports import export_csv

            export_csv(db.session.scalar(sa.select(Project)), "legacy")


@pytest.mark.skipif(bool(os.environ.get("TEST_DATABASE_URL")), reason="SQLite's own files")
def test_no_value_is_left_in_the_sqlite_files_either(app, finished, database_config):
    """Not only no row: not in the bytes of either database file (freed pages, WAL) either."""
    _settle(app, finished)

    def files_with_values() -> dict[str, list[str]]:
        with app.app_context():
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()  # the last connection checkpoints the WAL
        main = Path(database_config["SQLALCHEMY_DATABASE_URI"].removeprefix("sqlite:///"))
        found = {}
        for path in main.parent.glob("*.sqlite*"):
            data = path.read_bytes().lower()
            hits = [v for v in UPLOADED if v.lower().encode() in data]
            if hits:
                found[path.name] = hits
        return found

    assert set(files_with_values()) == {"main.sqlite", "vault.sqlite"}
    with app.app_context():
        project = db.session.get(Project, finished["ids"][0])
        close_project(project, project.owner)
        db.session.commit()
    assert files_with_values() == {}
