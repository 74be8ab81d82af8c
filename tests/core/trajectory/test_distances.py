"""Martinez2021 and its calibration against the reference's numbers and the spec (§4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.trajectory.distances import (
    EARTH_RADIUS_KM,
    Martinez2021,
    MartinezCorrected,
    Pack,
    calibrate,
    cochran_sample_size,
    haversine_km,
    index_schedule,
    reference_point,
    robust_speed_kmh,
    speed_kmh,
)
from app.core.trajectory.model import Trajectory
from tests.core.trajectory.conftest import by_id, lats, lons, trajectories

REL = 1e-9


def naive_martinez(t1: Trajectory, t2: Trajectory, lam: float) -> float:
    """The spec's pseudo-code, transcribed loop for loop with Python floats."""

    def s_km(a, i, b, j):
        return float(haversine_km(a.lat[i], a.lon[i], b.lat[j], b.lon[j]))

    def speed(t):
        n = len(t)
        if n == 1:
            return 0.0
        total = 0.0
        for k in range(n - 1):
            dt = int(t.t[k + 1] - t.t[k])
            total += s_km(t, k, t, k + 1) / dt if dt else 0.0
        return total / (n - 1) * 3600

    n1, n2 = len(t1), len(t2)
    v = (speed(t1) + speed(t2)) / 2 / 3.6
    h = round((n1 + n2) / 2)
    g1, g2, a1, a2, i, j, total = n1 / h, n2 / h, 0.0, 0.0, 0, 0, 0.0
    for _ in range(h):
        i, j = min(i, n1 - 1), min(j, n2 - 1)
        d = 1000 * s_km(t1, i, t2, j) + lam * abs(int(t1.t[i]) - int(t2.t[j])) * v
        total += d * d
        a1 += g1
        a2 += g2
        i, j = round(a1), round(a2)
    return math.sqrt(total / h)


def test_calibration_reproduces_the_reference(originals, expected):
    ref = expected["martinez2021"]
    cal = calibrate(originals)
    assert cal.lam == pytest.approx(ref["lambda"], rel=REL)
    assert cal.max_dist == pytest.approx(ref["max_dist"], rel=REL)
    assert cal.sample_size == expected["n_original"] == len(originals)


def test_reference_point(originals, expected):
    point, ref = reference_point(originals), expected["martinez2021"]["reference_point"]
    assert (int(point.t[0]), point.lon[0], point.lat[0]) == (
        ref["timestamp"],
        ref["lon"],
        ref["lat"],
    )
    assert len(point) == 1 and speed_kmh(point) == 0.0


def test_distances_reproduce_the_reference(originals, anonymized, expected):
    ref = expected["martinez2021"]
    dist = Martinez2021(ref["lambda"])
    orig, anon = by_id(originals), by_id(anonymized)
    for row in ref["distances_original_vs_anonymized_m"]:
        d = dist(orig[row["original_id"]], anon[row["anonymized_id"]])
        assert d == pytest.approx(row["d"], rel=REL)
    point = reference_point(originals)
    for row in ref["distance_to_reference_m"]:
        assert dist(orig[row["original_id"]], point) == pytest.approx(row["d"], rel=REL)
    for row in ref["speed_kmh"]:
        assert speed_kmh(orig[row["original_id"]]) == pytest.approx(row["v"], rel=REL)


def test_within_original_dataset(originals, expected):
    ref, orig = expected["martinez2021"], by_id(originals)
    cal = calibrate(originals)
    for row in ref["within_original_dataset"]:
        lam = cal.lam if row["lambda"] == "computed" else row["lambda"]
        normalized = row.get("normalized", False)
        dist = Martinez2021(lam, row.get("max_dist", cal.max_dist), normalized)
        assert dist(orig[row["a"]], orig[row["b"]]) == pytest.approx(row["d"], rel=REL)


def test_one_to_many_matches_pairwise(originals, anonymized):
    dist = Martinez2021(0.16)
    many = dist.one_to_many(anonymized[3], Pack(originals))
    assert many.tolist() == [dist(o, anonymized[3]) for o in originals]


@settings(max_examples=60, deadline=None)
@given(trajectories(), trajectories(), st.floats(0, 2))
def test_vectorised_equals_the_spec_loop(t1, t2, lam):
    assert Martinez2021(lam)(t1, t2) == pytest.approx(naive_martinez(t1, t2, lam), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(trajectories(), trajectories(), st.floats(0, 2))
def test_symmetric_and_zero_on_itself(t1, t2, lam):
    dist = Martinez2021(lam)
    assert dist(t1, t2) == dist(t2, t1)
    assert dist(t1, t1) == 0.0


def test_not_a_metric():
    """A fast pair far apart in time, and a still trajectory between them: the triangle fails."""

    def traj(points):
        return Trajectory(1, 1, *zip(*points, strict=True))

    a = traj([(0, 0.0, 0.0), (60, 0.01, 0.0)])
    c = traj([(3600, 0.0, 0.0), (3660, 0.01, 0.0)])
    b = traj([(1800, 0.005, 0.0), (1860, 0.005, 0.0)])
    dist = Martinez2021(1.0)
    assert dist(a, c) > dist(a, b) + dist(b, c)


def closed_form(n1: int, n2: int) -> np.ndarray:
    h = round((n1 + n2) / 2)
    return np.minimum(np.rint(np.arange(h) * (n1 / h)).astype(int), n1 - 1)


def test_schedule_is_the_sequential_accumulation():
    # n1 = 2, n2 = 69: h = 36 and at k = 9 the accumulated 9·(2/36) lands on the other side
    # of 0.5 than the product does
    i, j = index_schedule(2, 69)
    assert i[9] != closed_form(2, 69)[9]
    a, expected = 0.0, [0]
    for _ in range(35):
        a += 2 / 36
        expected.append(min(round(a), 1))
    assert i.tolist() == expected
    differing = sum(
        (closed_form(n1, n2) != index_schedule(n1, n2)[0]).any()
        for n1 in range(1, 120)
        for n2 in range(1, 120)
    )
    assert differing > 0


def test_schedule_choice_changes_the_distance():
    """The distance follows the sequential schedule, not the closed form."""
    rng = np.random.default_rng(3)
    n1, n2 = 2, 69
    t1 = Trajectory(1, 1, [0, 600], [1.20, 1.25], [41.10, 41.12])
    t2 = Trajectory(2, 2, np.arange(n2) * 10, rng.uniform(1.1, 1.3, n2), rng.uniform(41, 41.2, n2))
    ours = Martinez2021(0.0)(t1, t2)
    i = closed_form(n1, n2)
    j = closed_form(n2, n1)
    s = haversine_km(t1.lat[i], t1.lon[i], t2.lat[j], t2.lon[j]) * 1000
    assert ours == pytest.approx(naive_martinez(t1, t2, 0.0), rel=1e-12)
    assert ours != pytest.approx(math.sqrt(np.mean(s * s)), rel=1e-9)


@pytest.mark.parametrize(("n1", "n2", "h"), [(1, 1, 1), (1, 2, 2), (2, 3, 2), (3, 4, 4), (4, 4, 4)])
def test_schedule_length_rounds_half_to_even(n1, n2, h):
    i, j = index_schedule(n1, n2)
    assert len(i) == len(j) == h
    assert i.max() <= n1 - 1 and j.max() <= n2 - 1 and i[0] == j[0] == 0


def test_speed_counts_still_segments():
    t = Trajectory(1, 1, [0, 0, 3600], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0])
    one_degree = 2 * math.pi * EARTH_RADIUS_KM / 360
    assert speed_kmh(t) == pytest.approx(one_degree / 2)  # (0 + 111.2 km/h) / 2
    assert robust_speed_kmh(t) == pytest.approx(one_degree)


point = st.tuples(lats, lons)


@settings(max_examples=200)
@given(point, point, point)
def test_haversine_is_a_metric(p, q, r):
    d = lambda a, b: float(haversine_km(a[0], a[1], b[0], b[1]))  # noqa: E731
    assert d(p, q) == d(q, p) >= 0 and d(p, p) == 0
    assert d(p, r) <= d(p, q) + d(q, r) + 1e-9


@given(
    st.tuples(st.floats(-90, 90), st.floats(-180, 180)),
    st.tuples(st.floats(-90, 90), st.floats(-180, 180)),
)
def test_haversine_bounded_and_symmetric_worldwide(p, q):
    d = float(haversine_km(*p, *q))
    assert d == float(haversine_km(*q, *p))
    assert 0 <= d <= math.pi * EARTH_RADIUS_KM + 1e-9


def test_cochran_sample_size():
    assert cochran_sample_size(10_001) == 1556
    assert cochran_sample_size(10**9) == 1843


def test_calibration_samples_above_the_limit(originals):
    cal = calibrate(originals, max_exact=40, seed=1)
    assert cal.sample_size == cochran_sample_size(46) < 46
    assert cal.lam > 0 and cal.max_dist > 0


def test_corrected_variant_resists_a_glitch(originals):
    """One GPS glitch (1.7 km in 1 s) cuts the reference's λ to a fifth; corrected: < 1%."""
    t = originals[0]
    glitched = Trajectory(
        t.id,
        t.user_id,
        np.insert(t.t, 4, t.t[3] + 1),
        np.insert(t.lon, 4, t.lon[3] + 0.02),
        np.insert(t.lat, 4, t.lat[3]),
    )
    data = [glitched, *originals[1:]]
    assert calibrate(data).lam / calibrate(originals).lam < 0.25
    corrected = calibrate(data, corrected=True).lam / calibrate(originals, corrected=True).lam
    assert corrected == pytest.approx(1, abs=0.01)
    cal = calibrate(originals, corrected=True)
    dist = MartinezCorrected(cal.lam)
    assert dist(originals[0], originals[0]) == 0.0
    assert dist(originals[0], originals[1]) == dist(originals[1], originals[0]) > 0


def test_normalized_needs_max_dist():
    with pytest.raises(ValueError, match="max_dist"):
        Martinez2021(0.1, normalized=True)
