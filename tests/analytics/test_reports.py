"""The KAPR report: exact sums per assignment, project and worker; never a revealed value."""

from __future__ import annotations

import csv
import io
from fractions import Fraction

import pytest

from app.analytics.kapr import CSV_COLUMNS, kapr_csv, kapr_report
from app.extensions import db
from app.review.services import reveal_cell
from tests.factories import make_assignment, make_user, paper_project


@pytest.fixture
def spent(app):
    """wes reveals a name cell on both rows of his first pair; wen has one pair, no reveals."""
    with app.app_context():
        manager = make_user("max", "manager")
        wes, wen = make_user("wes"), make_user("wen")
        project = paper_project(manager, name="Paper")
        first = make_assignment(project, wes, 0.5)
        pair_id = first.pairs[0].pair_id
        make_assignment(project, wen, 0.25, pairs=[pair_id])
        for row in (0, 1):
            reveal_cell(first.id, pair_id, row, "name", by=wes)
            db.session.commit()
        yield


def test_per_assignment_rows_are_exact(app, spent):
    with app.app_context():
        report = kapr_report()
    wen, wes = report.assignments
    assert (wes.project, wes.worker, wes.pairs, wes.reveals) == ("Paper (#1)", "wes", 6, 2)
    assert (wes.kapr, wes.budget) == (Fraction(1, 108), Fraction(1, 2))
    assert wes.budget_percent == pytest.approx(100 / 54)
    assert (wes.chars_disclosed, wes.chars_total) == (2, 156)
    assert wes.chars_percent == pytest.approx(200 / 156)
    assert (wen.pairs, wen.kapr, wen.budget, wen.reveals, wen.chars_percent) == (
        1, Fraction(0), Fraction(1, 4), 0, 0.0
    )  # fmt: skip


def test_projects_show_max_and_collusion_never_sums(app, spent):
    with app.app_context():
        report = kapr_report()
    (project,) = report.projects
    assert (project.assignments, project.project_pairs, project.pooled_pairs) == (2, 6, 6)
    assert (project.max_kapr, project.max_budget) == (Fraction(1, 108), Fraction(1, 2))
    assert project.collusion == Fraction(1, 108) and project.collusion_within_bound
    assert [(w.worker, w.assignments, w.max_kapr) for w in report.workers] == [
        ("wen", 1, Fraction(0)),
        ("wes", 1, Fraction(1, 108)),
    ]
    data = report.as_dict()["projects"][0]
    assert "kapr" not in data and "budget" not in data
    assert data["collusion_kapr"] == {"exact": "1/108", "float": 1 / 108}


def test_csv_and_json_carry_fractions_as_text(app, spent):
    with app.app_context():
        report = kapr_report()
    rows = list(csv.DictReader(io.StringIO(kapr_csv(report))))
    assert list(rows[0]) == CSV_COLUMNS
    assert [(r["worker"], r["kapr"], r["budget"], r["reveals"]) for r in rows] == [
        ("wen", "0", "1/4", "0"),
        ("wes", "1/108", "1/2", "2"),
    ]
    data = report.as_dict()
    assert data["assignments"][1]["kapr"] == "1/108"
    assert data["projects"][0]["max_kapr"]["exact"] == "1/108"
    assert data["projects"][0]["project_pairs"] == 6


def test_zero_budget_has_no_percentage(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        make_assignment(project, make_user("wes"), 0)
        (row,) = kapr_report().assignments
    assert row.budget == 0 and row.budget_percent is None


def test_a_formula_like_project_name_is_neutralised_in_csv(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"), name="=cmd()")
        make_assignment(project, make_user("wes"), 0.1)
        text = kapr_csv(kapr_report())
    assert "'=cmd() (#1)" in text
