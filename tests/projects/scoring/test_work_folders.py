"""Cancel interrupts a scoring run; a killed run's working folder is swept; close-out waits
for a folder a live process holds (issue 42, point 3): after a cancelled and after a killed
run, close-out leaves no working folder and no value on the disk (raw bytes of the database
files and of every file under the test's folder). Small projects, a few seconds each."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from app import create_app, jobs
from app.extensions import db
from app.jobs import executor
from app.models import Job, Project, User
from app.projects.custody import CloseOutRefused, close_project, erase_storage
from app.projects.scoring import submit_scoring, upload_model
from app.projects.scoring.runs.recovery import claim_work_dir, held, sweep_work_dirs
from app.review.answers.save import save_answer
from tests.factories import make_assignment, make_user
from tests.projects.custody.disk import own_database, stored_values, values_on_disk
from tests.projects.scoring.febrl import febrl4_project
from tests.projects.scoring.hang import MARK, hang_in_duckdb

REPO = Path(__file__).parents[3]


@pytest.fixture
def database_config(tmp_path):
    yield from own_database(tmp_path)


@pytest.fixture
def app_overrides(app_overrides):
    # a shared server's other transactions must end first (VACUUM FULL would keep rows)
    return {**app_overrides, "CLOSEOUT_ERASE_WAIT_SECONDS": 120}


@pytest.fixture
def small(app, manager, febrl_model):
    """A 20 + 20 record FEBRL4 project with the FEBRL4 model, its one pair answered; its id."""
    with app.app_context():
        owner = db.session.get(User, manager)
        project = febrl4_project(owner, limit=20)
        upload_model(project, json.dumps(febrl_model), owner)
        db.session.commit()
        wes = make_user("wes")
        assignment = make_assignment(project, wes)
        save_answer(assignment.id, assignment.pairs[0].pair_id, "same", "high", by=wes)
        db.session.commit()
        return project.id


def wait_for(condition, what: str, limit: float = 60.0) -> None:
    """Poll ``condition()`` until true; fail naming ``what`` past ``limit`` seconds."""
    end = time.monotonic() + limit
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.05)


def folders(app) -> list[Path]:
    return sorted(Path(app.config["SCORING_WORK_DIR"]).glob("*project*"))


def hanging(app) -> bool:
    return any((f / MARK).exists() for f in folders(app))


def close_out(app, project_id: int) -> None:
    """Close the project out as its page does (the pass over the files included)."""
    with app.app_context():
        project = db.session.get(Project, project_id)
        close_project(project, project.owner)
        db.session.commit()
        assert erase_storage([project_id]).complete


def values_of(app, project_id: int) -> list[str]:
    with app.app_context():
        return stored_values(project_id)


def test_a_cancel_interrupts_the_running_query_and_nothing_is_left_after_close_out(
    app, small, manager, monkeypatch, tmp_path
):
    hang_in_duckdb(monkeypatch)
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setitem(executor._pools, "thread", pool)
    app.config["JOBS_EXECUTOR"] = "thread"
    with app.app_context():
        job_id = submit_scoring(db.session.get(Project, small), db.session.get(User, manager))
        db.session.commit()
    wait_for(lambda: hanging(app), "the run to start its endless query")
    assert all(held(f) for f in folders(app))
    with app.app_context():
        assert jobs.cancel(job_id)
    stopped = threading.Thread(target=pool.shutdown)
    stopped.start()
    stopped.join(timeout=60)
    assert not stopped.is_alive(), "the cancelled job computes on: its query was not interrupted"
    with app.app_context():
        job = db.session.get(Job, job_id)
        assert (job.status, job.result) == ("cancelled", None)
    assert folders(app) == []
    values = values_of(app, small)
    close_out(app, small)
    with app.app_context():
        assert values_on_disk(values, tmp_path) == {}


def test_a_killed_run_leaves_its_folder_with_values_and_close_out_removes_it(
    app, small, manager, database_config, tmp_path
):
    config = {k: v for k, v in app.config.items() if k in database_config}
    config["SCORING_WORK_DIR"] = app.config["SCORING_WORK_DIR"]
    config["SCORING_OUTPUT_DIR"] = app.config["SCORING_OUTPUT_DIR"]
    told = tmp_path / "child.err"
    with told.open("wb") as err:
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.projects.scoring.hang", json.dumps(config),
             str(small), str(manager)],
            cwd=REPO, stderr=err,
        )  # fmt: skip
    values = values_of(app, small)

    def state() -> str:  # what to know when the close-out is not refused (it was once, in CI)
        seen = [(f.name, (f / MARK).exists(), held(f)) for f in folders(app)]
        told_tail = told.read_text(errors="replace")[-1500:]
        with app.app_context():
            rows = db.session.execute(db.select(Job.id, Job.status, Job.error, Job.result)).all()
            db.session.rollback()
        return (
            f"child exit {child.poll()}; folders (name, hanging, held) {seen}; jobs {rows};"
            f" {told_tail}"
        )

    try:
        wait_for(lambda: hanging(app) or child.poll() is not None, "the child's run")
        assert child.poll() is None, "the child's run ended instead of hanging: " + state()
        before = state()
        with app.app_context():
            project = db.session.get(Project, small)
            # (its job row is linked to the model once submit returns: the folder tells)
            with pytest.raises(CloseOutRefused, match="still works in its folder"):
                close_project(project, project.owner)
                db.session.rollback()  # SQLite's write lock goes before state() reads
                pytest.fail(f"closed out; before: {before}; after: {state()}")
            db.session.rollback()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    (left,) = folders(app)
    assert held(left) is False  # the kernel let go of the dead process's lock
    with app.app_context():
        assert values_on_disk(values, left), "the dead run's DuckDB files hold no value?"
        assert db.session.scalars(db.select(Job.status)).one() == "running"  # as it died
    close_out(app, small)
    assert folders(app) == []
    with app.app_context():
        assert values_on_disk(values, tmp_path) == {}


def test_the_start_sweeps_what_a_killed_run_left(app, database_config):
    root = Path(app.config["SCORING_WORK_DIR"])
    root.mkdir(parents=True, exist_ok=True)
    dead = claim_work_dir(root, "job7-project1-")
    dead.lock.close()
    started = create_app({"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False,
                          "JOBS_RECONCILE_ON_START": True, **database_config,
                          "SCORING_WORK_DIR": str(root)})  # fmt: skip
    with started.app_context():
        for engine in db.engines.values():
            engine.dispose()
    assert not dead.path.exists()


def test_close_out_waits_for_a_folder_a_live_process_holds_then_removes_it(app, small):
    root = Path(app.config["SCORING_WORK_DIR"])
    root.mkdir(parents=True, exist_ok=True)
    with app.app_context():
        job = Job(kind="scoring", status="cancelled")  # cancelled, its process still stopping
        db.session.add(job)
        db.session.commit()
        hold = claim_work_dir(root, f"job{job.id}-project{small}-")
        (hold.path / "work.duckdb").write_bytes(b"Zorvath")
        project = db.session.get(Project, small)
        with pytest.raises(CloseOutRefused, match=f"job {job.id}.* still works in its folder"):
            close_project(project, project.owner)
        db.session.rollback()
        assert hold.path.exists() and not db.session.get(Project, small).closed
        hold.lock.close()  # the process ended without its clean-up (killed)
        project = db.session.get(Project, small)
        row = close_project(project, project.owner)
        db.session.commit()
        assert row.destroyed["working_folders"] == 1
    assert not hold.path.exists()


def test_orphaned_folders_are_swept_on_a_timer_and_held_ones_kept(app):
    root = Path(app.config["SCORING_WORK_DIR"])
    root.mkdir(parents=True, exist_ok=True)
    live, dead = (claim_work_dir(root, f"pid{os.getpid()}-project{n}-") for n in (1, 2))
    dead.lock.close()
    legacy = root / "job999-project3-x"  # made before locks: its job's row must tell
    legacy.mkdir()
    stop = jobs.start_housekeeping(app, 0.05)
    try:
        wait_for(lambda: not dead.path.exists() and not legacy.exists(), "the timer's sweep")
    finally:
        stop.set()
    assert live.path.exists() and held(live.path)
    with app.app_context():
        assert sweep_work_dirs(root) == 0
    live.release()
    assert not live.path.exists()
