"""The meters of an assignment as the JSON API carries them: budget, KAPR, characters.

Every answer that knows them carries them (a page, a reveal, and a refused reveal), so each
open tab follows the server: ``budget`` and ``kapr`` are fractions of the maximum KAPR (the
page shows them in percent), ``*_exact`` their exact values.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["characters_json", "meters"]


def characters_json(disclosed: int, total: int) -> dict:
    return {
        "disclosed": disclosed,
        "total": total,
        "percent": round(100 * disclosed / total, 2) if total else 0.0,
    }


def meters(
    budget: float, kapr: Fraction, chars_disclosed: int, chars_total: int, bounded: bool = True
) -> dict:
    """The meters' JSON (``kapr_bounded``: every anonymity set at least kappa)."""
    return {
        "budget": budget,
        "budget_exact": str(Fraction(repr(budget))),
        "kapr": float(kapr),
        "kapr_exact": str(kapr),
        "kapr_bounded": bounded,
        "characters": characters_json(chars_disclosed, chars_total),
    }
