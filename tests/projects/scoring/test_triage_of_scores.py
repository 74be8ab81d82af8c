"""From records to review in the app alone: the project's Splink model scores it (in the app),
and its predictions go straight to the triage page, as a linker's file would."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Pair, Project, User
from app.projects.scoring import submit_scoring, upload_model
from tests.factories import PASSWORD

pytestmark = pytest.mark.slow


def test_the_apps_own_predictions_are_triaged_from_the_page(
    app, client, febrl, manager, febrl_model
):
    with app.app_context():
        project, user = db.session.get(Project, febrl), db.session.get(User, manager)
        upload_model(project, json.dumps(febrl_model), user)
        db.session.commit()
        submit_scoring(project, user)  # inline under TESTING
        db.session.commit()
    client.post("/login", data={"username": "max", "password": PASSWORD})
    url = f"/projects/{febrl}/triage"
    assert "scored in the app" in client.get(url).get_data(as_text=True)
    form = {"lower": "0.05", "upper": "0.95", "calibration": "20", "seed": "1",
            "score": "probability", "order": "uncertainty", "bins": "10"}  # fmt: skip
    preview = client.post(url, data={**form, "action": "preview", "source": "scoring"})
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200, page
    with app.app_context():
        from app.projects.scoring.service import current_model

        path = current_model(db.session.get(Project, febrl)).predictions
    p = pq.read_table(path, columns=["match_probability"]).column(0).to_numpy()
    above = int((p > 0.95).sum())
    assert re.search(rf'id="count-above".*?<td>{above:,}</td>', page, re.S)
    token = page.split('name="token" value="', 1)[1].split('"', 1)[0]
    done = client.post(url, data={**form, "action": "commit", "token": token})
    assert done.status_code == 302
    with app.app_context():
        scored = select(func.count(Pair.id)).where(
            Pair.project_id == febrl, Pair.match_probability.is_not(None)
        )
        assert db.session.scalar(scored) == len(p)
        calibration = select(func.count(Pair.id)).where(Pair.purpose == "calibration")
        assert db.session.scalar(calibration) == 20
