"""The accountability report of the paper example lists exactly the scripted reveals."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Pair, Record
from app.projects.custody import (
    RecordNotFound,
    disclosure_summary,
    project_disclosures,
    record_disclosures,
)
from app.projects.custody.summary import ANY
from app.review.services import reveal_cell
from tests.factories import make_assignment, make_user, paper_project


def _pair(project, a: str, b: str) -> int:
    ids = dict(db.session.execute(select(Record.external_id, Record.id)).all())
    return db.session.scalar(
        select(Pair.id).where(
            Pair.project_id == project.id,
            Pair.record_a_id == ids[a],
            Pair.record_b_id == ids[b],
        )
    )


@pytest.fixture
def reviewed(app):
    """The script: wes reveals on pair (1, 2) and (1, 3); wen starts with names at partial
    on pair (2, 4) and reveals a race. Returns the expected disclosures, in order."""
    with app.app_context():
        manager = make_user("max", "manager")
        wes, wen = make_user("wes"), make_user("wen")
        project = paper_project(manager, name="Paper")
        p12, p13, p24 = _pair(project, "1", "2"), _pair(project, "1", "3"), _pair(project, "2", "4")
        first = make_assignment(project, wes, 1.0)
        from app.projects.staffing import assign_pairs

        second = assign_pairs(project, wen, 1.0, [p24], start_partial=["name"])
        db.session.commit()
        chars = {first.id: 0, second.id: second.chars_disclosed}
        project_id, first_id, second_id = project.id, first.id, second.id
        db.session.commit()
        script = [
            (first_id, wes, p12, 0, "name"),  # record 1: masked -> partial
            (first_id, wes, p12, 0, "name"),  # record 1: partial -> full
            (first_id, wes, p12, 1, "dob"),  # record 2: masked -> full (a date)
            (first_id, wes, p13, 1, "race"),  # record 3: masked -> full (category)
            (second_id, wen, p24, 1, "race"),  # record 4
        ]
        expected = []
        for assignment_id, worker, pair_id, row, attribute in script:
            result = reveal_cell(assignment_id, pair_id, row, attribute, by=worker)
            db.session.commit()
            gained = result.chars_disclosed - chars[assignment_id]
            chars[assignment_id] = result.chars_disclosed
            record = {p12: "12", p13: "13", p24: "24"}[pair_id][row]
            expected.append((record, attribute, result.state.level(row, attribute).value, gained))
        db.session.commit()
    return project_id, expected, (first_id, second_id)


def test_the_report_lists_exactly_the_scripted_reveals(app, reviewed):
    project_id, expected, (first, second) = reviewed
    with app.app_context():
        from app.models import Project

        project = db.session.get(Project, project_id)
        items = [d for d in project_disclosures(project) if d.how == "reveal"]
        assert [(d.record, d.attribute, d.level, d.chars) for d in items] == expected
        assert [d.worker for d in items] == ["wes"] * 4 + ["wen"]
        assert [d.assignment for d in items] == [first] * 4 + [second]
        assert [d.level_from for d in items] == ["masked", "partial", "masked", "masked", "masked"]
        assert [d.level for d in items] == ["partial", "full", "full", "full", "full"]
        assert all(d.source == "A" for d in items)
        assert items == sorted(items, key=lambda d: d.at)
        # wen's names started at partial: both records of her pair, as "start" disclosures
        everything = list(project_disclosures(project))
        starts = [(d.record, d.attribute, d.level) for d in everything if d.how == "start"]
        assert sorted(starts) == [("2", "name", "partial"), ("4", "name", "partial")]


def test_one_record_by_source_and_id(app, reviewed):
    project_id, _, _ = reviewed
    with app.app_context():
        from app.models import Project

        project = db.session.get(Project, project_id)
        one = record_disclosures(project, "A", "1")
        assert [(d.attribute, d.level_from, d.level) for d in one.disclosures] == [
            ("name", "masked", "partial"),
            ("name", "partial", "full"),
        ]
        assert one.highest == {"name": "full", "dob": "masked", "race": "masked"}
        two = record_disclosures(project, "A", "2")
        assert two.highest == {"name": "partial", "dob": "full", "race": "masked"}
        assert record_disclosures(project, "A", "3").highest["race"] == "full"
        with pytest.raises(RecordNotFound):
            record_disclosures(project, "B", "1")
        with pytest.raises(RecordNotFound):
            record_disclosures(project, "A", "Mary")  # never chosen by value


def test_people_by_what_was_disclosed(app, reviewed):
    project_id, _, _ = reviewed
    with app.app_context():
        from app.models import Project

        summary = disclosure_summary(db.session.get(Project, project_id))
    assert summary.records == 4 and summary.reveals == 5
    # name: 1 full, 2 and 4 partial (wen's start), 3 never
    assert summary.counts["name"] == {"nothing": 1, "something": 2, "everything": 1}
    assert summary.counts["dob"] == {"nothing": 3, "something": 0, "everything": 1}
    assert summary.counts["race"] == {"nothing": 2, "something": 0, "everything": 2}
    # together: every record had something shown, none had all three at full
    assert summary.counts[ANY] == {"nothing": 0, "something": 4, "everything": 0}


def test_far_apart_counts_are_drawn_side_by_side_on_a_logarithmic_scale():
    from app.projects.custody.summary import DisclosureSummary, disclosure_chart

    febrl = {"given_name": {"nothing": 9837, "something": 120, "everything": 43}}
    chart = disclosure_chart(DisclosureSummary(1, "FEBRL4", 10_000, 300, febrl, False))
    assert chart["y"]["scale"] == "logarithmic" and "stacked" not in chart
    assert chart["series"][1]["data"] == [120]  # the 163 records with something shown
    small = {"name": {"nothing": 3, "something": 1, "everything": 0}}
    chart = disclosure_chart(DisclosureSummary(1, "Paper", 4, 1, small, False))
    assert chart["y"]["scale"] == "linear" and chart["stacked"] is True
