"""Agreement between coders and accuracy against known answers.

Cohen's kappa for two coders over the items both answered (Cohen, *Educ. Psychol. Meas.* 20,
1960), Fleiss' kappa for a project's items each answered by the same number of coders
(Fleiss, *Psychol. Bull.* 76, 1971), discordance (the share of items two answers differ on,
Gupta et al., *Appl. Clin. Inform.* 15, 2024) and the Wilson score interval of an accuracy
(Wilson, *JASA* 22, 1927). Answers are labels (``same``, ``different``, ``unsure``); an item
is a pair.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "Interval",
    "cohen_kappa",
    "discordance",
    "fleiss_kappa",
    "paired_answers",
    "wilson_interval",
]


def paired_answers(one: Mapping, other: Mapping) -> list[tuple[str, str]]:
    """The two coders' answers to the items both answered, in item order."""
    return [(one[item], other[item]) for item in sorted(one.keys() & other.keys())]


def discordance(pairs: Sequence[tuple[str, str]]) -> float | None:
    """The share of items whose two answers differ (None: no item)."""
    if not pairs:
        return None
    return sum(a != b for a, b in pairs) / len(pairs)


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's kappa ``(p_o - p_e) / (1 - p_e)`` of two coders' answers to the same items.

    ``p_o`` is the observed agreement, ``p_e`` the agreement expected by chance from each
    coder's own label shares. None when there is no item, or when chance agreement is total
    (both coders gave one and the same label throughout: kappa is undefined).
    """
    n = len(pairs)
    if not n:
        return None
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(first[label] * second[label] for label in first) / (n * n)
    if expected == 1:
        return None
    return (observed - expected) / (1 - expected)


def fleiss_kappa(items: Sequence[Sequence[str]]) -> float | None:
    """Fleiss' kappa of items each answered by the same number ``m >= 2`` of coders.

    ``items`` lists each item's answers (any coders, in any order). ``P_i`` is the share of
    agreeing coder pairs on item ``i``, ``P̄`` their mean, ``P_e = Σ_j p_j²`` with ``p_j`` the
    share of all answers that are label ``j``; kappa is ``(P̄ - P_e) / (1 - P_e)``. None
    without items or when every answer is one label. Raises ``ValueError`` when the items
    have different numbers of answers or fewer than two.
    """
    if not items:
        return None
    m = len(items[0])
    if m < 2 or any(len(answers) != m for answers in items):
        raise ValueError("Fleiss' kappa needs the same number (two or more) of answers per item")
    totals: Counter = Counter()
    agreeing = 0
    for answers in items:
        counts = Counter(answers)
        totals.update(counts)
        agreeing += sum(c * (c - 1) for c in counts.values())
    n = len(items)
    mean_agreement = agreeing / (n * m * (m - 1))
    expected = sum((c / (n * m)) ** 2 for c in totals.values())
    if expected == 1:
        return None
    return (mean_agreement - expected) / (1 - expected)


@dataclass(frozen=True)
class Interval:
    """A proportion ``successes / trials`` and its two-sided interval at ``level``."""

    successes: int
    trials: int
    low: float
    high: float
    level: float = 0.95

    @property
    def value(self) -> float | None:
        return self.successes / self.trials if self.trials else None


def wilson_interval(successes: int, trials: int, level: float = 0.95) -> Interval:
    """The Wilson score interval of a proportion (``[0, 1]`` when nothing was tried).

    Unlike the normal approximation it stays inside [0, 1] and keeps its coverage near the
    nominal level for the few checks a reviewer answers early on.
    """
    if not 0 <= successes <= trials:
        raise ValueError("successes must be between 0 and the number of trials")
    if not trials:
        return Interval(0, 0, 0.0, 1.0, level)
    z = _normal_quantile(0.5 + level / 2)
    p, n = successes / trials, trials
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact at the ends (rounding)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Interval(successes, trials, low, high, level)


def _normal_quantile(q: float) -> float:
    """The standard normal quantile (scipy's, imported late: a small module stays light)."""
    from scipy.stats import norm

    return float(norm.ppf(q))
