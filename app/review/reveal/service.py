"""One reveal: read and price it without a lock, then charge it in one short write.

1. **Read** (no lock; on SQLite a deferred transaction, see :mod:`app.database`): one query
   brings the assignment's budget, KAPR and ``version``, the pair's position and both records'
   values, the project's scale and the pair's stored cell levels. The project's attributes
   and the anonymity-set indexes come from per-process caches.
2. **Price**: the next level, the cost by :func:`app.core.kapr.score.reveal_cost` (the function
   the page preview uses), the budget check. A refusal changes nothing.
3. **Charge** (the write lock from here to the commit): a compare-and-set on the assignment's
   ``version`` (every change of the assignment bumps it: reveals, budget changes, added pairs)
   writes the new KAPR, the cell's level and the :class:`~app.models.RevealEvent` together —
   one statement on PostgreSQL (data-modifying CTEs), three on SQLite. If the version moved
   since step 1, the assignment is locked and steps 1–3 run again under the lock, which
   cannot fail. So the budget is never passed and no reveal is charged twice, whatever runs
   concurrently, and the lock is held only while writing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy import select
from sqlalchemy.orm.util import identity_key

from app.core.disclosure import Level
from app.core.kapr import reveal_cost
from app.database import begin_write
from app.extensions import db
from app.models import Assignment, User
from app.models.base import utcnow
from app.review.connection import gate as _gate
from app.review.connection import statement_connection
from app.review.grid import (
    SIDE_NAMES,
    PairState,
    project_schema,
    source_indexes,
    stand_in_indexes,
)
from app.review.meters import meters
from app.review.reveal.charge import charge
from app.review.reveal.read import explain_missing, read_pair
from app.review.reveal.refusals import (
    PAUSED,
    AssignmentPaused,
    BudgetExceeded,
    NothingToReveal,
    NotInAssignment,
    ProjectClosed,
    StaleView,
)

OPTIMISTIC_TRIES = 3
CLOSED = (
    "this project was closed out: its identifying values were destroyed, so nothing can be "
    "revealed or answered"
)


@dataclass(frozen=True)
class RevealResult:
    """What a reveal changed, and what the answer to it needs (no ORM objects)."""

    assignment_id: int
    pair_id: int
    position: int
    state: PairState  # the pair after the reveal
    row: int
    attribute: str
    cost: Fraction
    kapr: Fraction  # after the reveal
    budget: float
    chars_disclosed: int
    chars_total: int
    indexes: tuple  # the pair's (left, right) anonymity-set indexes
    scale: dict  # kappa, n_rows, n_attributes, model: the arguments of the KAPR core

    @property
    def assignment(self) -> Assignment:
        """The assignment as stored now (a query unless the session has it)."""
        return db.session.get(Assignment, self.assignment_id)


@dataclass
class _Plan:
    """Step 1 and 2: the state read and the reveal priced on it."""

    version: int
    result: RevealResult
    attribute_id: int
    level_from: Level
    level_to: Level
    before: Fraction  # the real KAPR before the reveal
    gained: int
    charged: tuple[Fraction, Fraction]  # the real KAPR and the checks' part after it
    check: bool  # a synthetic check's cell: its characters are the checks' part too


def reveal_cell(
    assignment_id: int,
    pair_id: int,
    row: int,
    attribute: str,
    *,
    by: User,
    shown_level: str | None = None,
    token: str | None = None,
) -> RevealResult:
    """Advance one cell to its next level and charge its KAPR cost, or refuse.

    ``pair_id`` is what the worker calls the pair: its handle in an assignment with checks,
    else its id (:mod:`app.review.handles`); the result holds the pair's id.

    ``shown_level``, when given, is the level the client shows for the cell: if the server
    holds another (the cell was revealed elsewhere, e.g. in another tab), the reveal is
    refused (:class:`~app.review.reveal.refusals.StaleView`) rather than charging a cost the client
    did not preview. The caller commits. Raises :class:`~app.review.reveal.refusals.RevealRefused`
    (and subclasses) with nothing changed; a budget refusal and a stale view carry the
    assignment's meters (``details["assignment"]``). ``token``: the request's bearer token
    digest, checked by the read itself (:func:`app.auth.token_cache.request_token`).
    """
    if row not in (0, 1):
        raise NotInAssignment("row must be 0 (record A) or 1 (record B)")
    user_id = by.id
    session = db.session()  # the request's Session (not the scoped proxy)
    args = (assignment_id, pair_id, row, attribute, user_id, shown_level, token)
    connection, autocommit = statement_connection(session, Assignment)
    if autocommit:
        with _gate(assignment_id):  # holds no database lock while it waits
            plan = _reveal_autocommit(connection, *args)
    else:
        plan = _reveal_in_transaction(connection, *args)
    cached = session.identity_map.get(identity_key(Assignment, assignment_id))
    if cached is not None:
        session.expire(cached)  # written behind the ORM's back
    return plan.result


def _reveal_in_transaction(connection, *args) -> _Plan:
    """Read and price, then take the write lock (SQLite) and compare-and-set; if the
    assignment moved in between, lock it and do it again."""
    plan = _plan(connection, *args)
    begin_write(connection)
    if not _charge(connection, plan, args[4]):
        _lock(connection, args[0])
        plan = _plan(connection, *args)
        if not _charge(connection, plan, args[4]):
            raise RuntimeError("a locked assignment changed during a reveal")
    return plan


def _reveal_autocommit(connection, *args) -> _Plan:
    """PostgreSQL with no transaction open: two statements, each atomic on its own (the read,
    then the one-statement charge), so no BEGIN and COMMIT round trips. A few optimistic
    tries, then a transaction that locks the assignment (a burst on one assignment)."""
    for _ in range(OPTIMISTIC_TRIES):
        plan = _plan(connection, *args)
        if _charge(connection, plan, args[4]):
            return plan
    connection.exec_driver_sql("BEGIN")
    try:
        _lock(connection, args[0])
        plan = _plan(connection, *args)
        if not _charge(connection, plan, args[4]):
            raise RuntimeError("a locked assignment changed during a reveal")
    except BaseException:
        connection.exec_driver_sql("ROLLBACK")
        raise
    connection.exec_driver_sql("COMMIT")
    return plan


def _plan(connection, assignment_id, pair_id, row, attribute, user_id, shown_level, token) -> _Plan:
    params = {"assignment_id": assignment_id, "pair_id": pair_id, "user": user_id, "token": token}
    rows = read_pair(connection, params)
    if not rows:
        explain_missing(connection, assignment_id, user_id, token)
    first = rows[0]
    if first.closed_at is not None:  # read with the rest: a closed project costs no query
        raise ProjectClosed(CLOSED)
    if first.paused:
        raise AssignmentPaused(PAUSED)
    check = first[21] != first.id  # a synthetic check: a pair of the checks project
    pair_id = first[25]  # the pair the worker's name for it names
    schema = project_schema(first.id, first.created_at)
    target = schema.by_name.get(attribute)
    if target is None:
        raise NotInAssignment(f"no identifying attribute {attribute!r}")
    levels = {
        (r.row, schema.by_id[r.attribute_id].name): Level(r.level)
        for r in rows
        if r.attribute_id is not None
    }
    state = PairState(pair_id, schema.attributes, (first[7], first[9]), levels)
    level_from, level_to = state.level(row, attribute), state.next_level(row, attribute)
    real, checks = Fraction(first.kapr_exact), Fraction(first.checks_kapr_exact)
    before = real + checks  # the worker's meter
    if shown_level is not None and shown_level != level_from.value:
        raise StaleView(
            "this cell was revealed elsewhere (another tab or window): reload it before "
            "revealing more; nothing was charged",
            level=level_from.value,
            assignment=_meters(first, before),
        )
    if level_to is None:
        raise NothingToReveal(
            "this cell shows everything it can already", assignment=_meters(first, before)
        )
    find = stand_in_indexes if check else source_indexes
    indexes = find(first.id, first.records_version, (first[8], first[10]), schema.attributes)
    scale = {
        "kappa": first.kappa,
        "n_rows": 2 * (first[16] - first.synthetic_pairs),  # N counts the real rows only
        "n_attributes": len(schema.attributes),
        "model": first.evidence_model,
    }
    evidence = state.evidence(row, attribute, level_to)
    cost = reveal_cost(state.pair_view(), SIDE_NAMES[row], attribute, evidence, *indexes, **scale)
    after = before + cost
    if after > Fraction(repr(first.budget)):
        raise BudgetExceeded(
            "revealing this cell would take your privacy risk over your budget",
            next_cost=float(cost),
            next_cost_exact=str(cost),
            kapr=float(before),
            budget=first.budget,
            assignment=_meters(first, before),
        )
    state.levels[row, attribute] = level_to
    gained = state.view(row, attribute).disclosed - state.view(row, attribute, level_from).disclosed
    result = RevealResult(
        assignment_id=assignment_id,
        pair_id=pair_id,
        position=first.position,
        state=state,
        row=row,
        attribute=attribute,
        cost=cost,
        kapr=after,
        budget=first.budget,
        chars_disclosed=first.chars_disclosed + first.checks_chars_disclosed + gained,
        chars_total=first.chars_total + first.checks_chars_total,
        indexes=indexes,
        scale=scale,
    )
    charged = (real, checks + cost) if check else (real + cost, checks)
    args = (target.id, level_from, level_to, real, gained, charged, check)
    return _Plan(first.version, result, *args)


def _meters(first, kapr: Fraction) -> dict:
    """The meters as stored, from the read's row (a refusal's answer: no further query)."""
    shown = first.chars_disclosed + first.checks_chars_disclosed
    return meters(first.budget, kapr, shown, first.chars_total + first.checks_chars_total)


def _lock(connection, assignment_id: int) -> None:
    """Hold the assignment's row lock (PostgreSQL; SQLite already holds its write lock)."""
    if connection.dialect.name != "sqlite":
        query = select(Assignment.id).where(Assignment.id == assignment_id).with_for_update()
        connection.execute(query)


def _charge(connection, plan: _Plan, user_id: int) -> bool:
    """Write the charge, the cell and the event if the assignment is still at ``version``."""
    result = plan.result
    real, checks = plan.charged
    return charge(
        connection,
        {
            "p_assignment": result.assignment_id,
            "p_version": plan.version,
            "p_kapr_exact": str(real),
            "p_kapr": float(real),
            "p_checks_exact": str(checks),
            "p_gained": plan.gained,
            "p_gained_real": 0 if plan.check else plan.gained,
            "p_gained_checks": plan.gained if plan.check else 0,
            "p_pair": result.pair_id,
            "p_row": result.row,
            "p_attribute": plan.attribute_id,
            "p_level": plan.level_to.value,
            "p_user": user_id,
            "p_at": utcnow(),
            "p_level_from": plan.level_from.value,
            "p_cost_exact": str(result.cost),
            "p_before_exact": str(plan.before),
        },
    )
