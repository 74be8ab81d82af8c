"""What a scoring run will compute, estimated before Splink predicts, and its bounds.

A checked model says what it may call, not how long it runs: a model whose conditions are
fine on names of ten characters may compare 1,000-character values under an edit distance,
over millions of pairs (issue 42: 20 pairs ran for 10 minutes). Before predicting, a run
knows both factors: the longest value of each attribute (read as the records are loaded into
the working tables, :func:`note_lengths`) and its candidate pairs, counted by the
application's blocking on the columns read for those tables (the model's rules make the same
pairs in Splink): exactly when a bound could be passed, else bounded by the pairs of each
rule alone and, once predicted, Splink's own count (:func:`estimate`). Each comparison
level's work for one pair is bounded by :func:`app.core.sqlexpr.cost` at those lengths
(character operations: an edit distance of strings of m and n characters counts m·n), every
level counted as if each pair reached it.

A run of more than ``SCORING_MAX_PAIRS`` pairs (default ``MAX_SCORED_PAIRS``, what the
project can import) or ``SCORING_MAX_WORK`` character operations (default 10^12: about an
hour of DuckDB's edit distances on a 2-core machine, ``bench/scoring.py``) is refused before
predicting; the job ends with the estimate and the bound on its page, and the scoring page
shows the bounds.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from app.core.sqlexpr import Column, cost
from app.projects.blocking.columns import candidate_codes
from app.projects.blocking.counting import count_codes, rule_pairs
from app.projects.scoring.model.definition import Model

__all__ = ["DEFAULT_MAX_WORK", "Estimate", "bounds", "estimate", "note_lengths", "refusal"]

DEFAULT_MAX_WORK = 10**12
DEFAULT_MAX_PAIRS = 20_000_000
_DATE_CHARS = 10  # a DATE column read as text: YYYY-MM-DD


@dataclass(frozen=True)
class Estimate:
    """Candidate pairs, an upper bound of the work of one pair, and their product."""

    pairs: int
    work_per_pair: int

    @property
    def work(self) -> int:
        return self.pairs * self.work_per_pair

    def as_dict(self) -> dict:
        return {"pairs": self.pairs, "work_per_pair": self.work_per_pair, "work": self.work}


def bounds(config: Mapping) -> tuple[int, int]:
    """``(SCORING_MAX_PAIRS, SCORING_MAX_WORK)`` of an app's config."""
    pairs = config.get("SCORING_MAX_PAIRS") or config.get("MAX_SCORED_PAIRS") or DEFAULT_MAX_PAIRS
    return int(pairs), int(config.get("SCORING_MAX_WORK") or DEFAULT_MAX_WORK)


def note_lengths(longest: MutableMapping[str, int], batch: pa.RecordBatch, columns) -> None:
    """Keep in ``longest`` the longest value of each attribute so far (``columns``: attribute
    -> its working column in ``batch``)."""
    for attribute, column in columns.items():
        values = batch.column(column)
        if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
            found = pc.max(pc.utf8_length(values)).as_py() or 0
        else:
            found = _DATE_CHARS
        longest[attribute] = max(longest.get(attribute, 0), found)


def estimate(
    model: Model,
    longest: Mapping[str, int],
    stored: Mapping[str, pa.Array],
    n_a: int,
    *,
    dedupe: bool,
    config: Mapping,
) -> tuple[Estimate, bool]:
    """What ``model`` will compute at ``longest``, its candidate pairs counted over the
    records' ``stored`` values (attribute -> column, A's ``n_a`` records first); and whether
    that count is exact.

    The pairs each rule makes alone are counted first: their sum bounds the distinct pairs
    from above, so when the bound is within the bounds of ``config`` no run is refused and
    the bound is returned (``False``: the run takes the count from Splink's predictions,
    the same pairs). Otherwise the distinct pairs are counted exactly (inclusion–exclusion
    over the rules' intersections, :func:`~app.projects.blocking.counting.count_codes`).
    """

    def length(column: Column) -> int:
        return longest.get(column.name, 0)

    per_pair = sum(
        cost(level.condition, length).work
        for comparison in model.comparisons
        for level in comparison.levels
        if level.condition is not None
    )
    codes = candidate_codes(model.rules, stored)
    n = len(next(iter(stored.values()))) if stored else 0
    bound = Estimate(sum(rule_pairs(codes, n_a, n, dedupe=dedupe)), per_pair)
    if refusal(bound, config) is None:
        return bound, False
    return Estimate(count_codes(codes, n_a, n, dedupe=dedupe).total, per_pair), True


def refusal(found: Estimate, config: Mapping) -> str | None:
    """Why a run of ``found`` is refused (its estimate against the bound), or None."""
    max_pairs, max_work = bounds(config)
    if found.pairs > max_pairs:
        return (
            f"the model's blocking rules make {found.pairs:,} candidate pairs; a run scores at "
            f"most {max_pairs:,} (SCORING_MAX_PAIRS): block more finely"
        )
    if found.work > max_work:
        return (
            f"scoring {found.pairs:,} pairs would take up to {found.work:,} character "
            f"operations ({found.work_per_pair:,} a pair at this project's longest values); a "
            f"run takes at most {max_work:,} (SCORING_MAX_WORK): compare fewer or shorter "
            "values, or block more finely"
        )
    return None
