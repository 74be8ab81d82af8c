"""``flask analytics rl`` on the reference's mock dataset (tests/data/trajectory)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "trajectory"
FILES = [
    "--original",
    str(DATA / "mock_original.csv"),
    "--anonymized",
    str(DATA / "mock_anonymized.csv"),
]
EXPECTED = json.loads((DATA / "expected.json").read_text())


def rl(runner, *args):
    result = runner.invoke(args=["analytics", "rl", *FILES, *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_exact_rl_is_the_references_28_26_percent(runner):
    report = json.loads(rl(runner, "--json"))
    assert report["rl_percent"] == 28.26086956521739
    assert report["rl_exact"] == "13/46" and report["linked"] == 13
    assert (report["n_original"], report["n_anonymized"]) == (46, 46)
    assert report["lambda"] == pytest.approx(EXPECTED["martinez2021"]["lambda"], rel=1e-9)
    assert report["max_dist"] == pytest.approx(EXPECTED["martinez2021"]["max_dist"], rel=1e-9)
    assert report["window_size"] is None and report["candidates"] == 46 * 46
    assert report["seconds"] > 0 and report["distance"] == "martinez2021"


@pytest.mark.parametrize("label", ["1%", "10%", "50%"])
def test_windowed_rl_is_the_references(runner, label):
    case = EXPECTED["rl_percent"]["windowed"][label]
    report = json.loads(rl(runner, "--window-percent", str(case["percen_window_size"]), "--json"))
    assert report["rl_percent"] == case["value"]
    assert report["window_size"] == 46 * case["percen_window_size"] / 100
    assert report["candidates"] < 46 * 46


def test_default_window_and_explicit_lambda(runner):
    report = json.loads(rl(runner, "--windowed", "--lambda", "0.16", "--json"))
    assert report["lambda"] == 0.16 and report["max_dist"] is None
    assert report["window_size"] == 46


def test_plain_output_names_rl_and_the_ensemble(runner):
    out = rl(runner, "--distance", "ensemble")
    assert "RL " in out and "/46" in out
    for name in ("martinez2021", "corrected", "dtw", "frechet", "hausdorff", "edr"):
        assert name in out


def test_sweep_lists_rl_against_window(runner):
    out = rl(runner, "--sweep")
    assert out.count("window ") >= 7 and "window 1% (m = 0.46): RL 8.6957 %" in out


def test_bad_file_is_refused_with_its_line(runner, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("lon,lat,timestamp,trajectory_id,user_id\n1,95,2022/11/21 15:26:23,1,1\n")
    result = runner.invoke(
        args=["analytics", "rl", "--original", str(bad), "--anonymized", str(bad)]
    )
    assert result.exit_code != 0 and "bad.csv: line 2" in result.output


def test_lambda_is_refused_for_shape_distances(runner):
    result = runner.invoke(args=["analytics", "rl", *FILES, "--distance", "dtw", "--lambda", "1"])
    assert result.exit_code != 0 and "λ" in result.output
