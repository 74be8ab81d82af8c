"""The close-out page's final exports are written and hashed by a job the page follows
(what it writes said step by step); a page shown again reuses the hashes while the project is
as it was, and a project that changed gets them written again. The close-out POST takes that
preparation's hashes (no export written again) and is refused, changing nothing, when the
project changed since; the pass over the database files after it is a job the closed page
follows."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.jobs.worker import Worker
from app.models import CloseOut, Job, Project, Record, User
from app.projects.custody import closeout, erasing
from app.projects.custody.prepare import KIND
from app.review.services import reveal_cell
from tests.projects.custody.test_custody_web import done, login  # noqa: F401, F811 (a fixture)


def _jobs(app) -> list[Job]:
    with app.app_context():
        rows = db.session.scalars(db.select(Job).where(Job.kind == KIND).order_by(Job.id)).all()
        db.session.expunge_all()
        return rows


def test_the_page_follows_a_job_then_shows_the_hashes(app, client, done):  # noqa: F811
    app.config["JOBS_EXECUTOR"] = "queue"  # the job waits for a worker: the page follows it
    login(client, "max")
    base = f"/projects/{done['project']}/closeout"
    first = client.get(base)
    (job,) = _jobs(app)
    assert first.status_code == 302 and first.headers["Location"].endswith(f"?job={job.id}")
    waiting = client.get(f"{base}?job={job.id}").get_data(as_text=True)
    assert "The final exports are being written" in waiting and 'id="job-waiting"' in waiting
    assert 'http-equiv="refresh"' in waiting and 'name="digest"' not in waiting
    assert Worker(app, until_empty=True).run() == 1
    (job,) = _jobs(app)
    assert job.status == "done" and job.step.startswith("writing and hashing the ")
    assert set(job.result) == {"project_id", "state", "hashes"}  # hashes, never a value
    shown = client.get(f"{base}?job={job.id}").get_data(as_text=True)
    digest = shown.split('name="digest" value="')[1].split('"')[0]
    assert 'id="export-hashes"' in shown and len(digest) == 64
    # Shown again as the project is: the same hashes, no new job.
    again = client.get(base).get_data(as_text=True)
    assert digest in again and len(_jobs(app)) == 1
    # The project changed (renamed: its export file names change): written again.
    with app.app_context():
        db.session.get(Project, done["project"]).name = "Paper, renamed"
        db.session.commit()
    assert client.get(base).status_code == 302 and len(_jobs(app)) == 2
    Worker(app, until_empty=True).run()
    renamed = client.get(base, follow_redirects=True).get_data(as_text=True)
    assert "Paper-renamed" in renamed and digest not in renamed
    closed = client.post(base, data={"digest": digest, "confirm": "yes"}, follow_redirects=True)
    assert "the exports changed since they were downloaded" in closed.get_data(as_text=True)


def _shown_digest(client, base: str) -> str:
    page = client.get(base, follow_redirects=True).get_data(as_text=True)
    return page.split('name="digest" value="')[1].split('"')[0]


def test_the_post_takes_the_prepared_hashes(app, client, done, monkeypatch):  # noqa: F811
    login(client, "max")
    base = f"/projects/{done['project']}/closeout"
    digest = _shown_digest(client, base)  # the preparation ran (inline)
    (job,) = _jobs(app)

    def written_again(*args, **kwargs):
        raise AssertionError("the close-out wrote the exports again")

    monkeypatch.setattr(closeout, "final_exports", written_again)
    shown = client.post(base, data={"digest": digest, "confirm": "yes"}, follow_redirects=True)
    assert "The project is closed out" in shown.get_data(as_text=True)
    with app.app_context():
        row = db.session.scalars(db.select(CloseOut)).one()
        assert row.exports == job.result["hashes"] and closeout.digest(row.exports) == digest


@pytest.mark.parametrize("change", ["reveal", "never prepared"])
def test_a_changed_project_is_refused_and_keeps_its_values(app, client, done, change):  # noqa: F811
    """A reveal after the page was prepared changes the labels export (its KAPR): the
    preparation no longer fits, so the POST is refused and nothing is destroyed."""
    login(client, "max")
    base = f"/projects/{done['project']}/closeout"
    digest = _shown_digest(client, base)
    with app.app_context():
        if change == "reveal":
            wes = db.session.scalars(db.select(User).filter_by(username="wes")).one()
            reveal_cell(done["assignment"], done["pairs"][1], 0, "name", by=wes)
        else:  # e.g. its preparation is gone: nothing to take, so nothing is taken on trust
            db.session.execute(db.delete(Job).where(Job.kind == KIND))
        db.session.commit()
    refused = client.post(base, data={"digest": digest, "confirm": "yes"}, follow_redirects=True)
    text = refused.get_data(as_text=True)
    assert "the project changed since its final exports were prepared" in text
    with app.app_context():
        project = db.session.get(Project, done["project"])
        assert not project.closed and db.session.scalars(db.select(CloseOut)).first() is None
        records = db.session.scalars(db.select(Record).filter_by(project_id=project.id))
        assert all(r.values for r in records)
    # The page prepares the project as it is now: that digest closes it.
    again = _shown_digest(client, base)
    assert (again != digest) == (change == "reveal")
    closed = client.post(base, data={"digest": again, "confirm": "yes"}, follow_redirects=True)
    assert "The project is closed out" in closed.get_data(as_text=True)


def test_the_closed_page_follows_the_pass_over_the_database_files(app, client, done):  # noqa: F811
    login(client, "max")
    base = f"/projects/{done['project']}/closeout"
    digest = _shown_digest(client, base)  # prepared inline
    app.config["JOBS_EXECUTOR"] = "queue"  # the pass waits for a worker: the page follows it
    closed = client.post(base, data={"digest": digest, "confirm": "yes"})
    with app.app_context():
        (job,) = db.session.scalars(db.select(Job).where(Job.kind == erasing.KIND)).all()
        assert job.status == "queued" and job.created_by is not None
        job_id = job.id
        # while it waits, it is this project's pass and no other's
        assert erasing.erasure_job(job_id, done["project"]) is not None
        assert erasing.erasure_job(job_id, done["project"] + 1) is None
    assert closed.status_code == 302 and closed.headers["Location"].endswith(f"?job={job_id}")
    page = client.get(closed.headers["Location"]).get_data(as_text=True)
    assert (
        "The project is closed out" in page and "erasing them from the database files now" in page
    )
    assert 'id="erasing"' in page and 'id="job-waiting"' in page and 'http-equiv="refresh"' in page
    assert Worker(app, until_empty=True).run() == 1
    with app.app_context():
        job = db.session.get(Job, job_id)
        assert job.status == "done" and job.step.startswith("VACUUM")
        assert set(job.result) == {"project_ids", "erasure", "complete"} and job.result["complete"]
    page = client.get(closed.headers["Location"]).get_data(as_text=True)
    assert 'id="erasing"' not in page and 'http-equiv="refresh"' not in page
    assert "Erased from the database files" in page
    # Another project's page does not take this project's job.
    with app.app_context():
        assert erasing.erasure_job(job_id, done["project"] + 1) is None
