"""Error pages: JSON under ``/api/``, a small HTML page elsewhere."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(RequestEntityTooLarge)
    def handle_too_large(exc: RequestEntityTooLarge):
        limit = app.config.get("MAX_CONTENT_LENGTH") or 0
        message = (
            f"the upload is larger than the limit of {limit / 2**20:,.0f} MB; split the file "
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
