"""Blocking rules as data, the candidate pairs they produce, and how many, cheaply.

A :class:`Rule` is a conjunction of :class:`Key` s (attribute + transform); a list of rules is
their disjunction, as in Splink's ``blocking_rules_to_generate_predictions``. A rule's keys
apply to the left record and its ``right`` keys (the same ones unless said otherwise) to the
right record, so a cross-attribute rule such as Splink's swapped names
(``l.given_name = r.surname AND l.surname = r.given_name``) is a rule too. Rules are parsed
from JSON-like data or from Splink's own spelling (:mod:`.parsing`, :mod:`.splink`: a safe
grammar) and applied by table look-up, never evaluated as code.

Two records block together under a rule when every key of the left record gives the same
non-missing value as the matching key of the right one. The left record of a link is from
file A; of a deduplication, the earlier of the two in the file (Splink orders by id). A pair
produced by several rules is reported once, for the first rule (the check is done pair by
pair against the earlier rules' keys, so no set of emitted pairs is kept).
How many pairs that makes, without listing them: :mod:`app.projects.blocking.counting`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import jellyfish

from app.core.disclosure import AttributeType
from app.projects.blocking.counting import Records, count_pairs
from app.projects.blocking.listing import pair_arrays

__all__ = [
    "DATE_PARTS",
    "MAX_RULES",
    "PHONETIC",
    "TRANSFORMS",
    "WITH_N",
    "BlockingError",
    "Key",
    "Rule",
    "TooManyPairs",
    "candidate_pairs",
    "check_key",
]


DATE_PARTS = {
    "year": slice(4, 8),
    "month": slice(0, 2),
    "day": slice(2, 4),
    "month_day": slice(0, 4),
}
PHONETIC = {
    "soundex": jellyfish.soundex,
    "metaphone": jellyfish.metaphone,
    "nysiis": jellyfish.nysiis,
}
WITH_N = ("first_n", "last_n")
#: Every transform a key may use.
TRANSFORMS = ("exact", *WITH_N, *PHONETIC, *DATE_PARTS)
#: The inclusion–exclusion count visits the non-empty intersections of rules only, but
#: overlapping rules make up to 2^rules of them.
MAX_RULES = 12


class BlockingError(ValueError):
    """A blocking rule is malformed; the message says which rule and key."""


class TooManyPairs(ValueError):
    """The rules would produce more candidate pairs than the caller allowed."""

    def __init__(self, total: int, limit: int) -> None:
        self.total, self.limit = total, limit
        super().__init__(f"the rules produce {total:,} candidate pairs (limit {limit:,})")


@dataclass(frozen=True, slots=True)
class Key:
    """One blocking key: ``transform`` applied to the normalised value of ``attribute``."""

    attribute: str
    transform: str = "exact"
    n: int | None = None

    def apply(self, value: str | None) -> str | None:
        """Return the blocking value, ``None`` when missing (missing never blocks)."""
        if not value:
            return None
        t = self.transform
        if t == "exact":
            out = value
        elif t == "first_n":
            out = value[: self.n]
        elif t == "last_n":
            out = value[-self.n :]  # type: ignore[operator]
        elif t in PHONETIC:
            out = PHONETIC[t](value)
        else:  # a date part of the normalised ``MMDDYYYY``
            out = value[DATE_PARTS[t]] if len(value) == 8 and value.isdigit() else None
        return out or None

    def __str__(self) -> str:
        return f"{self.attribute} {self.transform}" + (f"({self.n})" if self.n else "")

    def sql(self, side: str) -> str:
        """The key in the SQL-like spelling of :mod:`.splink` (``substr(l.surname, 1, 2)``)."""
        name = self.attribute
        column = f"{side}.{name if _PLAIN.fullmatch(name) else _quoted(name)}"
        if self.transform == "exact":
            return column
        if self.transform == "first_n":
            return f"substr({column}, 1, {self.n})"
        if self.transform == "last_n":
            return f"right({column}, {self.n})"
        return f"{self.transform}({column})"


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True, slots=True)
class Rule:
    """Keys that must all agree (AND): ``keys`` of the left record against ``right`` of the
    right record, position by position (``right`` is ``None`` when it is ``keys``)."""

    keys: tuple[Key, ...]
    right: tuple[Key, ...] | None = None

    @property
    def right_keys(self) -> tuple[Key, ...]:
        return self.keys if self.right is None else self.right

    @property
    def symmetric(self) -> bool:
        """Whether both records are read the same way (any plain ``block_on`` rule)."""
        return self.right is None or self.right == self.keys

    def key(self, values: Mapping[str, str | None]) -> tuple[str, ...] | None:
        """The left record's blocking key under this rule, ``None`` if any part is missing."""
        return _key(self.keys, values)

    def right_key(self, values: Mapping[str, str | None]) -> tuple[str, ...] | None:
        """The right record's blocking key under this rule."""
        return _key(self.right_keys, values)

    def sql(self) -> str:
        """The rule as a Splink-style SQL-like rule (``l.a = r.a AND …``), which parses back."""
        return " AND ".join(
            f"{left.sql('l')} = {right.sql('r')}"
            for left, right in zip(self.keys, self.right_keys, strict=True)
        )

    def __str__(self) -> str:
        if self.symmetric:
            return " & ".join(str(k) for k in self.keys)
        return self.sql()


def _key(keys: tuple[Key, ...], values: Mapping[str, str | None]) -> tuple[str, ...] | None:
    parts = []
    for k in keys:
        part = k.apply(values.get(k.attribute))
        if part is None:
            return None
        parts.append(part)
    return tuple(parts)


def check_key(
    attribute: object, transform: object, n: object, where: str, attributes: object
) -> Key:
    """The key, if ``attributes`` (names, or names to types) allow it; else the problem.

    Date parts need a date attribute and phonetic codes a string or category one.
    """
    if not isinstance(attribute, str) or not attribute:
        raise BlockingError(f"{where}: missing attribute name")
    if attributes is not None and attribute not in attributes:  # type: ignore[operator]
        raise BlockingError(f"{where}: unknown attribute {attribute!r}")
    if transform not in TRANSFORMS:
        raise BlockingError(
            f"{where}: unknown transform {transform!r} (choose from {', '.join(TRANSFORMS)})"
        )
    if transform in WITH_N:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise BlockingError(f"{where}: {transform} needs a whole number n >= 1, not {n!r}")
    elif n is not None:
        raise BlockingError(f"{where}: {transform} takes no n")
    kind = attributes.get(attribute) if isinstance(attributes, Mapping) else None
    if kind is not None:
        kind = AttributeType(kind)
        if transform in DATE_PARTS and kind is not AttributeType.DATE:
            raise BlockingError(
                f"{where}: {transform} needs a date attribute; {attribute} is {kind}"
            )
        if transform in PHONETIC and kind not in (AttributeType.STRING, AttributeType.CATEGORY):
            raise BlockingError(
                f"{where}: {transform} needs a string attribute; {attribute} is {kind}"
            )
    return Key(attribute, transform, n)  # type: ignore[arg-type]


def candidate_pairs(
    records_a: Records,
    records_b: Records | None,
    rules: Sequence[Rule],
    *,
    max_pairs: int | None = None,
) -> Iterator[tuple[str, str, int]]:
    """Yield ``(id_a, id_b, rule_index)`` for every pair blocked together by some rule.

    Link mode (two sources) pairs A (left) with B (right) only. Dedupe mode (``records_b``
    is ``None``) pairs records of A, each unordered pair once, the earlier one in
    ``records_a`` first and on the left. With
    ``max_pairs``, :class:`TooManyPairs` is raised (before any pair) if the distinct total
    exceeds it.
    """
    if max_pairs is not None:
        total = count_pairs(records_a, records_b, rules).total
        if total > max_pairs:
            raise TooManyPairs(total, max_pairs)
    return _generate(records_a, records_b, rules)


def _generate(
    records_a: Records, records_b: Records | None, rules: Sequence[Rule]
) -> Iterator[tuple[str, str, int]]:
    ids_a = list(records_a)
    ids_b = ids_a if records_b is None else list(records_b)
    values_b = None if records_b is None else [records_b[i] for i in ids_b]
    for r, left, right in pair_arrays([records_a[i] for i in ids_a], values_b, rules):
        for i, j in zip(left.tolist(), right.tolist(), strict=True):
            yield ids_a[i], ids_b[j], r
