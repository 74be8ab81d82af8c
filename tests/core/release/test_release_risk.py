"""Release risk on small tables whose values are computed by hand from ARX's formulas.

Sources (arx-deidentifier/arx, ``src/main/org/deidentifier/arx/risk/``):
``RiskModelSampleSummary`` (prosecutor: records at risk = records of classes with 1/f > t over
n, highest 1/min f, lowest 1/max f, average = classes / n; journalist with F for f, average
max(classes / sum F, sum(f/F) / n); marketer sum(f/F) / n), ``RiskModelSampleRiskDistribution``
(the histogram bins), ``ModelZayatz``, ``ModelPitman``, ``RiskModelPopulationUniqueness``
(Dankar's rule). l-diversity: Machanavajjhala et al. 2007; t-closeness: Li et al. 2007.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from app.core.release import (
    assess_release,
    build_classes,
    diversity,
    population_uniqueness,
    risk_histogram,
)

# age, zip: quasi-identifiers; dx: sensitive. Row 9's age is suppressed ("*").
TABLE = {
    "age": ["30", "30", "30", "40", "40", "40", "40", "50", "*"],
    "zip": ["100", "100", "100", "200", "200", "200", "200", "300", "200"],
    "dx": ["flu", "flu", "cold", "flu", "hiv", "cold", "flu", "cold", "flu"],
}
QI = ["age", "zip"]


def test_exclude_leaves_the_suppressed_record_out_as_arx():
    # Classes (30,100) f=3, (40,200) f=4, (50,300) f=1; the "*" row is an outlier: n = 8.
    r = assess_release(TABLE, QI, ["dx"], convention="exclude", threshold=0.3).as_dict()
    assert (r["records"], r["records_in_classes"], r["records_left_out"]) == (9, 8, 1)
    assert (r["k"], r["sample_uniques"], r["classes"]) == (1, 1, 3)
    # 1/3 > 0.3 and 1/1 > 0.3, 1/4 is not: (3 + 1) / 8.
    assert r["prosecutor"] == pytest.approx(
        {"records_at_risk": 0.5, "highest": 1.0, "lowest": 0.25, "average": 3 / 8}
    )
    # No population: ARX uses the sample as its own population (F = f).
    assert r["journalist"] == pytest.approx(r["prosecutor"])
    assert r["marketer"] == pytest.approx(3 / 8)
    # records below k_target = ceil(1/0.3) = 4: classes of 3 and 1.
    assert (r["k_target"], r["records_below_k"]) == (4, 4)


def test_wildcard_lets_the_suppressed_value_match_any_age_as_sdcmicro():
    # (*,200) matches the four (40,200) rows: both get f = 5; n = 9.
    r = assess_release(TABLE, QI, ["dx"], convention="wildcard", threshold=0.3).as_dict()
    assert (r["records_in_classes"], r["k"], r["sample_uniques"]) == (9, 1, 1)
    # sum over records of 1/f = 3/3 + 4/5 + 1/1 + 1/5 = 3.
    assert r["classes"] == pytest.approx(3.0)
    assert r["prosecutor"] == pytest.approx(
        {"records_at_risk": 4 / 9, "highest": 1.0, "lowest": 0.2, "average": 3 / 9}
    )
    assert r["attributes"]["dx"]["l_distinct"] == 1  # (50,300) has one value


def test_a_population_size_alone_leaves_journalist_and_marketer_as_arx():
    # ARX's RiskModelSampleSummary: without a superset, population = sample, whatever N its
    # population model holds (N serves the uniqueness models only).
    r = assess_release(TABLE, QI, convention="exclude", threshold=0.3, population=80).as_dict()
    assert r["journalist"] == pytest.approx(
        {"records_at_risk": 0.5, "highest": 1.0, "lowest": 0.25, "average": 3 / 8}
    )
    assert r["marketer"] == pytest.approx(3 / 8)
    assert (r["population_size"], r["population_classes"]) == (80, "sample")
    assert r["population_uniqueness"]["zayatz"] is not None


def test_the_issues_table_marketer_risk_is_arxs_four_in_fifteen_with_a_population_size():
    # 15 records in 4 classes; ARX reports marketer 4/15 with or without N (the scaled
    # estimate made it 4/1000 with N = 1,000: 67 times lower).
    table = {"zip": ["1"] * 8 + ["2"] * 4 + ["3"] * 2 + ["4"]}
    for population in (None, 1000):
        r = assess_release(table, ["zip"], population=population).as_dict()
        assert r["marketer"] == pytest.approx(4 / 15)
        assert r["journalist"]["highest"] == r["prosecutor"]["highest"] == 1.0
    scaled = assess_release(table, ["zip"], population=1000, scaled=True).as_dict()
    assert scaled["marketer"] == pytest.approx(4 / 1000)
    assert scaled["population_classes"] == "scaled_estimate"


def test_the_scaled_estimate_on_request():
    # N = 80, n = 8: F = 10 f = 30, 40, 10.
    r = assess_release(
        TABLE, QI, convention="exclude", threshold=0.3, population=80, scaled=True
    ).as_dict()
    assert r["journalist"] == pytest.approx(
        {"records_at_risk": 0.0, "highest": 0.1, "lowest": 1 / 40, "average": 3 / 80}
    )
    assert r["marketer"] == pytest.approx((3 / 30 + 4 / 40 + 1 / 10) / 8)
    with pytest.raises(ValueError, match="scaled estimate needs a population size"):
        assess_release(TABLE, QI, scaled=True)


def test_l_diversity_and_t_closeness_by_hand():
    r = assess_release(TABLE, QI, ["dx"], convention="exclude").as_dict()["attributes"]["dx"]
    # (50,300) holds one value: l = 1, entropy l = exp(0) = 1, no c makes it (c,2)-diverse.
    assert (r["l_distinct"], r["l_entropy"], r["recursive_c"]) == (1, 1.0, None)
    # Q over all 9 released rows: cold 3/9, flu 5/9, hiv 1/9; class {cold}: 1/2(6/9 + 5/9 + 1/9).
    assert r["t_closeness"] == pytest.approx(2 / 3)


def test_recursive_c_is_the_definition_not_pycanons():
    # One class {5 x A, 1 x B}: r1 < c * r2 holds for c > 5 (pycanon answers 1).
    table = {"q": ["x"] * 6 + ["y"] * 3, "s": ["A"] * 5 + ["B", "A", "B", "C"]}
    d = assess_release(table, ["q"], ["s"]).as_dict()["attributes"]["s"]
    assert d["recursive_c"] == pytest.approx(5.0)
    assert d["l_distinct"] == 2
    h = -(5 / 6) * math.log(5 / 6) - (1 / 6) * math.log(1 / 6)
    assert d["l_entropy"] == pytest.approx(math.exp(h))


def test_ordered_distance_reproduces_li_et_al_salary_example():
    # Li, Li, Venkatasubramanian 2007, Section 4: salaries 3k..11k; {3k,4k,5k} is 0.375 away,
    # {6k,8k,11k} 0.167; {7k,9k,10k}: cumulative ninths 1,2,3,4,2,3,1,1,0 -> 17/72.
    salary = ["3", "4", "5", "6", "8", "11", "7", "9", "10"]
    table = {"q": ["a"] * 3 + ["b"] * 3 + ["c"] * 3, "salary": salary}
    d = assess_release(table, ["q"], ["salary"]).as_dict()["attributes"]["salary"]
    assert d["numeric"] is True
    assert d["t_closeness"] == pytest.approx(0.375)
    one = assess_release({"q": ["b"] * 3, "salary": ["6", "8", "11"]}, ["q"], ["salary"])
    assert one.diversity[0].t_closeness == 0.0  # a class equal to the table is 0 away
    classes = build_classes(table, ["q"], ["salary"])
    assert diversity(classes.sensitive[0]).t_closeness == pytest.approx(0.375)


def test_risk_histogram_bins_as_arx():
    # Risks 1/3 -> (0.25, 0.334], 1/4 -> (0.2, 0.25], 1 -> (0.5, 1].
    bins = risk_histogram(build_classes(TABLE, QI, convention="exclude"))
    got = {(lo, hi): x for lo, hi, x in bins if x}
    assert got == pytest.approx({(0.25, 0.334): 3 / 8, (0.2, 0.25): 4 / 8, (0.5, 1.0): 1 / 8})
    assert sum(x for *_, x in bins) == pytest.approx(1.0)


def _h1(population: int, size: int, n: int) -> float:
    """Hypergeometric P(exactly one of a class of ``size`` in a sample of n), by counting."""
    return size * math.comb(population - size, n - 1) / math.comb(population, n)


def test_zayatz_by_hand_and_dankar_takes_pitman_or_zayatz_below_ten_percent():
    # Histogram of the exclude table: sizes 1, 3, 4 one class each; n = 8, N = 80 (pi = 0.1).
    u = 3
    p = (1 / u) * _h1(80, 1, 8) / sum((1 / u) * _h1(80, j, 8) for j in (1, 3, 4))
    zayatz = 1 * p / 0.1
    pu = population_uniqueness(np.array([1, 3, 4]), np.array([1, 1, 1]), 80)
    assert pu.zayatz == pytest.approx(zayatz / 80)
    assert pu.sampling_fraction == pytest.approx(0.1)
    expected = pu.pitman if pu.pitman is not None else pu.zayatz
    assert pu.dankar == pytest.approx(expected)
    assert pu.dankar_model == ("pitman" if pu.pitman is not None else "zayatz")


def test_no_sample_uniques_means_no_population_uniques():
    pu = population_uniqueness(np.array([2, 5]), np.array([3, 1]), 1000)
    assert (pu.zayatz, pu.pitman, pu.snb, pu.dankar) == (0.0, 0.0, 0.0, 0.0)


def _zipf_histogram(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    values = np.random.default_rng(seed).zipf(1.6, size=n)
    sizes, counts = np.unique(np.unique(values, return_counts=True)[1], return_counts=True)
    return sizes, counts


def test_pitman_solves_arxs_likelihood_equations_checked_by_plain_sums():
    sizes, counts = _zipf_histogram(1000, 1)
    n, u, population = 1000, counts.sum(), 100_000
    pu = population_uniqueness(sizes, counts, population)
    assert pu.pitman is not None and pu.dankar == pu.pitman  # pi = 0.01 <= 0.1

    # Recover (theta, alpha) is internal; instead check the estimate's equations hold with the
    # iterative sums of ModelPitman.getObjectFunctionsIterative at the root we find again.
    def plain(x):
        t, a = x
        i = np.arange(1, u)
        o1 = (1 / (t + i * a)).sum()
        o3 = (i / (t + i * a)).sum()
        o2 = (1 / (t + np.arange(1, n))).sum()
        o4 = sum(
            c * (1 / (np.arange(1, s) - a)).sum()
            for s, c in zip(sizes, counts, strict=True)
            if s > 1
        )
        return [o1 - o2, o3 - o4]

    t, a = optimize.root(plain, [1.0, 0.5]).x
    uniques = math.exp(math.lgamma(t + 1) - math.lgamma(t + a)) * population**a
    assert pu.pitman == pytest.approx(uniques / population, rel=1e-4)


def test_dankar_above_ten_percent_is_zayatz_or_the_smaller_with_snb():
    sizes, counts = _zipf_histogram(1000, 2)
    pu = population_uniqueness(sizes, counts, 5000)  # pi = 0.2
    if pu.snb is None:
        assert (pu.dankar, pu.dankar_model) == (pu.zayatz, "zayatz")
    else:
        assert pu.dankar == min(pu.zayatz, pu.snb)


def test_errors_name_the_column_never_a_value():
    with pytest.raises(KeyError, match="nope"):
        assess_release(TABLE, ["nope"])
    with pytest.raises(ValueError, match="'age'"):
        assess_release(TABLE, ["age"], ["age"])
    with pytest.raises(ValueError, match="population"):
        assess_release(TABLE, QI, population=3)


def test_empty_table_and_all_suppressed():
    r = assess_release({"a": ["*", ""], "s": ["x", "y"]}, ["a"], ["s"]).as_dict()
    assert (r["k"], r["records_in_classes"], r["prosecutor"]["highest"]) == (0, 0, 0.0)


def test_snb_is_k_beta_to_the_alpha_at_a_root_of_arxs_equations():
    # ModelSNB: K from estimateNonEmptyEquivalenceClasses (its "- 1" inside the sum kept),
    # then the root (alpha, beta) of its two equations, here found by fsolve from (1, 0.5).
    sizes, counts, population = np.array([1, 2, 3, 4]), np.array([186, 75, 66, 159]), 1404
    n = float(sizes @ counts)
    f = n / population
    c1, c2 = 186, 75
    base = (1 - f) ** sizes * counts
    var1 = (sizes * f * f * (1 - f * f) ** (sizes - 1) * counts).sum()
    var2 = sum(b * (1 + f) ** j - 1 for b, j in zip(base, sizes, strict=True))
    var4 = (sizes * f * (1 - f) ** (sizes - 1) * counts).sum()
    k = counts.sum() + c1 * (var1 / var2) * (base.sum() / var4) ** 2

    def equations(x):
        a, b = x
        d = (1 - f) * (1 - b)
        return [
            k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - c1,
            k * a * b**a * f * f * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2,
        ]

    a, b = optimize.fsolve(equations, [1.0, 0.5], xtol=1e-12)
    assert np.allclose(equations([a, b]), 0, atol=1e-6)
    pu = population_uniqueness(sizes, counts, population)
    assert pu.snb == pytest.approx(k * b**a / population, rel=1e-6)
    # pi = 0.83 > 0.1: Dankar takes the smaller of Zayatz and SNB.
    assert (pu.dankar, pu.dankar_model) == (min(pu.zayatz, pu.snb), "snb")


# The sample TABLE plus five more people: a superset, as ARX's handle.getSuperset().
POPULATION = {
    "age": [*TABLE["age"], "30", "50", "50", "60", "*"],
    "zip": [*TABLE["zip"], "100", "300", "300", "100", "100"],
}


def test_journalist_and_marketer_with_a_population_table_exclude():
    # F: (30,100) 3+1 = 4, (40,200) 4, (50,300) 1+2 = 3; N = 14 rows.
    r = assess_release(TABLE, QI, threshold=0.3, population_table=POPULATION).as_dict()
    assert r["journalist"] == pytest.approx(
        {"records_at_risk": 1 / 8, "highest": 1 / 3, "lowest": 1 / 4, "average": 3 / 11}
    )  # average = max(3 / (4+4+3), (3/4 + 4/4 + 1/3) / 8) = 3/11
    assert r["marketer"] == pytest.approx((3 / 4 + 4 / 4 + 1 / 3) / 8)
    assert (r["population_size"], r["population_classes"]) == (14, "population_table")


def test_journalist_with_a_population_table_wildcard():
    # Groups (30,100) f 3, (40,200) f 5, (50,300) f 1, (*,200) f 5; in the population the
    # added (*,100) matches (30,100): F = 5, 5, 3, 5.
    r = assess_release(
        TABLE, QI, convention="wildcard", threshold=0.3, population_table=POPULATION
    ).as_dict()
    classes = 3 / 3 + 4 / 5 + 1 / 1 + 1 / 5
    weighted = (3 / 3) * 5 + (4 / 5) * 5 + 1 * 3 + (1 / 5) * 5
    assert r["journalist"] == pytest.approx(
        {"records_at_risk": 1 / 9, "highest": 1 / 3, "lowest": 1 / 5, "average": classes / weighted}
    )
    assert r["marketer"] == pytest.approx((3 / 5 + 4 / 5 + 1 / 3 + 1 / 5) / 9)


def test_a_population_table_must_hold_the_sample():
    with pytest.raises(ValueError, match="population"):
        assess_release(TABLE, QI, population_table={"age": ["30"], "zip": ["100"]})
    with pytest.raises(ValueError, match="not both"):
        assess_release(TABLE, QI, population=100, population_table=POPULATION)


def test_wildcard_refuses_more_matches_than_it_can_hold(monkeypatch):
    from app.core.release import classes as module  # noqa: PLC0415 - the limit lives there

    monkeypatch.setattr(module, "MAX_WILDCARD_PAIRS", 3)
    # TABLE's one incomplete pattern (*,200) matches one other: within the limit.
    assert assess_release(TABLE, QI, convention="wildcard").sample.k == 1
    # A row with both QIs suppressed matches the four other patterns: over it.
    wide = {name: [*values, "*"] for name, values in TABLE.items() if name in QI}
    with pytest.raises(ValueError, match="use the exclude convention"):
        assess_release(wide, QI, convention="wildcard")
