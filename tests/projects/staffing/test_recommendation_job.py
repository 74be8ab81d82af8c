"""The budget recommendation as a job: progress in percent, then the same exact values."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import Job, User
from app.projects.staffing.recommendation import Recommendation, budget_recommendation
from app.projects.staffing.recommending import runs_as_job
from tests.factories import PASSWORD, make_assignment, make_user, paper_project


@pytest.fixture
def long(app):
    """The paper project, with every recommendation counted as long (a job)."""
    app.config["RECOMMENDATION_INLINE_PAIRS"] = 2
    with app.app_context():
        manager = make_user("max", "manager")
        project = paper_project(manager)
        assignment = make_assignment(project, make_user("wes"), pairs=[1, 2, 3])
        make_user("other", "manager")
        return project.id, assignment.id


def _login(client, name="max"):
    client.post("/login", data={"username": name, "password": PASSWORD})


def test_as_dict_reads_back_exactly(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        exact = budget_recommendation(project)
        app.config["RECOMMENDATION_SAMPLE"] = 4
        sampled = budget_recommendation(project)
    for advice in (exact, sampled):
        assert Recommendation.from_dict(advice.as_dict()) == advice


def test_a_long_recommendation_runs_as_a_job_and_shows_percentages(app, client, long):
    pid, _ = long
    _login(client)
    page = client.get(f"/projects/{pid}/budget-recommendation").text
    assert 'id="recommendation-start"' in page and "7/108" not in page
    started = client.post(f"/projects/{pid}/budget-recommendation/jobs")
    assert started.status_code == 302 and "/budget-recommendation/jobs/" in started.location
    shown = client.get(started.location).text  # the tests' executor ran it inline: done
    assert 'data-exact="7/108">6.48%</span>' in shown and 'id="advice-quantiles"' in shown
    assert '"exact"' not in shown and "{&#34;" not in shown  # never JSON in the page
    rows = client.get(started.location + ".csv").text.splitlines()
    assert rows[0] == "pair,kapr_exact,kapr,kapr_percent" and rows[1].startswith("1,1/18,")
    with app.app_context():
        job = db.session.scalar(db.select(Job).where(Job.kind == "recommendation"))
        assert job.result["advice"]["kapr"]["exact"] == "7/108"
    client.post("/logout")
    _login(client, "other")  # another manager sees neither the project nor the job
    assert client.get(started.location).status_code in (403, 404)


def test_an_assignment_s_recommendation_as_a_job(app, client, long):
    pid, aid = long
    _login(client)
    page = client.get(f"/projects/{pid}/budget-recommendation?assignment={aid}").text
    assert f'name="assignment" value="{aid}"' in page
    started = client.post(f"/projects/{pid}/budget-recommendation/jobs", data={"assignment": aid})
    shown = client.get(started.location).text
    assert "Over the 3 pairs of wes" in shown
    assert (
        client.post(
            f"/projects/{pid}/budget-recommendation/jobs", data={"assignment": 999}
        ).status_code
        == 404
    )


def test_a_running_job_shows_its_progress_in_percent(app, client, long):
    pid, _ = long
    with app.app_context():
        max_id = db.session.scalar(db.select(User.id).where(User.username == "max"))
        job = Job(kind="recommendation", status="running", created_by=max_id,
                  progress_done=400, progress_total=1000)  # fmt: skip
        db.session.add(job)
        db.session.commit()
        job_id = job.id
    _login(client)
    page = client.get(f"/projects/{pid}/budget-recommendation/jobs/{job_id}").text
    assert 'id="job-progress">40.00%</span> of the pairs priced' in page
    assert 'http-equiv="refresh"' in page and "400" not in page
    assert client.get(f"/projects/{pid}/budget-recommendation/jobs/{job_id}.csv").status_code == 404


def test_jobs_of_other_kinds_or_people_are_not_recommendations(app, client, long):
    pid, _ = long
    with app.app_context():
        max_id = db.session.scalar(db.select(User.id).where(User.username == "max"))
        other = db.session.scalar(db.select(User.id).where(User.username == "other"))
        jobs = [Job(kind="scoring", status="done", created_by=max_id),
                Job(kind="recommendation", status="running", created_by=other)]  # fmt: skip
        db.session.add_all(jobs)
        db.session.commit()
        ids = [j.id for j in jobs]
    _login(client)
    for job_id in ids:
        assert client.get(f"/projects/{pid}/budget-recommendation/jobs/{job_id}").status_code == 404


def test_the_assignment_form_links_to_a_long_recommendation(app, client, long):
    pid, _ = long
    _login(client)
    page = client.get(f"/projects/{pid}/assignments").text
    assert 'id="advice-link"' in page and "7/108" not in page


def test_an_index_not_in_memory_counts_as_long(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        assert not runs_as_job(project)  # 6 pairs, 4 records
        app.config["RECOMMENDATION_INLINE_RECORDS"] = 3
        assert runs_as_job(project)  # the index is stored, not loaded yet
        budget_recommendation(project)
        assert not runs_as_job(project)
        app.extensions.pop("mindfirl_indexes", None)
        assert runs_as_job(project)  # 4 records to load
