"""One release-risk report of a table: classes, attacker risks, uniqueness, diversity.

:func:`assess_release` is what the CLI, the API and the manager's page call; :meth:`
ReleaseRisk.as_dict` is the one JSON object all three answer (``docs/release-risk.md``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from app.core.release._diversity import Diversity, diversity
from app.core.release._population import PopulationUniqueness, population_uniqueness
from app.core.release._sample import SampleRisk, risk_histogram, sample_risk
from app.core.release.classes import Classes, build_classes, population_sizes

__all__ = ["DRIVERS", "ReleaseRisk", "RiskClass", "assess_release", "size_histogram"]

DRIVERS = 20  # classes listed as driving the risk


@dataclass(frozen=True)
class RiskClass:
    """One class of the report: its QI values (None: missing), records, size and risk."""

    values: tuple[str | None, ...]
    records: int
    size: float
    risk: float


@dataclass(frozen=True)
class ReleaseRisk:
    """Everything the release-risk check reports about one table."""

    qi: tuple[str, ...]
    sensitive: tuple[str, ...]
    convention: str
    missing: str | None
    threshold: float
    records: int
    records_in_classes: int
    sample: SampleRisk
    population: PopulationUniqueness | None
    diversity: tuple[Diversity, ...]
    histogram: list[tuple[float, float, float]]
    drivers: list[RiskClass]

    def as_dict(self) -> dict:
        """The report as plain JSON values (infinity and not-available become None)."""
        s = self.sample
        uniqueness = dict.fromkeys(("zayatz", "pitman", "snb", "dankar"))
        if self.population is not None:
            uniqueness = asdict(self.population)
        return _finite(
            {
                "qi": list(self.qi),
                "sensitive": list(self.sensitive),
                "suppressed": self.convention,
                "missing": self.missing,
                "threshold": self.threshold,
                "records": self.records,
                "records_in_classes": self.records_in_classes,
                "records_left_out": self.records - self.records_in_classes,
                "classes": s.classes,
                "k": s.k,
                "k_target": s.k_target,
                "records_below_k": s.records_below_k,
                "sample_uniques": s.sample_uniques,
                "prosecutor": asdict(s.prosecutor),
                "journalist": asdict(s.journalist),
                "marketer": s.marketer,
                "population_size": s.population_size,
                "population_classes": s.population_classes,
                "population_uniqueness": uniqueness,
                "attributes": {
                    d.attribute: {
                        "numeric": d.numeric,
                        "l_distinct": d.l_distinct,
                        "l_entropy": d.l_entropy,
                        "recursive_c": d.recursive_c,
                        "t_closeness": d.t_closeness,
                    }
                    for d in self.diversity
                },
                "histogram": [
                    {"low": lo, "high": hi, "records": x} for lo, hi, x in self.histogram
                ],
                "drivers": [asdict(c) for c in self.drivers],
            }
        )


def _finite(value):
    """Replace non-finite floats by None, recursively (JSON has no infinity)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def size_histogram(classes: Classes) -> tuple[np.ndarray, np.ndarray]:
    """Class sizes and how many classes have each (ARX's ``RiskModelHistogram``).

    Under ``wildcard`` a size-j count is (records whose class has size j) / j, which may be
    fractional; on a partition it is the number of classes.
    """
    sizes, inverse = np.unique(classes.size, return_inverse=True)
    records = np.bincount(inverse.reshape(-1), weights=classes.records, minlength=len(sizes))
    return sizes, records / np.maximum(sizes, 1)


def _drivers(classes: Classes, limit: int) -> list[RiskClass]:
    order = np.lexsort((-classes.records, classes.size))[:limit]
    return [
        RiskClass(
            values=classes.patterns[g],
            records=int(classes.records[g]),
            size=float(classes.size[g]),
            risk=float(1.0 / classes.size[g]),
        )
        for g in order
    ]


def assess_release(
    table: Mapping[str, Sequence[object]],
    qi: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    convention: str = "exclude",
    missing: str | None = "*",
    threshold: float = 0.2,
    population: float | None = None,
    population_table: Mapping[str, Sequence[object]] | None = None,
    scaled: bool = False,
    drivers: int = DRIVERS,
) -> ReleaseRisk:
    """Assess the re-identification risk of releasing ``table`` (column -> values).

    ``qi`` are the quasi-identifiers, ``sensitive`` the attributes whose diversity is
    measured, ``convention`` ``exclude`` (ARX) or ``wildcard`` (sdcMicro) for a missing QI
    value, ``missing`` the token of a suppressed value besides blanks, ``threshold`` the
    prosecutor/journalist risk threshold, ``population`` the population size N of the
    uniqueness models (the journalist and marketer risks are ARX's with the sample as its own
    population, journalist = prosecutor, unless ``scaled`` asks for the scaled estimate F =
    f N / n). ``population_table`` (column -> values, a superset of ``table``) gives each
    class's population size as ARX counts it; its row count is then N. Raises ``KeyError``
    (an unknown column's name) or ``ValueError``.
    """
    overlap = set(qi) & set(sensitive)
    if overlap:
        raise ValueError(f"column {sorted(overlap)[0]!r} cannot be both QI and sensitive")
    classes = build_classes(table, qi, sensitive, convention=convention, missing=missing)
    sizes = None
    if population_table is not None:
        if population is not None:
            raise ValueError("give a population size or a population table, not both")
        sizes = population_sizes(classes, population_table, missing=missing)
        population = len(population_table[qi[0]])
    sample = sample_risk(
        classes, threshold=threshold, population=population, population_sizes=sizes, scaled=scaled
    )
    uniqueness = None
    if population is not None:
        uniqueness = population_uniqueness(*size_histogram(classes), population)
    return ReleaseRisk(
        qi=tuple(qi),
        sensitive=tuple(sensitive),
        convention=convention,
        missing=missing,
        threshold=threshold,
        records=classes.total_records,
        records_in_classes=classes.included,
        sample=sample,
        population=uniqueness,
        diversity=tuple(diversity(column) for column in classes.sensitive),
        histogram=risk_histogram(classes),
        drivers=_drivers(classes, drivers),
    )
