"""l-diversity and t-closeness of one sensitive attribute over the classes.

Per class, with ``r_1 >= r_2 >= ... >= r_m`` the counts of its m distinct (non-missing)
sensitive values and ``p`` their shares:

- **distinct l-diversity**: l = the smallest m over the classes;
- **entropy l-diversity** (Machanavajjhala et al. 2007, Def. 4.1): a class is entropy
  l-diverse when ``H = -sum p log p >= log l``; the table's l = ``min exp(H)``;
- **recursive (c, l)-diversity** (ibid., Def. 4.3): a class is (c, l)-diverse when
  ``r_1 < c (r_l + r_{l+1} + ... + r_m)``. For l = 2 we report ``c* = max r_1 / (r_2 + ... +
  r_m)``: the table is recursive (c, 2)-diverse for every c > c*, for none at or below it
  (infinite when a class has a single value: no c works). A class {5 x A, 1 x B} gives c* = 5;
- **t-closeness** (Li, Li and Venkatasubramanian 2007): t = the largest Earth Mover's Distance
  between a class's distribution P and the table's Q. Categories (equal ground distance):
  ``EMD = 1/2 sum |p_i - q_i|``. Numbers (ordered distance over the m sorted distinct values):
  ``EMD = 1/(m-1) sum_i |sum_{j<=i} (p_j - q_j)|``.

A missing sensitive value tells an attacker nothing and is left out of the counts; a class with
no sensitive value at all is left out of the minimum and the maximum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.core.release.classes import SensitiveColumn

__all__ = ["Diversity", "diversity"]

_CHUNK_CELLS = 1 << 22  # dense cells per block of classes for the ordered distance


@dataclass(frozen=True)
class Diversity:
    """The l-diversity measures and t-closeness of one sensitive attribute."""

    attribute: str
    numeric: bool
    l_distinct: int
    l_entropy: float
    recursive_c: float  # math.inf when some class has one value only
    t_closeness: float
    worst_class: int | None  # index of the group with the largest EMD


def _per_class(counts) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row of a CSR count matrix: total, distinct values, largest count, entropy (nats)."""
    rows = counts.shape[0]
    total = np.asarray(counts.sum(axis=1)).reshape(-1)
    distinct = np.diff(counts.indptr)
    largest = np.zeros(rows)
    entropy = np.zeros(rows)
    filled = np.flatnonzero(distinct)
    if len(filled):
        starts = counts.indptr[filled]
        largest[filled] = np.maximum.reduceat(counts.data, starts)
        owner = np.repeat(np.arange(rows), distinct)
        p = counts.data / total[owner]
        entropy[filled] = np.add.reduceat(-p * np.log(p), starts)
    return total, distinct, largest, entropy


def _emd(column: SensitiveColumn, total: np.ndarray) -> np.ndarray:
    """EMD of each class's distribution from the table's (NaN for a class with no value)."""
    counts = column.counts
    q = column.overall / max(column.overall.sum(), 1)
    emd = np.full(counts.shape[0], np.nan)
    m = counts.shape[1]
    if not column.numeric:
        # 1/2 sum|p-q| = 1/2 (sum over the class's values of |p-q| - q) + 1/2 sum q.
        owner = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
        p = counts.data / total[owner]
        part = np.abs(p - q[counts.indices]) - q[counts.indices]
        emd = 0.5 * (np.bincount(owner, weights=part, minlength=counts.shape[0]) + q.sum())
    elif m > 1:
        step = max(1, _CHUNK_CELLS // m)
        for start in range(0, counts.shape[0], step):
            block = counts[start : start + step].toarray()
            with np.errstate(invalid="ignore", divide="ignore"):
                p = block / block.sum(axis=1, keepdims=True)
            emd[start : start + step] = np.abs(np.cumsum(p - q, axis=1)).sum(axis=1) / (m - 1)
    else:
        emd = np.zeros(counts.shape[0])
    emd[total == 0] = np.nan
    return emd


def diversity(column: SensitiveColumn) -> Diversity:
    """Compute distinct/entropy/recursive (c, 2) l-diversity and t-closeness of a column."""
    total, distinct, largest, entropy = _per_class(column.counts)
    present = total > 0
    if not present.any():
        return Diversity(column.name, column.numeric, 0, 0.0, math.inf, 0.0, None)
    rest = (total - largest)[present]
    with np.errstate(divide="ignore"):
        ratios = np.where(rest > 0, largest[present] / np.where(rest > 0, rest, 1), np.inf)
    emd = _emd(column, total)
    return Diversity(
        attribute=column.name,
        numeric=column.numeric,
        l_distinct=int(distinct[present].min()),
        l_entropy=float(np.exp(entropy[present].min())),
        recursive_c=float(ratios.max()),
        t_closeness=float(np.nanmax(emd)),
        worst_class=int(np.nanargmax(emd)),
    )
