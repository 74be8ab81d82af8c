"""An admin's deactivation, revocation or role change stops the next reveal in *every* process.

Two app instances share one database, as two gunicorn workers do: the worker's token is
remembered by the second (it served the worker's page), the admin acts through the first, and
once the admin's request has returned the worker's next reveal through the second is refused
and records nothing, nor does their next answer (issue 42.5). Reads may see the old account
for TOKEN_CACHE_SECONDS.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from app import create_app
from app.extensions import db
from app.models import ApiToken, DecisionEvent, RevealEvent, User
from tests.api.conftest import make_worker
from tests.factories import make_user
from tests.web.test_user_admin import login


@pytest.fixture
def other_process(database_config):
    other = create_app({"TESTING": True, "SECRET_KEY": "test-only", "AUTO_UPGRADE": False,
                        "RATELIMIT_ENABLED": False, **database_config})  # fmt: skip
    yield other
    with other.app_context():
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


def _token_id(app, username: str) -> int:
    with app.app_context():
        query = sa.select(ApiToken.id).join(User).where(User.username == username)
        return db.session.scalar(query)


CHANGES = {
    "deactivated": (lambda user_id, app: (f"/users/{user_id}/deactivate", {}), 401),
    "demoted": (lambda user_id, app: (f"/users/{user_id}/role", {"role": "manager"}), 403),
    "token revoked": (
        lambda user_id, app: (f"/users/{user_id}/tokens/{_token_id(app, 'wes')}/revoke", {}),
        401,
    ),
}


@pytest.mark.parametrize("change", CHANGES)
def test_no_reveal_in_another_process_after_the_admins_request(app, other_process, change):
    worker = make_worker(app, other_process.test_client())
    with app.app_context():
        make_user("ada", "admin")
        wes = db.session.scalar(sa.select(User.id).where(User.username == "wes"))
    cells = [cell for cell in worker.cells() if cell[3]["level"] == "masked"]  # remembered there
    assert worker.reveal(*cells[0][:3]).status_code == 200

    admin = app.test_client()
    login(admin, "ada")
    path, form = CHANGES[change][0](wes, app)
    assert admin.post(path, data=form).status_code == 302  # the admin's request has returned

    assert worker.reveal(*cells[1][:3]).status_code == CHANGES[change][1]
    answer = {"pair_id": cells[1][0], "decision": "same", "confidence": "high"}
    path = f"/api/v1/assignments/{worker.assignment_id}/decisions"
    assert (
        worker.client.post(path, json=answer, headers=worker.headers).status_code
        == (CHANGES[change][1])
    )
    with app.app_context():
        for table in (RevealEvent, DecisionEvent):
            written = db.session.scalar(sa.select(sa.func.count()).select_from(table))
            assert written == (1 if table is RevealEvent else 0), table.__name__
