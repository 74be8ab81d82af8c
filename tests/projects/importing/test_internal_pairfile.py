"""Importing MINDFIRL's internal pair file (``production_p1_pairfile.csv``) as a project."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from app.analytics.utility import truth_from_file
from app.extensions import db
from app.models import Pair, Project, Record, Source, User, VaultRecord
from app.projects.importing.pairfiles.frequencies import name_frequencies
from app.projects.importing.pending.waiting import check_and_write
from app.projects.importing.service import (
    finish_import,
    import_upload,
    mapping_columns,
    previews,
)
from app.projects.reading.csvio import CsvImportError
from tests.projects.conftest import MINDFIRL, stage_files
from tests.projects.importing.test_import_service import PAIRFILE_PLAN

GOLDEN = MINDFIRL / "production_p1_pairfile.csv"


def import_internal(people, path=GOLDEN, freq=False):
    files = {"pairs": path}
    if freq:
        files["freq"] = MINDFIRL / "name_freq.csv"
    staged = stage_files("Internal", "pairfile", people["max"], **files)
    owner = db.session.get(User, people["max"])
    project, checked = check_and_write(staged, PAIRFILE_PLAN, owner)
    finish_import(project)
    db.session.commit()
    return project, checked, staged


def test_golden_internal_pair_file_imports_12_pairs_over_3_records_per_side(app, people):
    with app.app_context():
        project, checked, staged = import_internal(people)
        assert mapping_columns(staged, previews(staged)) == PAIRFILE_PLAN["header"]
        assert (checked.records, checked.pairs, checked.frequencies) == ({"A": 3, "B": 3}, 12, 6)
        counts = dict(
            db.session.execute(
                select(Source.label, func.count(Record.id))
                .join(Record, Record.source_id == Source.id)
                .where(Source.project_id == project.id)
                .group_by(Source.label)
            ).all()
        )
        assert counts == {"A": 3, "B": 3}
        pairs = db.session.scalars(select(Pair).where(Pair.project_id == project.id)).all()
        members = {p.external_id: (p.record_a_id, p.record_b_id) for p in pairs}
        assert sorted(members, key=int) == [str(i) for i in range(1, 13)]
        # Pairs 1, 4, 7, 10 repeat one record pair; 2, 5, 8, 11 and 3, 6, 9, 12 the others.
        for first in ("1", "2", "3"):
            same = {members[str(int(first) + 3 * k)] for k in range(4)}
            assert len(same) == 1
        assert len(set(members.values())) == 3
        left = db.session.get(Record, members["1"][0])
        assert left.values["voter_reg_num"] == "1000000657"  # the first row is the left record
        assert name_frequencies(project.id) == {
            "first_name": {"LYNN": 8, "JEAN EWART": 8, "CLARETTA": 8},
            "last_name": {"WILDING": 8, "ABERNATHY": 8, "ADAMS": 8},
        }
        vault_columns = {k for v in db.session.scalars(select(VaultRecord)) for k in v.values}
        stored = vault_columns | {k for r in db.session.scalars(select(Record)) for k in r.values}
        assert stored.isdisjoint({"ID", "type", "file_id", "cntfn", "cntln", "same"})


def test_an_uploaded_frequency_file_wins_over_the_files_own_counts(app, people):
    with app.app_context():
        project, checked, _ = import_internal(people, freq=True)
        assert name_frequencies(project.id)["first_name"]["LYNN"] == 100
        assert checked.frequencies == 6


def test_truth_file_by_the_files_pair_ids_feeds_risk_against_utility(app, people):
    with app.app_context():
        project, _, _ = import_internal(people)
        body = "pair_id,match\n" + "".join(f"{i},{int(i % 3 == 0)}\n" for i in range(1, 13))
        truth = truth_from_file(project, body.encode())
        by_external = {
            p.external_id: truth[p.id]
            for p in db.session.scalars(select(Pair).where(Pair.project_id == project.id))
        }
        assert by_external == {str(i): i % 3 == 0 for i in range(1, 13)}


@pytest.mark.parametrize(
    ("edit", "line", "column"),
    [
        (lambda lines: lines[:-1], 24, "ID"),  # odd row count: pair 12 has one row
        (lambda lines: [*lines[:2], lines[2].replace("1,", "99,", 1), *lines[3:]], 2, "ID"),
        (lambda lines: [lines[0].replace(",cntfn", ""), *lines[1:]], 1, None),
    ],
)
def test_malformed_internal_file_imports_nothing(app, people, tmp_path, edit, line, column):
    lines = GOLDEN.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad_pairfile.csv"
    bad.write_text("".join(edit(lines)))
    with app.app_context():
        staged = stage_files("Bad", "pairfile", people["max"], pairs=bad)
        with pytest.raises(CsvImportError) as caught:
            check_and_write(staged, PAIRFILE_PLAN, db.session.get(User, people["max"]))
        assert any(p.line == line and p.column == column for p in caught.value.problems)
        assert all("WILDING" not in p.message for p in caught.value.problems)
        db.session.rollback()
        with pytest.raises(CsvImportError):
            import_upload(staged, PAIRFILE_PLAN, db.session.get(User, people["max"]))
        db.session.rollback()
        assert db.session.scalar(select(func.count(Project.id))) == 0
