"""Every answer of every documented operation is one its OpenAPI entry lists (issue 28.8).

Unlike the schemathesis run (``test_openapi_fuzz.py``, bearer tokens, CSRF off), this calls
each operation as production serves it, CSRF on, from every kind of caller: anonymous, each
role with a bearer token, and each role's browser session without a CSRF token. The body is
``{}`` where the operation takes one. Each status must be among the operation's documented
responses (schemathesis found the anonymous 400 of the job-cancel endpoint 112 times).
"""

from __future__ import annotations

import pytest

from app.api.openapi import openapi_document
from app.extensions import db
from app.models import ApiToken, Pair
from tests.factories import PASSWORD, make_assignment, make_token, make_user, paper_project

ROLES = {"manager": "mia", "worker": "wes", "admin": "ada"}


@pytest.fixture
def app_overrides():
    return {"WTF_CSRF_ENABLED": True}


@pytest.fixture
def world(app):
    with app.app_context():
        users = {role: make_user(name, role) for role, name in ROLES.items()}
        project = paper_project(users["manager"])
        assignment = make_assignment(project, users["worker"], 0.5)
        pair = db.session.query(Pair).filter_by(project_id=project.id).first()
        fuzzed = make_user("fuzzed", "worker")  # the account the admin routes change
        make_token(fuzzed)
        ids = {
            "project_id": project.id, "assignment_id": assignment.id, "pair_id": pair.id,
            "job_id": 1, "page": 1, "kind": "labels", "user_id": fuzzed.id,
            "token_id": db.session.query(ApiToken.id).filter_by(user_id=fuzzed.id).scalar(),
            "alert_id": 1,
        }  # fmt: skip
        tokens = {role: make_token(user) for role, user in users.items()}
        return ids, tokens


def _callers(app, tokens):
    """(name, client, headers): anonymous, tokens, then sessions (no CSRF token sent)."""
    yield "anonymous", app.test_client(), {}
    for role, token in tokens.items():
        yield f"{role} token", app.test_client(), {"Authorization": f"Bearer {token}"}
    for role, name in ROLES.items():
        client = app.test_client()
        page = client.get("/login").get_data(as_text=True)
        csrf = page.split('name="csrf_token" type="hidden" value="')[1].split('"')[0]
        login = {"username": name, "password": PASSWORD, "csrf_token": csrf}
        assert client.post("/login", data=login).status_code == 302
        yield f"{role} session", client, {}


def test_every_answer_is_documented(app, world):
    ids, tokens = world
    with app.app_context():
        document = openapi_document(app)
    callers = list(_callers(app, tokens))
    undocumented = []
    for path, methods in document["paths"].items():
        url = "/api/v1" + path.format(**ids)
        for method, operation in methods.items():
            body = {} if "requestBody" in operation else None
            for name, client, headers in callers:
                response = client.open(url, method=method.upper(), json=body, headers=headers)
                response.close()  # as a WSGI server does: a streamed body ends its context
                if str(response.status_code) not in operation["responses"]:
                    undocumented.append(
                        f"{method.upper()} {path} as {name}: {response.status_code}"
                    )
    assert not undocumented, "\n".join(undocumented)
