"""Flask's signed-cookie sessions, with the signing serializer built once per secret key.

Flask builds a new ``URLSafeTimedSerializer`` on every request just to open the session
(again to save it), also for an API request with a bearer token and no cookie at all. Same
cookie, same keys (``SECRET_KEY`` and ``SECRET_KEY_FALLBACKS``), same salt and signer: only
the construction is reused. A serializer keeps no per-request state, so threads share it.
"""

from __future__ import annotations

from flask import Flask
from flask.sessions import SecureCookieSessionInterface


class CookieSessions(SecureCookieSessionInterface):
    def __init__(self) -> None:
        self._serializers: dict = {}

    def get_signing_serializer(self, app: Flask):
        keys = (app.secret_key, tuple(app.config["SECRET_KEY_FALLBACKS"] or ()))
        try:
            return self._serializers[keys]
        except KeyError:
            pass
        serializer = super().get_signing_serializer(app)
        if len(self._serializers) >= 8:  # keys changed at run time: keep only the newest
            self._serializers.clear()
        self._serializers[keys] = serializer
        return serializer
