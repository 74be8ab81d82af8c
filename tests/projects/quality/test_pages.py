"""The managers' forms of reviewer quality: checks in the assignment form, the settings."""

from __future__ import annotations

from sqlalchemy import select

from app.extensions import db
from app.models import Assignment, Project, QualityCheck
from tests.projects.quality.conftest import voters

H = lambda token: {"Authorization": f"Bearer {token}"}  # noqa: E731


def test_the_assignment_form_mixes_checks_in(app, client):
    project_id, manager, _tokens = voters(app, n=60)
    form = {"worker-ann": "on", "budget-ann": "30", "worker-bob": "on", "budget-bob": "30",
            "coding": "double", "check_share": "20", "check_source": "synthetic"}  # fmt: skip
    done = client.post(f"/projects/{project_id}/assignments", data=form, headers=H(manager))
    assert done.status_code == 302, done.get_data(as_text=True)[:500]
    with app.app_context():
        made = db.session.scalars(select(Assignment)).all()
        assert len(made) == 2 and all(a.check_share == 0.2 for a in made)
        checks = db.session.scalars(select(QualityCheck.pair_id)).all()
        assert checks and len(checks) == 2 * len(set(checks))  # double-coded checks
    bad = {**form, "check_share": "80"}
    with app.app_context():
        for a in db.session.scalars(select(Assignment)):
            db.session.delete(a)
        db.session.commit()
    refused = client.post(f"/projects/{project_id}/assignments", data=bad, headers=H(manager))
    assert refused.status_code == 400 and "share" in refused.get_data(as_text=True)


def test_the_settings_form(app, client):
    project_id, manager, tokens = voters(app, n=60)
    url = f"/projects/{project_id}/quality/settings"
    form = {"alert_error_rate": "15", "break_minutes": "45", "break_decisions": ""}
    assert client.post(url, data=form, headers=H(manager)).status_code == 302
    with app.app_context():
        project = db.session.get(Project, project_id)
        assert (project.alert_error_rate, project.break_minutes, project.break_decisions) == (
            0.15, 45, None,
        )  # fmt: skip
    for bad in ({**form, "alert_error_rate": "0"}, {**form, "break_minutes": "x"}):
        page = client.post(url, data=bad, headers=H(manager), follow_redirects=True)
        assert "Settings not changed" in page.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Project, project_id).break_minutes == 45  # nothing changed
    assert client.post(url, data=form, headers=H(tokens["ann"])).status_code == 403
