"""Compiled (numba) kernels for the trajectory distances and the record-linkage search.

The plain numpy implementations in :mod:`app.core.trajectory.distances` and
:mod:`app.core.trajectory.shape` stay the oracle: the tests compare every kernel with them (1e-9
relative). Three choices make the kernels fast:

- **No trigonometry in the loop.** :class:`~.flat.Flat` precomputes per point the sine and
  cosine of half the latitude and longitude, so ``sin(Δ/2)`` is a difference of products, and
  ``asin`` is a short series for the small arguments of city-scale distances (its first
  omitted term is below 1e-17 relative under 127 km).
- **Early abandoning** (Martinez2021): every term of the sum is non-negative, so a candidate
  whose partial sum already exceeds the best distance found for this query cannot be at the
  minimum and is dropped (its distance reported as ``inf``). A 1e-12 margin keeps float
  rounding from dropping a tie, so ``G_j`` is exact.
- **Threads, not prange.** Kernels are serial and release the GIL (``nogil=True``); callers
  run chunks of queries on a thread pool or a Dask cluster. Numba's default ``workqueue``
  threading layer aborts when two threads launch parallel kernels at once, which is exactly
  what a Dask worker with several threads does.

Distance kinds: ``MARTINEZ`` (λ, speeds), ``DTW``, ``FRECHET``, ``HAUSDORFF`` (metres) and
``EDR`` (edit distance on real sequences, Chen, Özsu & Oria 2005, made time-aware: two points
match when they are within ``eps_m`` metres *and* ``tau_s`` seconds; normalised by the longer
length, so in [0, 1]).
"""

from __future__ import annotations

import math
import sys

import numpy as np
from numba import njit

from app.core.trajectory.distances import EARTH_RADIUS_KM


def _target_without_scipy_blas() -> None:
    """Set numba's CPU target up now, without SciPy's BLAS bindings.

    Its first kernel (even one loaded from the cache) makes numba import its array library,
    which imports ``scipy.linalg`` (a tenth of a second and more) to bind BLAS for
    ``np.dot``/``np.linalg``; no kernel here calls them. SciPy stays importable: only
    numba's own check runs while the bindings are hidden (a failure leaves numba as it is).
    """
    name = "scipy.linalg.cython_blas"
    if name in sys.modules:
        return
    sys.modules[name] = None  # "import" raises ImportError: numba goes without BLAS
    try:
        from numba.core.registry import cpu_target

        cpu_target.target_context.refresh()
    except Exception:  # noqa: BLE001, S110 (numba's internals moved: it loads as usual)
        pass
    finally:
        del sys.modules[name]


_target_without_scipy_blas()

MARTINEZ, DTW, FRECHET, HAUSDORFF, EDR = 0, 1, 2, 3, 4
_MARGIN = 1.0 + 1e-12  # abandoning only when surely above the best (see the module docstring)
_OPTS = {"cache": True, "nogil": True}
BLOCK = 64  # trajectories per tile of candidates: their points stay in cache across queries


@njit(**_OPTS)
def _asin(x):
    # asin(x) = x + x³/6 + 3x⁵/40 + 15x⁷/336 + …; x = sin(c/2) < 0.01 for c < 127 km
    if x < 0.01:
        x2 = x * x
        return x * (1.0 + x2 * (1.0 / 6.0 + x2 * (3.0 / 40.0 + x2 * (15.0 / 336.0))))
    return math.asin(x)


@njit(**_OPTS)
def hav_km(A, i, B, j):
    """Haversine km between point ``i`` of flat ``A`` and point ``j`` of flat ``B``."""
    p, r = A[1], B[1]
    s_phi = r[j, 1] * p[i, 2] - r[j, 2] * p[i, 1]
    s_lam = r[j, 3] * p[i, 4] - r[j, 4] * p[i, 3]
    d = s_phi * s_phi + p[i, 0] * r[j, 0] * (s_lam * s_lam)
    if d > 1.0:
        d = 1.0
    return EARTH_RADIUS_KM * (2.0 * _asin(math.sqrt(d)))


@njit(**_OPTS)
def schedule(n1, n2, ib, jb, stride):
    """Fill ``ib[:h], jb[:h]`` with the Martinez2021 index schedule and return h.

    The spec's sequential float accumulation with half-to-even rounding (``np.rint``), exactly as
    :func:`app.core.trajectory.distances.index_schedule`; with ``stride > 1`` the steps are stored
    in the order 0, s, 2s, …, 1, 1+s, …, so that a partial sum samples the whole trajectory (early
    abandoning then decides sooner than on a prefix, where trajectories often agree).
    """
    h = int(np.rint((n1 + n2) / 2.0))
    g1, g2 = n1 / h, n2 / h
    a1, a2, ii, jj = 0.0, 0.0, 0, 0
    slot, phase = 0, 0
    for _ in range(h):
        ib[slot], jb[slot] = min(ii, n1 - 1), min(jj, n2 - 1)
        a1 += g1
        a2 += g2
        ii, jj = int(np.rint(a1)), int(np.rint(a2))
        slot += stride
        if slot >= h:
            phase += 1
            slot = phase
    return h


@njit(**_OPTS)
def martinez_pair(A, a, B, b, v, lam, limit, ib, jb, h):
    """Martinez2021 between trajectory ``a`` of A and ``b`` of B over the schedule ``ib, jb``.

    ``v`` is the pair's speed in m/s; ``inf`` as soon as the partial sum shows the distance
    exceeds ``limit``.
    """
    a0, b0 = A[0][a], B[0][b]
    threshold = limit * limit * h * _MARGIN
    total = 0.0
    for k in range(h):
        i, j = a0 + ib[k], b0 + jb[k]
        d = hav_km(A, i, B, j) * 1000.0 + lam * abs(A[1][i, 5] - B[1][j, 5]) * v
        total += d * d
        if total > threshold:
            return np.inf
    return math.sqrt(total / h)


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def _same_length_sums(T, a0, b0, h):
    """Σ sin²(c/2)-series haversine² and Σ Δt² over the identity schedule of two trajectories
    of ``h`` points each (points ``a0 + k`` and ``b0 + k``), and how many steps the series does
    not cover (``x ≥ 0.01``: the caller then takes the exact loop).

    ``T`` holds the points by column (``Flat.arrays[1].T``), so the loop runs on four points at
    once (the sums reassociated: a relative change of about 1e-16, under the oracle's 1e-9).
    """
    ss, tt, big = 0.0, 0.0, 0
    for k in range(h):
        i, j = a0 + k, b0 + k
        s_phi = T[1, j] * T[2, i] - T[2, j] * T[1, i]
        s_lam = T[3, j] * T[4, i] - T[4, j] * T[3, i]
        x = math.sqrt(min(s_phi * s_phi + T[0, i] * T[0, j] * (s_lam * s_lam), 1.0))
        big += x >= 0.01
        x2 = x * x
        s = x * (1.0 + x2 * (1.0 / 6.0 + x2 * (3.0 / 40.0 + x2 * (15.0 / 336.0))))
        dt = abs(T[5, i] - T[5, j])
        ss += s * s
        tt += dt * dt
    return ss * (2.0 * EARTH_RADIUS_KM) ** 2, tt, big


@njit(**_OPTS)
def calibration_rows(A, speed, factor, lo, hi, out_s, out_t):
    """For rows a in [lo, hi): sums of S and Tm over b > a into ``out_*[a − lo]``; the maxima.

    ``S = 1000·sqrt(mean s_km²)``, ``Tm = sqrt(mean (|Δt|·v)²)`` with ``v`` the pair's mean
    speed times ``factor``. Both are symmetric in (a, b) and zero on the diagonal, so the sum
    over all ordered pairs is twice the sum over a < b. Two trajectories of the same length
    have the identity schedule: their sums come from :func:`_same_length_sums`.
    """
    n = len(A[0]) - 1
    T = np.ascontiguousarray(A[1].T)
    width = 1
    for a in range(n):
        width = max(width, A[0][a + 1] - A[0][a])
    ib, jb = np.empty(width, np.int64), np.empty(width, np.int64)
    last1, last2, h = -1, -1, 0
    max_s, max_t = 0.0, 0.0
    out_s[:] = 0.0
    out_t[:] = 0.0
    for block in range(lo + 1, n, BLOCK):  # tiles of columns that stay in cache
        for a in range(lo, hi):
            row_s, row_t = 0.0, 0.0
            a0, n1 = A[0][a], A[0][a + 1] - A[0][a]
            for b in range(max(a + 1, block), min(n, block + BLOCK)):
                b0, n2 = A[0][b], A[0][b + 1] - A[0][b]
                if n1 != last1 or n2 != last2:
                    h, last1, last2 = schedule(n1, n2, ib, jb, 1), n1, n2
                v = (speed[a] + speed[b]) / 2.0 * factor
                big = 1
                if n1 == n2:
                    ss, tt, big = _same_length_sums(T, a0, b0, h)
                    tt *= v * v
                if big:
                    ss, tt = 0.0, 0.0
                    for k in range(h):
                        i, j = a0 + ib[k], b0 + jb[k]
                        s = hav_km(A, i, A, j)
                        dt = abs(A[1][i, 5] - A[1][j, 5]) * v
                        ss += s * s
                        tt += dt * dt
                s, t = math.sqrt(ss / h) * 1000.0, math.sqrt(tt / h)
                row_s += s
                row_t += t
                max_s = max(max_s, s)
                max_t = max(max_t, t)
            out_s[a - lo] += row_s
            out_t[a - lo] += row_t
    return max_s, max_t


@njit(**_OPTS)
def _ground_m(A, i, B, j):
    return hav_km(A, i, B, j) * 1000.0


@njit(**_OPTS)
def shape_pair(kind, A, a, B, b, eps_m, tau_s):
    """DTW, discrete Fréchet, Hausdorff (m) or time-aware EDR between ``a`` of A, ``b`` of B."""
    a0, b0 = A[0][a], B[0][b]
    n1, n2 = A[0][a + 1] - a0, B[0][b + 1] - b0
    if kind == HAUSDORFF:
        col = np.full(n2, np.inf)
        worst = 0.0
        for i in range(n1):
            row = np.inf
            for j in range(n2):
                d = _ground_m(A, a0 + i, B, b0 + j)
                row = min(row, d)
                col[j] = min(col[j], d)
            worst = max(worst, row)
        return max(worst, col.max())
    prev, cur = np.empty(n2 + 1), np.empty(n2 + 1)
    for j in range(n2 + 1):  # row 0 of the table
        prev[j] = float(j) if kind == EDR else np.inf
    if kind != EDR:
        prev[0] = 0.0 if kind == DTW else -np.inf
    for i in range(1, n1 + 1):
        cur[0] = float(i) if kind == EDR else np.inf
        for j in range(1, n2 + 1):
            d = _ground_m(A, a0 + i - 1, B, b0 + j - 1)
            if kind == EDR:
                close = d <= eps_m and abs(A[1][a0 + i - 1, 5] - B[1][b0 + j - 1, 5]) <= tau_s
                cur[j] = min(prev[j - 1] + (0.0 if close else 1.0), prev[j] + 1.0, cur[j - 1] + 1.0)
            else:
                best = min(min(prev[j], cur[j - 1]), prev[j - 1])
                cur[j] = d + best if kind == DTW else max(d, best)
        prev, cur = cur, prev
    if kind == EDR:
        return prev[n2] / max(n1, n2)
    return prev[n2]


STRIDE = 8  # schedule order of the search (see :func:`schedule`)


@njit(**_OPTS)
def search_chunk(kind, A, speed_a, B, speed_b, queries, columns, starts, stops, seeds, params, out):
    """Distances of each query to its candidates, abandoning hopeless ones (``inf``).

    Query ``queries[q]`` of B is compared with the originals ``columns[starts[q]:stops[q]]``
    of A (all of them for the exact search, a rank window for the windowed one): ``out[q, k]``
    is the distance to the k-th (``out`` comes filled with NaN). ``seeds[q]`` (−1 padded) are
    such k to try first, so that a good bound is known early; ``params = (λ, eps_m, tau_s)``.
    Candidates are visited in tiles of :data:`BLOCK` for all queries, so a tile's points are
    read from memory once per chunk instead of once per query.
    """
    width = 1
    for a in range(len(A[0]) - 1):
        width = max(width, A[0][a + 1] - A[0][a])
    for b in queries:
        width = max(width, B[0][b + 1] - B[0][b])
    ib, jb = np.empty(width, np.int64), np.empty(width, np.int64)
    last1, last2, h = -1, -1, 0
    best = np.full(len(queries), np.inf)
    longest = 0
    for q in range(len(queries)):
        longest = max(longest, stops[q] - starts[q])
    for block in range(-BLOCK, longest, BLOCK):  # the first (negative) block: the seeds
        for q in range(len(queries)):
            b, count = queries[q], stops[q] - starts[q]
            n2 = B[0][b + 1] - B[0][b]
            todo = seeds.shape[1] if block < 0 else min(count - block, BLOCK)
            for s in range(todo):
                k = seeds[q, s] if block < 0 else block + s
                if k < 0 or k >= count or out[q, k] == out[q, k]:  # done (not NaN)
                    continue
                a = columns[starts[q] + k]
                if kind == MARTINEZ:
                    n1 = A[0][a + 1] - A[0][a]
                    if n1 != last1 or n2 != last2:
                        h, last1, last2 = schedule(n1, n2, ib, jb, STRIDE), n1, n2
                    v = (speed_a[a] + speed_b[b]) / 2.0 / 3.6
                    d = martinez_pair(A, a, B, b, v, params[0], best[q], ib, jb, h)
                else:
                    d = shape_pair(kind, A, a, B, b, params[1], params[2])
                out[q, k] = d
                best[q] = min(best[q], d)
