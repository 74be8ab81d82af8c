"""One unit wherever a person reads or types a privacy risk: percent of the maximum KAPR.

KAPR is at most 1 (paper §4.4, when every anonymity set holds at least kappa records), so a
risk, a budget or a cost ``x`` reads as ``100·x`` percent of that maximum. The exact value
(a fraction: KAPRs are rationals, a budget is the decimal a manager gave) is there on demand:
:func:`exact_text` for a page's title, ``*_exact`` fields in the JSON API. Budgets are typed
as percentages in the browser (:func:`parse_percent`); the API keeps its documented fractions
(``"budget": 0.005`` is 0.5 %).
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from flask import Flask

__all__ = [
    "exact_fraction",
    "exact_text",
    "parse_percent",
    "percent",
    "percent_number",
    "register",
]


def percent(x: float | Fraction | str) -> str:
    """``x`` (a fraction of the maximum) as a percentage that never hides a non-zero value.

    At least two decimals and three significant digits: ``0.0000432`` is ``"0.00432%"``,
    ``0.1234`` is ``"12.34%"``, ``0`` is ``"0.00%"``; below ``1e-8`` percent it switches to
    ``"1.00e-9%"``. Mirrors ``pct`` in ``static/js/review-*.js`` (the grid's meters and costs).
    """
    value = 100 * float(Fraction(x) if isinstance(x, str) else x)
    if value == 0 or not math.isfinite(value):
        return f"{value:.2f}%"
    decimals = max(2, 2 - math.floor(math.log10(abs(value))))
    if decimals > 10:
        return f"{value:.2e}%"
    return f"{value:.{decimals}f}%"


def exact_fraction(x: float | Fraction | str) -> Fraction:
    """The exact value: a KAPR's fraction as it is, a float budget as the decimal it was given
    (``Fraction(repr(0.005))`` is 1/200, as the reveal path reads a budget)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, str):
        return Fraction(x)
    return Fraction(repr(float(x)))


def exact_text(x: float | Fraction | str) -> str:
    """``"exactly 23/4620 of the maximum KAPR (0.004978355)"``: what a title shows on demand."""
    value = exact_fraction(x)
    return f"exactly {value} of the maximum KAPR ({float(value):.10g})"


def parse_percent(text: str, label: str = "the budget") -> float:
    """A percentage typed by a person (``"0.5"``, ``"0.5%"``, ``"12,5"``) as a fraction of 1.

    Divided exactly in decimal, so ``"0.5"`` is exactly the float ``0.005`` a manager means.
    Raises :class:`ValueError` naming ``label`` (never echoing more than the typed text's
    validity) unless it is a number from 0 to 100.
    """
    raw = (text or "").strip().removesuffix("%").strip().replace(",", ".")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        raise ValueError(f"{label} is a percentage from 0 to 100") from None
    if not value.is_finite() or not 0 <= value <= 100:
        raise ValueError(f"{label} is a percentage from 0 to 100")
    return float(value / 100)


def percent_number(x: float | Fraction | str) -> str:
    """``x`` as the number a percentage input holds: ``0.3`` is ``"30"``, ``0.005`` is ``"0.5"``
    (exact decimals, no float noise such as ``30.000000000000004``)."""
    value = exact_fraction(x) * 100
    if value.denominator == 1:
        return str(value.numerator)
    text = f"{Decimal(value.numerator) / Decimal(value.denominator):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def register(app: Flask) -> None:
    """Template filters: ``percent``, ``percent_number`` (an input's value), ``kapr_exact``
    (the fraction) and ``exact_text`` (a title)."""
    app.add_template_filter(percent, "percent")
    app.add_template_filter(percent_number, "percent_number")
    app.add_template_filter(lambda x: str(exact_fraction(x)), "kapr_exact")
    app.add_template_filter(exact_text, "exact_text")
