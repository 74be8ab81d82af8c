"""Error pages: JSON under ``/api/``, a small HTML page elsewhere."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def handle_http(exc: HTTPException):
        if request.path.startswith("/api/"):
            message = exc.description if isinstance(exc.description, str) else exc.name
            body = {"error": exc.name.lower().replace(" ", "_"), "message": message}
            return jsonify(body), exc.code
        return render_template("error.html", error=exc), exc.code
