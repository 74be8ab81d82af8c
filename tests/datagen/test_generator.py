"""Synthetic records: determinism, cluster structure and every discrepancy vs ground truth."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import jellyfish
import numpy as np
import pytest

from app.datagen import COLUMNS, TRUTH_COLUMNS, Config, generate, names

N = 20_000
CFG = Config()
IDENTIFYING = ("voter_reg_num", "first_name", "last_name", "dob", "sex", "race")


@pytest.fixture(scope="module")
def data() -> dict[str, np.ndarray]:
    return generate(N, seed=11, truth=True)


@pytest.fixture(scope="module")
def base_of(data) -> dict[str, int]:
    """Map cluster_id to the row of its base record."""
    rows = np.flatnonzero(data["role"] == "base")
    return {data["cluster_id"][i]: int(i) for i in rows}


def _row(data, i: int) -> dict[str, str]:
    return {c: str(data[c][i]) for c in data}


def _pairs(data, base_of, noise: str):
    """Yield ``(dup, base)`` rows for duplicates whose only discrepancy is ``noise``."""
    for i in np.flatnonzero(data["noise"] == noise):
        yield _row(data, int(i)), _row(data, base_of[data["cluster_id"][i]])


def _assert_rate(hits: int, trials: int, p: float) -> None:
    """Assert ``hits`` is within five binomial standard deviations of ``p * trials``."""
    expected = p * trials
    assert abs(hits - expected) <= 5 * np.sqrt(expected * (1 - p)) + 1, (hits, expected)


def test_shape_and_columns(data):
    assert tuple(data) == COLUMNS + TRUTH_COLUMNS
    assert all(len(col) == N and col.dtype.kind == "U" for col in data.values())
    assert tuple(generate(10, seed=1)) == COLUMNS


@pytest.mark.parametrize("n", [0, 1, 9_999, 10_000, 10_001, 23_456])
def test_exact_row_count_and_unique_ids(n):
    out = generate(n, seed=3)
    assert len(out["id"]) == n
    assert sorted(out["id"].astype(int).tolist()) == list(range(1, n + 1))


def test_deterministic_per_seed():
    a, b, c = generate(12_345, seed=5), generate(12_345, seed=5), generate(12_345, seed=6)
    assert all(np.array_equal(a[k], b[k]) for k in COLUMNS)
    assert not np.array_equal(a["last_name"], c["last_name"])


def test_negative_n_rejected():
    with pytest.raises(ValueError):
        generate(-1, seed=0)


def test_cluster_structure(data, base_of):
    sizes = Counter(data["cluster_id"].tolist())
    assert len(base_of) == len(sizes)  # exactly one base per cluster
    assert max(sizes.values()) <= 1 + CFG.max_duplicates
    with_dups = sum(s > 1 for s in sizes.values())
    _assert_rate(with_dups, len(sizes), CFG.duplicate_prob)
    for col in ("income", "diagnosis"):  # sensitive values belong to the person
        for i in range(0, N, 7):
            assert data[col][i] == data[col][base_of[data["cluster_id"][i]]]


def test_fields_are_well_formed(data):
    base = data["role"] == "base"
    voter = data["voter_reg_num"][base]
    assert all(len(v) == 10 and v.isdigit() for v in voter)
    assert len(set(voter.tolist())) == len(voter)  # one number per person
    for s in data["dob"][data["dob"] != ""]:
        assert dt.datetime.strptime(str(s), "%m/%d/%Y").year >= 1935
    assert set(data["sex"].tolist()) <= {"M", "F", ""}
    assert set(data["race"].tolist()) <= set("WBAIMOU") | {""}
    assert (data["income"].astype(int) > 0).all()
    assert 0.4 < np.mean(data["sex"][base] == "M") < 0.6


def test_clean_duplicates_equal_their_base(data, base_of):
    pairs = list(_pairs(data, base_of, ""))
    dups = [p for p in pairs if p[0]["role"] == "dup"]
    assert len(dups) > 1000
    for dup, base in dups:
        assert all(dup[c] == base[c] for c in IDENTIFYING)


def _mismatches(a: str, b: str) -> int:
    return sum(map(str.__ne__, a, b))


#: Per edit kind, a check on (base value, dup value) beyond DL distance 1.
SHAPE = {
    "typo": lambda a, b: len(a) == len(b) and _mismatches(a, b) == 1,
    "transpose": lambda a, b: sorted(a) == sorted(b) and _mismatches(a, b) == 2,
    "insert": lambda a, b: len(b) == len(a) + 1,
    "delete": lambda a, b: len(b) == len(a) - 1,
}


@pytest.mark.parametrize("field", ["first_name", "last_name"])
@pytest.mark.parametrize("kind", ["typo", "transpose", "insert", "delete"])
def test_name_edits(data, base_of, field, kind):
    pairs = list(_pairs(data, base_of, f"{field}:{kind}"))
    assert len(pairs) > 20
    for dup, base in pairs:
        assert jellyfish.damerau_levenshtein_distance(base[field], dup[field]) == 1
        assert SHAPE[kind](base[field], dup[field]), (base[field], dup[field])
        assert all(dup[c] == base[c] for c in IDENTIFYING if c != field)
    dups = int(np.sum(data["role"] == "dup"))
    hits = sum(f"{field}:{kind}" in s for s in data["noise"].tolist())
    rate = {"typo": CFG.typo, "transpose": CFG.transposition}.get(kind)
    rate = rate or {"insert": CFG.insertion, "delete": CFG.deletion}[kind]
    # A transposition is impossible in a name like "AA"; allow that small shortfall.
    _assert_rate(hits, dups, rate * (0.97 if kind == "transpose" else 1.0))


def test_name_swap(data, base_of):
    pairs = list(_pairs(data, base_of, "name_swap"))
    assert len(pairs) > 50
    for dup, base in pairs:
        assert (dup["first_name"], dup["last_name"]) == (base["last_name"], base["first_name"])
    dups = int(np.sum(data["role"] == "dup"))
    _assert_rate(sum("name_swap" in s for s in data["noise"].tolist()), dups, CFG.name_swap)


def test_dob_swap(data, base_of):
    pairs = list(_pairs(data, base_of, "dob_swap"))
    assert len(pairs) > 50
    for dup, base in pairs:
        mm, dd, yyyy = base["dob"].split("/")
        assert dup["dob"] == f"{dd}/{mm}/{yyyy}" != base["dob"]
    dup_rows = np.flatnonzero(data["role"] == "dup")
    base_dobs = [data["dob"][base_of[data["cluster_id"][i]]] for i in dup_rows]
    eligible = sum(int(d[3:5]) <= 12 and d[3:5] != d[:2] for d in base_dobs)
    _assert_rate(sum("dob_swap" in s for s in data["noise"].tolist()), eligible, CFG.dob_swap)


@pytest.mark.parametrize("field", IDENTIFYING)
def test_missing_values(data, base_of, field):
    pairs = list(_pairs(data, base_of, f"missing:{field}"))
    assert len(pairs) > 20
    for dup, base in pairs:
        assert dup[field] == "" != base[field]
        assert all(dup[c] == base[c] for c in IDENTIFYING if c != field)
    dups = int(np.sum(data["role"] == "dup"))
    _assert_rate(sum(f"missing:{field}" in s for s in data["noise"].tolist()), dups, CFG.missing)


def _related(data, base_of, relation: str):
    for i in np.flatnonzero((data["relation"] == relation) & (data["role"] == "base")):
        yield _row(data, int(i)), _row(data, base_of[data["related_cluster"][i]])


def test_twins(data, base_of):
    twins = list(_related(data, base_of, "twin"))
    assert len(twins) > 50
    for twin, sibling in twins:
        assert twin["cluster_id"] != sibling["cluster_id"]
        assert twin["last_name"] == sibling["last_name"] and twin["dob"] == sibling["dob"]
        assert twin["first_name"] != sibling["first_name"]
        assert twin["voter_reg_num"] != sibling["voter_reg_num"]
    # Derived people never chain, which trims the rate by a factor (1 - twin - junior).
    _assert_rate(len(twins), len(base_of), CFG.twin * (1 - CFG.twin - CFG.junior))


def test_junior_senior_pairs(data, base_of):
    pairs = list(_related(data, base_of, "junior"))
    assert len(pairs) > 50
    for son, father in pairs:
        assert son["last_name"].endswith(" JR") and father["last_name"].endswith(" SR")
        assert son["last_name"][:-3] == father["last_name"][:-3]
        assert son["first_name"] == father["first_name"]
        assert son["sex"] == father["sex"] == "M"
        assert int(son["dob"][-4:]) - int(father["dob"][-4:]) >= 19
    _assert_rate(len(pairs), len(base_of), CFG.junior * (1 - CFG.twin - CFG.junior))


@pytest.mark.parametrize(
    ("column", "pool"), [("last_name", names.SURNAMES), ("first_name", names.FEMALE_FIRST)]
)
def test_names_follow_zipf(data, column, pool):
    base = (data["role"] == "base") & (data["relation"] == "")
    if column == "first_name":
        base &= data["sex"] == "F"
    counts = Counter(data[column][base].tolist())
    by_rank = np.array([counts.get(name, 0) for name in pool[:30]], dtype=float)
    # Zipf-Mandelbrot: log(count) is linear in log(rank + offset) with slope -exponent.
    x = np.log(np.arange(1, 31) + CFG.zipf_offset)
    slope = np.polyfit(x, np.log(by_rank), 1)[0]
    assert abs(slope + CFG.zipf_exponent) < 0.3
    assert counts.most_common(1)[0][0] == pool[0]
    assert by_rank[0] > 1.8 * by_rank[9] and by_rank[0] > 10 * len(base.nonzero()[0]) / len(pool)
    assert len(counts) > len(pool) // 2  # the long tail is used too


def test_zero_rates_give_exact_copies():
    quiet = Config(
        typo=0, transposition=0, insertion=0, deletion=0, name_swap=0,
        dob_swap=0, missing=0, twin=0, junior=0,
    )  # fmt: skip
    out = generate(5_000, seed=2, config=quiet, truth=True)
    assert set(out["noise"].tolist()) == {""} and set(out["relation"].tolist()) == {""}
    first = {}
    for i in range(5_000):
        key = tuple(out[c][i] for c in IDENTIFYING)
        assert first.setdefault(out["cluster_id"][i], key) == key


@pytest.mark.parametrize(
    "bad",
    [{"typo": -0.1}, {"missing": 1.5}, {"typo": 0.6, "deletion": 0.6}, {"max_duplicates": -1}],
)
def test_config_rejects_impossible_rates(bad):
    with pytest.raises(ValueError):
        Config(**bad)
