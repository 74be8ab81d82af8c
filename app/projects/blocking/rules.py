"""Blocking rules as data, the candidate pairs they produce, and how many, cheaply.

A :class:`Rule` is a conjunction of :class:`Key` s (attribute + transform); a list of rules is
their disjunction, as in Splink's ``blocking_rules_to_generate_predictions``. Rules are parsed
from JSON-like data and applied by table look-up, never evaluated as code.

Two records block together under a rule when every key gives both the same non-missing
value. A pair produced by several rules is reported once, for the first rule (the check is
done pair by pair against the earlier rules' keys, so no set of emitted pairs is kept).
How many pairs that makes, without listing them: :mod:`app.projects.blocking.counting`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import jellyfish

from app.core.disclosure import AttributeType
from app.projects.blocking.counting import Records, count_pairs

__all__ = [
    "TRANSFORMS",
    "BlockingError",
    "Key",
    "Rule",
    "TooManyPairs",
    "candidate_pairs",
    "parse_rules",
]


_DATE_PARTS = {
    "year": slice(4, 8),
    "month": slice(0, 2),
    "day": slice(2, 4),
    "month_day": slice(0, 4),
}
_PHONETIC = {
    "soundex": jellyfish.soundex,
    "metaphone": jellyfish.metaphone,
    "nysiis": jellyfish.nysiis,
}
_WITH_N = ("first_n", "last_n")
#: Every transform a key may use.
TRANSFORMS = ("exact", *_WITH_N, *_PHONETIC, *_DATE_PARTS)
#: More rules make the inclusion–exclusion count (2^rules groupings) too slow.
MAX_RULES = 8


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
        elif t in _PHONETIC:
            out = _PHONETIC[t](value)
        else:  # a date part of the normalised ``MMDDYYYY``
            out = value[_DATE_PARTS[t]] if len(value) == 8 and value.isdigit() else None
        return out or None

    def __str__(self) -> str:
        return f"{self.attribute} {self.transform}" + (f"({self.n})" if self.n else "")


@dataclass(frozen=True, slots=True)
class Rule:
    """Keys that must all agree (AND)."""

    keys: tuple[Key, ...]

    def key(self, values: Mapping[str, str | None]) -> tuple[str, ...] | None:
        """The record's blocking key under this rule, ``None`` if any part is missing."""
        parts = []
        for k in self.keys:
            part = k.apply(values.get(k.attribute))
            if part is None:
                return None
            parts.append(part)
        return tuple(parts)

    def __str__(self) -> str:
        return " & ".join(str(k) for k in self.keys)


def parse_rules(
    data: object, attributes: Mapping[str, AttributeType] | Sequence[str] | None = None
) -> list[Rule]:
    """Build rules from JSON-like ``data``, checking them against ``attributes``.

    ``data`` is a list of rules; a rule is a list of keys (or ``{"keys": [...]}``); a key is
    ``"attribute"`` (exact), ``{"attribute": a, "transform": t, "n": n}`` or
    ``[a, t]`` / ``[a, t, n]``. With typed ``attributes``, date parts need a date attribute
    and phonetic codes a string or category one.
    """
    if not isinstance(data, list) or not data:
        raise BlockingError("blocking rules must be a non-empty list of rules")
    if len(data) > MAX_RULES:
        raise BlockingError(f"at most {MAX_RULES} blocking rules, got {len(data)}")
    rules = []
    for r, raw_rule in enumerate(data, 1):
        raw_keys = raw_rule.get("keys") if isinstance(raw_rule, dict) else raw_rule
        if not isinstance(raw_keys, list) or not raw_keys:
            raise BlockingError(f"rule {r}: must be a non-empty list of keys")
        keys = tuple(
            _parse_key(raw, f"rule {r}, key {k}", attributes) for k, raw in enumerate(raw_keys, 1)
        )
        rules.append(Rule(keys))
    return rules


def _parse_key(raw: object, where: str, attributes: object) -> Key:
    if isinstance(raw, str):
        raw = {"attribute": raw}
    elif isinstance(raw, list | tuple) and 1 <= len(raw) <= 3:
        raw = dict(zip(("attribute", "transform", "n"), raw, strict=False))
    if not isinstance(raw, dict):
        raise BlockingError(f"{where}: a key is a name, a list or an object, not {raw!r}")
    unknown = set(raw) - {"attribute", "transform", "n"}
    if unknown:
        raise BlockingError(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}")
    attribute, transform, n = raw.get("attribute"), raw.get("transform", "exact"), raw.get("n")
    if not isinstance(attribute, str) or not attribute:
        raise BlockingError(f"{where}: missing attribute name")
    if attributes is not None and attribute not in attributes:
        raise BlockingError(f"{where}: unknown attribute {attribute!r}")
    if transform not in TRANSFORMS:
        raise BlockingError(
            f"{where}: unknown transform {transform!r} (choose from {', '.join(TRANSFORMS)})"
        )
    if transform in _WITH_N:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise BlockingError(f"{where}: {transform} needs a whole number n >= 1, not {n!r}")
    elif n is not None:
        raise BlockingError(f"{where}: {transform} takes no n")
    kind = attributes.get(attribute) if isinstance(attributes, Mapping) else None
    if kind is not None:
        kind = AttributeType(kind)
        if transform in _DATE_PARTS and kind is not AttributeType.DATE:
            raise BlockingError(
                f"{where}: {transform} needs a date attribute; {attribute} is {kind}"
            )
        if transform in _PHONETIC and kind not in (AttributeType.STRING, AttributeType.CATEGORY):
            raise BlockingError(
                f"{where}: {transform} needs a string attribute; {attribute} is {kind}"
            )
    return Key(attribute, transform, n)


def _keys(records: Records, rules: Sequence[Rule]) -> tuple[list[str], list[list]]:
    """Record ids, and per rule the blocking key of every record (in the same order)."""
    ids = list(records)
    return ids, [[rule.key(records[i]) for i in ids] for rule in rules]


def candidate_pairs(
    records_a: Records,
    records_b: Records | None,
    rules: Sequence[Rule],
    *,
    max_pairs: int | None = None,
) -> Iterator[tuple[str, str, int]]:
    """Yield ``(id_a, id_b, rule_index)`` for every pair blocked together by some rule.

    Link mode (two sources) pairs A with B only. Dedupe mode (``records_b`` is ``None``)
    pairs records of A, each unordered pair once, ordered as in ``records_a``. With
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
    ids_a, keys_a = _keys(records_a, rules)
    ids_b, keys_b = (ids_a, keys_a) if records_b is None else _keys(records_b, rules)

    def earlier(i: int, j: int, r: int) -> bool:
        return any(keys_a[q][i] is not None and keys_a[q][i] == keys_b[q][j] for q in range(r))

    for r in range(len(rules)):
        groups: dict[tuple[str, ...], list[int]] = {}
        for j, key in enumerate(keys_b[r]):
            if key is not None:
                groups.setdefault(key, []).append(j)
        if records_b is None:
            for members in groups.values():
                for x, i in enumerate(members):
                    for j in members[x + 1 :]:
                        if not earlier(i, j, r):
                            yield ids_a[i], ids_a[j], r
            continue
        for i, key in enumerate(keys_a[r]):
            for j in groups.get(key, ()) if key is not None else ():
                if not earlier(i, j, r):
                    yield ids_a[i], ids_b[j], r
