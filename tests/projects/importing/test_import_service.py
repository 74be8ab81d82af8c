"""Importing staged uploads: the three ways, name frequencies, and all-or-nothing."""

from __future__ import annotations

import csv
import io
from unittest import mock

import numpy as np
import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import (
    NameFrequency,
    Pair,
    Project,
    Record,
    Source,
    SourceIndex,
    User,
    VaultRecord,
)
from app.projects.importing.pairfiles.frequencies import name_frequencies
from app.projects.importing.pending.waiting import check_and_write, check_plan
from app.projects.importing.service import (
    finish_import,
    import_upload,
    previews,
)
from app.projects.importing.uploads import UploadError, discard, load
from app.projects.lifecycle import ProjectSpecError
from app.projects.reading.csvio import CsvImportError
from app.review.grid import indexes
from tests.projects.conftest import MALFORMED, MINDFIRL, dev_plan, row_counts, stage_files

PAIRFILE_PLAN = {
    "id_column": None,
    "identifying": {
        "voter_reg_num": "id", "first_name": "string", "last_name": "string",
        "dob": "date", "sex": "category", "race": "category",
    },
    "sensitive": [f"info{i}" for i in range(1, 6)],
    "header": ["voter_reg_num", "first_name", "last_name", "dob", "sex", "race",
               *(f"info{i}" for i in range(1, 6))],
    "settings": {},
}  # fmt: skip


def import_pairfile(people, freq=True):
    files = {"pairs": MINDFIRL / "pairfile_extra.csv"}
    if freq:
        files["freq"] = MINDFIRL / "name_freq.csv"
    staged = stage_files("Pair file", "pairfile", people["max"], **files)
    owner = db.session.get(User, people["max"])
    project, checked = check_and_write(staged, PAIRFILE_PLAN, owner)
    finish_import(project)
    db.session.commit()
    return project, checked


def test_pairfile_import_reproduces_12_pairs_in_3_blocks_with_frequencies(app, people):
    with app.app_context():
        project, checked = import_pairfile(people)
        assert (checked.pairs, checked.blocks, checked.frequencies) == (12, 3, 6)
        pairs = db.session.scalars(select(Pair).where(Pair.project_id == project.id)).all()
        assert len(pairs) == 12
        assert len({p.block for p in pairs}) == 3
        assert {p.rule for p in pairs} == {"pair file"}
        assert sorted((p.external_id for p in pairs), key=int) == [str(i) for i in range(1, 13)]
        frequencies = name_frequencies(project.id)
        assert frequencies["first_name"]["LYNN"] == 100
        assert frequencies["first_name"]["CLARETTA"] == 1006
        assert frequencies["last_name"]["WILDING"] == 143
        assert db.session.scalar(select(NameFrequency.count).where(NameFrequency.name == "ADAMS"))
        vault = db.session.scalars(select(VaultRecord)).all()
        assert vault and set(vault[0].values) == {f"info{i}" for i in range(1, 6)}
        record = db.session.scalars(select(Record)).first()
        assert "info1" not in record.values


def test_pairfile_without_frequencies_has_none(app, people):
    with app.app_context():
        project, checked = import_pairfile(people, freq=False)
        assert checked.frequencies == 0
        assert name_frequencies(project.id) == {}


def test_link_import_of_the_dev_files(app, people):
    with app.app_context():
        staged = stage_files(
            "Dev", "link", people["max"],
            A=MINDFIRL / "dev_file1.csv", B=MINDFIRL / "dev_file2.csv",
        )  # fmt: skip
        shown = previews(staged)
        assert shown["A"].header[:3] == ["ID", "voter_reg_num", "first_name"]
        assert len(shown["B"].rows) == 5
        owner = db.session.get(User, people["max"])
        read_back = mock.patch.object(indexes, "_stored_columns", side_effect=AssertionError)
        with read_back:  # each index is built from the values the import wrote, not read back
            project, checked = check_and_write(staged, dev_plan(), owner)
        assert checked.dropped and all("duplicate id" in d for d in checked.dropped)
        finish_import(project)
        db.session.commit()
        counts = {s.label: s.record_count for s in project.sources}
        assert counts == checked.records
        for source in project.sources:  # the same index as one built from the stored records
            stored = db.session.get(SourceIndex, source.id)
            assert stored.records_version == project.records_version
            built = indexes.build_index(project.identifying, source.id)
            assert _arrays(stored.data) == _arrays(built.dump())
        positions = db.session.scalars(
            select(Record.position).where(Record.source_id == project.sources[0].id)
        ).all()
        assert sorted(positions) == list(range(counts["A"]))
        assert [a.name for a in project.sensitive] == [f"info{i}" for i in range(1, 6)]


def _arrays(dumped: bytes) -> dict[str, list]:
    with np.load(io.BytesIO(dumped), allow_pickle=False) as arrays:
        return {name: arrays[name].tolist() for name in arrays.files}


def test_rejecting_duplicates_lists_row_numbers(app, people):
    with app.app_context():
        staged = stage_files("Dev", "dedupe", people["max"], A=MINDFIRL / "dev_file1.csv")
        owner = db.session.get(User, people["max"])
        with pytest.raises(CsvImportError) as caught:
            check_and_write(staged, dev_plan(on_duplicate_id="error"), owner)
        db.session.rollback()
        assert str(caught.value.problems[0]).startswith("file A, line 3, column 'ID': duplicate")


@pytest.mark.parametrize(
    ("name", "message"),
    [("bad_date.csv", "line 2, column 'dob'"), ("ragged_short.csv", "expected"),
     ("binary.csv", "file A: this is a PNG image"), ("header_only.csv", "no data rows")],
)  # fmt: skip
def test_a_malformed_upload_changes_nothing(app, people, name, message):
    plan = dev_plan(
        id_column="ID",
        identifying={"first_name": "string", "last_name": "string", "dob": "date"},
        sensitive=[],
        header=["ID", "first_name", "last_name", "dob"],
        on_duplicate_id="error",
    )
    with app.app_context():
        before = row_counts()
        staged = stage_files("Bad", "dedupe", people["max"], A=MALFORMED / name)
        with pytest.raises(CsvImportError) as caught:
            check_and_write(staged, plan, db.session.get(User, people["max"]))
        assert message in str(caught.value)
        db.session.rollback()
        assert row_counts() == before
        # The import without the mapping step's confirmation fails whole as well.
        with pytest.raises(CsvImportError):
            import_upload(staged, plan, db.session.get(User, people["max"]))
        db.session.rollback()
        assert row_counts() == before


def test_bad_settings_are_refused_before_reading(app, people):
    with app.app_context():
        before = row_counts()
        with pytest.raises(ProjectSpecError, match="kappa"):
            check_plan(dev_plan(settings={"kappa": 0}))
        assert row_counts() == before


def test_staged_uploads_belong_to_their_owner(app, people):
    with app.app_context():
        staged = stage_files("Dev", "dedupe", people["max"], A=MINDFIRL / "dev_file1.csv")
        assert load(staged.token, people["max"]).meta["name"] == "Dev"
        with pytest.raises(UploadError, match="another user"):
            load(staged.token, people["wes"])
        with pytest.raises(UploadError, match="expired"):
            load("../../etc", people["max"])
        discard(staged)
        with pytest.raises(UploadError, match="expired"):
            load(staged.token, people["max"])


def test_staging_needs_a_name_and_the_files(app, people):
    with app.app_context(), pytest.raises(UploadError, match="name.*file b"):
        stage_files("", "link", people["max"], A=MINDFIRL / "dev_file1.csv")


def test_projects_count(app, people):
    with app.app_context():
        import_pairfile(people)
        assert db.session.scalar(select(Project.kind)) == "pairfile"


def test_repeated_record_pairs_share_their_records(app, people):
    """12 pairs over 3 distinct record pairs: each record is stored once (k counts it once)."""
    with app.app_context():
        project, _ = import_pairfile(people)
        counts = {s.label: s.record_count for s in project.sources}
        assert counts == {"A": 3, "B": 3}
        stored = db.session.execute(
            select(Source.label, Record.external_id).join(Source, Source.id == Record.source_id)
        ).all()
        assert sorted(stored) == [("A", "1"), ("A", "4"), ("A", "5"), ("B", "2"), ("B", "3"),
                                  ("B", "7")]  # fmt: skip
        pairs = db.session.scalars(select(Pair).where(Pair.project_id == project.id)).all()
        assert len(pairs) == 12
        assert len({(p.record_a_id, p.record_b_id) for p in pairs}) == 3
        assert len({p.block for p in pairs}) == 3


def test_pairfile_exports_keep_the_file_ids(app, people):
    from app.projects.exports.service import export_csv

    with app.app_context():
        project, _ = import_pairfile(people)
        legacy = list(csv.reader(io.StringIO(export_csv(project, "legacy"))))
        golden_text = (MINDFIRL / "production_p1_finalresult.csv").read_text()
        golden = list(csv.reader(io.StringIO(golden_text)))
        assert legacy[0] == golden[0]
        assert [row[:4] for row in legacy[1:]] == [row[:4] for row in golden[1:]]
        assert [row[4:15] for row in legacy[1:]] == [row[4:15] for row in golden[1:]]
        assert all(row[-2:] == ["", ""] for row in legacy[1:])  # unanswered: undecided
        clusters = list(csv.DictReader(io.StringIO(export_csv(project, "clusters"))))
        assert sorted((c["source_dataset"], c["unique_id"]) for c in clusters) == [
            ("A", "1"), ("A", "4"), ("A", "5"), ("B", "2"), ("B", "3"), ("B", "7"),
        ]  # fmt: skip


def test_answered_pairfile_project_exports_mindfirl_result_byte_for_byte(app, people):
    from app.models import DecisionEvent
    from app.projects.exports.service import export_csv
    from app.projects.staffing.workers import assign_workers

    golden_text = (MINDFIRL / "production_p1_finalresult.csv").read_text()
    choices = {row[0]: int(row[16]) for row in list(csv.reader(io.StringIO(golden_text)))[1:]}
    answer = {1: ("different", "high"), 2: ("different", "medium"), 3: ("different", "low"),
              4: ("same", "low"), 5: ("same", "medium"), 6: ("same", "high")}  # fmt: skip
    with app.app_context():
        project, _ = import_pairfile(people)
        (assignment,) = assign_workers(project, {"wes": 0.5})
        for link in assignment.pairs:
            decision, confidence = answer[choices[link.pair.external_id]]
            db.session.add(
                DecisionEvent(
                    assignment_id=assignment.id, pair_id=link.pair_id, user_id=people["wes"],
                    decision=decision, confidence=confidence,
                )
            )  # fmt: skip
        db.session.commit()
        assert export_csv(project, "legacy") == golden_text
