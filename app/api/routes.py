"""JSON endpoints."""

from flask import jsonify
from flask_login import current_user

from app.api.blueprint import bp
from app.api.openapi import documented, schemas
from app.auth.decorators import roles_required


@bp.route("/me")
@roles_required("admin", "manager", "worker")
@documented("Who the caller is", ok=schemas.ME)
def me():
    return jsonify(username=current_user.username, role=current_user.role)
