import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.models import (
    CellState,
    ConflictReferral,
    ConflictResolution,
    DecisionEvent,
    Pair,
    Project,
    QualityCheck,
    Record,
    RevealEvent,
    VaultRecord,
)
from app.projects.lifecycle import ProjectSpecError, create_project, delete_project
from tests.factories import make_assignment, make_user, paper_project


def count(model):
    return db.session.scalar(sa.select(sa.func.count()).select_from(model))


def test_paper_project_splits_identifying_and_sensitive(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        records = db.session.scalars(sa.select(Record).order_by(Record.position)).all()
        assert [r.values for r in records][0] == {
            "name": "Mary",
            "dob": "08091964",
            "race": "Hispanic",
        }
        assert all("income" not in r.values for r in records)
        vault = {v.pseudonym: v.values for v in db.session.scalars(sa.select(VaultRecord))}
        assert vault[records[0].pseudonym] == {"income": "69,426"}
        assert len({r.pseudonym for r in records}) == 4
        assert count(Pair) == 6  # all pairs of 4 records
        assert project.kind == "dedupe"


def _work_on(project, worker, manager):
    """An assignment of ``project`` with a row in every table that holds a pair: a cell, a
    reveal, two answers (their states and counts by trigger), a conflict's resolution and
    referral, a quality check."""
    assignment = make_assignment(project, worker)
    pair_id = assignment.pairs[0].pair_id
    attribute = project.attributes[0]
    at = {"assignment_id": assignment.id, "pair_id": pair_id}
    db.session.add(CellState(**at, row=0, attribute_id=attribute.id, level="partial"))
    db.session.add(
        RevealEvent(
            **at, row=0, attribute_id=attribute.id, user_id=worker.id, level_from="masked",
            level_to="partial", cost_exact="1/9", kapr_before_exact="0",
            kapr_after_exact="1/9", kapr_after=0.1,
        )
    )  # fmt: skip
    for decision in ("same", "different"):
        db.session.add(DecisionEvent(**at, user_id=worker.id, decision=decision))
    db.session.add(ConflictResolution(pair_id=pair_id, resolved_by=manager.id, decision="same"))
    db.session.add(ConflictReferral(**at, referred_by=manager.id))
    db.session.add(QualityCheck(**at, project_id=project.id, source="truth", expected="same"))
    db.session.commit()
    return assignment


def _rows_of(pairs: set[int], assignments: set[int]) -> dict[str, int]:
    """Rows of every table with a ``pair_id`` or ``assignment_id`` column that name one of
    ``pairs`` or ``assignments``: every table, so a new one is covered without a change here."""
    found = {}
    for table in db.metadata.sorted_tables:
        for column, ids in (("pair_id", pairs), ("assignment_id", assignments)):
            if column in table.c and ids:
                n = db.session.scalar(
                    sa.select(sa.func.count()).select_from(table).where(table.c[column].in_(ids))
                )
                found[f"{table.name}.{column}"] = n
    return found


def test_deleting_a_project_removes_everything_of_it(app):
    """No table has a key to pairs (``app.models.pair``), so the cascade of a key deletes none
    of these rows: ``delete_project`` must, in every table, and leave the other project's."""
    with app.app_context():
        manager, worker = make_user("max", "manager"), make_user("wes", "worker")
        keep = paper_project(manager, name="keep")
        doomed = paper_project(manager, name="doomed")
        kept = _work_on(keep, worker, manager)
        gone = _work_on(doomed, worker, manager)

        def ids(project):
            pairs = db.session.scalars(sa.select(Pair.id).where(Pair.project_id == project.id))
            return set(pairs)

        doomed_pairs, keep_pairs = ids(doomed), ids(keep)
        doomed_work, keep_work = {gone.id}, {kept.id}
        before = _rows_of(keep_pairs, keep_work)
        tables = {
            name.split(".")[0] for name, n in _rows_of(doomed_pairs, doomed_work).items() if n
        }
        assert {"assignment_pairs", "cell_states", "reveal_events", "decision_events",
                "answer_states", "pair_answers", "conflict_resolutions", "conflict_referrals",
                "quality_checks"} <= tables  # fmt: skip

        delete_project(db.session.get(Project, doomed.id))
        db.session.commit()

        assert set(_rows_of(doomed_pairs, doomed_work).values()) == {0}
        assert _rows_of(keep_pairs, keep_work) == before
        assert count(Record) == 4 and count(Pair) == 6 and count(VaultRecord) == 4
        assert (
            db.session.scalar(
                sa.select(sa.func.count())
                .select_from(VaultRecord)
                .where(VaultRecord.project_id == keep.id)
            )
            == 4
        )


def test_events_are_append_only(app):
    with app.app_context():
        worker = make_user("wes", "worker")
        project = paper_project(make_user("max", "manager"))
        assignment = make_assignment(project, worker)
        event = DecisionEvent(
            assignment_id=assignment.id,
            pair_id=assignment.pairs[0].pair_id,
            user_id=worker.id,
            decision="same",
            confidence="low",
        )
        db.session.add(event)
        db.session.commit()
        event.decision = "different"
        with pytest.raises(PermissionError, match="append-only"):
            db.session.commit()
        db.session.rollback()


def test_a_pair_cannot_repeat(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        pair = db.session.scalars(sa.select(Pair)).first()
        db.session.add(
            Pair(project_id=project.id, record_a_id=pair.record_a_id, record_b_id=pair.record_b_id)
        )
        with pytest.raises(IntegrityError):
            db.session.commit()
        db.session.rollback()


def test_the_unique_index_holds_the_reviewed_pairs_and_deleting_takes_every_pair(app):
    """The model's pairs are outside the unique index (the import keeps them unique, see
    tests/projects/triage); with no keys to records, a project's pairs go with the project."""
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        pair = db.session.scalars(sa.select(Pair)).first()
        for _ in range(2):
            db.session.add(
                Pair(
                    project_id=project.id, record_a_id=pair.record_a_id,
                    record_b_id=pair.record_b_id, purpose="model", round=2,
                    model_decision="non_match",
                )
            )  # fmt: skip
        db.session.commit()
        assert count(Pair) == 8
        delete_project(project)
        db.session.commit()
        assert (count(Pair), count(Record)) == (0, 0)


@pytest.mark.parametrize(
    "change", [{"purpose": "other"}, {"model_decision": "maybe"}, {"round": 0}]
)
def test_the_checks_refuse_an_unknown_purpose_decision_or_round(app, change):
    """The checks are ``=`` … ``OR`` chains now (``app.models.pair.one_of``), not ``IN``."""
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        pair = db.session.scalars(sa.select(Pair)).first()
        fields = {"purpose": "model", "model_decision": "match", "round": 2, **change}
        db.session.add(
            Pair(project_id=project.id, record_a_id=pair.record_b_id,
                 record_b_id=pair.record_a_id, **fields)
        )  # fmt: skip
        with pytest.raises(IntegrityError):
            db.session.commit()
        db.session.rollback()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "merge"}, "'kind' must be"),
        ({"kappa": 0}, "'kappa' must be"),
        ({"evidence_model": "table"}, "'evidence_model' must be"),
        ({"attributes": [{"name": "x", "type": "colour"}]}, "type must be"),
        ({"attributes": [{"name": "x", "sensitive": True}]}, "at least one attribute"),
        ({"records": [{"id": "1", "name": "A", "dob": "13/45/2000", "race": "x"}]}, "not a"),
        ({"records": [{"id": "1"}, {"id": "1"}]}, "duplicate id"),
        ({"pairs": [["1", "9"]]}, "unknown record id"),
        ({"pairs": [["1", "1"]]}, "cannot be paired with itself"),
    ],
)
def test_bad_project_spec_is_refused_and_changes_nothing(app, change, message):
    from app.demo import PAPER_EXAMPLE

    with app.app_context():
        manager = make_user("max", "manager")
        with pytest.raises(ProjectSpecError, match=message):
            create_project({**PAPER_EXAMPLE, **change}, manager)
        db.session.rollback()
        assert count(Project) == 0 and count(Record) == 0 and count(VaultRecord) == 0
