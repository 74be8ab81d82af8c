"""JSON endpoints."""

from flask import jsonify
from flask_login import current_user

from app.api import bp
from app.auth.decorators import roles_required


@bp.route("/me")
@roles_required("admin", "manager", "worker")
def me():
    return jsonify(username=current_user.username, role=current_user.role)
