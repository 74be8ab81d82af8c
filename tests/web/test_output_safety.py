"""Output hardening: no-store on every dynamic response, bidi controls neutralised (issue 13)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from app.core.disclosure import BIDI_CONTROLS, neutralise_bidi, neutralise_bidi_json
from tests.api.conftest import make_worker
from tests.factories import PASSWORD, make_token, make_user

RLO = "\u202e"


@given(st.text(alphabet=st.sampled_from('ab\\u"2e0' + BIDI_CONTROLS + "é"), max_size=30))
def test_json_text_is_neutralised_whether_escaped_or_not(text):
    for ensure_ascii in (True, False):
        document = neutralise_bidi_json(json.dumps({"v": text}, ensure_ascii=ensure_ascii))
        assert json.loads(document) == {"v": neutralise_bidi(text)}
    assert not set(neutralise_bidi(text)) & set(BIDI_CONTROLS)
    assert len(neutralise_bidi(text)) == len(text)


def test_dynamic_responses_are_not_stored_static_files_may_be(app, client):
    with app.app_context():
        token = make_token(make_user("wes", "worker"))
    api = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert api.headers["Cache-Control"] == "no-store"
    assert client.get("/login").headers["Cache-Control"] == "no-store"
    client.post("/login", data={"username": "wes", "password": PASSWORD})
    assert client.get("/review/").headers["Cache-Control"] == "no-store"
    static = client.get("/static/css/app.css")
    static.close()
    assert static.status_code == 200 and "no-store" not in static.headers.get("Cache-Control", "")


def test_a_value_with_an_override_cannot_reorder_the_grid(app, client):
    worker = make_worker(app, client)
    with app.app_context():
        from app.extensions import db
        from app.models import Project, Record

        for record in db.session.query(Record):
            record.values = {**record.values, "name": f"Ma{RLO}ry"}
        for project in db.session.query(Project):
            project.records_version += 1  # as every change of records must (grid/indexes.py)
        db.session.commit()
    for pair_id, row, attribute, _ in list(worker.cells()):
        if attribute == "name":
            worker.reveal(pair_id, row, attribute)
            last = worker.reveal(pair_id, row, attribute)
            break
    for response in (last, worker.page()):
        text = response.get_data(as_text=True)
        assert "202e" not in text.lower() and RLO not in text
    assert "\ufffd" in json.dumps(worker.page().get_json(), ensure_ascii=False)


def test_templates_neutralise_names(app, client):
    with app.app_context():
        make_user(f"wes{RLO}sew", "worker")
    client.post("/login", data={"username": f"wes{RLO}sew", "password": PASSWORD})
    page = client.get("/review/").get_data(as_text=True)
    assert RLO not in page and "wes\ufffdsew" in page
