"""The vault bind is reached by no worker-facing request."""

import sqlalchemy as sa

from app.extensions import db
from tests.factories import PASSWORD, make_assignment, make_user, paper_project


def test_worker_requests_never_touch_the_vault(app, client):
    statements = []
    with app.app_context():
        worker = make_user("wes", "worker")
        make_assignment(paper_project(make_user("max", "manager")), worker)
        # Every statement on the vault engine, and any on the main engine that names the
        # vault table (on PostgreSQL both binds may share one database).
        sa.event.listen(
            db.engines["vault"],
            "before_cursor_execute",
            lambda conn, cursor, statement, *a: statements.append(statement),
        )

        def spy_main(conn, cursor, statement, *args):
            if "vault_records" in statement:
                statements.append(statement)

        sa.event.listen(db.engines[None], "before_cursor_execute", spy_main)

    client.post("/login", data={"username": "wes", "password": PASSWORD})
    for path in ["/", "/review/", "/api/v1/me"]:
        assert client.get(path, follow_redirects=True).status_code == 200
    assert statements == []
    # The spy does see vault queries: the export's kind of read is recorded.
    with app.app_context():
        assert (
            db.session.scalar(
                sa.text("select count(*) from vault_records"),
                bind_arguments={"bind": db.engines["vault"]},
            )
            == 4
        )
    assert any("vault_records" in s for s in statements)
