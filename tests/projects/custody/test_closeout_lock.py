"""Close-out and a worker's answer exclude each other: an answer is counted in the close-out's
exports or refused, never written after them (PostgreSQL: the project row's locks; SQLite:
its one writer, and the check made at the insert on both)."""

# ruff: noqa: F811  (the tests take the fixtures imported from test_closeout)
from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from app.extensions import db
from app.models import Assignment, CloseOut, DecisionEvent, Project, RevealEvent, User
from app.projects.custody import close_project, export_hashes, final_exports
from app.review.answers import AnswersClosed, clear_answer, record_decision, save_answer
from app.review.answers.save import append_answer
from app.review.reveal.refusals import ProjectClosed
from app.review.services import reveal_cell
from tests.projects.custody.test_closeout import _settle, app_overrides, finished  # noqa: F401

VALUE_FREE = ("labels", "clusters", "linkage", "splink")  # the same before and after close-out


def _events() -> int:
    return db.session.scalar(sa.select(sa.func.count(DecisionEvent.id)))


def _exports_still_match(project_id: int) -> None:
    """The value-free exports now are those the close-out hashed: no answer came after."""
    project = db.session.get(Project, project_id)
    row = db.session.scalar(sa.select(CloseOut).where(CloseOut.project_id == project_id))
    now = export_hashes(final_exports(project))
    for name in VALUE_FREE:
        (key,) = [k for k in now if k.endswith(f"-{name}.csv")]
        assert now[key] == row.exports[key], name


def _close(app, project_id: int, hold: threading.Event | None = None) -> None:
    with app.app_context():
        project = db.session.get(Project, project_id)
        close_project(project, project.owner)
        if hold is not None:
            hold.wait(30)
        db.session.commit()


def _run(target, errors: list, *args) -> threading.Thread:
    def body():
        try:
            target(*args)
        except BaseException as exc:  # noqa: BLE001 (reported by the test)
            errors.append(exc)

    thread = threading.Thread(target=body)
    thread.start()
    return thread


def test_an_answer_after_close_out_is_refused_at_the_insert(app, finished):
    _settle(app, finished)
    project_id, assignment_id, _ = finished["ids"]
    _close(app, project_id)
    with app.app_context():
        wes = db.session.scalar(sa.select(User).where(User.username == "wes"))
        before = _events()
        with pytest.raises(AnswersClosed, match="closed out"):
            save_answer(assignment_id, finished["pairs"][0], "different", "high", by=wes)
        # past the early check (a read before the lock): the insert checks again
        with pytest.raises(AnswersClosed, match="closed out"):
            record_decision(
                db.session.get(Assignment, assignment_id), finished["pairs"][0], "different",
                "high", by=wes,
            )  # fmt: skip
        with pytest.raises(AnswersClosed):  # a clear is an answer too
            clear_answer(db.session.get(Assignment, assignment_id), finished["pairs"][0], by=wes)
        connection = db.session.connection()
        with pytest.raises(AnswersClosed):
            append_answer(connection, assignment_id, finished["pairs"][0], "same", "low", wes.id)
        db.session.rollback()
        assert _events() == before
        _exports_still_match(project_id)


@pytest.mark.postgres  # SQLite's one writer orders them: no lock to wait for
def test_an_answer_waits_for_a_close_out_in_progress_then_is_refused(app, finished):
    _settle(app, finished)
    project_id, assignment_id, _ = finished["ids"]
    hold, errors = threading.Event(), []
    closing = _run(_close, errors, app, project_id, hold)
    with app.app_context():
        wes_id = db.session.scalar(sa.select(User.id).where(User.username == "wes"))
        before = _events()
    while not errors and closing.is_alive() and not _closed_in_progress(app, project_id):
        closing.join(0.05)

    def answer():
        with app.app_context():
            worker = db.session.get(User, wes_id)
            save_answer(assignment_id, finished["pairs"][0], "different", "high", by=worker)
            db.session.commit()

    answering = _run(answer, errors)
    answering.join(1.0)
    assert answering.is_alive(), errors  # waits for the close-out's row lock
    hold.set()
    closing.join(30)
    answering.join(30)
    assert [type(e) for e in errors] == [AnswersClosed]
    with app.app_context():
        assert _events() == before
        _exports_still_match(project_id)


def _closed_in_progress(app, project_id: int) -> bool:
    """Whether another transaction holds the project's row lock (the close-out's)."""
    with app.app_context():
        query = sa.select(Project.id).where(Project.id == project_id)
        try:
            db.session.execute(query.with_for_update(nowait=True)).all()
            return False
        except sa.exc.OperationalError:  # lock_not_available: the close-out holds it
            return True
        finally:
            db.session.rollback()


@pytest.mark.postgres
def test_a_close_out_waits_for_an_answer_in_flight_then_counts_it(app, finished):
    _settle(app, finished)
    project_id, assignment_id, _ = finished["ids"]
    answered, go, errors = threading.Event(), threading.Event(), []

    def answer():
        with app.app_context():
            wes = db.session.scalar(sa.select(User).where(User.username == "wes"))
            assignment = db.session.get(Assignment, assignment_id)
            record_decision(assignment, finished["pairs"][0], "different", "high", by=wes)
            answered.set()
            go.wait(30)
            db.session.commit()

    answering = _run(answer, errors)
    assert answered.wait(30), errors
    closing = _run(_close, errors, app, project_id)
    closing.join(1.0)
    assert closing.is_alive(), errors  # waits for the answer's lock of the project row
    go.set()
    answering.join(30)
    closing.join(30)
    assert not errors, errors
    with app.app_context():
        newest = db.session.scalar(sa.select(sa.func.max(DecisionEvent.id)))
        assert db.session.get(DecisionEvent, newest).decision == "different"
        _exports_still_match(project_id)


@pytest.mark.postgres
def test_close_out_and_an_answer_started_together(app, finished):
    _settle(app, finished)
    project_id, assignment_id, _ = finished["ids"]
    barrier, errors = threading.Barrier(2, timeout=60), []
    with app.app_context():
        wes_id = db.session.scalar(sa.select(User.id).where(User.username == "wes"))
        before = _events()

    def close():
        barrier.wait()
        _close(app, project_id)

    def answer():
        with app.app_context():
            worker = db.session.get(User, wes_id)
            barrier.wait()
            save_answer(assignment_id, finished["pairs"][0], "different", "high", by=worker)
            db.session.commit()

    threads = [_run(close, errors), _run(answer, errors)]
    for thread in threads:
        thread.join(60)
    assert all(isinstance(e, AnswersClosed) for e in errors), errors
    with app.app_context():
        assert _events() == before + (0 if errors else 1)
        _exports_still_match(project_id)  # counted in the close-out's exports, or refused


@pytest.mark.postgres
def test_a_reveal_waits_for_a_close_out_in_progress_then_is_refused(app, finished):
    _settle(app, finished)
    project_id, assignment_id, _ = finished["ids"]
    hold, errors = threading.Event(), []
    with app.app_context():
        wes_id = db.session.scalar(sa.select(User.id).where(User.username == "wes"))
        reveals = db.session.scalar(sa.select(sa.func.count(RevealEvent.id)))
    closing = _run(_close, errors, app, project_id, hold)
    while not errors and closing.is_alive() and not _closed_in_progress(app, project_id):
        closing.join(0.05)

    def reveal():
        with app.app_context():
            worker = db.session.get(User, wes_id)
            reveal_cell(assignment_id, finished["pairs"][1], 0, "first_name", by=worker)
            db.session.commit()

    revealing = _run(reveal, errors)
    revealing.join(1.0)
    assert revealing.is_alive(), errors  # its charge waits for the close-out's row lock
    hold.set()
    closing.join(30)
    revealing.join(30)
    assert [type(e) for e in errors] == [ProjectClosed]
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(RevealEvent.id))) == reveals
