"""Sample risks: k-anonymity, prosecutor, journalist and marketer risk, the risk histogram.

The three attacker models follow ARX's ``RiskModelSampleSummary``
(arx-deidentifier/arx, ``src/main/org/deidentifier/arx/risk/RiskModelSampleSummary.java``),
with ``f_j`` the size of class *j* in the sample, ``F_j`` its size in the population, ``n`` the
records in classes and ``t`` the threshold:

- prosecutor: records at risk = (records of classes with ``1/f_j > t``) / n; highest
  ``1/min f``; lowest ``1/max f``; average (ARX's *success rate*) = classes / n;
- journalist: the same with ``F_j`` for ``f_j``; average = ``max(classes / sum_j F_j,
  sum_j (f_j/F_j) / n)``;
- marketer: ``sum_j (f_j/F_j) / n``.

ARX takes ``F_j`` from a population table (the handle's superset) and, without one, uses the
sample as its own population (``F = f``: journalist = prosecutor, marketer = classes / n),
whatever population size its population model holds (that size serves the uniqueness models
only). So do we, by default: given a population table, ``F_j`` is counted in it; without one
``F = f`` (:data:`SAMPLE`). Only on request (``scaled``) and given a population *size* N, the
*scaled estimate* ``F_j = f_j N / n`` (each class scaled by the inverse sampling fraction,
:data:`SCALED`): a simplification ARX does not make, which can put the journalist and
marketer risks far below ARX's (``docs/release-risk.md``). Under the ``wildcard``
convention a record's class is its match set; sums over classes become sums over records
weighted ``1/f`` (the same numbers on a partition).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.core.release.classes import Classes

__all__ = [
    "MIN_THRESHOLD",
    "POPULATION_TABLE",
    "RISK_BINS",
    "SAMPLE",
    "SCALED",
    "AttackerRisk",
    "SampleRisk",
    "k_target",
    "risk_histogram",
    "sample_risk",
]

# ARX's RiskModelSampleRiskDistribution.thresholdsHigh: a record of risk r falls in the first
# bin whose upper bound is >= r, i.e. the bins are (low, high].
RISK_BINS = (
    1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09,
    0.1, 0.125, 0.143, 0.167, 0.2, 0.25, 0.334, 0.5, 1.0,
)  # fmt: skip


#: Where the population class sizes F come from (``SampleRisk.population_classes``).
SAMPLE, POPULATION_TABLE, SCALED = "sample", "population_table", "scaled_estimate"
#: The smallest threshold t: ``1/t`` (the target class size) is then at most 2^53, a whole
#: number a float holds exactly (5e-324 made ``ceil(1/t)`` an OverflowError, issue 42).
MIN_THRESHOLD = 2.0**-53


@dataclass(frozen=True)
class AttackerRisk:
    """ARX's ``RiskSummary``: records at risk (a fraction), highest, lowest, average risk."""

    records_at_risk: float
    highest: float
    lowest: float
    average: float


@dataclass(frozen=True)
class SampleRisk:
    """k-anonymity and the three attacker models of one table."""

    k: int
    k_target: int
    records_below_k: int
    sample_uniques: int
    classes: float  # effective number of classes (sum of 1/f over records)
    prosecutor: AttackerRisk
    journalist: AttackerRisk
    marketer: float
    population_size: float | None
    population_classes: str = SAMPLE  # where F came from: SAMPLE, POPULATION_TABLE, SCALED


def k_target(threshold: float) -> int:
    """The smallest class size whose risk ``1/k`` is not above ``threshold`` (from
    :data:`MIN_THRESHOLD` to 1)."""
    if not MIN_THRESHOLD <= threshold <= 1.0:
        raise ValueError(f"threshold must be from {MIN_THRESHOLD:.3g} (2^-53) to 1")
    k = math.ceil(1.0 / threshold - 1e-12)
    return max(k, 1)


def _summary(records: np.ndarray, f: np.ndarray, big_f: np.ndarray, t: float) -> AttackerRisk:
    n = records.sum()
    at_risk = records[(1.0 / big_f) > t].sum() / n
    classes = (records / f).sum()
    rc1 = classes / ((records / f) * big_f).sum()
    rc2 = (records / big_f).sum() / n
    return AttackerRisk(
        records_at_risk=float(at_risk),
        highest=float(1.0 / big_f.min()),
        lowest=float(1.0 / big_f.max()),
        average=float(max(rc1, rc2)),
    )


def sample_risk(
    classes: Classes,
    *,
    threshold: float = 0.2,
    population: float | None = None,
    population_sizes: np.ndarray | None = None,
    scaled: bool = False,
) -> SampleRisk:
    """Compute k, sample uniques and prosecutor/journalist/marketer risk (ARX's summary).

    ``threshold`` is ARX's risk threshold t in [2^-53, 1]; ``population`` the population size N
    (at least the records in classes; reported, and used by the risks only when ``scaled``);
    ``population_sizes`` each class's size F in a population table (ARX's superset; see
    :func:`~app.core.release.classes.population_sizes`). Without a table the sample is its
    own population (ARX); ``scaled`` asks for the scaled estimate F = f N / n instead.
    """
    records, f = classes.records, classes.size
    n = int(records.sum())
    target = k_target(threshold)
    if n == 0:  # ARX: an empty sample has all risks 0
        zero = AttackerRisk(0.0, 0.0, 0.0, 0.0)
        return SampleRisk(0, target, 0, 0, 0.0, zero, zero, 0.0, population, SAMPLE)
    if population is not None and population < n:
        raise ValueError("the population size must be at least the number of records")
    if scaled and (population is None or population_sizes is not None):
        raise ValueError("the scaled estimate needs a population size and no population table")
    source = POPULATION_TABLE if population_sizes is not None else SCALED if scaled else SAMPLE
    if population_sizes is not None:
        big_f = np.asarray(population_sizes, dtype=np.float64)
    else:
        big_f = f * (population / n) if scaled else f
    prosecutor = _summary(records, f, f, threshold)
    # ARX's prosecutor average is classes / n: with F = f, rc1 = rc2 = classes / n.
    journalist = _summary(records, f, big_f, threshold)
    return SampleRisk(
        k=int(f.min()),
        k_target=target,
        records_below_k=int(records[f < target].sum()),
        sample_uniques=int(records[f == 1].sum()),
        classes=float((records / f).sum()),
        prosecutor=prosecutor,
        journalist=journalist,
        marketer=float((records / big_f).sum() / n),
        population_size=population,
        population_classes=source,
    )


def risk_histogram(classes: Classes) -> list[tuple[float, float, float]]:
    """ARX's risk distribution: ``(low, high, fraction of records)`` per bin of ``1/f``.

    As ``RiskModelSampleRiskDistribution``: a record of prosecutor risk r counts in the bin
    ``(low, high]`` with ``high`` the first bound of :data:`RISK_BINS` at or above r.
    """
    n = classes.included
    fractions = np.zeros(len(RISK_BINS))
    if n:
        index = np.searchsorted(np.array(RISK_BINS), 1.0 / classes.size, side="left")
        np.add.at(fractions, index, classes.records / n)
    lows = (0.0, *RISK_BINS[:-1])
    return [(lo, hi, float(x)) for lo, hi, x in zip(lows, RISK_BINS, fractions, strict=True)]
