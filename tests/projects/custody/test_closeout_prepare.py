"""The close-out page's final exports are written and hashed by a job the page follows
(what it writes said step by step); a page shown again reuses the hashes while the project is
as it was, and a project that changed gets them written again."""

from __future__ import annotations

from app.extensions import db
from app.jobs.worker import Worker
from app.models import Job, Project
from app.projects.custody.prepare import KIND
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
