"""Error pages: JSON under ``/api/``, a small HTML page elsewhere."""

from __future__ import annotations

import logging

from flask import Flask, jsonify, render_template, request
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.exceptions import HTTPException, InternalServerError, RequestEntityTooLarge

from app.jobs import log_failure

log = logging.getLogger(__name__)


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(RequestEntityTooLarge)
    def handle_too_large(exc: RequestEntityTooLarge):
        limit = app.config.get("MAX_CONTENT_LENGTH") or 0
        size = f"{limit / 2**20:,.0f} MB" if limit >= 2**20 else f"{limit:,} bytes"
        message = (
            f"the upload is larger than the limit of {size}; split the file "
            "or ask an administrator to raise MAX_CONTENT_LENGTH"
        )
        return handle_http(RequestEntityTooLarge(message))

    @app.errorhandler(HTTPException)
    def handle_http(exc: HTTPException):
        if request.path.startswith("/api/"):
            message = exc.description if isinstance(exc.description, str) else exc.name
            body = {"error": exc.name.lower().replace(" ", "_"), "message": message}
            return jsonify(body), exc.code
        return render_template("error.html", error=exc), exc.code


def register_database_errors(app: Flask) -> None:
    """Answer a database error with a plain 500, logged without its statement's values."""

    @app.errorhandler(SQLAlchemyError)
    def handle_database_error(exc: SQLAlchemyError):
        from app.extensions import db

        db.session.rollback()
        log_failure(log, f"{request.method} {request.path}", exc)
        error = InternalServerError("the database refused the change; nothing was saved")
        if request.path.startswith("/api/"):
            body = {"error": "internal_server_error", "message": error.description}
            return jsonify(body), 500
        return render_template("error.html", error=error), 500
