"""Login, logout, roles and API tokens."""

from flask import Blueprint

bp = Blueprint("auth", __name__)


@bp.record_once
def _throttle(state) -> None:
    from app.auth.throttle import init_throttle

    init_throttle(state.app)


from app.auth import routes  # noqa: E402,F401
