"""Early alerts: Wald's sequential probability ratio test on a reviewer's check answers.

Each answered known-truth check is a Bernoulli trial (wrong or right). The test weighs
``H1: error rate = p1`` (the manager's threshold) against ``H0: error rate = p0`` (an
acceptable rate, below it) by the log-likelihood ratio ``Λ`` (Wald, *Ann. Math. Statist.* 16,
1945): each wrong answer adds ``log(p1 / p0)``, each right one ``log((1 - p1) / (1 - p0))``.
The reviewer is flagged when ``Λ >= a = log((1 - β) / α)``. When ``Λ <= b = log(β / (1 - α))``
the test accepts ``H0`` and starts again from zero, so a reviewer who is fine for a while and
then errs is still caught (a repeated SPRT, close to Page's CUSUM).

Wald's bounds: one test flags a reviewer at ``p0`` with probability at most about ``α`` and
misses one at ``p1`` with probability at most about ``β``; at a true rate below ``p0`` the
false alerts are rarer still (the operating characteristic, :meth:`Sprt.false_alert`).
``bench/quality.py`` measures the rates the whole rule reaches per decision.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Sprt", "SprtState"]


@dataclass(frozen=True)
class SprtState:
    """Where the test stands after some trials: the statistic, and the trial that flagged."""

    statistic: float
    trials: int
    wrong: int
    flagged_at: int | None  # 1-based index of the trial that crossed ``a`` (None: not yet)


@dataclass(frozen=True)
class Sprt:
    """The repeated SPRT of ``H0: p = p0`` against ``H1: p = p1`` (``0 < p0 < p1 < 1``)."""

    p0: float
    p1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self):
        if not 0 < self.p0 < self.p1 < 1:
            raise ValueError("the rates must satisfy 0 < p0 < p1 < 1")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError("alpha and beta must be in (0, 1) with alpha + beta < 1")

    @classmethod
    def for_threshold(cls, threshold: float, p0_share: float, alpha: float, beta: float):
        """The test of the manager's ``threshold`` against ``p0_share`` of it."""
        return cls(threshold * p0_share, threshold, alpha, beta)

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def wrong_step(self) -> float:
        return math.log(self.p1 / self.p0)

    @property
    def right_step(self) -> float:
        return math.log((1 - self.p1) / (1 - self.p0))

    def run(self, wrong: Iterable[bool]) -> SprtState:
        """Feed the trials in order (True: a wrong answer); stop at the first alert."""
        statistic, trials, errors = 0.0, 0, 0
        for is_wrong in wrong:
            trials += 1
            errors += bool(is_wrong)
            statistic += self.wrong_step if is_wrong else self.right_step
            if statistic >= self.upper:
                return SprtState(statistic, trials, errors, trials)
            if statistic <= self.lower:
                statistic = 0.0  # H0 accepted: test again from here
        return SprtState(statistic, trials, errors, None)

    def false_alert(self, rate: float) -> float:
        """Wald's approximation of one test's chance to flag a reviewer whose error rate is
        ``rate``: ``(1 - B^h) / (A^h - B^h)`` with ``h`` solving
        ``rate·(p1/p0)^h + (1 - rate)·((1-p1)/(1-p0))^h = 1``."""
        if not 0 < rate < 1:
            raise ValueError("rate must be in (0, 1)")
        drift = rate * self.wrong_step + (1 - rate) * self.right_step
        if abs(drift) < 1e-12:
            return self.lower / (self.lower - self.upper)
        h = _root(rate, self.wrong_step, self.right_step, drift)
        a, b = math.exp(h * self.upper), math.exp(h * self.lower)
        return (1 - b) / (a - b)


def _root(rate: float, up: float, down: float, drift: float) -> float:
    """The non-zero ``h`` with ``rate·e^(h·up) + (1 - rate)·e^(h·down) = 1`` (bisection)."""

    def f(h: float) -> float:
        return rate * math.exp(h * up) + (1 - rate) * math.exp(h * down) - 1

    # f(0) = 0 and f'(0) = drift, and f is convex: the other root has the sign of -drift.
    low, high = (1e-9, 1.0) if drift < 0 else (-1.0, -1e-9)
    while f(high if drift < 0 else low) < 0:
        if drift < 0:
            high *= 2
        else:
            low *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if (f(mid) < 0) == (drift < 0):
            low = mid
        else:
            high = mid
    return (low + high) / 2
