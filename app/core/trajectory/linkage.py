"""Record-linkage disclosure risk of anonymized trajectories (spec/README.md §4).

``RL = 100/n · Σ_j Pr(x'_j)``, n = number of *original* trajectories (one removed by the
anonymization counts as not linked), ``G_j`` = the originals at minimum distance from the
anonymized ``x'_j`` and ``Pr(x'_j) = 1/|G_j|`` when its true original (the original with the
same trajectory id) is in ``G_j``, else 0. :func:`record_linkage` searches every original;
:func:`windowed_record_linkage` is the reference's fast variant, which scans a rank window of
m originals around the anonymized trajectory's distance to a reference point, with no
guarantee that the true original is inside it. Risks are exact :class:`Fraction` values.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from app.core.trajectory.distances import Martinez2021, Pack, calibrate, reference_point
from app.core.trajectory.model import Trajectory

__all__ = [
    "Link",
    "LinkageResult",
    "OneToMany",
    "default_window_size",
    "nearest_position",
    "record_linkage",
    "window_positions",
    "window_size",
    "windowed_record_linkage",
]


class OneToMany(Protocol):
    """A distance that compares one trajectory with chosen rows of a :class:`Pack`."""

    def one_to_many(self, query: Trajectory, pack: Pack, idx: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True)
class _Pairwise:
    """Adapt a plain ``f(original, anonymized) -> float`` to :class:`OneToMany`."""

    f: Callable[[Trajectory, Trajectory], float]

    def one_to_many(self, query: Trajectory, pack: Pack, idx: np.ndarray) -> np.ndarray:
        return np.array([self.f(pack.trajectories[k], query) for k in idx], dtype=np.float64)


@dataclass(frozen=True)
class Link:
    """How one anonymized trajectory links: its closest originals and its ``Pr(x'_j)``."""

    anonymized_id: int
    closest_ids: tuple[int, ...]
    distance: float
    probability: Fraction
    candidates: int
    true_in_candidates: bool


@dataclass(frozen=True)
class LinkageResult:
    """``RL`` as an exact fraction of the originals and as a percentage, with every link."""

    risk: Fraction
    n_original: int
    n_anonymized: int
    window: float | None
    links: tuple[Link, ...]

    @property
    def percent(self) -> float:
        """``RL`` in percent: ``100/n · Σ_j Pr(x'_j)``."""
        return float(self.risk * 100)

    @property
    def linked(self) -> int:
        """How many anonymized trajectories have ``Pr(x'_j) > 0``."""
        return sum(1 for link in self.links if link.probability > 0)


def _as_one_to_many(distance) -> OneToMany:
    return distance if hasattr(distance, "one_to_many") else _Pairwise(distance)


def _link(
    anon: Trajectory, d: np.ndarray, rows: np.ndarray, pack: Pack, true_rows: dict[int, int]
) -> Link:
    best = float(d.min())
    closest = rows[d == best]
    true_row = true_rows.get(anon.id)
    hit = true_row is not None and bool(np.any(closest == true_row))
    return Link(
        anonymized_id=anon.id,
        closest_ids=tuple(pack.trajectories[k].id for k in closest),
        distance=best,
        probability=Fraction(1, len(closest)) if hit else Fraction(0),
        candidates=len(rows),
        true_in_candidates=true_row is not None and bool(np.any(rows == true_row)),
    )


def _prepare(originals, anonymized, distance):
    if not originals:
        raise ValueError("record linkage needs at least one original trajectory")
    if distance is None:
        distance = Martinez2021(calibrate(originals).lam)
    pack = Pack(list(originals))
    true_rows = {traj.id: row for row, traj in enumerate(pack.trajectories)}
    if len(true_rows) != len(pack):
        raise ValueError("original trajectory ids must be unique")
    return _as_one_to_many(distance), pack, true_rows


def _result(links: list[Link], n: int, window: float | None) -> LinkageResult:
    total = sum((link.probability for link in links), Fraction(0))
    return LinkageResult(total / n, n, len(links), window, tuple(links))


def record_linkage(
    originals: Sequence[Trajectory],
    anonymized: Sequence[Trajectory],
    distance: OneToMany | Callable[[Trajectory, Trajectory], float] | None = None,
) -> LinkageResult:
    """Exact record-linkage risk: each anonymized trajectory against every original.

    ``distance`` defaults to :class:`Martinez2021` with λ calibrated over the originals; any
    ``f(original, anonymized) -> float`` also works (one call per pair). Ties at the minimum
    all enter ``G_j`` (originals with identical points always tie).
    """
    dist, pack, true_rows = _prepare(originals, anonymized, distance)
    rows = np.arange(len(pack))
    links = [_link(a, dist.one_to_many(a, pack, rows), rows, pack, true_rows) for a in anonymized]
    return _result(links, len(pack), None)


def default_window_size(n: int) -> int:
    """The reference's default window: n below 1,000, else n's first three digits (2,082 → 208).

    Computed as the reference does: ``int(n · (100 / (10^⌊log10 n⌋ / 100)) / 100)`` above 99.
    """
    if n < 100:
        return n
    percent = 100 / (10 ** math.floor(math.log10(n)) / 100)
    return int((n * percent) / 100)


def window_size(n: int, percent: float | None = None) -> float:
    """``m = n · percent / 100`` (a float, as in the reference), or the default for n."""
    if percent is None:
        return default_window_size(n)
    if not 0 < percent <= 100:
        raise ValueError("percen_window_size must be in (0, 100]")
    return (n * percent) / 100


def nearest_position(values: Sequence[float], x: float) -> int:
    """Position of the value nearest ``x`` in sorted ``values`` (ties: the smaller value).

    Like the reference, ``len(values)`` is returned when ``x`` exceeds every value; the window
    then shifts back inside the list.
    """
    pos = bisect_left(values, x)
    if pos in (0, len(values)):
        return pos
    return pos if values[pos] - x < x - values[pos - 1] else pos - 1


def window_positions(pos: int, m: float, n: int) -> range:
    """The reference's rank window of about ``m`` positions around ``pos``, kept in [0, n).

    ``cut = int(m/2)``; positions ``pos − cut (+1 if m is even) … pos + cut``, shifted to
    stay inside the list (so m < 2 scans one position, and 4.6 scans five).
    """
    cut = int(m / 2)
    before, after = pos - cut + (1 if m % 2 == 0 else 0), pos + cut
    rest_before, rest_after = max(0, -before), max(0, after - (n - 1))
    before, after = max(0, before) - rest_after, min(n - 1, after) + rest_before
    return range(max(0, before), min(n - 1, after) + 1)


def windowed_record_linkage(
    originals: Sequence[Trajectory],
    anonymized: Sequence[Trajectory],
    distance: OneToMany | Callable[[Trajectory, Trajectory], float] | None = None,
    percent: float | None = None,
) -> LinkageResult:
    """Windowed record-linkage risk, the reference's fast search (spec §4 "Windowed search").

    Originals are sorted (stably, in id order) by ``ρ(T) = D(T, ref)`` with ``ref`` the
    :func:`reference_point`; each anonymized trajectory scans the :func:`window_positions` of
    ``m = window_size(n, percent)`` around :func:`nearest_position` of its own ``ρ``. Faster
    than :func:`record_linkage` by about n/m, at the price of links the window misses
    (``Link.true_in_candidates`` says which).
    """
    dist, pack, true_rows = _prepare(originals, anonymized, distance)
    n = len(pack)
    m = window_size(n, percent)
    ref = reference_point(pack.trajectories)
    rho = dist.one_to_many(ref, pack, np.arange(n))
    order = np.argsort(rho, kind="stable")
    sorted_rho = rho[order].tolist()
    anon_pack = Pack(list(anonymized)) if anonymized else None
    anon_rho = dist.one_to_many(ref, anon_pack, np.arange(len(anon_pack))) if anon_pack else []
    links = []
    for anon, r in zip(anonymized, anon_rho, strict=True):
        positions = window_positions(nearest_position(sorted_rho, float(r)), m, n)
        rows = order[positions.start : positions.stop]
        links.append(_link(anon, dist.one_to_many(anon, pack, rows), rows, pack, true_rows))
    return _result(links, n, m)
