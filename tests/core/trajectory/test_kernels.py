"""The compiled kernels against the plain implementations (the oracle) and the reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.trajectory.distances import (
    Martinez2021,
    MartinezCorrected,
    calibrate,
    index_schedule,
    speed_kmh,
)
from app.core.trajectory.fast import (
    compiled_distance,
    fast_calibrate,
    fast_linkage,
    kernels,
    speeds_kmh,
    window_bounds,
)
from app.core.trajectory.linkage import (
    nearest_position,
    record_linkage,
    window_positions,
    windowed_record_linkage,
)
from app.core.trajectory.model import Trajectory
from app.core.trajectory.shape import discrete_frechet, dtw, edr, hausdorff
from tests.core.trajectory.conftest import trajectories

REL, ABS_M = 1e-9, 1e-6  # relative, or a micrometre where a distance is nearly zero


@settings(deadline=None)
@given(st.integers(1, 400), st.integers(1, 400), st.sampled_from([1, 3, 8]))
def test_schedule_is_the_sequential_one_in_any_stride(n1, n2, stride):
    i, j = index_schedule(n1, n2)
    ib, jb = np.empty(max(n1, n2), np.int64), np.empty(max(n1, n2), np.int64)
    h = kernels.schedule(n1, n2, ib, jb, stride)
    assert h == len(i)
    if stride == 1:
        assert ib[:h].tolist() == i.tolist() and jb[:h].tolist() == j.tolist()
    assert sorted(zip(ib[:h].tolist(), jb[:h].tolist(), strict=True)) == sorted(
        zip(i.tolist(), j.tolist(), strict=True)
    )


PLAIN = {"dtw": dtw, "frechet": discrete_frechet, "hausdorff": hausdorff, "edr": edr}


@settings(max_examples=60, deadline=None)
@given(trajectories(max_size=12), trajectories(max_size=12, tid=2), st.floats(0.01, 2.0))
def test_every_compiled_distance_matches_its_oracle(t1, t2, lam):
    cases = {name: (f(t1, t2), compiled_distance(name, t1, t2)) for name, f in PLAIN.items()}
    cases["martinez2021"] = (
        Martinez2021(lam)(t1, t2),
        compiled_distance("martinez2021", t1, t2, lam),
    )
    cases["corrected"] = (
        MartinezCorrected(lam)(t1, t2),
        compiled_distance("corrected", t1, t2, lam),
    )
    for name, (plain, fast) in cases.items():
        assert fast == pytest.approx(plain, rel=REL, abs=ABS_M), name


@settings(deadline=None)
@given(trajectories(max_size=10))
def test_a_trajectory_is_at_distance_zero_from_itself(t):
    for name in ("martinez2021", *PLAIN):
        assert compiled_distance(name, t, t, 0.5) == 0.0


def test_far_apart_points_take_the_exact_asin_branch():
    a = Trajectory(1, 1, [0, 60], [0.0, 10.0], [0.0, 5.0])
    b = Trajectory(2, 2, [0, 60], [100.0, -170.0], [60.0, -80.0])
    for name, f in PLAIN.items():
        assert compiled_distance(name, a, b) == pytest.approx(f(a, b), rel=REL)
    assert compiled_distance("martinez2021", a, b, 0.2) == pytest.approx(
        Martinez2021(0.2)(a, b), rel=REL
    )


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 1000), min_size=1, max_size=40),
    st.lists(st.floats(-100, 1100), min_size=1, max_size=20),
    st.floats(0.1, 60),
)
def test_vectorised_windows_are_the_reference_ones(values, queries, m):
    values = sorted(values)
    starts, stops, _ = window_bounds(np.array(values), np.array(queries), m)
    for x, lo, hi in zip(queries, starts, stops, strict=True):
        expected = window_positions(nearest_position(values, x), m, len(values))
        assert (lo, hi) == (expected.start, expected.stop)


def test_calibration_matches_the_reference(originals, expected):
    cal = fast_calibrate(originals, chunks=3)
    assert cal.lam == pytest.approx(expected["martinez2021"]["lambda"], rel=REL)
    assert cal.max_dist == pytest.approx(expected["martinez2021"]["max_dist"], rel=REL)
    corrected, plain = (
        fast_calibrate(originals, corrected=True),
        calibrate(originals, corrected=True),
    )
    assert corrected.lam == pytest.approx(plain.lam, rel=REL)
    assert corrected.max_dist == pytest.approx(plain.max_dist, rel=REL)


def test_exact_search_gives_the_oracle_links(originals, anonymized, expected):
    lam = expected["martinez2021"]["lambda"]
    fast = fast_linkage("martinez2021", originals, anonymized, lam, size=7)
    plain = record_linkage(originals, anonymized, Martinez2021(lam))
    assert fast.risk == plain.risk and fast.percent == expected["rl_percent"]["exact"]
    for a, b in zip(fast.links, plain.links, strict=True):
        assert (a.anonymized_id, a.closest_ids, a.probability) == (
            b.anonymized_id,
            b.closest_ids,
            b.probability,
        )
        assert a.distance == pytest.approx(b.distance, rel=REL)


@pytest.mark.parametrize("label", ["default", "1%", "10%", "50%"])
def test_windowed_search_gives_the_reference_rl(originals, anonymized, expected, label):
    case = expected["rl_percent"]["windowed"][label]
    lam = expected["martinez2021"]["lambda"]
    fast = fast_linkage(
        "martinez2021", originals, anonymized, lam, windowed=True,
        percent=case["percen_window_size"],
    )  # fmt: skip
    plain = windowed_record_linkage(
        originals, anonymized, Martinez2021(lam), case["percen_window_size"]
    )
    assert fast.percent == case["value"] and fast.window == plain.window
    for a, b in zip(fast.links, plain.links, strict=True):
        assert (a.closest_ids, a.candidates, a.true_in_candidates) == (
            b.closest_ids,
            b.candidates,
            b.true_in_candidates,
        )


@pytest.mark.parametrize("name", ["dtw", "frechet", "hausdorff", "edr"])
def test_shape_distances_link_like_their_oracles(originals, anonymized, name):
    fast = fast_linkage(name, originals[:15], anonymized[:15], None)
    plain = record_linkage(originals[:15], anonymized[:15], PLAIN[name])
    assert fast.risk == plain.risk
    assert [x.closest_ids for x in fast.links] == [x.closest_ids for x in plain.links]


def test_early_abandoning_keeps_every_tie(originals, anonymized):
    # three originals with the same points as original 1: all four tie for anonymized 1
    copies = [
        Trajectory(900 + k, 9, originals[0].t, originals[0].lon, originals[0].lat) for k in range(3)
    ]
    pool = [*originals, *copies]
    fast = fast_linkage("martinez2021", pool, anonymized, 0.16)
    plain = record_linkage(pool, anonymized, Martinez2021(0.16))
    assert [x.closest_ids for x in fast.links] == [x.closest_ids for x in plain.links]
    assert fast.risk == plain.risk


def test_martinez_needs_lambda_and_originals(originals, anonymized):
    with pytest.raises(ValueError, match="λ"):
        fast_linkage("martinez2021", originals, anonymized, None)
    with pytest.raises(ValueError, match="at least one"):
        fast_linkage("dtw", [], anonymized, None)


def test_compiled_martinez_gives_the_references_distances(originals, anonymized, expected):
    ref = expected["martinez2021"]
    orig, anon = {t.id: t for t in originals}, {t.id: t for t in anonymized}
    for case in ref["distances_original_vs_anonymized_m"]:
        d = compiled_distance(
            "martinez2021", orig[case["original_id"]], anon[case["anonymized_id"]], ref["lambda"]
        )
        assert d == pytest.approx(case["d"], rel=REL)
    for case in ref["within_original_dataset"]:
        lam = ref["lambda"] if case["lambda"] == "computed" else case["lambda"]
        d = compiled_distance("martinez2021", orig[case["a"]], orig[case["b"]], lam)
        if case.get("normalized"):
            d /= case.get("max_dist", ref["max_dist"])
        assert d == pytest.approx(case["d"], rel=REL)


@settings(deadline=None)
@given(st.lists(trajectories(max_size=9), min_size=1, max_size=6))
def test_bulk_speeds_equal_the_per_trajectory_ones_exactly(many):
    assert speeds_kmh(many).tolist() == [speed_kmh(t) for t in many]


def test_bulk_speeds_on_the_mock_data(originals, anonymized):
    for group in (originals, anonymized):
        assert speeds_kmh(group).tolist() == [speed_kmh(t) for t in group]
