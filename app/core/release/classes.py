"""Equivalence classes over quasi-identifiers, under a convention for missing values.

A record's quasi-identifier (QI) values form its *pattern*. Records with the same pattern are
one *group*. How a missing or suppressed QI value (``None``, ``""`` or the ``missing`` token,
``*`` by default) is treated is a named convention (values are compared as text, without
surrounding spaces):

``exclude`` (ARX)
    A record with a missing value in any chosen QI is left out of the classes, as ARX leaves
    suppressed records (outliers) out: ``RiskModelSampleSummary.getGroups`` and
    ``RiskModelHistogram`` only group rows for which ``handle.isOutlier(row, indices)`` is
    false (arx-deidentifier/arx, ``src/main/org/deidentifier/arx/risk/``). The classes are a
    partition of the remaining records; every denominator counts those records only.
``wildcard`` (sdcMicro)
    A missing value matches any value, as in sdcMicro's ``freqCalc``: the frequency ``f_i`` of
    record *i* is the number of records that agree with it on every QI where neither is
    missing. Classes then overlap; each group's *match set* (the records it matches) plays the
    role of its class. On a table without missing values both conventions give the same
    classes.

Everything downstream reads a :class:`Classes`: per group its pattern, how many records have
it (``records``), its class size (``size``: ``f`` of each of those records) and, per sensitive
attribute, the counts of each sensitive value over its class (a sparse matrix).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # scipy is imported where used: the app starts without it (issue 39.3)
    from scipy import sparse

__all__ = [
    "CONVENTIONS",
    "Classes",
    "SensitiveColumn",
    "build_classes",
    "is_missing",
    "population_sizes",
]

CONVENTIONS = ("exclude", "wildcard")
MAX_WILDCARD_PAIRS = 20_000_000  # matching distinct patterns kept in memory (~0.5 GB at most)
_MISSING = -1


def is_missing(value: object, token: str | None) -> bool:
    """Return whether a cell is missing: None, NaN, blank, or equal to the ``token``."""
    if value is None:
        return True
    if isinstance(value, float) and np.isnan(value):
        return True
    text = str(value).strip()
    return text == "" or (token is not None and text == token)


@dataclass(frozen=True)
class SensitiveColumn:
    """One sensitive attribute: its distinct values in order and per-group counts.

    ``values`` are sorted numerically when ``numeric`` (every non-missing value parses as a
    number), else as text. ``counts`` is a ``groups x len(values)`` sparse matrix of the counts
    of each value over each group's class; ``overall`` the counts over every record of the
    table (excluded ones too: they are released with their sensitive values).
    """

    name: str
    values: tuple[str, ...]
    numeric: bool
    counts: sparse.csr_matrix
    overall: np.ndarray


@dataclass(frozen=True)
class Classes:
    """Groups of records with equal QI patterns and the class each one stands for."""

    convention: str
    qi: tuple[str, ...]
    patterns: list[tuple[str | None, ...]]  # None where the pattern's value is missing
    records: np.ndarray  # records with the pattern (int64)
    size: np.ndarray  # class size f of each of those records (float64)
    total_records: int  # every record of the table
    sensitive: tuple[SensitiveColumn, ...]

    @property
    def included(self) -> int:
        """Records that are in a class (all but the excluded ones)."""
        return int(self.records.sum())

    @property
    def record_sizes(self) -> np.ndarray:
        """The class size of every included record (one entry per record)."""
        return np.repeat(self.size, self.records)


def _codes(column: Sequence[object], token: str | None) -> tuple[np.ndarray, list[str]]:
    """Integer codes of a column's values (``-1`` where missing) and the values they stand for."""
    text = [None if is_missing(v, token) else str(v).strip() for v in column]
    labels = sorted({v for v in text if v is not None})
    index = {v: i for i, v in enumerate(labels)}
    return np.array([_MISSING if v is None else index[v] for v in text], dtype=np.int64), labels


def _sensitive_codes(
    column: Sequence[object], token: str | None
) -> tuple[np.ndarray, list[str], bool]:
    """Codes of a sensitive column in value order (numeric when every value is a number)."""
    text = [None if is_missing(v, token) else str(v).strip() for v in column]
    present = {v for v in text if v is not None}
    try:
        numbers = {v: float(v) for v in present}
        numeric = bool(present) and all(np.isfinite(x) for x in numbers.values())
    except ValueError:
        numeric = False
    labels = sorted(present, key=(lambda v: (numbers[v], v)) if numeric else None)
    index = {v: i for i, v in enumerate(labels)}
    codes = np.array([_MISSING if v is None else index[v] for v in text], dtype=np.int64)
    return codes, labels, numeric


def _compatible(left: np.ndarray, right_row: np.ndarray) -> np.ndarray:
    """Rows of ``left`` that agree with ``right_row`` wherever neither is missing."""
    agree = (left == right_row) | (left == _MISSING) | (right_row == _MISSING)
    return agree.all(axis=1)


def _match_matrix(patterns: np.ndarray) -> sparse.csr_matrix:
    """``A[g, h] = 1`` when patterns g and h match under the wildcard convention.

    A complete pattern matches only itself among complete patterns, so only the rows and
    columns of incomplete patterns (usually few) need comparing: O(groups x incomplete).
    """
    from scipy import sparse

    n = len(patterns)
    incomplete = np.flatnonzero((patterns == _MISSING).any(axis=1))
    rows, cols = [np.arange(n)], [np.arange(n)]
    pairs = 0
    for m in incomplete:
        hits = np.flatnonzero(_compatible(patterns, patterns[m]))
        hits = hits[hits != m]
        pairs += len(hits)
        if pairs > MAX_WILDCARD_PAIRS:  # memory: the matches are kept as a sparse matrix
            raise ValueError(
                f"more than {MAX_WILDCARD_PAIRS:,} wildcard matches between distinct patterns: "
                "too many missing values to match as wildcards; use the exclude convention"
            )
        rows += [np.full(len(hits), m), hits]
        cols += [hits, np.full(len(hits), m)]
    r, c = np.concatenate(rows), np.concatenate(cols)
    matrix = sparse.coo_matrix((np.ones(len(r)), (r, c)), shape=(n, n)).tocsr()
    matrix.data[:] = 1.0  # a pair found from both ends counts once
    return matrix


def build_classes(
    table: Mapping[str, Sequence[object]],
    qi: Sequence[str],
    sensitive: Sequence[str] = (),
    *,
    convention: str = "exclude",
    missing: str | None = "*",
) -> Classes:
    """Group the records of ``table`` (column name -> values) by their ``qi`` pattern.

    Raises ``KeyError`` naming an unknown column and ``ValueError`` for an unknown convention
    or an empty QI list; never a value.
    """
    from scipy import sparse

    if convention not in CONVENTIONS:
        raise ValueError(f"unknown convention {convention!r}; use one of {', '.join(CONVENTIONS)}")
    if not qi:
        raise ValueError("choose at least one quasi-identifier")
    for name in (*qi, *sensitive):
        if name not in table:
            raise KeyError(name)
    total = len(table[qi[0]])
    columns, labels = zip(*(_codes(table[name], missing) for name in qi), strict=True)
    keys = np.stack(columns, axis=1) if total else np.empty((0, len(qi)), dtype=np.int64)
    rows = np.arange(total)
    if convention == "exclude":
        rows = rows[(keys != _MISSING).all(axis=1)]
    patterns, inverse, records = np.unique(
        keys[rows], axis=0, return_inverse=True, return_counts=True
    )
    inverse = inverse.reshape(-1)
    groups = len(patterns)
    match = (
        _match_matrix(patterns)
        if convention == "wildcard"
        else sparse.identity(groups, format="csr")
    )
    size = match @ records.astype(np.float64)
    sens = []
    for name in sensitive:
        codes, values, numeric = _sensitive_codes(table[name], missing)
        kept = codes[rows] != _MISSING
        own = sparse.coo_matrix(
            (np.ones(int(kept.sum())), (inverse[kept], codes[rows][kept])),
            shape=(groups, max(len(values), 1)),
        ).tocsr()
        overall = np.bincount(codes[codes != _MISSING], minlength=max(len(values), 1))
        sens.append(SensitiveColumn(name, tuple(values), numeric, (match @ own).tocsr(), overall))
    shown = [
        tuple(None if code == _MISSING else labels[j][code] for j, code in enumerate(pattern))
        for pattern in patterns
    ]
    return Classes(
        convention=convention,
        qi=tuple(qi),
        patterns=shown,
        records=records.astype(np.int64),
        size=np.asarray(size, dtype=np.float64),
        total_records=total,
        sensitive=tuple(sens),
    )


def population_sizes(
    classes: Classes, population: Mapping[str, Sequence[object]], *, missing: str | None = "*"
) -> np.ndarray:
    """The size ``F`` in a population table of each class of ``classes`` (the sample).

    As ARX's ``RiskModelSampleSummary`` with a superset: the population is grouped over all its
    rows (``ignoreOutliers``) and each sample class looks up its own tuple. Under ``wildcard``
    a population record counts for a class when it matches the class's pattern (a missing value
    on either side matches). Raises ``KeyError`` naming a QI the population lacks and
    ``ValueError`` when a class is larger in the sample than in the population.
    """
    for name in classes.qi:
        if name not in population:
            raise KeyError(name)
    rows = len(population[classes.qi[0]])
    text = [
        [None if is_missing(v, missing) else str(v).strip() for v in population[name]]
        for name in classes.qi
    ]
    vocab = [
        {v: i for i, v in enumerate(sorted({*col, *(p[j] for p in classes.patterns)} - {None}))}
        for j, col in enumerate(text)
    ]

    def encode(values, j):
        return np.array([_MISSING if v is None else vocab[j][v] for v in values], dtype=np.int64)

    width = len(classes.qi)
    empty = np.empty((0, width), dtype=np.int64)
    pop = np.stack([encode(col, j) for j, col in enumerate(text)], axis=1) if rows else empty
    sample = (
        np.stack([encode([p[j] for p in classes.patterns], j) for j in range(width)], axis=1)
        if classes.patterns
        else empty
    )
    patterns, counts = np.unique(pop, axis=0, return_counts=True)
    exact = {tuple(p): c for p, c in zip(patterns.tolist(), counts.tolist(), strict=True)}
    sizes = np.array([exact.get(tuple(p), 0) for p in sample.tolist()], dtype=np.float64)
    if classes.convention == "wildcard" and len(sample):
        for m in np.flatnonzero((patterns == _MISSING).any(axis=1)):
            hits = _compatible(sample, patterns[m]) & ~(sample == patterns[m]).all(axis=1)
            sizes[hits] += counts[m]
        complete = ~(patterns == _MISSING).any(axis=1)
        for g in np.flatnonzero((sample == _MISSING).any(axis=1)):
            sizes[g] += counts[complete & _compatible(patterns, sample[g])].sum()
    if np.any(sizes < classes.size):
        raise ValueError("the population does not hold the sample: a class is larger in it")
    return sizes
