"""Format a privacy risk (KAPR, a budget, a cost) as a percentage that never hides a cost."""

from __future__ import annotations

import math

__all__ = ["percent"]


def percent(x: float) -> str:
    """``x`` (a fraction) as a percentage with at least two decimals and three significant digits.

    A non-zero value never reads as zero: ``0.0000432`` is ``"0.00432%"``, ``0.1234`` is
    ``"12.34%"``, ``0`` is ``"0.00%"``; below ``1e-8`` percent it switches to ``"1.00e-9%"``.
    Mirrors ``pct`` in ``static/js/review-*.js`` (the hover costs), so the worker's home and
    grid agree.
    """
    value = 100 * x
    if value == 0 or not math.isfinite(value):
        return f"{value:.2f}%"
    decimals = max(2, 2 - math.floor(math.log10(abs(value))))
    if decimals > 10:
        return f"{value:.2e}%"
    return f"{value:.{decimals}f}%"
