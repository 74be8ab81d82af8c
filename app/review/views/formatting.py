"""Format a privacy risk (KAPR, a budget, a cost) as a percentage: :func:`app.units.percent`."""

from __future__ import annotations

from app.units import percent

__all__ = ["percent"]
