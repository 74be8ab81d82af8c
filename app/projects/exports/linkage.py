"""The final linkage: people's decisions and the model's, each pair with who decided it.

:func:`final_pairs` streams every decided pair (``linkage`` export) from one query of
:mod:`app.projects.progress.finals`; :func:`final_clusters` numbers the connected
components of the final matches and says, per cluster, which kinds of decision link it
(``model``, ``reviewers``, ``manager``, joined by ``+``). :func:`reviewed_pairs` reads the
pairs people review, with their purpose, round, scores and rule, for the label exports.
Source names are the linker's as imported (``Source.dataset``), else the labels A/B.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

import numpy as np
from sqlalchemy import select

from app import csvsafe
from app.extensions import db
from app.models import BY_ID, Pair, Project
from app.models import reviewed_pairs as reviewed_pairs_of
from app.projects.exports.formats import clusters
from app.projects.exports.peers import SettledPair
from app.projects.progress.finals import final_columns, with_records
from app.projects.progress.outcomes import PairOutcome

__all__ = [
    "LINKAGE_COLUMNS",
    "ReviewedPair",
    "final_clusters",
    "driver_rows",
    "final_pairs",
    "linkage_text",
    "people",
    "reviewed_pairs",
    "settled_pairs",
    "write_linkage",
]

LINKAGE_COLUMNS = (
    "source_dataset_l", "unique_id_l", "source_dataset_r", "unique_id_r", "decision",
    "decided_by", "purpose", "round", "match_probability", "match_weight", "match_key",
)  # fmt: skip
_ORDER = ("model", "reviewers", "manager")
#: Rows read from the database (and written) at a time by the streamed exports.
STREAM_ROWS = 10_000


@dataclass(frozen=True, slots=True)
class ReviewedPair:
    """A pair people review: its records ``(source, id, source, id)`` and what came with it."""

    id: int
    records: tuple[str, str, str, str]
    purpose: str
    round: int
    probability: float | None
    weight: float | None
    rule: str | None


def reviewed_pairs(project: Project, purpose: str | None = None) -> Iterator[ReviewedPair]:
    """The project's pairs to review (of ``purpose`` only, if given), in pair order."""
    query = with_records(
        select(Pair.id, Pair.purpose, Pair.round, Pair.match_probability, Pair.match_weight,
               Pair.rule)
        .where(*reviewed_pairs_of(project.id, [purpose] if purpose else None))
        .order_by(BY_ID)
    )  # fmt: skip
    for pair_id, *rest, sl, il, sr, ir in db.session.execute(query):
        yield ReviewedPair(pair_id, (sl, il, sr, ir), *rest)


def settled_pairs(project: Project, purpose: str | None = None) -> Iterator[SettledPair]:
    """People's settled decision of each reviewed pair (of ``purpose`` only, if given), in
    pair order, straight from the database (:mod:`app.projects.progress.finals`: the same
    consensus as :func:`~app.projects.progress.outcomes.outcomes`, as SQL), read
    :data:`STREAM_ROWS` rows at a time: no list of the pairs is held. Unsettled pairs are
    left out (Splink reads a missing score as a non-match)."""
    finals = final_columns(project.id)
    query = with_records(
        finals.reviewed(project.id, finals.human, purposes=[purpose] if purpose else None).where(
            finals.human.in_(("same", "different"))
        )
    )
    rows = db.session.connection().execute(query.execution_options(yield_per=STREAM_ROWS))
    for human, sl, il, sr, ir in rows:
        yield SettledPair(sl, il, sr, ir, human == "same")


def people(outcome: PairOutcome) -> str:
    """Who decided a reviewed pair: ``manager``, ``reviewers`` or ``""`` (nobody yet)."""
    if outcome.final is None:
        return ""
    return "manager" if outcome.resolution is not None else "reviewers"


def final_pairs(project: Project) -> Iterator[tuple]:
    """Every pair with a final decision, as :data:`LINKAGE_COLUMNS`, in pair order."""
    finals = final_columns(project.id)
    query = with_records(
        finals.query(
            project.id, finals.decision, finals.decided_by, Pair.purpose, Pair.round,
            Pair.match_probability, Pair.match_weight, Pair.rule,
        ).where(finals.decision.is_not(None))
    )  # fmt: skip
    for part in driver_rows(query, STREAM_ROWS):
        for *decided, sl, il, sr, ir in part:
            yield (sl, il, sr, ir, *decided)


def driver_rows(query, size: int) -> Iterator[list[tuple]]:
    """The rows of a Core ``query`` as tuples, ``size`` at a time, with no ORM result.

    On SQLite, straight from the driver's cursor (it steps through the result as it is
    read; SQLAlchemy's rows took as long as the query itself on an export of FEBRL4's
    160,856 pairs); on PostgreSQL from a server-side cursor (``yield_per``), whose rows
    SQLAlchemy buffers, so they are read through it."""
    connection = db.session.connection()
    if connection.dialect.name == "sqlite":
        result = connection.execute(query)
        parts = iter(lambda: result.cursor.fetchmany(size), [])
    else:
        result = connection.execute(query.execution_options(yield_per=size))
        parts = ([tuple(row) for row in part] for part in result.partitions())
    try:
        yield from parts
    finally:  # a stream stopped early closes its cursor now, not at collection
        result.close()


def write_linkage(out: TextIO, rows: Iterable[tuple], header: bool = True) -> int:
    """Write :data:`LINKAGE_COLUMNS` (cells neutralised as in every spreadsheet export);
    ``header=False`` writes the rows only (a later chunk of a streamed file)."""
    writer = csvsafe.writer(out, lineterminator="\n")
    if header:
        writer.writerow(LINKAGE_COLUMNS)
    count = 0
    for row in rows:
        writer.writerow([_cell(v) for v in row])
        count += 1
    return count


def _cell(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def linkage_text(rows: Sequence[tuple], header: bool = True) -> str:
    """The text :func:`write_linkage` writes, column by column for the streamed export: the
    writer checks each distinct value of a column once (source names, decisions, rules and
    ids repeat: FEBRL4's 160,856 pairs have 10,000 ids) and a column of finite floats is
    written by ``repr`` (what the writer writes for a float), so no Python code runs per
    cell (FEBRL4's linkage: 1.8 s of per-cell work down to a few tenths)."""
    cell = csvsafe.writer(None).cell  # type: ignore[arg-type]
    columns = []
    for values in zip(*rows, strict=True) if rows else ():
        if _finite_floats(values):
            columns.append(map(repr, values))
        else:
            table = {v: cell(_cell(v)) for v in set(values)}
            columns.append(map(table.__getitem__, values))
    lines = [",".join(LINKAGE_COLUMNS)] if header else []
    lines += map(",".join, zip(*columns, strict=True))
    return "\n".join(lines) + "\n" if lines else ""


def _finite_floats(values: tuple) -> bool:
    """Whether every value is a finite ``float`` (a column of scores with none missing)."""
    if not values or type(values[0]) is not float:
        return False
    try:
        array = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return bool(np.isfinite(array).all()) and all(type(v) is float for v in values)


def final_clusters(project: Project, nodes) -> tuple[dict, dict[int, str]]:
    """Cluster number per record key (``nodes``: key → (pseudonym, [record id])) from the
    final matches, and per cluster the kinds of decision that link it."""
    key_of = {record_id: key for key, (_, ids) in nodes.items() for record_id in ids}
    finals = final_columns(project.id)
    edges = db.session.execute(
        finals.query(project.id, Pair.record_a_id, Pair.record_b_id, finals.decided_by).where(
            finals.decision == "match"
        )
    ).all()
    found = clusters(list(nodes), [(key_of[a], key_of[b]) for a, b, _ in edges])
    kinds: dict[int, set[str]] = {}
    for a, _, by in edges:
        kinds.setdefault(found[key_of[a]], set()).add(by)
    linked_by = {c: "+".join(k for k in _ORDER if k in by) for c, by in kinds.items()}
    return found, linked_by
