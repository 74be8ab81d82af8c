"""Users, their roles, their API tokens and the audit of what was done to accounts."""

from __future__ import annotations

import datetime as dt
import enum
import hashlib
import secrets

from flask import current_app
from flask_login import UserMixin
from sqlalchemy import DateTime, ForeignKey, String, false
from sqlalchemy.orm import Mapped, mapped_column, relationship
from werkzeug.security import check_password_hash, generate_password_hash

from app.extensions import db
from app.models.base import Timestamped, forbid_updates, utcnow


def password_method() -> str:
    """The hashing method of new passwords (``PASSWORD_HASH_METHOD``, werkzeug's notation)."""
    return current_app.config["PASSWORD_HASH_METHOD"]


class Role(enum.StrEnum):
    ADMIN = "admin"
    MANAGER = "manager"
    WORKER = "worker"


class User(UserMixin, Timestamped, db.Model):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    role: Mapped[str] = mapped_column(String(16))
    password_hash: Mapped[str] = mapped_column(String(256))
    active: Mapped[bool] = mapped_column(default=True)
    failed_logins: Mapped[int] = mapped_column(default=0)
    locked_until: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # Part of the session cookie's user id; logout bumps it, ending every session issued before.
    session_version: Mapped[int] = mapped_column(default=0, server_default="0")
    # Set by an admin's password reset: the one-time password works once, to choose a new one.
    must_change_password: Mapped[bool] = mapped_column(default=False, server_default=false())

    tokens: Mapped[list[ApiToken]] = relationship(
        back_populates="user", cascade="all, delete-orphan", passive_deletes=True
    )

    def set_password(self, password: str) -> None:
        self.password_hash = generate_password_hash(password, method=password_method())

    def check_password(self, password: str) -> bool:
        return check_password_hash(self.password_hash, password)

    def get_id(self) -> str:  # Flask-Login: what the session cookie stores
        return f"{self.id}.{self.session_version}"

    @property
    def is_active(self) -> bool:  # Flask-Login
        return self.active

    def has_role(self, *roles: str) -> bool:
        return self.role in roles

    def __repr__(self) -> str:
        return f"<User {self.username} ({self.role})>"


def hash_token(token: str) -> str:
    """API tokens are stored as SHA-256 digests; they are long random strings, so no salt."""
    return hashlib.sha256(token.encode()).hexdigest()


class ApiToken(Timestamped, db.Model):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str | None] = mapped_column(String(80))  # what it is for; never the token
    last_used_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))

    user: Mapped[User] = relationship(back_populates="tokens")

    @classmethod
    def issue(cls, user: User, label: str | None = None) -> tuple[ApiToken, str]:
        """Create a token for ``user``; the plain token is returned once and never stored."""
        plain = "mf_" + secrets.token_urlsafe(32)
        token = cls(user=user, token_hash=hash_token(plain), label=label)
        return token, plain


class AccountEvent(db.Model):
    """One thing done to an account (append-only): who did it, to whom, what, when.

    ``actor_id`` is None for the command line (``via`` says ``cli``). ``detail`` says what
    changed (``worker -> manager``, ``token 4``) and never holds a password or a token.
    """

    __tablename__ = "account_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    action: Mapped[str] = mapped_column(String(24))
    detail: Mapped[str | None] = mapped_column(String(200))
    via: Mapped[str] = mapped_column(String(8))  # web | api | cli

    actor: Mapped[User | None] = relationship(foreign_keys=[actor_id])
    user: Mapped[User] = relationship(foreign_keys=[user_id])


forbid_updates(AccountEvent)
