"""The paper's worked constructions (Torra & Stokes), exact and corrected (spec/README.md §3).

Proposition 19's compatible belief whose pignistic argmax lies outside the true set,
Example 21's masking (corrected to ``y = x − α·e_β``), and Examples 23 and 24 with the exact
masses the printed decimals truncate.
"""

from __future__ import annotations

from fractions import Fraction

from app.core.belief.mass import MassFunction, as_set
from app.core.belief.measures import transfer

__all__ = [
    "example_21_mask",
    "example_21_true_probability",
    "example_23",
    "example_24",
    "proposition_19_belief",
]


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
