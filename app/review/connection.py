"""The connection a worker's hot request (a reveal, an answer) runs its statements on.

On PostgreSQL, when the request's session holds no connection yet, the statements run in
autocommit: each is atomic on its own, so there are no BEGIN and COMMIT round trips (those
were most of the database's CPU per reveal). Otherwise (SQLite, or a session that has read
or written already) they run in the session's transaction, which the request commits.
"""

from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager

from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session


def statement_connection(session: Session, model: type) -> tuple[Connection, bool]:
    """``(connection, autocommit)`` for statements on ``model``'s table (see the module)."""
    if no_connection(session) and session.get_bind(model).dialect.name == "postgresql":
        connection = session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        return connection, True
    if session.new or session.dirty or session.deleted:
        session.flush()  # the caller's pending changes are visible to the Core statements
    return session.connection(), False


def no_connection(session: Session) -> bool:
    """Whether the session has read or written nothing in the database yet (so the request
    may run in autocommit). A session that has begun a transaction at the ORM level only (an
    object added to it, say), with no connection, counts as nothing."""
    if session.new or session.dirty or session.deleted:
        return False
    transaction = session.get_transaction()
    return transaction is None or not getattr(transaction, "_connections", True)


class _Gate:
    __slots__ = ("lock", "__weakref__")

    def __init__(self):
        self.lock = threading.Lock()


_gates: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_gates_lock = threading.Lock()


@contextmanager
def gate(assignment_id: int):
    """One autocommit reveal of an assignment at a time in this process (the threads of one
    gunicorn worker).

    Not needed for correctness (the compare-and-set is), but concurrent reveals of one
    assignment in one process would mostly lose the compare-and-set and price again: in a
    burst that was several reads and pricings per reveal. Reveals in other processes still
    race, and the compare-and-set settles them. Only the autocommit path waits here: it holds
    no connection state or database lock, so waiting cannot deadlock with a thread that
    waits for such a lock.
    """
    with _gates_lock:
        found = _gates.get(assignment_id)
        if found is None:
            found = _gates[assignment_id] = _Gate()
    with found.lock:
        yield
