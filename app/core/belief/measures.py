"""Compatibility, uncertainty measures and acceptability of a combination (Torra & Stokes).

Compatibility (Definition 7, ``Bel(A) <= P(A)`` for every A) is decided by a maximum flow
(spec/README.md §3), never by enumerating the 2^n subsets: source → focal set B (capacity
m(B)) → each x ∈ B → sink (capacity P(x)). Bel is compatible with P iff every focal mass can
be split over its elements within P, and ``max_A (Bel(A) − P(A)) = Σ_{B≠∅} m(B) − maxflow``;
the elements still reachable in the residual graph form a set A attaining that maximum.

Entropy has the minus sign the paper's Definition 22 omits. Every measure comes in bits and in
nats under its own name (``entropy_bits``, ``nonspecificity_nats``, ...); the short names keep
the conventions of spec §3: :func:`entropy` in nats (the paper's), :func:`nonspecificity` in
bits (the literature's). The worked examples are in :mod:`app.core.belief.examples`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

from app.core.belief._flow import max_flow
from app.core.belief.mass import MassFunction, as_set, sums_to_one

__all__ = [
    "Acceptability",
    "Compatibility",
    "acceptability",
    "belief_entropy",
    "compatibility",
    "entropy",
    "entropy_bits",
    "entropy_nats",
    "is_compatible",
    "nonspecificity",
    "nonspecificity_bits",
    "nonspecificity_nats",
    "transfer",
]


@dataclass(frozen=True)
class Compatibility:
    """``violation = max_A (Bel(A) − P(A))`` (0 iff compatible), a maximising ``witness``."""

    violation: Real
    witness: frozenset
    flow: Real

    @property
    def compatible(self) -> bool:
        return (
            self.violation <= 0 if isinstance(self.violation, Fraction) else self.violation < 1e-9
        )


def compatibility(m: MassFunction, p: Mapping[Hashable, Real]) -> Compatibility:
    """Measure how far Bel(m) is from compatible with the probability ``p`` (Definition 7).

    ``p`` maps frame elements to probabilities summing to 1 (missing elements are 0). One
    maximum flow (:func:`app.core.belief._flow.max_flow`), polynomial in the focal sets and
    elements; exact masses are scaled to integers by their common denominator first.
    """
    unknown = set(p) - set(m.frame)
    if unknown:
        raise ValueError(f"probability on {len(unknown)} elements outside the frame")
    if any(v < 0 for v in p.values()) or not sums_to_one(p.values()):
        raise ValueError("p must be non-negative and sum to 1")
    focal = [(b, v) for b, v in m.focal.items() if b]
    caps = [p.get(x, 0) for x in m.frame]
    masses = [v for _, v in focal]
    exact = all(isinstance(v, int | Fraction) for v in [*masses, *caps])
    total = sum(masses, Fraction(0) if exact else 0.0)
    position = {x: j for j, x in enumerate(m.frame)}
    sets = [[position[x] for x in b] for b, _ in focal]
    if exact:
        scale = math.lcm(*(Fraction(v).denominator for v in [*masses, *caps]))
        flow, reached = max_flow(
            [int(v * scale) for v in masses], sets, [int(c * scale) for c in caps]
        )
        flow = Fraction(flow, scale)
    else:
        flow, reached = max_flow([float(v) for v in masses], sets, [float(c) for c in caps], 1e-12)
    witness = frozenset(m.frame[j] for j in reached)
    return Compatibility(total - flow, witness, flow)


def is_compatible(m: MassFunction, p: Mapping[Hashable, Real]) -> bool:
    """Whether ``Bel(A) <= P(A)`` for every subset A (exactly, for Fractions)."""
    return compatibility(m, p).compatible


def entropy_nats(p: Mapping[Hashable, Real]) -> float:
    """Shannon entropy in nats, ``H = −Σ P(x) ln P(x)`` (Definition 22, sign restored)."""
    return -sum(float(v) * math.log(v) for v in p.values() if v > 0) + 0.0


def entropy_bits(p: Mapping[Hashable, Real]) -> float:
    """Shannon entropy in bits, ``H = −Σ P(x) log2 P(x)``."""
    return entropy_nats(p) / math.log(2)


#: The paper's unit (Definition 22 uses the natural logarithm).
entropy = entropy_nats


def belief_entropy(m: MassFunction) -> float:
    """Entropy of the pignistic probability in nats (Definition 22); not monotone (Ex. 23, 24)."""
    return entropy_nats(m.pignistic())


def nonspecificity_bits(m: MassFunction) -> float:
    """``N(Bel) = Σ_A m(A) log2 |A|`` in bits (Definition 25); 0 iff Bel is a probability."""
    return sum(float(v) * math.log2(len(b)) for b, v in m.focal.items() if b)


def nonspecificity_nats(m: MassFunction) -> float:
    """``N(Bel) = Σ_A m(A) ln |A|`` in nats (Definition 25 with the natural logarithm)."""
    return sum(float(v) * math.log(len(b)) for b, v in m.focal.items() if b)


#: The literature's unit (Dubois & Prade, Klir & Wierman report N in bits).
nonspecificity = nonspecificity_bits


def transfer(m: MassFunction, source, target, delta: Real) -> MassFunction:
    """Move ``delta`` of mass from ``source`` to ``target ⊆ source`` (Proposition 26).

    ``N`` cannot increase (it drops by ``delta · log2(|source|/|target|)``).
    """
    c2, c1 = as_set(source), as_set(target)
    if not c1 <= c2:
        raise ValueError("mass moves to a subset of the source")
    if delta < 0 or delta > m.mass(c2):
        raise ValueError("delta must be between 0 and m(source)")
    if c1 == c2:
        return m
    focal = dict(m.focal)
    focal[c2] = m.mass(c2) - delta
    focal[c1] = m.mass(c1) + delta
    return MassFunction(m.frame, focal)


@dataclass(frozen=True)
class Acceptability:
    """Definition 27 for one combination: compatible with P and N not above either input's."""

    inputs_compatible: bool
    compatibility: Compatibility
    nonspecificity: float  # of the combination, bits
    nonspecificity_min: float  # min of the inputs', bits

    @property
    def nonspecificity_ok(self) -> bool:
        return self.nonspecificity <= self.nonspecificity_min + 1e-12

    @property
    def acceptable(self) -> bool:
        """Whether the combination meets Definition 27 (given compatible inputs)."""
        return self.compatibility.compatible and self.nonspecificity_ok


def acceptability(
    m1: MassFunction, m2: MassFunction, combined: MassFunction, p: Mapping[Hashable, Real]
) -> Acceptability:
    """Judge ``combined = C(m1, m2)`` by Definition 27 against the true probability ``p``.

    Acceptable when the result is compatible with ``p`` and
    ``N(combined) <= min(N(m1), N(m2))``. Definition 27 presumes both inputs compatible with
    ``p``; ``inputs_compatible`` says whether they are (if not, the verdict proves nothing).
    A combination with mass on ∅ (the unnormalised conjunctive rule) has ``Bel(Ω) < 1`` and is
    judged as it stands.
    """
    return Acceptability(
        inputs_compatible=is_compatible(m1, p) and is_compatible(m2, p),
        compatibility=compatibility(combined, p),
        nonspecificity=nonspecificity_bits(combined),
        nonspecificity_min=min(nonspecificity_bits(m1), nonspecificity_bits(m2)),
    )
