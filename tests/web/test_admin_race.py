"""Two admins who take each other's admin away at the same moment never leave no active admin
(issue 41.1): every change that can remove an admin checks and writes under one lock, and the
refused one is audited with its reason."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select, update

from app.auth.accounts import change_role, deactivate, settle_refusal, user_named
from app.auth.services import AccountError
from app.extensions import db
from app.models import AccountEvent, Role, User
from tests.factories import make_user

TRIALS = 24  # each trial costs two short transactions per thread
ACTIONS = {
    "deactivate": lambda user, by: deactivate(user, by=by, via="web"),
    "demote": lambda user, by: change_role(user, "manager", by=by, via="web"),
}
PAIRINGS = [("deactivate", "deactivate"), ("deactivate", "demote"), ("demote", "demote")]


@pytest.fixture
def admins(app):
    with app.app_context():
        return [make_user(name, "admin").id for name in ("ada", "bob")]


def _reset(app, ids) -> None:
    with app.app_context():
        db.session.execute(
            update(User).where(User.id.in_(ids)).values(role=Role.ADMIN.value, active=True)
        )
        db.session.commit()


def _act(app, barrier, action, actor: str, target: str, outcomes: list) -> None:
    barrier.wait()
    with app.app_context():
        try:
            ACTIONS[action](user_named(target), user_named(actor))
        except AccountError as exc:
            settle_refusal(exc)
            outcomes.append(("refused", str(exc)))
        except BaseException as exc:  # noqa: BLE001 (reported by the test)
            outcomes.append(("error", repr(exc)))
        else:
            db.session.commit()
            outcomes.append(("done", action))
        finally:
            db.session.remove()


def _active_admins(app) -> int:
    with app.app_context():
        query = select(func.count()).where(User.role == Role.ADMIN, User.active.is_(True))
        return db.session.scalar(query.select_from(User))


def test_two_admins_removing_each_other_leave_one_active_admin(app, admins):
    for trial in range(TRIALS):
        _reset(app, admins)
        first, second = PAIRINGS[trial % len(PAIRINGS)]
        barrier, outcomes = threading.Barrier(2, timeout=30), []
        threads = [
            threading.Thread(target=_act, args=(app, barrier, first, "ada", "bob", outcomes)),
            threading.Thread(target=_act, args=(app, barrier, second, "bob", "ada", outcomes)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        kinds = sorted(kind for kind, _ in outcomes)
        assert kinds == ["done", "refused"], (trial, outcomes)
        assert _active_admins(app) == 1, (trial, outcomes)
        (reason,) = [text for kind, text in outcomes if kind == "refused"]
        assert "last active admin" in reason or "no longer an active admin" in reason, reason
    with app.app_context():
        query = select(func.count()).where(AccountEvent.action == "refused")
        assert db.session.scalar(query.select_from(AccountEvent)) == TRIALS  # each audited


def test_a_refusal_says_why_and_is_audited(app, admins, runner):
    result = runner.invoke(args=["users", "deactivate", "bob"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(args=["users", "role", "ada", "worker"])
    assert result.exit_code != 0 and "ada is the last active admin" in result.output
    with app.app_context():
        ada = db.session.get(User, admins[0])
        assert ada.active and ada.role == Role.ADMIN
        last = db.session.scalars(select(AccountEvent).order_by(AccountEvent.id.desc())).first()
        assert (last.user_id, last.action, last.via, last.actor_id) == (
            ada.id,
            "refused",
            "cli",
            None,
        )
        assert last.detail == "take the admin role from: the last active admin"
