"""``GET /api/v1/assignments/<id>/advice?pair=<id>``: the advisor's hint for the worker's page
(docs/advice.md §6), and the manager's setting that turns it on."""

from __future__ import annotations

import pytest

from app.extensions import db
from app.models import Project, RevealEvent
from app.projects.lifecycle import create_project
from tests.factories import make_assignment, make_token, make_user

ATTRIBUTES = [
    {"name": "first_name", "type": "string"},
    {"name": "last_name", "type": "string"},
    {"name": "dob", "type": "date"},
    {"name": "sex", "type": "category"},
]
# Pairs 1 and 2 display alike (same lengths, marks and markers, and costs: names unique, the
# date and the sex counts alike), their hidden characters differ; pair 3 is identical.
RECORDS = [
    ("a1", "ALEC", "COVINGTON", "07/26/1985", "M"),
    ("b1", "ALEXANDER", "COVINGTON", "07/26/1985", "M"),
    ("a2", "OMIQ", "KUWYMHSUM", "07/26/1985", "F"),  # pair 1 through a bijection of letters
    ("b2", "OMIZOPBIT", "KUWYMHSUM", "07/26/1985", "F"),
    ("a3", "JUNE", "PATTERSON", "01/02/1960", ""),
    ("b3", "JUNE", "PATTERSON", "01/02/1960", ""),
]


def hint_project(app, name="adv", **settings):
    """A dedupe project of the three pairs above, one worker with a token (ids returned)."""
    with app.app_context():
        manager, worker = make_user(f"{name}-m", "manager"), make_user(f"{name}-w", "worker")
        spec = {
            "name": name,
            "kind": "dedupe",
            "attributes": ATTRIBUTES,
            "records": [
                dict(zip(["id", "first_name", "last_name", "dob", "sex"], r, strict=True))
                for r in RECORDS
            ],  # fmt: skip
            "pairs": [["a1", "b1"], ["a2", "b2"], ["a3", "b3"]],
        }
        project = create_project(spec, manager)
        for key, value in {"advice_hint": True, **settings}.items():
            setattr(project, key, value)
        db.session.commit()
        assignment = make_assignment(project, worker, 1.0)
        return project.id, assignment.id, make_token(worker), make_token(manager)


def _advice(client, assignment_id, token, pair_id):
    return client.get(
        f"/api/v1/assignments/{assignment_id}/advice?pair={pair_id}",
        headers={"Authorization": f"Bearer {token}"},
    )


def _page(client, assignment_id, token):
    headers = {"Authorization": f"Bearer {token}"}
    return client.get(f"/api/v1/assignments/{assignment_id}", headers=headers).get_json()


def test_the_hint_names_a_masked_cell_and_opens_nothing(app, client):
    _, assignment_id, token, _ = hint_project(app)
    before = _page(client, assignment_id, token)
    pairs = [p["id"] for p in before["pairs"]]
    first = _advice(client, assignment_id, token, pairs[0])
    assert first.status_code == 200
    body = first.get_json()
    assert set(body) == {"pair_id", "reviewer", "suggestion", "suffices"}  # no score by default
    assert body["reviewer"] == "human" and body["suffices"] is False
    suggestion = body["suggestion"]
    assert suggestion["attribute"] == "first_name"  # the nickname people need to see
    cell = before["pairs"][0]["rows"][suggestion["row"]]["cells"]["first_name"]
    assert cell["level"] == "masked" and cell["next_level"] is not None
    identical = _advice(client, assignment_id, token, pairs[2]).get_json()
    assert identical["suggestion"] is None and identical["suffices"] is True
    assert _page(client, assignment_id, token) == before  # nothing revealed, nothing charged
    with app.app_context():
        assert db.session.query(RevealEvent).count() == 0


def test_pairs_displayed_alike_get_the_same_hint(app, client):
    _, assignment_id, token, _ = hint_project(app, "alike")
    page = _page(client, assignment_id, token)
    one, two = page["pairs"][0], page["pairs"][1]
    strip = lambda pair: [  # noqa: E731  (what the page draws of a pair, ids aside)
        {a: (c["level"], c["display"], c["next_cost_exact"]) for a, c in r["cells"].items()}
        for r in pair["rows"]
    ]
    assert strip(one) == strip(two) and one["markups"] == two["markups"]
    hints = [_advice(client, assignment_id, token, p["id"]).get_json() for p in (one, two)]
    assert [{k: v for k, v in h.items() if k != "pair_id"} for h in hints] == [
        {k: v for k, v in hints[0].items() if k != "pair_id"}
    ] * 2


def test_scores_only_when_the_manager_shows_them(app, client):
    _, assignment_id, token, _ = hint_project(app, "scores", show_scores=True)
    pair = _page(client, assignment_id, token)["pairs"][0]["id"]
    body = _advice(client, assignment_id, token, pair).get_json()
    assert 0 <= body["p_correct"] <= 1
    assert {c["attribute"] for c in body["cells"]} <= {a["name"] for a in ATTRIBUTES}
    assert max(c["gain"] for c in body["cells"]) > 0.03


def test_refusals(app, client):
    project_id, assignment_id, token, _ = hint_project(app, "refuse")
    pair = _page(client, assignment_id, token)["pairs"][0]["id"]
    assert _advice(client, assignment_id, token, 10**9).status_code == 404
    missing = client.get(
        f"/api/v1/assignments/{assignment_id}/advice", headers={"Authorization": f"Bearer {token}"}
    )
    assert missing.status_code == 400 and "?pair=" in missing.get_json()["message"]
    with app.app_context():
        other = make_token(make_user("refuse-other", "worker"))
        db.session.get(Project, project_id).advice_hint = False
        db.session.commit()
    assert _advice(client, assignment_id, other, pair).status_code == 403
    off = _advice(client, assignment_id, token, pair)
    assert off.status_code == 403 and "off" in off.get_json()["message"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"advice_hint": True, "advice_reviewer": "evidence"}, 200),
        ({"advice_reviewer": "robot"}, 400),
        ({"advice_hint": True, "name": "x"}, 400),
        ({}, 400),
    ],
)
def test_the_manager_sets_the_hint(app, client, body, status):
    project_id, _, _, manager = hint_project(app, f"set{status}{len(body)}", advice_hint=False)
    response = client.post(
        f"/api/v1/projects/{project_id}/settings",
        json=body,
        headers={"Authorization": f"Bearer {manager}"},
    )
    assert response.status_code == status, response.get_json()
    with app.app_context():
        project = db.session.get(Project, project_id)
        if status == 200:
            assert response.get_json() == {
                "show_scores": False, "advice_hint": True, "advice_reviewer": "evidence",
                # reviewer quality's settings, unchanged (docs/quality.md)
                "alert_error_rate": 0.2, "break_minutes": None, "break_decisions": None,
            }  # fmt: skip
            assert project.advice_hint and project.advice_reviewer == "evidence"
        else:
            assert not project.advice_hint and project.advice_reviewer == "human"


def test_the_evidence_hint_follows_the_project(app, client):
    _, assignment_id, token, _ = hint_project(app, "evid", advice_reviewer="evidence")
    pair = _page(client, assignment_id, token)["pairs"][0]["id"]
    assert _advice(client, assignment_id, token, pair).get_json()["reviewer"] == "evidence"


def test_an_assignment_with_handles_is_advised_by_handle_only(app, client):
    """With known-truth checks (issue 38) the worker calls pairs by random handles: the hint
    answers a handle with the same handle, and a real pair's id names nothing."""
    from app.models import AssignmentPair

    _, assignment_id, token, _ = hint_project(app, "handles")
    with app.app_context():
        rows = db.session.query(AssignmentPair).filter_by(assignment_id=assignment_id).all()
        handles = {}
        for i, row in enumerate(sorted(rows, key=lambda r: r.position)):
            row.handle = handles[row.pair_id] = (1 << 49) + 7919 * (i + 1)
        db.session.commit()
    first_pair, handle = next(iter(handles.items()))
    by_handle = _advice(client, assignment_id, token, handle)
    assert by_handle.status_code == 200 and by_handle.get_json()["pair_id"] == handle
    assert by_handle.get_json()["suggestion"]["attribute"] == "first_name"
    assert _advice(client, assignment_id, token, first_pair).status_code == 404
