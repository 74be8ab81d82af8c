import csv

import sqlalchemy as sa

from app.extensions import db
from app.models import ApiToken, Assignment, Project, User


def test_users_create_generates_and_prints_a_password(app, runner):
    result = runner.invoke(args=["users", "create", "ada", "--role", "admin"], input="")
    assert result.exit_code == 0, result.output
    password = result.output.strip().rsplit(" ", 1)[-1]
    with app.app_context():
        user = db.session.scalar(sa.select(User).where(User.username == "ada"))
        assert user.role == "admin" and user.check_password(password)
        assert password not in user.password_hash


def test_users_create_refuses_a_duplicate_and_a_bad_role(app, runner):
    runner.invoke(args=["users", "create", "ada", "--role", "admin", "--password", "longenough"])
    again = runner.invoke(args=["users", "create", "ada", "--role", "admin"])
    assert again.exit_code != 0 and "exists already" in again.output
    bad = runner.invoke(args=["users", "create", "bob", "--role", "owner"])
    assert bad.exit_code != 0 and "owner" in bad.output


def test_users_create_refuses_a_short_password(app, runner):
    result = runner.invoke(args=["users", "create", "ada", "--role", "admin", "--password", "x"])
    assert result.exit_code != 0 and "at least 8" in result.output


def test_users_token_prints_a_working_token_once(app, runner, client):
    runner.invoke(args=["users", "create", "wes", "--role", "worker"])
    result = runner.invoke(args=["users", "token", "wes"])
    token = result.output.strip()
    assert result.exit_code == 0 and token.startswith("mf_")
    response = client.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert response.get_json()["username"] == "wes"
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(ApiToken)) == 1


def test_users_token_for_unknown_user(app, runner):
    result = runner.invoke(args=["users", "token", "ghost"])
    assert result.exit_code != 0 and "no user" in result.output


def test_demo_loads_once_and_prints_logins(app, runner):
    first = runner.invoke(args=["demo", "--if-empty"])
    assert first.exit_code == 0, first.output
    for name in ("admin", "manager", "worker", "worker2"):
        assert name in first.output
    second = runner.invoke(args=["demo", "--if-empty"])
    assert "nothing loaded" in second.output
    with app.app_context():
        projects = db.session.scalars(sa.select(Project).order_by(Project.id)).all()
        assert [p.kind for p in projects] == ["dedupe", "dedupe"]
        synthetic = projects[1]
        assert synthetic.name.startswith("Synthetic voters")
        assert {a.name for a in synthetic.sensitive} == {"income", "diagnosis"}
        double = db.session.scalars(
            sa.select(Assignment).where(Assignment.project_id == synthetic.id)
        ).all()
        assert sorted(a.worker.username for a in double) == ["worker", "worker2"]
        assert len(double[0].pairs) == len(double[1].pairs) > 100  # each pair twice


def test_demo_passwords_log_in(app, runner, client):
    output = runner.invoke(args=["demo"]).output
    line = next(line for line in output.splitlines() if line.split()[:2] == ["worker", "worker"])
    password = line.split()[-1]
    response = client.post("/login", data={"username": "worker", "password": password})
    assert response.status_code == 302


def test_generate_data_writes_a_csv(runner, tmp_path):
    out = tmp_path / "people.csv"
    result = runner.invoke(
        args=["generate-data", "--records", "500", "--seed", "3", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 500
    assert {"id", "cluster_id", "first_name", "last_name", "dob"} <= set(rows[0])
