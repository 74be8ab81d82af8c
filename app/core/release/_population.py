"""Population uniqueness: Zayatz, Pitman, SNB and Dankar's decision rule, as ARX estimates it.

Every model reads the sample's class-size histogram (``c_j``: classes of size *j*; ``u``
classes, ``n`` records) and the population size N (sampling fraction ``pi = n / N``), and
estimates the number of population uniques; the fraction reported is that number / N
(``RiskModelPopulationUniqueness.getFractionOfUniqueTuples``). Sources read, in
arx-deidentifier/arx ``src/main/org/deidentifier/arx/risk/``: ``RiskModelPopulationUniqueness``,
``ModelZayatz``, ``ModelPitman``, ``ModelSNB``, ``RiskModelPopulation``.

- **Zayatz** (Zayatz 1991): ``P(unique | sample unique) = (c_1/u) h(1; N, 1, n) /
  sum_j (c_j/u) h(1; N, j, n)`` with ``h(1; N, j, n)`` the hypergeometric probability of
  drawing exactly one of the *j* population members of a class in a sample of n; uniques =
  ``c_1 * P / pi``.
- **Pitman** (Hoshino 2001): the maximum-likelihood (theta, alpha) of the Pitman sampling
  formula, i.e. the roots of ``sum_{i<u} 1/(theta+i alpha) - sum_{i<n} 1/(theta+i)`` and
  ``sum_{i<u} i/(theta+i alpha) - sum_j c_j sum_{l<j} 1/(l-alpha)``, started at ARX's moment
  guess; uniques = ``Gamma(theta+1)/Gamma(theta+alpha) N^alpha``, kept when in [0, N] and
  theta >= 0 (ARX's constraint).
- **SNB** (Chen and Keller-McNulty 1998): K, the number of non-empty population classes, is
  estimated from the histogram, then (alpha, beta) solve the two moment equations for
  ``c_1`` and ``c_2``; uniques = ``K beta^alpha``. The estimate of K and both equations are
  written as ARX's code writes them, operator for operator (its K sums
  ``n_j (1-pi)^j (1+pi)^j - 1`` per size, and its c_2 equation multiplies by
  ``(1-d)^(alpha+2)``); ARX's values are the target, so we keep them and say so in
  ``docs/release-risk.md``.
- **Dankar** (Dankar et al. 2012): with ``pi <= 0.1`` Pitman (Zayatz if Pitman fails); else
  the smaller of Zayatz and SNB (Zayatz if SNB fails).

An estimate that is NaN or 0 is *not available* (ARX's ``isValid``). ARX's Newton-Raphson
solver (the linearbits ``newtonraphson`` jar) is replaced by SciPy's ``root`` (MINPACK hybrd)
from ARX's start values (Pitman: its moment guess, then, beyond ARX, its default grid; SNB: the
grid), accuracy 1e-6 on the equations: where the equations have one root in the domain the
answers agree; where Newton-Raphson would not converge we may still find the root (then we
report it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# scipy is imported where used: the app and its commands start without it (issue 39.3).

__all__ = ["PopulationUniqueness", "population_uniqueness"]

_ACCURACY = 1e-6  # ARXSolverConfiguration.getDefaultAccuracy
_STARTS = [(a, b) for a in (0.0, 0.33, 0.66, 0.99) for b in (0.0, 0.33, 0.66, 0.99)]


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated fraction of the population that is unique, per model (None: not available)."""

    population_size: float
    sampling_fraction: float
    zayatz: float | None
    pitman: float | None
    snb: float | None
    dankar: float | None
    dankar_model: str | None


def _valid(x: float) -> bool:
    return x is not None and math.isfinite(x) and x != 0.0


def one_drawn(sizes: np.ndarray, population: int, draws: int) -> np.ndarray:
    """``h(1; N, j, n)``: the hypergeometric probability that a sample of ``n`` from ``N``
    holds exactly one of a class's ``j`` members, for each ``j`` of ``sizes``.

    In closed form, ``h = (j n / N) prod_{i=0}^{j-2} (N-n-i)/(N-1-i)``, summed in log space
    (``log1p``): the work grows with the largest class, never with N (SciPy's ``hypergeom``
    took time linear in N: 2 s at N = 10^9, issue 42).
    """
    j = np.asarray(sizes, dtype=np.int64)
    big_n, n = float(population), float(draws)
    i = np.arange(max(int(j.max(initial=1)) - 1, 0), dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log1p(-(n - 1.0) / (big_n - 1.0 - i))
    log_products = np.concatenate(([0.0], np.cumsum(terms)))[np.maximum(j - 1, 0)]
    with np.errstate(divide="ignore"):
        logs = np.log(j) + math.log(n) - math.log(big_n) + log_products
    # a class larger than the N - n records left out cannot have only one drawn
    return np.where((j >= 1) & (j - 2 < big_n - n), np.exp(logs), 0.0)


def _zayatz(sizes: np.ndarray, counts: np.ndarray, n: float, population: float) -> float:
    u = counts.sum()
    c1 = counts[sizes == 1].sum()
    big_n, draws = int(population), int(round(n))  # ARX casts both to int as well
    weights = one_drawn(sizes, big_n, draws)
    denominator = ((counts / u) * weights).sum()
    uniqueness = (c1 / u) * (draws / big_n) / denominator  # h(1; N, 1, n) = n / N
    return float(c1 * uniqueness / (n / population))


def _solve(equations: Callable[[np.ndarray], np.ndarray], starts) -> np.ndarray | None:
    """A root of ``equations`` from the first start value that reaches ARX's accuracy."""
    from scipy import optimize

    for start in starts:
        with np.errstate(all="ignore"):
            try:
                result = optimize.root(equations, np.asarray(start, dtype=float), method="hybr")
            except (ValueError, FloatingPointError, ZeroDivisionError):
                continue
            if np.all(np.isfinite(result.x)):
                residual = equations(result.x)
                if np.all(np.isfinite(residual)) and np.max(np.abs(residual)) <= _ACCURACY:
                    return result.x
    return None


def _pitman(sizes: np.ndarray, counts: np.ndarray, n: float, population: float) -> float:
    from scipy import special

    u = counts.sum()
    c1 = counts[sizes == 1].sum()
    c2 = counts[sizes == 2].sum() or 1.0  # ARX: "overestimate" when there is no class of 2
    big = sizes != 1

    def equations(x: np.ndarray) -> np.ndarray:
        t, a = x
        if t < 0 or a == 0:  # ARX's constraint (theta >= 0) and the 1/alpha in the forms
            return np.array([np.nan, np.nan])
        # Closed forms of the sums with the digamma function psi (as ARX's "closed" master).
        o1 = (special.digamma(u - 1 + t / a + 1) - special.digamma(t / a + 1)) / a
        o2 = special.digamma(n + t) - special.digamma(t + 1)
        o3 = (u - 1) / a - (t / a) * o1
        o4 = (counts[big] * (special.digamma(sizes[big] - a) - special.digamma(1 - a))).sum()
        return np.array([o1 - o2, o3 - o4])

    with np.errstate(all="ignore"):  # ARX's moment guess; a NaN start simply fails
        c = c1 * (c1 - 1) / c2
        t0 = (n * u * c - c1 * (n - 1) * (2 * u + c)) / np.float64(2 * c1 * u + c1 * c - n * c)
        a0 = (t0 * (c1 - n) + (n - 1) * c1) / (n * u)
    root = _solve(equations, [(t0, a0), *_STARTS])
    if root is None:
        return math.nan
    t, a = root
    if t < 0 or a == 0 or t + a <= 0:  # ARX: NaN for alpha 0; logGamma is NaN at x <= 0
        return math.nan
    with np.errstate(all="ignore"):
        log_value = special.gammaln(t + 1) - special.gammaln(t + a) + a * math.log(population)
        value = float(np.exp(log_value))
    return value if 0.0 <= value <= population else math.nan


def _snb(sizes: np.ndarray, counts: np.ndarray, population: float, n: float) -> float:
    f = n / population
    u = counts.sum()
    c1 = counts[sizes == 1].sum()
    c2 = counts[sizes == 2].sum()
    # ARX's estimateNonEmptyEquivalenceClasses, term for term.
    base = (1 - f) ** sizes * counts
    var1 = (sizes * f * f * (1 - f * f) ** (sizes - 1) * counts).sum()
    var2 = (base * (1 + f) ** sizes - 1).sum()
    var3 = base.sum()
    var4 = (sizes * f * (1 - f) ** (sizes - 1) * counts).sum()
    with np.errstate(all="ignore"):
        k = u + c1 * (var1 / var2) * (var3 / var4) ** 2

    def equations(x: np.ndarray) -> np.ndarray:
        a, b = x
        d = (1 - f) * (1 - b)
        first = k * f * (b / (1 - d)) ** a * ((a * d) / (1 - d) + 1) - c1
        second = k * a * b**a * (f * f) * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2
        return np.array([first, second])

    if not math.isfinite(k):
        return math.nan
    root = _solve(equations, _STARTS)
    if root is None:
        return math.nan
    a, b = root
    with np.errstate(all="ignore"):
        return float(k * b**a)


def population_uniqueness(
    sizes: np.ndarray, counts: np.ndarray, population: float
) -> PopulationUniqueness:
    """Estimate population uniqueness from the class-size histogram (``counts[i]`` classes of
    size ``sizes[i]``) and the population size, with the four models of ARX."""
    sizes = np.asarray(sizes, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    n = float((sizes * counts).sum())
    if n == 0:
        return PopulationUniqueness(population, 0.0, 0.0, 0.0, 0.0, 0.0, "dankar")
    if population < n:
        raise ValueError("the population size must be at least the number of records")
    fraction = n / population
    if counts[sizes == 1].sum() == 0:  # ARX: no sample uniques, no population uniques
        return PopulationUniqueness(population, fraction, 0.0, 0.0, 0.0, 0.0, "dankar")
    zayatz = _zayatz(sizes, counts, n, population)
    pitman = _pitman(sizes, counts, n, population)
    snb = _snb(sizes, counts, population, n)
    if fraction <= 0.1:
        dankar, model = (pitman, "pitman") if _valid(pitman) else (zayatz, "zayatz")
    elif _valid(snb):
        dankar, model = (zayatz, "zayatz") if zayatz < snb else (snb, "snb")
    else:
        dankar, model = zayatz, "zayatz"

    def share(x: float) -> float | None:
        return x / population if _valid(x) else None

    return PopulationUniqueness(
        population_size=population,
        sampling_fraction=fraction,
        zayatz=share(zayatz),
        pitman=share(pitman),
        snb=share(snb),
        dankar=share(dankar),
        dankar_model=model if _valid(dankar) else None,
    )
