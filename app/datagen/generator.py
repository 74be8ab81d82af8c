"""Synthetic person records with ground-truth clusters, for record-linkage tests.

Each *person* (one ``cluster_id``) gets a clean base record and 0..k duplicates; the
duplicates carry the discrepancies record linkage has to see through, in the spirit of
Christen's GeCo / FEBRL generators (Christen, *Data Matching*, 2012, ch. 4):
single-character typos, adjacent transpositions, insertions and deletions in names,
first/last name swaps, day/month swaps in the date of birth and missing values. Some
persons are *hard negatives* derived from their neighbour: twins (same last name and
date of birth, another first name) and father/son pairs (same names with ``SR``/``JR``
appended to the last name, dates of birth a generation apart).

Records are produced in independent blocks of :data:`BLOCK` rows, each seeded from
``(seed, block index)``, so the output depends only on ``(n, seed, config)`` and a
million rows can be streamed block by block (see :mod:`app.datagen.export`). Every step
is a numpy operation over a whole block; rows are shuffled within their block.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from app.datagen import edits, names
from app.datagen.fields import EPOCH, fixed_digits, split_days, voter_numbers

__all__ = ["BLOCK", "COLUMNS", "TRUTH_COLUMNS", "Config", "generate", "iter_blocks"]

#: Rows per independently seeded block.
BLOCK = 10_000
#: Output columns, in CSV order.
COLUMNS = (
    "id", "cluster_id", "voter_reg_num", "first_name", "last_name",
    "dob", "sex", "race", "income", "diagnosis",
)  # fmt: skip
#: Extra ground-truth columns returned with ``truth=True`` (see :func:`generate`).
TRUTH_COLUMNS = ("role", "relation", "related_cluster", "noise")
#: Fields a duplicate may lose (set to the empty string).
MISSABLE = ("voter_reg_num", "first_name", "last_name", "dob", "sex", "race")

_RACES = np.array(list("WBAIMOU"), dtype="S1")
_RACE_P = np.array([0.64, 0.22, 0.03, 0.01, 0.02, 0.04, 0.04])
_DIAGNOSES = np.array(
    [  # some contain commas, so the CSV writer's quoting is always exercised
        "None", "Hypertension, essential", "Type 2 diabetes", "Asthma",
        "Major depressive disorder", "Hyperlipidemia", "Osteoarthritis, knee",
        "Chronic kidney disease", "Anxiety disorder", "COPD", "Migraine",
        "Coronary artery disease", "Hypothyroidism", "HIV infection",
    ],
    dtype="S",
)  # fmt: skip
_DIAGNOSIS_P = np.array([40, 14, 9, 7, 6, 6, 4, 3, 3, 2, 2, 2, 1.5, 0.5]) / 100
_EDIT_NAMES = {edits.TYPO: "typo", edits.TRANSPOSE: "transpose", edits.INSERT: "insert"}
_EDIT_NAMES[edits.DELETE] = "delete"
_RATE_FIELDS = (
    "duplicate_prob", "typo", "transposition", "insertion", "deletion",
    "name_swap", "dob_swap", "missing", "twin", "junior",
)  # fmt: skip


@dataclass(frozen=True)
class Config:
    """Rates of the discrepancies, each a probability.

    Edit rates (``typo``, ``transposition``, ``insertion``, ``deletion``) apply per
    duplicate and per name field, mutually exclusively, so a name is at most one
    Damerau-Levenshtein operation away from its base. ``missing`` applies per
    duplicate and per field in :data:`MISSABLE`. ``dob_swap`` applies to duplicates
    whose swapped date is valid and different (day <= 12, day != month). ``twin`` and
    ``junior`` are per person. Names of rank r are drawn with probability proportional
    to ``(r + zipf_offset) ** -zipf_exponent`` (Zipf-Mandelbrot); the offset flattens
    the head so the most common name is about 2.3 times as frequent as the tenth, as
    in the US Census surname table, instead of 10 times under plain Zipf.
    """

    duplicate_prob: float = 0.5
    max_duplicates: int = 3
    typo: float = 0.05
    transposition: float = 0.03
    insertion: float = 0.02
    deletion: float = 0.02
    name_swap: float = 0.03
    dob_swap: float = 0.05
    missing: float = 0.02
    twin: float = 0.02
    junior: float = 0.02
    zipf_exponent: float = 1.0
    zipf_offset: float = 6.0

    def __post_init__(self) -> None:
        rates = [getattr(self, f) for f in _RATE_FIELDS]
        if not all(0.0 <= r <= 1.0 for r in rates):
            raise ValueError("every rate must be a probability in [0, 1]")
        if self.typo + self.transposition + self.insertion + self.deletion > 1.0:
            raise ValueError("edit rates are exclusive per field and must sum to at most 1")
        if self.twin + self.junior > 1.0 or self.max_duplicates < 0:
            raise ValueError("twin + junior must be at most 1 and max_duplicates >= 0")


def _zipf(rng: np.random.Generator, pool: np.ndarray, size: int, cfg: Config) -> np.ndarray:
    """Draw ``size`` indices into ``pool``; P(rank r) is proportional to (r + q)**-s."""
    ranks = np.arange(1, len(pool) + 1, dtype=np.float64)
    weights = (ranks + cfg.zipf_offset) ** -cfg.zipf_exponent
    return rng.choice(len(pool), size=size, p=weights / weights.sum())


_SURNAMES = np.array(names.SURNAMES, dtype="S")
_MALE = np.array(names.MALE_FIRST, dtype="S")
_FEMALE = np.array(names.FEMALE_FIRST, dtype="S")


def _cluster_sizes(rng: np.random.Generator, rows: int, cfg: Config) -> np.ndarray:
    """Return records per person, summing exactly to ``rows`` (last one truncated)."""
    dups = np.minimum(rng.geometric(0.6, size=rows), cfg.max_duplicates)
    dups[rng.random(rows) >= cfg.duplicate_prob] = 0
    sizes = 1 + dups
    ends = np.cumsum(sizes)
    m = int(np.searchsorted(ends, rows)) + 1
    sizes = sizes[:m]
    sizes[-1] -= ends[m - 1] - rows
    return sizes


def _persons(rng: np.random.Generator, m: int, cfg: Config) -> dict[str, np.ndarray]:
    """Draw ``m`` people; some become twins or juniors of the person before them."""
    male = rng.random(m) < 0.5
    i_male, i_female = _zipf(rng, _MALE, m, cfg), _zipf(rng, _FEMALE, m, cfg)
    last = _SURNAMES[_zipf(rng, _SURNAMES, m, cfg)]
    days_lo, days_hi = (np.datetime64(d, "D") - EPOCH for d in ("1940-01-01", "2006-12-31"))
    dob = rng.integers(days_lo.astype(int), days_hi.astype(int) + 1, size=m)
    race = _RACES[rng.choice(len(_RACES), size=m, p=_RACE_P)]
    income = (np.round(rng.lognormal(np.log(52_000), 0.7, size=m), -2)).astype(np.int64)
    diagnosis = rng.choice(len(_DIAGNOSES), size=m, p=_DIAGNOSIS_P)

    u = rng.random(m)
    relation = np.where(u < cfg.twin, 1, np.where(u < cfg.twin + cfg.junior, 2, 0))
    relation[0] = 0
    relation[1:][relation[:-1] != 0] = 0  # a source person is never derived itself
    suffix = np.zeros(m, dtype="S3")

    twin = np.flatnonzero(relation == 1)
    src = twin - 1
    last[twin], dob[twin], race[twin] = last[src], dob[src], race[src]
    first = np.where(male, _MALE[i_male], _FEMALE[i_female])
    # Twins need different first names; the next name in the twin's own pool differs.
    same = twin[first[twin] == first[src]]
    i_male[same] = (i_male[same] + 1) % len(_MALE)
    i_female[same] = (i_female[same] + 1) % len(_FEMALE)

    jr = np.flatnonzero(relation == 2)
    src = jr - 1
    male[jr] = male[src] = True
    i_male[jr] = i_male[src]
    last[jr] = last[src]
    father = rng.integers(35 * 365, 70 * 365, size=jr.size)  # born 1935-1970
    dob[src] = father
    dob[jr] = father + rng.integers(20 * 365, 36 * 365, size=jr.size)
    suffix[src], suffix[jr] = b" SR", b" JR"

    first = np.where(male, _MALE[i_male], _FEMALE[i_female])
    related = np.where(relation > 0, np.arange(m) - 1, -1)
    return {
        "first": first, "last": last, "suffix": suffix, "dob": dob,
        "sex": np.where(male, b"M", b"F"), "race": race, "income": income,
        "diagnosis": diagnosis, "relation": relation, "related": related,
    }  # fmt: skip


def _block(seed: int, b: int, rows: int, cfg: Config) -> dict[str, np.ndarray]:
    """Generate block ``b`` of ``rows`` records as ``S``/int arrays plus truth masks."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, b])))
    sizes = _cluster_sizes(rng, rows, cfg)
    p = _persons(rng, len(sizes), cfg)
    person = np.repeat(np.arange(len(sizes)), sizes)
    dup = np.ones(rows, dtype=bool)
    dup[np.cumsum(sizes) - sizes] = False

    cuts = np.cumsum([cfg.typo, cfg.transposition, cfg.insertion, cfg.deletion])
    out: dict[str, np.ndarray] = {}
    for field in ("first", "last"):
        ops = np.where(dup, np.searchsorted(cuts, rng.random(rows), side="right") + 1, 0)
        ops[ops > edits.DELETE] = edits.NONE
        out[field], out[f"{field}_edit"] = edits.apply_edits(p[field][person], ops, rng)
    out["last"] = np.strings.add(out["last"], p["suffix"][person]).astype("S32")
    out["first"] = out["first"].astype("S32")
    swap = dup & (rng.random(rows) < cfg.name_swap)
    out["first"][swap], out["last"][swap] = out["last"][swap], out["first"][swap]
    out["swap"] = swap

    year, month, day = split_days(p["dob"][person])
    dob_swap = dup & (day <= 12) & (day != month) & (rng.random(rows) < cfg.dob_swap)
    month[dob_swap], day[dob_swap] = day[dob_swap], month[dob_swap]
    out["dob_swap"] = dob_swap
    dob = np.zeros((rows, 10), dtype=np.uint8)
    for col, (vals, width) in zip((0, 3, 6), ((month, 2), (day, 2), (year, 4)), strict=True):
        dob[:, col : col + width] = fixed_digits(vals, width).view(np.uint8).reshape(rows, width)
    dob[:, [2, 5]] = ord("/")
    out["dob"] = dob.view("S10").ravel()

    cluster = b * BLOCK + person
    out["voter_reg_num"] = voter_numbers(cluster, seed)
    out["sex"], out["race"] = p["sex"][person], p["race"][person]
    for field in MISSABLE:
        key = {"first_name": "first", "last_name": "last"}.get(field, field)
        gone = dup & (rng.random(rows) < cfg.missing)
        out[key] = np.where(gone, b"", out[key])
        out[f"missing_{field}"] = gone

    out["cluster"], out["dup"] = cluster, dup
    out["income"], out["diagnosis"] = p["income"][person], p["diagnosis"][person]
    out["relation"] = p["relation"][person]
    out["related"] = np.where(p["related"][person] >= 0, b * BLOCK + p["related"][person], -1)
    order = rng.permutation(rows)
    out = {k: v[order] for k, v in out.items()}
    out["id"] = b * BLOCK + np.arange(rows)
    return out


def _columns(raw: dict[str, np.ndarray], truth: bool) -> dict[str, np.ndarray]:
    """Turn a raw block into UTF-8 ``S`` columns named as in :data:`COLUMNS`."""
    cols = {
        "id": (raw["id"] + 1).astype("S"),
        "cluster_id": (raw["cluster"] + 1).astype("S"),
        "voter_reg_num": raw["voter_reg_num"],
        "first_name": raw["first"],
        "last_name": raw["last"],
        "dob": raw["dob"],
        "sex": raw["sex"],
        "race": raw["race"],
        "income": raw["income"].astype("S"),
        "diagnosis": _DIAGNOSES[raw["diagnosis"]],
    }
    if truth:
        cols["role"] = np.where(raw["dup"], b"dup", b"base")
        cols["relation"] = np.array([b"", b"twin", b"junior"])[raw["relation"]]
        related = (raw["related"] + 1).astype("S")
        cols["related_cluster"] = np.where(raw["related"] >= 0, related, b"")
        cols["noise"] = _noise(raw)
    return cols


def _noise(raw: dict[str, np.ndarray]) -> np.ndarray:
    """Describe each record's applied discrepancies, e.g. ``"first_name:typo;swap"``."""
    parts: list[tuple[np.ndarray, str]] = []
    for field in ("first", "last"):
        for code, name in _EDIT_NAMES.items():
            parts.append((raw[f"{field}_edit"] == code, f"{field}_name:{name}"))
    parts += [(raw["swap"], "name_swap"), (raw["dob_swap"], "dob_swap")]
    parts += [(raw[f"missing_{f}"], f"missing:{f}") for f in MISSABLE]
    noise = np.zeros(len(raw["id"]), dtype="S1")
    for mask, label in parts:
        noise = np.strings.add(noise, np.where(mask, (label + ";").encode(), b""))
    return np.strings.rstrip(noise, b";")


def iter_blocks(
    n: int, seed: int, config: Config | None = None, truth: bool = False
) -> Iterator[dict[str, np.ndarray]]:
    """Yield the ``n`` records of :func:`generate` block by block.

    Columns are UTF-8 encoded ``S`` (bytes) arrays, the form the CSV writer needs.
    """
    cfg = config or Config()
    for b, start in enumerate(range(0, n, BLOCK)):
        yield _columns(_block(seed, b, min(BLOCK, n - start), cfg), truth)


def generate(
    n: int, seed: int, config: Config | None = None, truth: bool = False
) -> dict[str, np.ndarray]:
    """Generate ``n`` person records deterministically from ``seed``.

    Returns a dict from column name (:data:`COLUMNS`) to a numpy ``str`` array of
    length ``n``; empty strings are missing values. With ``truth=True`` the dict also
    holds :data:`TRUTH_COLUMNS`: ``role`` (``base`` or ``dup``), ``relation``
    (``twin``/``junior`` for a derived person, else empty; a father is marked only by
    his ``SR`` suffix), ``related_cluster`` (the twin's or father's ``cluster_id``) and
    ``noise`` (the discrepancies applied to the record, ``;``-separated, such as
    ``first_name:typo``, ``name_swap``, ``dob_swap``, ``missing:race``).
    """
    if n < 0:
        raise ValueError("n must be non-negative")
    blocks = list(iter_blocks(n, seed, config, truth))
    names_ = COLUMNS + (TRUTH_COLUMNS if truth else ())
    if not blocks:
        return {c: np.array([], dtype=str) for c in names_}
    return {c: np.concatenate([blk[c] for blk in blocks]).astype(str) for c in names_}
