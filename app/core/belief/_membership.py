"""Is the true record among a displayed row's candidates, and how much of its true set is?

The membership half of :mod:`app.core.belief.state_audit`: for the ``row`` model the true record's
own values are checked against the row's evidence; for the ``pair`` model against the row's
evidence and the markers with some partner record (:func:`pair_member_values`), decided from
the one value tuple the true record and its true set share, so no candidate set is ever
materialised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.core.disclosure import AttributeType
from app.core.kapr import SIDES, AnonymityIndex, Evidence, Markers, PairView, Relation, Row

__all__ = ["DisplayedPair", "membership", "pair_member_values", "true_set_size"]


@dataclass(frozen=True, slots=True)
class DisplayedPair:
    """One displayed pair: its evidence, the true records' positions and the two indexes."""

    view: PairView
    truth: tuple[int, int]
    indexes: tuple[AnonymityIndex, AnonymityIndex]
    label: object = None  # the pair's id, for reports


def _true_row(index: AnonymityIndex, position: int) -> dict[str, Evidence]:
    """Full evidence of every attribute of the record at ``position``."""
    return {
        a: Evidence.full(index.value(a, position), category=c.kind is AttributeType.CATEGORY)
        for a, c in index.columns.items()
    }


def true_set_size(index: AnonymityIndex, position: int, cache: dict) -> int:
    key = (id(index), position)
    if key not in cache:
        cache[key] = (index, index.count(_true_row(index, position)))
    return cache[key][1]


def _row_consistent(index: AnonymityIndex, row: Row, position: int) -> bool:
    positions = np.array([position], dtype=np.int32)
    for constraint in index.constraints(row).values():
        positions = index.refine(positions, constraint)
        if not len(positions):
            return False
    return True


def _partner_slot(index: AnonymityIndex, partner: AnonymityIndex, attr: str, pos: int) -> int:
    """The slot in ``partner`` of the value record ``pos`` of ``index`` has (-1: none)."""
    slot = int(index.columns[attr].slots[pos])
    if index is partner or slot == 0:
        return slot
    uniques = partner.columns[attr].uniques
    value = index.columns[attr].uniques[slot]
    at = int(np.searchsorted(uniques, value))
    return at if at < len(uniques) and uniques[at] == value else -1


def pair_member_values(
    position: int,
    row: Row,
    partner: Row,
    markers: Markers,
    side: str,
    index: AnonymityIndex,
    partner_index: AnonymityIndex,
) -> np.ndarray:
    """The partners ``r'`` that make a record with ``position``'s values a ``pair`` candidate.

    Returns the positions (in ``partner_index``) consistent with the partner's evidence whose
    values meet every marker against the values of the record at ``position``; empty when
    that record is not consistent with ``row`` itself. Records with equal values share the
    answer, except that a record is never its own partner (the caller removes it).
    """
    if not _row_consistent(index, row, position):
        return np.empty(0, dtype=np.int32)
    other = "right" if side == "left" else "left"
    b = partner_index.candidates(partner)
    for attr, marker in markers.items():
        mine = int(index.columns[attr].slots[position])
        if (mine == 0) != marker.missing(side):
            return np.empty(0, dtype=np.int32)
        theirs = partner_index.columns[attr].slots[b]
        b = b[(theirs == 0) == marker.missing(other)]
        if marker.relation is Relation.MISSING:
            continue
        slot = _partner_slot(index, partner_index, attr, position)
        same = partner_index.columns[attr].slots[b] == slot
        b = b[same] if marker.relation is Relation.IDENTICAL else b[~same]
    return b


def membership(
    pair: DisplayedPair, side_number: int, model: str, true_size: int
) -> tuple[bool, int]:
    """(true record ∈ C, |T ∩ C|) for one row under ``model``."""
    side, other = SIDES[side_number], SIDES[1 - side_number]
    index, partner_index = pair.indexes[side_number], pair.indexes[1 - side_number]
    t = pair.truth[side_number]
    row, partner = pair.view.row(side), pair.view.row(other)
    if model == "row":
        inside = _row_consistent(index, row, t)
        return inside, true_size if inside else 0
    found = pair_member_values(t, row, partner, pair.view.markers, side, index, partner_index)
    if index is not partner_index or len(found) >= 2:
        inside = len(found) > 0
        return inside, true_size if inside else 0
    if not len(found):
        return False, 0
    # One partner r0 in the same source: every member of T except r0 itself is covered.
    lone = int(found[0])
    in_true_set = _row_consistent(index, _true_row(index, t), lone)
    return lone != t, true_size - (1 if in_true_set else 0)
