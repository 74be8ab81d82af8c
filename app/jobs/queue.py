"""The database as the job queue (``JOBS_EXECUTOR=queue``): rows wait for ``flask jobs worker``.

The jobs table already holds every job's state, progress and result, and every process
reaches it; so the queue is that table rather than a broker beside it (one more server whose
state would have to agree with the rows). A queued row names its job function (``target``,
``module:name``) and carries its arguments (``payload``); a worker on any machine *claims*
the oldest one with one atomic ``UPDATE … RETURNING``: on PostgreSQL the candidate row is
picked ``FOR UPDATE SKIP LOCKED`` (concurrent workers take different rows without waiting),
on SQLite the statement runs under the database's write lock (``BEGIN IMMEDIATE``), which
serialises the claims. A claim sets the row ``running`` with the worker as ``owner`` and
counts an attempt.

Arguments are pickled but read back by an unpickler that builds no object by name (no
class, no function: plain numbers, strings, bytes, lists, tuples, dicts, sets), so a row
cannot make a worker run code; :func:`encode` refuses at submission what a worker would.
"""

from __future__ import annotations

import io
import pickle
from dataclasses import dataclass
from importlib import import_module

from sqlalchemy import select, update

from app.extensions import db
from app.models import Job
from app.models.base import utcnow

__all__ = ["Claimed", "claim", "decode", "encode", "resolve", "target_of"]


class _PlainValues(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(
            f"a queued job's arguments hold plain values only, not {module}.{name}"
        )


def encode(args: tuple) -> bytes:
    """The arguments as the payload of a queued job; ``ValueError`` for what is not plain."""
    data = pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        decode(data)
    except pickle.UnpicklingError as exc:
        raise ValueError(str(exc)) from None
    return data


def decode(data: bytes) -> tuple:
    return _PlainValues(io.BytesIO(data)).load()


def target_of(fn) -> str:
    """``module:name`` of a module-level job function; ``ValueError`` for any other callable."""
    target = f"{getattr(fn, '__module__', None)}:{getattr(fn, '__qualname__', None)}"
    try:
        same = resolve(target) is fn
    except (ImportError, AttributeError, ValueError):
        same = False
    if not same:
        raise ValueError(f"a queued job runs a module-level function, not {fn!r}")
    return target


def resolve(target: str):
    """The function ``module:name`` names."""
    module, _, name = target.partition(":")
    if not module or not name or "<" in name:
        raise ValueError(f"not a job function: {target!r}")
    value = import_module(module)
    for part in name.split("."):
        value = getattr(value, part)
    return value


@dataclass(frozen=True)
class Claimed:
    id: int
    kind: str
    target: str
    payload: bytes | None


def claim(owner: str) -> Claimed | None:
    """Take the oldest queued job for ``owner`` (``host:pid``), or None; commits."""
    oldest = (
        select(Job.id)
        .where(Job.status == "queued", Job.target.is_not(None))
        .order_by(Job.id)
        .limit(1)
    )
    if db.session.get_bind(Job).dialect.name == "postgresql":
        oldest = oldest.with_for_update(skip_locked=True)
    taken = db.session.execute(
        update(Job)
        .where(Job.id == oldest.scalar_subquery(), Job.status == "queued")
        .values(status="running", owner=owner, heartbeat_at=utcnow(), attempts=Job.attempts + 1)
        .returning(Job.id, Job.kind, Job.target, Job.payload)
        .execution_options(synchronize_session=False)
    ).first()
    db.session.commit()
    return None if taken is None else Claimed(*taken)
