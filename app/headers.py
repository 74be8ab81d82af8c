"""Security headers on every response: no framing, no sniffing, scripts only from here.

Every response but static files carries ``Cache-Control: no-store``: pages and API answers
hold revealed values, review grids and exports, which must not stay in a browser's or a
proxy's cache after the worker leaves (a shared machine, the back button after logout).
Templates' ``{{ }}`` output has bidi control characters neutralised
(:mod:`app.core.disclosure.bidi`), like every JSON answer, so a value cannot reorder the
worker's grid.

The worker's page reveals a cell on a click, so a page that framed it could trick a worker
into spending their privacy budget (clickjacking): ``frame-ancestors 'none'`` and
``X-Frame-Options`` forbid framing. Templates carry no inline script or style, so the policy
allows only this site's own files; pages built by a reveal response use the DOM, not markup.

Every download (an export, a report, a chart's data) is made by :func:`attachment`.
"""

from __future__ import annotations

from collections.abc import Iterable

from flask import Flask, Response, request
from markupsafe import Markup

from app.core.disclosure import neutralise_bidi

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
_BY_LOWER = {name.lower(): (name, value) for name, value in HEADERS.items()}


def attachment(body: str | bytes | Iterable, mimetype: str, filename: str) -> Response:
    """A download: ``body`` (text, bytes, or pieces of either, streamed) saved as ``filename``.

    ``no-store`` as the hook below gives every response, set here too so a response made
    outside a request keeps it. ``filename`` is the app's own (ASCII, no quote).
    """
    return Response(
        body,
        mimetype=mimetype,
        headers={
            "Content-Disposition": f'attachment; filename="{filename}"',
            "Cache-Control": "no-store",
        },
    )


def register_security_headers(app: Flask) -> None:
    @app.after_request
    def add_security_headers(response: Response) -> Response:
        # one pass over the present names instead of a scan per setdefault (every request)
        headers = response.headers
        present = {name.lower() for name, _value in headers}
        for lower, (name, value) in _BY_LOWER.items():
            if lower not in present:
                headers.add(name, value)
        if request.endpoint != "static":
            if "cache-control" in present or "expires" in present:
                headers["Cache-Control"] = "no-store"
                headers.pop("Expires", None)
            else:
                headers.add("Cache-Control", "no-store")
        return response

    app.jinja_env.finalize = _finalize


def _finalize(value):
    """Neutralise bidi controls in every ``{{ }}`` output (keeping Markup as Markup)."""
    if isinstance(value, Markup):
        return Markup(neutralise_bidi(str(value)))
    if isinstance(value, str):
        return neutralise_bidi(value)
    return value
