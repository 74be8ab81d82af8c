"""The trajectory risk job function against the reference's values (tests/data/trajectory)."""

from __future__ import annotations

import io
from dataclasses import asdict
from fractions import Fraction

import pytest
from werkzeug.datastructures import FileStorage, MultiDict

from app.analytics.trajectory import (
    OptionsError,
    RiskOptions,
    parse_options,
    read_uploads,
    trajectory_risk,
)
from app.core.trajectory.model import TrajectoryFormatError

NAMES = {"original": "o.csv", "anonymized": "a.csv"}


def run(original_csv, anonymized_csv, **options):
    calls = []
    result = trajectory_risk(
        original_csv, anonymized_csv, asdict(RiskOptions(**options)), NAMES,
        progress=lambda done, total: calls.append((done, total)),
    )  # fmt: skip
    return result, calls


def test_exact_rl_is_13_of_46(original_csv, anonymized_csv, expected):
    result, calls = run(original_csv, anonymized_csv)
    exact = result["exact"]
    assert exact["risk"] == "13/46" and exact["linked"] == 13
    assert exact["percent"] == pytest.approx(expected["rl_percent"]["exact"], rel=1e-15)
    assert (exact["n_original"], exact["n_anonymized"], exact["comparisons"]) == (46, 46, 46 * 46)
    assert result["lambda"] == pytest.approx(expected["martinez2021"]["lambda"], rel=1e-9)
    assert "windowed" not in result
    assert calls[0] == (0, 46) and calls[-1] == (46, 46)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    top = exact["links"][0]
    assert Fraction(top["probability"]) > 0 and len(exact["links"]) == 25


@pytest.mark.parametrize("label", ["default", "1%", "10%", "50%"])
def test_windowed_rl_matches_the_reference_and_is_compared(
    original_csv, anonymized_csv, expected, label
):
    case = expected["rl_percent"]["windowed"][label]
    result, calls = run(
        original_csv, anonymized_csv, search="windowed",
        window_percent=case["percen_window_size"], compare_exact=True,
    )  # fmt: skip
    assert result["windowed"]["percent"] == pytest.approx(case["value"], rel=1e-15)
    assert result["exact"]["risk"] == "13/46"
    assert calls[-1] == (92, 92)
    assert result["windowed"]["comparisons"] <= result["exact"]["comparisons"]


def test_one_percent_window_misses_true_originals(original_csv, anonymized_csv):
    result, _ = run(
        original_csv, anonymized_csv, search="windowed", window_percent=1.0, compare_exact=False
    )
    windowed = result["windowed"]
    assert windowed["risk"] == "2/23" and windowed["comparisons"] == 46 and windowed["missed"] > 0
    assert "exact" not in result


def test_explicit_lambda_is_used(original_csv, anonymized_csv):
    result, _ = run(original_csv, anonymized_csv, lam=0.16, top=3)
    assert result["lambda"] == 0.16 and len(result["exact"]["links"]) == 3


@pytest.mark.parametrize("distance", ["corrected", "synchronized", "dtw", "frechet"])
def test_every_distance_runs(original_csv, anonymized_csv, distance):
    result, _ = run(original_csv, anonymized_csv, distance=distance)
    assert 0 <= Fraction(result["exact"]["risk"]) <= 1


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"distance": "euclid"}, "unknown distance"),
        ({"search": "fast"}, "exact or windowed"),
        ({"window_percent": "abc"}, "Window percent must be a number"),
        ({"window_percent": "0"}, "(0, 100]"),
        ({"lam": "-1"}, "λ must be positive"),
        ({"distance": "dtw", "lam": "0.2"}, "Martinez distances only"),
        ({"lam": "inf"}, "finite"),
        ({"top": "2.5"}, "Top N"),
    ],
)
def test_bad_options_are_named(form, message):
    with pytest.raises(OptionsError, match=message.replace("(", r"\(").replace("]", r"\]")):
        parse_options(form)


def test_windowed_defaults_to_the_reference_rule():
    options = parse_options({"search": "windowed", "compare_exact": "on"})
    assert options.window_percent is None and options.compare_exact


def files(original: bytes, anonymized: bytes) -> MultiDict:
    return MultiDict(
        {
            "original": FileStorage(io.BytesIO(original), "orig.csv"),
            "anonymized": FileStorage(io.BytesIO(anonymized), "anon.csv"),
        }
    )


def test_uploads_are_checked_with_file_and_line(original_csv):
    bad = b"lon,lat,timestamp,trajectory_id,user_id\n1.2,41.1,2022/11/21 15:26:23,1,1\n"
    bad += b"1.2,91,x,1,1\n"
    with pytest.raises(
        TrajectoryFormatError, match=r"^anon.csv: line 3: column lat: outside \[-90, 90\]$"
    ) as info:
        read_uploads({}, files(original_csv.encode(), bad))
    assert info.value.line == 3


@pytest.mark.parametrize(
    ("anonymized", "message"),
    [
        (b"", "anon.csv: line 1: missing column"),
        (b"lon,lat,timestamp,trajectory_id,user_id\n", "anon.csv: the file has no trajectories"),
        (b"\xff\xfe\x00", "anon.csv: not UTF-8"),
    ],
)
def test_empty_or_binary_uploads_are_refused(original_csv, anonymized, message):
    with pytest.raises(TrajectoryFormatError, match=message):
        read_uploads({}, files(original_csv.encode(), anonymized))


def test_too_large_and_missing_files_are_refused(original_csv):
    with pytest.raises(TrajectoryFormatError, match="larger than"):
        read_uploads({}, files(original_csv.encode(), b"x" * 2048), limit=1024)
    with pytest.raises(TrajectoryFormatError, match="choose the anonymized file"):
        read_uploads({}, MultiDict({"original": FileStorage(io.BytesIO(b"x"), "o.csv")}))
