"""Compatibility, uncertainty measures and the paper's worked constructions (Torra & Stokes).

Compatibility (Definition 7, ``Bel(A) <= P(A)`` for every A) is decided by a maximum flow
(spec/README.md §3), never by enumerating the 2^n subsets: source → focal set B (capacity
m(B)) → each x ∈ B → sink (capacity P(x)). Bel is compatible with P iff every focal mass can
be split over its elements within P, and ``max_A (Bel(A) − P(A)) = Σ_{B≠∅} m(B) − maxflow``;
the elements still reachable in the residual graph form a set A attaining that maximum.

Entropy is in nats with the minus sign the paper's Definition 22 omits; non-specificity
(Definition 25, Dubois & Prade) in bits.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

from app.core.belief import MassFunction, as_set, sums_to_one

__all__ = [
    "Compatibility",
    "belief_entropy",
    "compatibility",
    "entropy",
    "example_21_mask",
    "example_21_true_probability",
    "example_23",
    "example_24",
    "is_compatible",
    "nonspecificity",
    "proposition_19_belief",
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


def _max_flow(cap: dict, source, sink, eps) -> tuple[Real, set]:
    """Edmonds–Karp on a residual-capacity dict; returns the flow and the source side."""
    flow = 0
    while True:
        parent, queue = {source: None}, deque([source])
        while queue and sink not in parent:
            u = queue.popleft()
            for v, c in cap[u].items():
                if c > eps and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if sink not in parent:
            return flow, set(parent)
        path, v = [], sink
        while parent[v] is not None:
            path.append((parent[v], v))
            v = parent[v]
        push = min(cap[u][v] for u, v in path)
        for u, v in path:
            cap[u][v] -= push
            cap[v][u] = cap[v].get(u, 0) + push
        flow += push


def compatibility(m: MassFunction, p: Mapping[Hashable, Real]) -> Compatibility:
    """Measure how far Bel(m) is from compatible with the probability ``p`` (Definition 7).

    ``p`` maps frame elements to probabilities summing to 1 (missing elements are 0).
    Runs in polynomial time in the number of focal sets and elements.
    """
    unknown = set(p) - set(m.frame)
    if unknown:
        raise ValueError(f"probability on elements outside the frame: {unknown}")
    if any(v < 0 for v in p.values()) or not sums_to_one(p.values()):
        raise ValueError("p must be non-negative and sum to 1")
    values = [*m.focal.values(), *p.values()]
    exact = all(isinstance(v, int | Fraction) for v in values)
    source, sink = ("source",), ("sink",)
    cap: dict = {source: {}, sink: {}}
    for k, (b, mass) in enumerate(m.focal.items()):
        if not b:
            continue
        cap[source][("B", k)] = mass
        cap[("B", k)] = {("x", x): mass for x in b}
    for x in m.frame:
        cap.setdefault(("x", x), {})[sink] = p.get(x, 0)
    flow, reachable = _max_flow(cap, source, sink, 0 if exact else 1e-12)
    total = sum((v for b, v in m.focal.items() if b), Fraction(0) if exact else 0.0)
    witness = frozenset(x for x in m.frame if ("x", x) in reachable)
    return Compatibility(total - flow, witness, flow)


def is_compatible(m: MassFunction, p: Mapping[Hashable, Real]) -> bool:
    """Whether ``Bel(A) <= P(A)`` for every subset A (exactly, for Fractions)."""
    return compatibility(m, p).compatible


def entropy(p: Mapping[Hashable, Real]) -> float:
    """Shannon entropy in nats, ``H = −Σ P(x) ln P(x)`` (Definition 22, sign restored)."""
    return -sum(float(v) * math.log(v) for v in p.values() if v > 0) + 0.0


def belief_entropy(m: MassFunction) -> float:
    """Entropy of the pignistic probability (Definition 22); not monotone (Examples 23, 24)."""
    return entropy(m.pignistic())


def nonspecificity(m: MassFunction) -> float:
    """``N(Bel) = Σ_A m(A) log2 |A|`` in bits (Definition 25); 0 iff Bel is a probability."""
    return sum(float(v) * math.log2(len(b)) for b, v in m.focal.items() if b)


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


def proposition_19_belief(frame, candidates, outsider) -> MassFunction:
    """Proposition 19: ``m({x0, x}) = 1/k`` for every x of the k candidates, x0 outside them.

    Compatible with the uniform true probability on the candidates, yet its pignistic
    probability is largest (1/2) on the outsider x0 (Corollary 20).
    """
    cands = sorted(as_set(candidates), key=repr)
    if outsider in cands or len(cands) < 2:
        raise ValueError("need k >= 2 candidates and an outsider not among them")
    return MassFunction.of(frame, {(outsider, x): Fraction(1, len(cands)) for x in cands})


def example_21_mask(x: tuple[int, int, int], alpha: int, beta: int) -> tuple[int, int, int]:
    """Example 21's masking, corrected as ``y = x − α·e_β`` (α ∈ {0, 1}, β ∈ {1, 2, 3}).

    As printed (``y = x + α·e_β`` on ℕ³) the only record that can give ``y = (0,0,0)`` is
    ``x0 = (0,0,0)`` itself, so the example needs the subtraction (spec §3).
    """
    if alpha not in (0, 1) or beta not in (1, 2, 3):
        raise ValueError("alpha in {0, 1}, beta in {1, 2, 3}")
    return tuple(v - (alpha if k == beta - 1 else 0) for k, v in enumerate(x))


def example_21_true_probability(
    y: tuple[int, int, int], records, alpha: int | None = None
) -> dict[tuple[int, int, int], Fraction]:
    """True probability that ``y`` comes from each record (uniform prior over ``records``).

    With α known (0 or 1) only that α is possible; unknown, α and β are uniform. With
    ``y = (0,0,0)`` and α known to be one, x0 = (0,0,0) is impossible and x1, x2, x3 have 1/3
    each: the setting in which Proposition 19's belief picks the impossible x0.
    """
    alphas = (0, 1) if alpha is None else (alpha,)
    like = {}
    for x in records:
        ways = sum(example_21_mask(x, a, b) == tuple(y) for a in alphas for b in (1, 2, 3))
        like[x] = Fraction(ways, 3 * len(alphas))
    total = sum(like.values())
    if total == 0:
        raise ValueError("no record can produce y")
    return {x: v / total for x, v in like.items()}


def _frame(n: int) -> tuple[str, ...]:
    return tuple(f"x{k}" for k in range(1, n + 1))


def example_23() -> tuple[MassFunction, MassFunction]:
    """Example 23 with exact masses (spec §3): ``m`` and ``m'`` after moving Δ = 4/13.

    ``m({x1..x5}) = 5/13``, ``m({x1..x8}) = 8/13``; ``m'`` moves 4/13 from ``{x1..x8}`` to
    ``{x1, x2}``, so ``P'(x1) = P'(x2) = 7/26`` (the paper prints 0.15384617) and the entropy
    falls from 2.0317593 to 1.8300099 nats.
    """
    frame = _frame(8)
    m = MassFunction.of(frame, {frame[:5]: Fraction(5, 13), frame: Fraction(8, 13)})
    return m, transfer(m, frame, frame[:2], Fraction(4, 13))


def example_24() -> tuple[MassFunction, MassFunction]:
    """Example 24 with exact masses: ``m(Ω) = 5/6``, ``m({x1, x2}) = 1/6``; all of m(Ω) moves
    to ``{x3..x10}``, and the entropy *rises* from 2.2538579 to 2.2989538 nats."""
    frame = _frame(10)
    m = MassFunction.of(frame, {frame: Fraction(5, 6), frame[:2]: Fraction(1, 6)})
    return m, transfer(m, frame, frame[2:], Fraction(5, 6))
