"""A JSON project's records and name counts, checked: every problem counted, none quoting data.

``records`` (or ``records_a`` / ``records_b``) are objects ``{"id": ..., <attribute>: ...}``.
With ``"record_ids": "generated"`` on the project an ``id`` is neither needed nor read: the
records are numbered ``record-1``, ``record-2``, ... in the order given (as the CSV import
numbers rows ``line-<n>``), and the ids a file repeats (a cluster id) can be kept as the
ground truth: an attribute ``{"name": ..., "truth": true}``. Identifying dates are read in
their attribute's ``format`` (:mod:`app.core.disclosure.dates`) or the default layouts; with
``"invalid_dates": "missing"`` one that cannot be read is stored as missing and counted
(:class:`Prepared`), otherwise it is a problem. ``name_frequencies`` (``{"first": {name:
count}, "last": {...}}``) are the counts the workers' name markers show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from app.core.disclosure import AttributeType, name_columns, normalize, normalize_date
from app.limits import Limits
from app.projects.reading.pairfile import MAX_COUNT, MAX_COUNTED_NAME, NameFrequencies

__all__ = ["LISTED", "Prepared", "RecordProblems", "prepare_records", "read_frequencies"]

#: Problems (and values kept as missing) listed; all are counted.
LISTED = 50


@dataclass
class RecordProblems:
    """The first :data:`LISTED` problems and the count of all."""

    items: list[str] = field(default_factory=list)
    total: int = 0

    def add(self, message: str) -> None:
        self.total += 1
        if len(self.items) < LISTED:
            self.items.append(message)


@dataclass
class Prepared:
    """Records ready to insert, and the dates kept as missing (first listed, all counted)."""

    rows: dict[str, list[dict]] = field(default_factory=dict)
    missing: RecordProblems = field(default_factory=RecordProblems)


def _value(attribute, raw):
    if attribute.format:
        return normalize_date(raw, attribute.format)
    return normalize(attribute.kind, raw)


def prepare_records(
    label: str,
    rows: object,
    attributes: Sequence,
    problems: RecordProblems,
    prepared: Prepared,
    *,
    generated: bool = False,
    invalid_dates: str = "error",
    limits: Limits | None = None,
) -> None:
    """Normalise and check one source's records into ``prepared.rows[label]``; ``limits``
    (:mod:`app.limits`, its defaults when None) bounds each record's id, each of its values
    and all of them together."""
    limits = limits or Limits()
    if not isinstance(rows, list) or not rows:
        problems.add(f"source {label}: 'records' must be a non-empty list")
        return
    seen, out = set(), []
    for n, row in enumerate(rows, start=1):
        where = f"source {label}, record {n}"
        if not isinstance(row, Mapping):
            problems.add(f"{where}: must be an object")
            continue
        if generated:
            rid = f"record-{n}"
        elif row.get("id") in (None, ""):
            problems.add(f"{where}: needs an 'id'")
            continue
        else:
            rid = str(row["id"]).strip()
        past = limits.record_problems(
            {a.name: row.get(a.name) for a in attributes}, None if generated else {"id": rid}
        )
        for column, message in past:
            problems.add(f"{where}{f', {column}' if column else ''}: {message}")
        if past:
            continue
        if not generated and rid in seen:
            problems.add(f"{where}: duplicate id")
            continue
        seen.add(rid)
        identifying, sensitive = {}, {}
        for a in attributes:
            if not a.identifying:
                sensitive[a.name] = row.get(a.name)
                continue
            try:
                identifying[a.name] = _value(a, row.get(a.name))
            except ValueError as exc:
                if invalid_dates == "missing" and a.kind is AttributeType.DATE:
                    identifying[a.name] = None
                    prepared.missing.add(f"{where}, {a.name}: {exc}: kept as missing")
                else:
                    problems.add(f"{where}, {a.name}: {exc}")
        out.append({"id": rid, "identifying": identifying, "sensitive": sensitive})
    prepared.rows[label] = out


def read_frequencies(raw: object, attributes: Sequence, problems: RecordProblems):
    """``name_frequencies`` as :class:`NameFrequencies`, or None when not given."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or not set(raw) <= {"first", "last"}:
        problems.add("'name_frequencies' is an object with 'first' and/or 'last'")
        return None
    shown = [a.name for a in attributes if a.identifying]
    first, last = name_columns(shown)
    if first is None or last is None:
        problems.add(
            "'name_frequencies' need identifying first- and last-name attributes "
            "(first_name, given_name, ... and last_name, surname, ...)"
        )
    tables: dict[str, dict[str, int]] = {"first": {}, "last": {}}
    for which, table in raw.items():
        if not isinstance(table, Mapping):
            problems.add(f"'name_frequencies.{which}' maps names to counts")
            continue
        for k, (name, count) in enumerate(table.items(), start=1):
            normal = normalize(AttributeType.STRING, name)
            if normal is None or isinstance(count, bool) or not isinstance(count, int):
                problems.add(f"'name_frequencies.{which}' entry {k}: a name and a whole count")
            elif len(normal) > MAX_COUNTED_NAME:
                problems.add(
                    f"'name_frequencies.{which}' entry {k}: a name of at most "
                    f"{MAX_COUNTED_NAME} characters"
                )
            elif not 0 <= count <= MAX_COUNT:
                problems.add(f"'name_frequencies.{which}' entry {k}: a count from 0 to {MAX_COUNT}")
            else:
                tables[which][normal[:200]] = count
    return NameFrequencies(tables["first"], tables["last"])
