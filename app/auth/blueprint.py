"""The accounts' Blueprint, alone so that every page module can register on it."""

from flask import Blueprint

bp = Blueprint("auth", __name__)


@bp.record_once
def _throttle(state) -> None:
    from app.auth.throttle import init_throttle

    init_throttle(state.app)
