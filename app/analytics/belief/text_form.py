"""Belief-function audits from text: parse bodies of evidence, measure and combine them.

Text forms (one entry per line, ``#`` starts a comment):

- frame: elements separated by commas or spaces (blank: the union of the entered sets);
- focal sets: ``a,b: 1/2`` (a mass: a fraction, an integer or a decimal, read exactly);
- candidate sets: ``r1 r2 r3: 2`` (a weight, default 1; weights are normalised to masses);
- true probability: ``a: 1/2`` per line or comma-separated (missing elements are 0).

The mathematics is :mod:`app.core.belief.mass` and :mod:`app.core.belief.measures`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from app.core.belief import (
    Compatibility,
    MassFunction,
    compatibility,
    conjunctive,
    dempster,
    entropy,
    intersect_candidates,
    nonspecificity,
)

MODES = ("masses", "candidates")
_SPLIT = re.compile(r"[,\s]+")


class BeliefInputError(ValueError):
    """Input that is not a body of evidence; the message names the field and the line."""


def _elements(text: str) -> tuple[str, ...]:
    items = [x for x in _SPLIT.split(text.strip().strip("{}").strip()) if x]
    return tuple(dict.fromkeys(items))


def _number(text: str, where: str) -> Fraction:
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        message = f"{where}: {text.strip()!r} is not a number like 1/2 or 0.5"
        raise BeliefInputError(message) from None
    if value < 0:
        raise BeliefInputError(f"{where}: {value} is negative")
    return value


def _lines(text: str) -> list[tuple[int, str]]:
    out = []
    for number, raw in enumerate((text or "").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            out.append((number, line))
    return out


def parse_sets(text: str, mode: str, field: str) -> dict[frozenset, Fraction]:
    """Parse focal sets with masses, or candidate sets with weights (normalised)."""
    if mode not in MODES:
        raise BeliefInputError(f"unknown input kind {mode!r}")
    entries: dict[frozenset, Fraction] = {}
    for number, line in _lines(text):
        where = f"{field}, line {number}"
        head, sep, value = line.rpartition(":")
        if not sep:
            if mode == "masses":
                raise BeliefInputError(f"{where}: write the set, a colon, then its mass: a,b: 1/2")
            head, value = line, "1"
        subset = frozenset(_elements(head))
        if not subset:
            raise BeliefInputError(f"{where}: the set is empty")
        entries[subset] = entries.get(subset, Fraction(0)) + _number(value, where)
    if not entries:
        raise BeliefInputError(f"{field}: enter at least one set")
    if mode == "candidates":
        total = sum(entries.values())
        if total == 0:
            raise BeliefInputError(f"{field}: the weights sum to 0")
        entries = {s: w / total for s, w in entries.items()}
    elif sum(entries.values()) != 1:
        raise BeliefInputError(f"{field}: the masses sum to {sum(entries.values())}, not 1")
    return entries


def parse_frame(text: str, *bodies: dict[frozenset, Fraction]) -> tuple[str, ...]:
    """The frame as entered, or the union of the sets in entry order when blank."""
    frame = _elements(text or "")
    if not frame:
        seen: dict[str, None] = {}
        for body in bodies:
            for subset in body:
                seen.update(dict.fromkeys(sorted(subset)))
        return tuple(seen)
    for body in bodies:
        for subset in body:
            outside = sorted(subset - set(frame))
            if outside:
                raise BeliefInputError(f"Frame: {', '.join(outside)} is not in the frame")
    return frame


def parse_probability(text: str, frame: Sequence[str]) -> dict[str, Fraction] | None:
    """``x: p`` entries over the frame, summing to 1; None when blank."""
    entries = [(n, part.strip()) for n, line in _lines(text) for part in line.split(",")]
    if not entries:
        return None
    p: dict[str, Fraction] = {}
    for number, part in entries:
        where = f"True probability, line {number}"
        name, sep, value = part.partition(":")
        if not sep or not name.strip():
            raise BeliefInputError(f"{where}: write an element, a colon, then P: a: 1/2")
        if name.strip() not in frame:
            raise BeliefInputError(f"{where}: {name.strip()} is not in the frame")
        p[name.strip()] = p.get(name.strip(), Fraction(0)) + _number(value, where)
    if sum(p.values()) != 1:
        raise BeliefInputError(f"True probability: sums to {sum(p.values())}, not 1")
    return p


@dataclass(frozen=True)
class SetRow:
    label: str
    mass: Fraction
    bel: Fraction
    pl: Fraction
    pignistic: Fraction | None = None


@dataclass(frozen=True)
class BodyAudit:
    """Everything the page shows about one mass function."""

    title: str
    singletons: list[SetRow]
    focal: list[SetRow]
    conflict: Fraction
    nonspecificity: float
    entropy: float
    compatibility: Compatibility | None


def label(subset: frozenset, frame: Sequence[str]) -> str:
    """``{a, b}`` in frame order; ``∅`` for the empty set."""
    return "{" + ", ".join(x for x in frame if x in subset) + "}" if subset else "∅"


def audit(title: str, m: MassFunction, p: dict | None) -> BodyAudit:
    """Bel, Pl, pignistic, measures and (with ``p``) compatibility of one mass function."""
    frame = m.frame
    pig = m.pignistic()
    singles = [
        SetRow(label(frozenset({x}), frame), m.mass({x}), m.bel({x}), m.pl({x}), pig[x])
        for x in frame
    ]
    ordered = sorted(m.focal.items(), key=lambda kv: (len(kv[0]), label(kv[0], frame)))
    focal = [SetRow(label(b, frame), v, m.bel(b), m.pl(b)) for b, v in ordered]
    return BodyAudit(
        title=title,
        singletons=singles,
        focal=focal,
        conflict=Fraction(m.conflict),
        nonspecificity=nonspecificity(m),
        entropy=entropy(pig),
        compatibility=compatibility(m, p) if p is not None else None,
    )


@dataclass(frozen=True)
class AuditReport:
    frame: tuple[str, ...]
    probability: dict[str, Fraction] | None
    bodies: list[BodyAudit]
    dempster_conflict: Fraction | None = None
    notes: tuple[str, ...] = ()


def run_audit(form) -> AuditReport:
    """Parse the form (a mapping of strings) and audit one body, or two and their combinations."""
    mode = form.get("mode", "masses")
    first = parse_sets(form.get("first", ""), mode, "First body")
    second_text = form.get("second", "")
    second = parse_sets(second_text, mode, "Second body") if _lines(second_text) else None
    frame = parse_frame(form.get("frame", ""), first, *([second] if second else []))
    p = parse_probability(form.get("probability", ""), frame)
    m1 = MassFunction(frame, first)
    bodies = [audit("First body", m1, p)]
    if second is None:
        return AuditReport(frame, p, bodies)
    m2 = MassFunction(frame, second)
    bodies.append(audit("Second body", m2, p))
    notes, k = [], None
    try:
        bodies.append(audit("Conjunctive (unnormalised)", conjunctive(m1, m2), p))
    except ValueError as exc:  # all mass on ∅: no pignistic probability
        notes.append(f"Conjunctive: {exc}.")
    try:
        combined = dempster(m1, m2)
        k = combined.conflict
        bodies.append(audit("Dempster", combined.mass, p))
    except ValueError as exc:
        notes.append(f"Dempster: {exc}.")
    if len(first) == len(second) == 1:
        try:
            both = intersect_candidates(frame, *first, *second)
            bodies.append(audit("Candidate intersection", both, p))
        except ValueError as exc:
            notes.append(f"Candidate intersection: {exc}.")
    else:
        notes.append("Candidate intersection applies when each body is one candidate set.")
    return AuditReport(frame, p, bodies, k, tuple(notes))
