"""Belief functions for re-identification (Torra & Stokes; spec/README.md §3).

A :class:`MassFunction` is a basic probability assignment (Definition 2) over a finite frame,
stored as its focal sets (frozensets) and their masses; ``Fraction`` masses stay exact through
every operation here. Bel and Pl follow Proposition 3 (eq. 3), the pignistic probability
Definition 4. Combination: the conjunctive (unnormalised) rule, Dempster's rule (which is *not*
acceptable in the sense of Definition 27: :func:`dempster` of ``m({a}) = m({a,b}) = 1/2`` with
itself gives ``Bel({a}) = 3/4 > P({a}) = 1/2``) and the intersection of categorical
candidate-set evidence (which is). Measures and compatibility are in
:mod:`app.core.belief.measures`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

__all__ = [
    "Combination",
    "MassFunction",
    "as_set",
    "candidate_set_belief",
    "categorical",
    "condition",
    "conjunctive",
    "dempster",
    "disjunctive",
    "intersect_candidates",
    "sums_to_one",
    "true_probability",
    "vacuous",
]

FLOAT_TOLERANCE = 1e-9


def as_set(key) -> frozenset:
    """A focal set from a set, tuple or list of elements; a string or scalar is one element."""
    if isinstance(key, frozenset):
        return key
    if isinstance(key, str | bytes) or not isinstance(key, Iterable):
        return frozenset({key})
    return frozenset(key)


def _is_exact(value) -> bool:
    return isinstance(value, int | Fraction)


def sums_to_one(values: Iterable[Real]) -> bool:
    """Exactly 1 for ints and Fractions, within 1e-9 as soon as one value is a float."""
    values = list(values)
    total = sum(values, Fraction(0) if all(map(_is_exact, values)) else 0.0)
    return total == 1 if isinstance(total, Fraction) else math.isclose(total, 1, abs_tol=1e-9)


@dataclass(frozen=True)
class MassFunction:
    """A mass function ``m`` over ``frame``; ``focal`` maps focal sets to positive masses.

    Masses are non-negative and sum to 1 (exactly, for Fractions). Zero masses are dropped.
    ``m(∅) > 0`` is allowed only as the conflict the unnormalised :func:`conjunctive` rule
    leaves (Smets' open world); Bel then counts non-empty subsets only.
    """

    frame: tuple[Hashable, ...]
    focal: Mapping[frozenset, Real]

    def __post_init__(self) -> None:
        frame = tuple(self.frame)
        if len(set(frame)) != len(frame) or not frame:
            raise ValueError("the frame must be a non-empty sequence of distinct elements")
        universe, focal = frozenset(frame), {}
        for key, mass in self.focal.items():
            subset = as_set(key)
            if not subset <= universe:
                raise ValueError(f"focal set {set(subset)} is not a subset of the frame")
            if isinstance(mass, bool) or not isinstance(mass, Real) or not mass >= 0:
                raise ValueError(f"mass {mass!r} of {set(subset)} must be a number >= 0")
            if mass != 0:
                focal[subset] = focal.get(subset, 0) + mass
        if not sums_to_one(focal.values()):
            raise ValueError(f"masses sum to {sum(focal.values())}, not 1")
        object.__setattr__(self, "frame", frame)
        object.__setattr__(self, "focal", focal)

    @classmethod
    def of(cls, frame: Iterable[Hashable], masses: Mapping) -> MassFunction:
        """Build from ``{focal set (any iterable, or one element): mass}``."""
        return cls(tuple(frame), {as_set(k): v for k, v in masses.items()})

    def mass(self, subset) -> Real:
        """``m(A)``."""
        return self.focal.get(as_set(subset), 0)

    @property
    def conflict(self) -> Real:
        """``m(∅)``: zero for a normal mass function."""
        return self.focal.get(frozenset(), 0)

    def bel(self, subset) -> Real:
        """``Bel(A) = Σ_{∅ ≠ B ⊆ A} m(B)`` (eq. 3)."""
        a = as_set(subset)
        return sum((m for b, m in self.focal.items() if b and b <= a), self._zero())

    def pl(self, subset) -> Real:
        """``Pl(A) = Σ_{B ∩ A ≠ ∅} m(B)``, so ``Pl(A) = 1 − Bel(Ω∖A)`` for normal m."""
        a = as_set(subset)
        return sum((m for b, m in self.focal.items() if b & a), self._zero())

    def q(self, subset) -> Real:
        """Commonality ``q(A) = Σ_{B ⊇ A} m(B)``; ``q(∅) = 1`` (Shafer 1976, ch. 2)."""
        a = as_set(subset)
        return sum((m for b, m in self.focal.items() if a <= b), self._zero())

    def pignistic(self) -> dict[Hashable, Real]:
        """``P_Bel({x}) = Σ_{B ∋ x} m(B)/|B|`` (Definition 4), over ``1 − m(∅)`` if m(∅) > 0."""
        p = dict.fromkeys(self.frame, self._zero())
        for b, m in self.focal.items():
            for x in b:
                p[x] += m / len(b) if not _is_exact(m) else Fraction(m) / len(b)
        norm = 1 - self.conflict
        if norm == 0:
            raise ValueError("all mass is on the empty set: no pignistic probability")
        return {x: v / norm for x, v in p.items()} if self.conflict else p

    def is_bayesian(self) -> bool:
        """Whether every focal set is a singleton (Bel is then a probability)."""
        return all(len(b) == 1 for b in self.focal)

    def _zero(self) -> Real:
        return Fraction(0) if all(map(_is_exact, self.focal.values())) else 0.0


def categorical(frame: Iterable[Hashable], subset) -> MassFunction:
    """``m(A) = 1``: the evidence "the record is in A" and nothing more."""
    return MassFunction.of(frame, {as_set(subset): Fraction(1)})


def vacuous(frame: Iterable[Hashable]) -> MassFunction:
    """``m(Ω) = 1``: total ignorance (Definition 10, item 1)."""
    frame = tuple(frame)
    return categorical(frame, frame)


def true_probability(frame: Iterable[Hashable], candidate_set) -> dict[Hashable, Fraction]:
    """Example 8's true probability: uniform over the candidate set, 0 elsewhere."""
    cands = as_set(candidate_set)
    if not cands:
        raise ValueError("the candidate set must not be empty")
    return {x: Fraction(1, len(cands)) if x in cands else Fraction(0) for x in frame}


def candidate_set_belief(frame: Iterable[Hashable], candidate_set) -> MassFunction:
    """Example 11's re-identification expressing uncertainty: ``m(CandidateSet_Attrs) = 1``."""
    return categorical(frame, candidate_set)


@dataclass(frozen=True)
class Combination:
    """A combined mass function and the conflict ``K = Σ_{B ∩ C = ∅} m1(B) m2(C)``."""

    mass: MassFunction
    conflict: Real


def _same_frame(m1: MassFunction, m2: MassFunction) -> None:
    if set(m1.frame) != set(m2.frame):
        raise ValueError("mass functions on different frames")


def conjunctive(m1: MassFunction, m2: MassFunction) -> MassFunction:
    """Unnormalised conjunctive rule: ``m(A) = Σ_{B ∩ C = A} m1(B) m2(C)``, ∅ included."""
    _same_frame(m1, m2)
    out: dict[frozenset, Real] = {}
    for b, mb in m1.focal.items():
        for c, mc in m2.focal.items():
            out[b & c] = out.get(b & c, 0) + mb * mc
    return MassFunction(m1.frame, out)


def disjunctive(m1: MassFunction, m2: MassFunction) -> MassFunction:
    """Disjunctive rule: ``m(A) = Σ_{B ∪ C = A} m1(B) m2(C)`` (one of the two sources is right).

    Never conflicts and never gains specificity: ``Bel = Bel1 · Bel2``, so it is compatible with
    any probability either input is compatible with, but N does not decrease.
    """
    _same_frame(m1, m2)
    out: dict[frozenset, Real] = {}
    for b, mb in m1.focal.items():
        for c, mc in m2.focal.items():
            out[b | c] = out.get(b | c, 0) + mb * mc
    return MassFunction(m1.frame, out)


def condition(m: MassFunction, subset) -> MassFunction:
    """Dempster conditioning on "the record is in B": ``m(· | B)`` (paper §4.3).

    The conjunctive combination with the categorical ``m_B(B) = 1``, renormalised; raises
    ``ValueError`` when ``Pl(B) = 0`` (the evidence rules B out entirely).
    """
    b = as_set(subset)
    if not b:
        raise ValueError("cannot condition on the empty set")
    if not b <= frozenset(m.frame):
        raise ValueError(f"conditioning set {set(b)} is not a subset of the frame")
    try:
        return dempster(m, categorical(m.frame, b)).mass
    except ValueError:
        raise ValueError("Pl(B) = 0: the evidence gives no mass to the conditioning set") from None


def dempster(m1: MassFunction, m2: MassFunction) -> Combination:
    """Dempster's rule: the conjunctive rule renormalised by ``1 − K``.

    Raises
    ------
    ValueError
        When the two are in total conflict (``K = 1``).
    """
    joint = conjunctive(m1, m2)
    k = joint.conflict
    if k == 1 or (not _is_exact(k) and math.isclose(k, 1)):
        raise ValueError("total conflict: Dempster's rule is undefined")
    focal = {b: m / (1 - k) for b, m in joint.focal.items() if b}
    return Combination(MassFunction(m1.frame, focal), k)


def intersect_candidates(frame: Iterable[Hashable], *candidate_sets) -> MassFunction:
    """Combine categorical candidate-set evidence: ``m(∩ CandidateSet_i) = 1``.

    Acceptable (Definition 27): if every set contains the true candidate set, so does their
    intersection, and its non-specificity ``log2 |∩|`` is at most each one's.
    """
    sets = [as_set(s) for s in candidate_sets]
    if not sets:
        raise ValueError("at least one candidate set is needed")
    common = frozenset.intersection(*sets)
    if not common:
        raise ValueError("the candidate sets have no record in common: incompatible evidence")
    return categorical(frame, common)
