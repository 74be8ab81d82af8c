"""The world model: Fellegi-Sunter over what a display lets one read (docs/advice.md §2).

Each attribute's comparison level is the pair ``(s, z)`` of its masked class and its shown
class (:mod:`app.core.advice.display.perception`), with ``m(s, z) = P(s, z | match)`` and
``u(s, z) = P(s, z | non-match)``. A masked attribute is observed through ``s`` alone (its
likelihood sums ``z`` out), a seen one through ``(s, z)`` (Fellegi & Sunter 1969; the posterior is
``π Π m / (π Π m + (1 - π) Π u)`` over the attributes, assumed independent given the match
status). The same tables give the distribution of a masked attribute's class given what is
displayed, which is what the advisor takes its expectation over.

The tables come from :func:`fit_em` (Winkler's EM for the latent match status, no labels), from
:func:`fit_labelled` (counts over pairs whose truth is known), or from the stored defaults (the
CHI 2018 study's pairs, counted with their truth), adjusted by a project's Splink model when it
has one (:func:`with_splink`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from app.core.advice.display.perception import IDENTICAL, MISSING
from app.core.advice.display.state import Reading
from app.core.disclosure import AttributeType

__all__ = ["AttributeTable", "World", "fit_em", "fit_labelled", "with_splink"]

_FLOOR = 1e-6  # the probability of a level a table never saw, under both hypotheses alike


@dataclass(frozen=True)
class AttributeTable:
    """``m`` and ``u`` of one attribute over its levels ``(s, z)``."""

    kind: AttributeType
    m: Mapping[tuple[str, str], float]
    u: Mapping[tuple[str, str], float]

    def likelihoods(self, s: str, z: str | None) -> tuple[float, float]:
        """``P(observed | match)``, ``P(observed | non-match)`` of the class(es) read."""
        if z is not None:
            return self.m.get((s, z), _FLOOR), self.u.get((s, z), _FLOOR)
        lm = sum(p for (ss, _), p in self.m.items() if ss == s)
        lu = sum(p for (ss, _), p in self.u.items() if ss == s)
        return (lm or _FLOOR), (lu or _FLOOR)

    def shown_given(self, s: str, match: bool) -> dict[str, float]:
        """``P(z | s, match)`` (or non-match): what the characters may turn out to be."""
        table = self.m if match else self.u
        found = {z: p for (ss, z), p in table.items() if ss == s}
        total = sum(found.values())
        return {z: p / total for z, p in found.items()} if total else {s: 1.0}

    def as_json(self) -> dict:
        return {
            "kind": self.kind.value,
            "levels": [
                [s, z, self.m.get((s, z), 0.0), self.u.get((s, z), 0.0)] for s, z in _keys(self)
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping) -> AttributeTable:
        levels = data["levels"]
        return cls(
            AttributeType(data["kind"]),
            {(s, z): m for s, z, m, _ in levels},
            {(s, z): u for s, z, _, u in levels},
        )


def _keys(table: AttributeTable) -> list[tuple[str, str]]:
    return sorted(set(table.m) | set(table.u))


@dataclass(frozen=True)
class World:
    """The prior probability of a match among the pairs reviewed and each attribute's table
    (an attribute without one carries no evidence)."""

    prior: float
    tables: Mapping[str, AttributeTable]

    def log_odds(self, reading: Reading) -> float:
        odds = math.log(self.prior / (1 - self.prior))
        for read in reading.reads:
            table = self.tables.get(read.name)
            if table is not None:
                lm, lu = table.likelihoods(read.s, read.z)
                odds += math.log(lm / lu)
        return odds

    def posterior(self, reading: Reading) -> float:
        """``P(match | display)``."""
        return _sigmoid(self.log_odds(reading))

    def shown_distribution(self, reading: Reading, name: str) -> dict[str, float]:
        """``P(z | display)`` of a masked attribute: the mixture over the match status."""
        table = self.tables.get(name)
        read = next(r for r in reading.reads if r.name == name)
        if table is None:
            return {read.s: 1.0}
        post = self.posterior(reading)
        out: dict[str, float] = {}
        for match, weight in ((True, post), (False, 1 - post)):
            for z, p in table.shown_given(read.s, match).items():
                out[z] = out.get(z, 0.0) + weight * p
        return out

    def as_json(self) -> dict:
        return {"prior": self.prior, "tables": {n: t.as_json() for n, t in self.tables.items()}}

    @classmethod
    def from_json(cls, data: Mapping) -> World:
        tables = {n: AttributeTable.from_json(t) for n, t in data["tables"].items()}
        return cls(float(data["prior"]), tables)

    def renamed(self, names: Mapping[str, str]) -> World:
        """The tables under other names (``names``: new name -> name here); unknown skipped."""
        tables = {new: self.tables[old] for new, old in names.items() if old in self.tables}
        return World(self.prior, tables)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def fit_em(
    pairs: Sequence[Mapping[str, tuple[str, str]]],
    kinds: Mapping[str, AttributeType],
    *,
    nonmatches: Sequence[Mapping[str, tuple[str, str]]] = (),
    prior: float = 0.5,
    iterations: int = 500,
    smoothing: float = 0.5,
    tolerance: float = 1e-9,
) -> World:
    """Estimate ``π``, ``m`` and ``u`` by EM from the levels of unlabelled pairs.

    Each pair maps attributes to their level ``(s, z)`` (both classes from the values: the
    server reads them all, and the tables are aggregates that no single pair's advice
    depends on). With ``nonmatches`` (levels of random pairs of records, almost all of two
    people, as Splink estimates ``u`` by random sampling) ``u`` is their smoothed frequency and
    EM estimates ``π`` and ``m`` only. Deterministic: the start puts identical values on the
    match side. A Dirichlet ``smoothing`` is added to every level seen.
    """
    everything = [*pairs, *nonmatches]
    levels = {a: sorted({p[a] for p in everything if a in p}) for a in kinds}
    m = {a: {lv: (4.0 if lv[0].startswith(IDENTICAL) else 1.0) for lv in levels[a]} for a in kinds}
    u = {a: {lv: (1.0 if lv[0].startswith(IDENTICAL) else 4.0) for lv in levels[a]} for a in kinds}
    m, u = _normalised(m), _normalised(u)
    if nonmatches:
        u = _counts(nonmatches, [1.0] * len(nonmatches), levels, smoothing)
    pi, previous = prior, -math.inf
    for _ in range(iterations):
        weights, total = [], 0.0
        for p in pairs:
            lm = math.log(pi) + sum(math.log(m[a][p[a]]) for a in p if a in m)
            lu = math.log(1 - pi) + sum(math.log(u[a][p[a]]) for a in p if a in u)
            top = max(lm, lu)
            weights.append(math.exp(lm - top) / (math.exp(lm - top) + math.exp(lu - top)))
            total += top + math.log(math.exp(lm - top) + math.exp(lu - top))
        m = _counts(pairs, weights, levels, smoothing)
        if not nonmatches:
            u = _counts(pairs, [1 - w for w in weights], levels, smoothing)
        pi = min(max(sum(weights) / len(pairs), 1e-4), 1 - 1e-4)
        if total - previous < tolerance:
            break
        previous = total
    tables = {a: AttributeTable(kinds[a], m[a], u[a]) for a in kinds if levels[a]}
    return World(pi, tables)


def fit_labelled(
    pairs: Sequence[Mapping[str, tuple[str, str]]],
    matches: Sequence[bool],
    kinds: Mapping[str, AttributeType],
    *,
    smoothing: float = 0.5,
) -> World:
    """``π``, ``m`` and ``u`` counted from labelled pairs (smoothed like :func:`fit_em`)."""
    if not any(matches) or all(matches):
        raise ValueError("labelled pairs need both matches and non-matches")
    levels = {a: sorted({p[a] for p in pairs if a in p}) for a in kinds}
    weights = [1.0 if same else 0.0 for same in matches]
    m = _counts(pairs, weights, levels, smoothing)
    u = _counts(pairs, [1 - w for w in weights], levels, smoothing)
    tables = {a: AttributeTable(kinds[a], m[a], u[a]) for a in kinds if levels[a]}
    return World(sum(weights) / len(weights), tables)


def _counts(pairs, weights, levels, smoothing) -> dict:
    out = {a: {lv: smoothing for lv in lvs} for a, lvs in levels.items()}
    for p, w in zip(pairs, weights, strict=True):
        for a, lv in p.items():
            if a in out:
                out[a][lv] += w
    return _normalised(out)


def _normalised(tables: dict) -> dict:
    return {a: {lv: c / sum(t.values()) for lv, c in t.items()} for a, t in tables.items()}


def with_splink(world: World, settings: Mapping, attributes: Iterable[str]) -> World:
    """Adjust the tables with a Splink model's exact-match levels.

    For each comparison whose output column is one of ``attributes``, the mass of identical
    values among present ones becomes the exact-match level's ``m`` (and ``u``), the other
    levels keeping their shares of the rest; missing values keep their mass. A comparison
    without an exact-match level, or an attribute without a table, is left as it is.
    """
    names = {a.lower(): a for a in attributes}
    tables = dict(world.tables)
    for comparison in settings.get("comparisons", []):
        name = names.get(str(comparison.get("output_column_name", "")).lower())
        if name is None or name not in tables:
            continue
        exact = _exact_level(comparison.get("comparison_levels", []))
        if exact is None:
            continue
        table = tables[name]
        tables[name] = AttributeTable(
            table.kind, _rescaled(table.m, exact[0]), _rescaled(table.u, exact[1])
        )
    return World(world.prior, tables)


def _exact_level(levels: Sequence[Mapping]) -> tuple[float, float] | None:
    for level in levels:
        label = str(level.get("label_for_charts", "")).lower()
        m, u = level.get("m_probability"), level.get("u_probability")
        numbers = isinstance(m, int | float) and isinstance(u, int | float)
        if "exact" in label and numbers and 0 < m < 1 and 0 < u < 1:
            return float(m), float(u)
    return None


def _rescaled(table: Mapping[tuple[str, str], float], identical: float) -> dict:
    missing = sum(p for (s, _), p in table.items() if s == MISSING)
    same = sum(p for (s, _), p in table.items() if s.startswith(IDENTICAL))
    rest = 1 - missing - same
    present = 1 - missing
    out = {}
    for (s, z), p in table.items():
        if s == MISSING:
            out[s, z] = p
        elif s.startswith(IDENTICAL):
            out[s, z] = p / same * identical * present if same else p
        else:
            out[s, z] = p / rest * (1 - identical) * present if rest else p
    return out
