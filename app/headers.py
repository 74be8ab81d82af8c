"""Security headers on every response: no framing, no sniffing, scripts only from here.

The worker's page reveals a cell on a click, so a page that framed it could trick a worker
into spending their privacy budget (clickjacking): ``frame-ancestors 'none'`` and
``X-Frame-Options`` forbid framing. Templates carry no inline script or style, so the policy
allows only this site's own files; pages built by a reveal response use the DOM, not markup.
"""

from __future__ import annotations

from flask import Flask, Response

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


def register_security_headers(app: Flask) -> None:
    @app.after_request
    def add_security_headers(response: Response) -> Response:
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        return response
