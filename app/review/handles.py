"""What a worker calls the pairs of an assignment: their handles, or their ids.

An assignment with known-truth checks names its pairs by random handles
(``AssignmentPair.handle``): a synthetic check's pair id is newer than every real pair's and
a truth check may come from another round, so ids would tell checks apart. An assignment
without checks has no handles and its pairs keep their ids, as before. The worker API
translates at its edge: a handle in, the pair id to the services; the pair id out, the
handle to the worker. Nothing else in the app sees a handle.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from sqlalchemy import BigInteger, literal, or_, select

from app.extensions import db
from app.models import AssignmentPair

#: Handles stay below 2**53, so a browser's JSON numbers hold them exactly.
HANDLE_BITS = 53
#: What :func:`pair_of` answers for a name that is no pair of the assignment: no pair has it.
NO_PAIR = -1


def new_handles(n: int) -> list[int]:
    """``n`` distinct random handles (uniform below ``2**53``, never a small number)."""
    made: set[int] = set()
    while len(made) < n:
        made.update(secrets.randbits(HANDLE_BITS) | (1 << (HANDLE_BITS - 4)) for _ in range(n))
    return list(made)[:n]


def pair_of(assignment_id: int, name: int) -> int:
    """The pair id the worker means by ``name`` in their assignment, else :data:`NO_PAIR`.

    A handle names its pair; a pair id names its pair only in an assignment without handles
    (in one with them, a real pair's id is no name of it: it would tell real from check).
    """
    big = literal(name, BigInteger)  # a handle may pass a pair id's 32 bits
    rows = db.session.execute(
        select(AssignmentPair.pair_id, AssignmentPair.handle).where(
            AssignmentPair.assignment_id == assignment_id,
            or_(AssignmentPair.handle == big, AssignmentPair.pair_id == big),
        )
    ).all()
    for pair_id, handle in rows:
        if handle == name or (handle is None and pair_id == name):
            return pair_id
    return NO_PAIR


def names_of(assignment_id: int, pair_ids: Iterable[int] | None = None) -> dict[int, int]:
    """``pair id -> the worker's name for it`` (all the assignment's pairs, or ``pair_ids``)."""
    query = select(AssignmentPair.pair_id, AssignmentPair.handle).where(
        AssignmentPair.assignment_id == assignment_id
    )
    if pair_ids is not None:
        ids = list(pair_ids)
        out: dict[int, int] = {}
        for start in range(0, len(ids), 10_000):
            chunk = query.where(AssignmentPair.pair_id.in_(ids[start : start + 10_000]))
            out.update((p, p if h is None else h) for p, h in db.session.execute(chunk).all())
        return out
    return {p: p if h is None else h for p, h in db.session.execute(query).all()}


def pairs_named(assignment_id: int, names: Iterable[int]) -> dict[int, int]:
    """``name -> pair id`` for the ``names`` that name pairs of the assignment."""
    wanted = set(names)
    return {n: p for p, n in names_of(assignment_id).items() if n in wanted}
