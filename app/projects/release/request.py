"""What a release-risk check is asked: columns, convention, threshold, population.

The CLI's options and the API's query parameters (``qi``, ``sensitive``, ``population``,
``estimate``, ``threshold``, ``suppressed``, ``missing``) become one :class:`ReleaseRequest`.
``estimate=scaled`` asks for the scaled estimate of the population classes (F = f N / n)
instead of ARX's sample-as-population; it needs a population size and is never saved. Messages name
the parameter or the column, never a value of the table (a value may be a person's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

from app.core.release import CONVENTIONS, MIN_THRESHOLD

__all__ = ["DEFAULT_THRESHOLD", "ReleaseRequest", "ReleaseRequestError", "columns_of"]

DEFAULT_THRESHOLD = 0.2  # ARX's records-at-risk threshold: classes below 5 records
ESTIMATES = ("sample", "scaled")
MAX_POPULATION = 2**53  # exact in a float; the OpenAPI document says the same
_MAX_COLUMNS = 50
_MAX_NAME = 100


class ReleaseRequestError(ValueError):
    """A parameter of a release-risk check is not one the check can use."""


def columns_of(raw: str | None, parameter: str) -> tuple[str, ...] | None:
    """``"a,b"`` as ``("a", "b")``; None when the parameter is absent or blank."""
    if raw is None or not raw.strip():
        return None
    names = tuple(name.strip() for name in raw.split(",") if name.strip())
    if len(names) > _MAX_COLUMNS or any(len(name) > _MAX_NAME for name in names):
        raise ReleaseRequestError(
            f"'{parameter}' takes at most {_MAX_COLUMNS} column names of {_MAX_NAME} characters"
        )
    if len(set(names)) < len(names):
        raise ReleaseRequestError(f"'{parameter}' names a column twice")
    return names


def _number(raw: str | None, parameter: str, *, whole: bool) -> float | None:
    if raw is None or raw == "":
        return None
    try:
        value = int(raw) if whole else float(raw)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise ReleaseRequestError(f"'{parameter}' must be {kind}") from None
    if not math.isfinite(value):
        raise ReleaseRequestError(f"'{parameter}' must be a finite number")
    return value


@dataclass(frozen=True)
class ReleaseRequest:
    """The check's parameters; ``qi``/``sensitive`` None means "from the column roles"."""

    qi: tuple[str, ...] | None = None
    sensitive: tuple[str, ...] | None = None
    population: int | None = None
    estimate: str = "sample"  # "scaled": F = f N / n on request (not ARX's, never saved)
    threshold: float = DEFAULT_THRESHOLD
    suppressed: str = "exclude"
    missing: str = "*"

    @classmethod
    def of(cls, args: Mapping[str, str], base: ReleaseRequest | None = None) -> ReleaseRequest:
        """Read the parameters from a mapping of strings (query string or CLI options).

        A parameter absent from ``args`` keeps ``base``'s value (the saved policy's, so a
        query overrides only what it names); a blank one means the default, as before.
        """
        read = cls._read(args)
        request = read if base is None else replace(base, **_given(read, args))
        if request.estimate == "scaled" and request.population is None:
            raise ReleaseRequestError("'estimate=scaled' needs a 'population' size")
        return request

    @classmethod
    def _read(cls, args: Mapping[str, str]) -> ReleaseRequest:
        population = _number(args.get("population"), "population", whole=True)
        if population is not None and not 1 <= population <= MAX_POPULATION:
            raise ReleaseRequestError(f"'population' must be from 1 to {MAX_POPULATION:,}")
        threshold = _number(args.get("threshold"), "threshold", whole=False)
        if threshold is not None and not MIN_THRESHOLD <= threshold <= 1:
            raise ReleaseRequestError("'threshold' must be from 2^-53 (1.1e-16) to 1")
        suppressed = args.get("suppressed") or "exclude"
        if suppressed not in CONVENTIONS:
            raise ReleaseRequestError(f"'suppressed' must be one of {', '.join(CONVENTIONS)}")
        estimate = args.get("estimate") or "sample"
        if estimate not in ESTIMATES:
            raise ReleaseRequestError(f"'estimate' must be one of {', '.join(ESTIMATES)}")
        missing = args.get("missing")
        if missing is not None and len(missing) > 20:
            raise ReleaseRequestError("'missing' is at most 20 characters")
        return cls(
            qi=columns_of(args.get("qi"), "qi"),
            sensitive=columns_of(args.get("sensitive"), "sensitive"),
            population=None if population is None else int(population),
            estimate=estimate,
            threshold=DEFAULT_THRESHOLD if threshold is None else float(threshold),
            suppressed=suppressed,
            missing="*" if missing is None else missing,
        )


def _given(read: ReleaseRequest, args: Mapping[str, str]) -> dict:
    """The fields of ``read`` whose parameter ``args`` names."""
    return {name: getattr(read, name) for name in _PARAMETERS if name in args}


_PARAMETERS = (
    "qi", "sensitive", "population", "estimate", "threshold", "suppressed", "missing",
)  # fmt: skip
