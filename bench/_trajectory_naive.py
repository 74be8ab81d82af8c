"""A straightforward per-pair Python implementation of Martinez2021 and its λ calibration.

The bench's baseline: the spec's pseudo-code (spec/README.md §4) loop for loop with the
``math`` module, as the reference mdl-anonymizer computes it (one pair at a time, Python
floats). Speeds are computed once per trajectory, which the reference also caches.
"""

from __future__ import annotations

import math

R_KM = 6371.0088


def points(traj) -> list[tuple[int, float, float]]:
    return list(zip(traj.t.tolist(), traj.lat.tolist(), traj.lon.tolist(), strict=True))


def hav_km(lat1, lon1, lat2, lon2) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    d = (
        math.sin((p2 - p1) * 0.5) ** 2
        + math.cos(p1)
        * math.cos(p2)
        * math.sin((math.radians(lon2) - math.radians(lon1)) * 0.5) ** 2
    )
    return R_KM * 2 * math.asin(math.sqrt(min(d, 1.0)))


def speed(pts) -> float:
    if len(pts) < 2:
        return 0.0
    total = 0.0
    for (t1, la1, lo1), (t2, la2, lo2) in zip(pts, pts[1:], strict=False):
        total += hav_km(la1, lo1, la2, lo2) / (t2 - t1) if t2 != t1 else 0.0
    return total / (len(pts) - 1) * 3600


def _steps(n1: int, n2: int):
    h = round((n1 + n2) / 2)
    g1, g2, a1, a2, i, j = n1 / h, n2 / h, 0.0, 0.0, 0, 0
    for _ in range(h):
        i, j = min(i, n1 - 1), min(j, n2 - 1)
        yield i, j
        a1 += g1
        a2 += g2
        i, j = round(a1), round(a2)


def martinez(p1, p2, v1, v2, lam) -> float:
    v = (v1 + v2) / 2 / 3.6
    h, total = 0, 0.0
    for i, j in _steps(len(p1), len(p2)):
        t1, la1, lo1 = p1[i]
        t2, la2, lo2 = p2[j]
        d = 1000 * hav_km(la1, lo1, la2, lo2) + lam * abs(t1 - t2) * v
        total += d * d
        h += 1
    return math.sqrt(total / h)


def calibration_terms(p1, p2, v1, v2) -> tuple[float, float]:
    v = (v1 + v2) / 2
    h, ss, tt = 0, 0.0, 0.0
    for i, j in _steps(len(p1), len(p2)):
        t1, la1, lo1 = p1[i]
        t2, la2, lo2 = p2[j]
        ss += hav_km(la1, lo1, la2, lo2) ** 2
        tt += (abs(t1 - t2) * v) ** 2
        h += 1
    return 1000 * math.sqrt(ss / h), math.sqrt(tt / h)


def nearest(query, originals, speeds, v_query, lam) -> tuple[float, list[int]]:
    """The minimum distance of ``query`` to every original, and the rows at it."""
    best, rows = math.inf, []
    for row, (pts, v) in enumerate(zip(originals, speeds, strict=True)):
        d = martinez(pts, query, v, v_query, lam)
        if d < best:
            best, rows = d, [row]
        elif d == best:
            rows.append(row)
    return best, rows
