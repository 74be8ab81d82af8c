"""Audit a linkage output against ground truth (Torra & Stokes §4.1, Definitions 7 and 10).

A re-identification method returns, per protected record, a probability over candidate
records or, expressing uncertainty, a mass function (Definition 10). Given the true record(s)
it came from (the true probability uniform on them, Example 8), each record's output is:

- *compatible* when ``Bel(A) <= P(A)`` for every A (max-flow, spec §3); otherwise the link is
  **over-confident**: it commits more belief to some set than the truth allows, by
  ``max_violation``, on the ``witness`` set;
- checked against Proposition 16: a compatible output's pignistic support contains the true
  support (``support_ok``); a method that gives a true record zero pignistic probability is
  not compatible with any truth containing it;
- scored by the pignistic probability of the true set and by whether every pignistic
  maximiser lies outside it (Proposition 19, Corollary 20: possible even when compatible).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

from app.core.belief.mass import MassFunction, true_probability
from app.core.belief.measures import compatibility, nonspecificity_bits

__all__ = ["LinkAudit", "LinkageAudit", "RecordOutput", "audit_linkage", "audit_output"]


@dataclass(frozen=True)
class RecordOutput:
    """One protected record's output ``m`` and the true record(s) ``truth`` (in m's frame)."""

    record: str
    m: MassFunction
    truth: frozenset


@dataclass(frozen=True)
class LinkAudit:
    record: str
    candidates: int  # elements with positive pignistic probability
    compatible: bool
    max_violation: Real
    witness_size: int
    support_ok: bool  # Proposition 16: supp(P) ⊆ supp(P_Bel)
    true_probability: Real  # P_Bel(truth)
    argmax_outside_true_set: bool  # Proposition 19
    nonspecificity_bits: float

    @property
    def overconfident(self) -> bool:
        return not self.compatible


def audit_output(output: RecordOutput) -> LinkAudit:
    """Audit one record's output (see the module docstring)."""
    m, truth = output.m, output.truth
    if not truth or not truth <= frozenset(m.frame):
        raise ValueError(f"record {output.record}: the true record must be in its frame")
    p = true_probability(m.frame, truth)
    result = compatibility(m, p)
    pig = m.pignistic()
    inside = max((pig[x] for x in truth), default=0)
    outside = max((v for x, v in pig.items() if x not in truth), default=0)
    return LinkAudit(
        record=output.record,
        candidates=sum(1 for v in pig.values() if v > 0),
        compatible=result.compatible,
        max_violation=result.violation,
        witness_size=len(result.witness),
        support_ok=all(pig[x] > 0 for x in truth),
        true_probability=sum(pig[x] for x in truth),
        argmax_outside_true_set=outside > inside,
        nonspecificity_bits=nonspecificity_bits(m),
    )


@dataclass(frozen=True)
class LinkageAudit:
    records: list[LinkAudit]

    @property
    def compatible(self) -> int:
        return sum(r.compatible for r in self.records)

    @property
    def overconfident(self) -> list[str]:
        return [r.record for r in self.records if r.overconfident]

    @property
    def support_violations(self) -> int:
        return sum(not r.support_ok for r in self.records)

    @property
    def argmax_outside(self) -> int:
        return sum(r.argmax_outside_true_set for r in self.records)

    @property
    def mean_true_probability(self) -> Real:
        values = [r.true_probability for r in self.records]
        if not values:
            return Fraction(0)
        exact = all(isinstance(v, int | Fraction) for v in values)
        return sum(values, Fraction(0)) / len(values) if exact else math.fsum(values) / len(values)


def audit_linkage(outputs: Iterable[RecordOutput]) -> LinkageAudit:
    """Audit every record's output."""
    return LinkageAudit([audit_output(o) for o in outputs])
