"""Make a project's pairs by blocking: preview the counts per rule, then create them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from flask import current_app
from sqlalchemy import delete, func, select
from sqlalchemy.orm import aliased

from app.bulk import analyze, write_rows
from app.extensions import db
from app.models import Assignment, Pair, Project, ProjectKind, Record, Source
from app.projects.blocking.codes import rule_codes
from app.projects.blocking.counting import count_pairs
from app.projects.blocking.listing import pair_arrays
from app.projects.blocking.parsing import parse_rules
from app.projects.blocking.rules import BlockingError

__all__ = [
    "BlockingRefused",
    "BlockingPreview",
    "count_candidates",
    "create_pairs",
    "max_pairs",
    "pair_records",
    "preview_blocking",
    "rules_of",
    "source_records",
]

CHUNK = 50_000
PAIR_COLUMNS = ("project_id", "record_a_id", "record_b_id", "external_id", "rule")
#: The most pairs blocking may *store* (``BLOCKING_MAX_PAIRS``): a bound on the database, not
#: on review. What goes to review is bounded when it is assigned
#: (:data:`app.projects.staffing.assignments.DEFAULT_REVIEW_MAX_PAIRS`).
DEFAULT_MAX_PAIRS = 20_000_000


class BlockingRefused(ValueError):
    """The pairs cannot be made (a bad rule, too many pairs, work already assigned)."""


@dataclass(frozen=True)
class BlockingPreview:
    """Pairs each rule produces, pairs it adds to the earlier rules, and the distinct total."""

    rules: list[str]
    per_rule: list[int]
    new_per_rule: list[int]
    total: int
    limit: int

    @property
    def too_many(self) -> bool:
        return self.total > self.limit


def max_pairs() -> int:
    return int(current_app.config.get("BLOCKING_MAX_PAIRS", DEFAULT_MAX_PAIRS))


def _rules(project: Project, raw: object):
    try:
        return parse_rules(raw, {a.name: a.type for a in project.identifying})
    except BlockingError as exc:
        raise BlockingRefused(str(exc)) from None


def _records(project: Project, rules=None):
    """Identifying values by record id: source A, and source B (``None`` when deduplicating).

    With ``rules``, only the attributes they read, each taken out of the JSON by the
    database (json_extract / ->>) instead of decoding every record's document in Python.
    """
    by_label: dict[str, dict[int, dict]] = {}
    if rules is None:
        names = None
        fields = [Record.values]
    else:
        names = sorted({k.attribute for r in rules for k in (*r.keys, *r.right_keys)})
        fields = [Record.values[name].as_string() for name in names]
    rows = db.session.execute(
        select(Source.label, Record.id, *fields)
        .join(Source, Source.id == Record.source_id)
        .where(Record.project_id == project.id)
        .order_by(Source.label, Record.position)
    )
    for label, record_id, *values in rows:
        record = values[0] if names is None else dict(zip(names, values, strict=True))
        by_label.setdefault(label, {})[record_id] = record
    records_a = by_label.get("A", {})
    return records_a, (by_label.get("B", {}) if project.kind == ProjectKind.LINK else None)


def count_candidates(project: Project, rules) -> int:
    """How many distinct candidate pairs the parsed ``rules`` make in ``project`` (a Splink
    model's blocking rules make the same pairs), counted without listing them."""
    records_a, records_b = _records(project, rules)
    return count_pairs(records_a, records_b, rules).total


def preview_blocking(project: Project, raw_rules: object) -> BlockingPreview:
    """Count the pairs ``raw_rules`` would make, without making them."""
    return _plan(project, raw_rules)[0]


def _plan(project: Project, raw_rules: object):
    """The preview, the rules and the records they were counted on (read once)."""
    if project.kind == ProjectKind.PAIRFILE:
        raise BlockingRefused("a pair-file project takes its pairs from the file")
    rules = _rules(project, raw_rules)
    records_a, records_b = _records(project, rules)
    values = [*records_a.values(), *(records_b.values() if records_b is not None else ())]
    codes = rule_codes(rules, values)
    count = count_pairs(records_a, records_b, rules, codes)
    preview = BlockingPreview(
        [str(r) for r in rules], count.per_rule, count.new_per_rule, count.total, max_pairs()
    )
    return preview, rules, records_a, records_b, codes


def create_pairs(project: Project, raw_rules: object) -> int:
    """Replace the project's pairs with those of ``raw_rules``; return how many were made.

    Each pair records the first rule that produced it (``Pair.rule``). Refused when a worker
    already has an assignment, when no pair results, or above :func:`max_pairs`.
    The caller commits.
    """
    preview, rules, records_a, records_b, codes = _plan(project, raw_rules)
    assigned = db.session.scalar(
        select(func.count(Assignment.id)).where(Assignment.project_id == project.id)
    )
    if assigned:
        raise BlockingRefused("workers have assignments in this project; pairs cannot change")
    if preview.too_many:
        raise BlockingRefused(
            f"these rules make {preview.total:,} pairs, more than the limit of "
            f"{preview.limit:,} a project may store; add a key to a rule to make the blocks "
            "smaller"
        )
    if preview.total == 0:
        raise BlockingRefused("these rules make no pairs; try a looser rule")
    db.session.execute(delete(Pair).where(Pair.project_id == project.id))
    names = [name[:200] for name in preview.rules]
    ids_a = np.fromiter(records_a, np.int64, len(records_a))
    ids_b = ids_a if records_b is None else np.fromiter(records_b, np.int64, len(records_b))
    values_b = None if records_b is None else list(records_b.values())
    made = 0
    for r, left, right in pair_arrays(list(records_a.values()), values_b, rules, codes):
        a, b = ids_a[left].tolist(), ids_b[right].tolist()
        for start in range(0, len(a), CHUNK):
            rows = [
                (project.id, x, y, "", names[r])
                for x, y in zip(a[start : start + CHUNK], b[start : start + CHUNK], strict=True)
            ]
            write_rows(Pair, PAIR_COLUMNS, rows)
        made += len(a)
    db.session.flush()
    analyze(Pair)
    return made


def pair_records(project_id: int, pair_ids: list[int] | None = None) -> dict[int, tuple]:
    """``pair id → (source A, id A, source B, id B, block, pair's external id)``, in pair order.

    The record ids are those of the uploaded files; ``pair_ids`` limits it to those pairs.
    """
    ra, rb, sa, sb = aliased(Record), aliased(Record), aliased(Source), aliased(Source)
    query = (
        select(
            Pair.id, sa.label, ra.external_id, sb.label, rb.external_id, Pair.block,
            Pair.external_id,
        )
        .join(ra, ra.id == Pair.record_a_id)
        .join(rb, rb.id == Pair.record_b_id)
        .join(sa, sa.id == ra.source_id)
        .join(sb, sb.id == rb.source_id)
        .where(Pair.project_id == project_id)
        .order_by(Pair.id)
    )  # fmt: skip
    if pair_ids is not None:
        query = query.where(Pair.id.in_(pair_ids))
    return {r[0]: tuple(r[1:]) for r in db.session.execute(query)}


#: Public names of two helpers the other rooms use (the triage's blocking rounds).
rules_of = _rules
source_records = _records
