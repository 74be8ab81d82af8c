"""``flask --app app advice simulate|fit``: the interface scripts use (docs/advice.md §6)."""

from __future__ import annotations

import json
import shutil

import pytest

from app.core.advice.study import stored

KEYS = {"sample", "question", "mode", "p_correct", "chars_shown", "chars_total", "kapr"}
SAMPLES = stored.DATA / "samples"


def _simulate(runner, directory, *args):
    result = runner.invoke(args=["advice", "simulate", "--chi2018", str(directory), *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize(
    ("policy", "mode"), [("moderate", 3), ("masked", 5), ("advisor", "advisor")]
)
def test_simulate_prints_one_object_per_presented_pair(runner, policy, mode):
    rows = _simulate(runner, SAMPLES, "--reviewer", "human", "--policy", policy, "--json")
    assert len(rows) == 360 and all(set(r) == KEYS for r in rows)
    assert {r["mode"] for r in rows} == {mode}
    assert {(r["sample"], r["question"]) for r in rows} == {
        (s, q) for s in range(1, 11) for q in range(1, 37)
    }
    assert all(0 <= r["p_correct"] <= 1 and 0 <= r["chars_shown"] <= r["chars_total"] for r in rows)
    if policy == "masked":
        assert {r["chars_shown"] for r in rows} == {0} and {r["kapr"] for r in rows} == {0}


def test_a_blank_record_id_changes_nothing(runner, tmp_path):
    for path in SAMPLES.glob("sample_0[12].csv"):
        lines = path.read_text(encoding="utf-8").splitlines()
        fields = [line.split(",") for line in lines[1:]]
        blank = [lines[0]] + [",".join(f[:15] + [""] + f[16:]) for f in fields]
        (tmp_path / path.name).write_text("\n".join(blank) + "\n", encoding="utf-8")
        shutil.copy(path, tmp_path / f"kept_{path.name}")
    args = ("--reviewer", "evidence", "--policy", "low", "--json")
    blank = _simulate(runner, tmp_path, *args)
    kept = [r for r in _simulate(runner, SAMPLES, *args) if r["sample"] in (1, 2)]
    assert [r["p_correct"] for r in blank] == [r["p_correct"] for r in kept]


def test_simulate_refuses_clearly(runner, tmp_path):
    empty = runner.invoke(args=["advice", "simulate", "--chi2018", str(tmp_path)])
    assert empty.exit_code != 0 and "no sample_*.csv file" in empty.output
    unbounded = runner.invoke(
        args=["advice", "simulate", "--chi2018", str(SAMPLES), "--policy", "cheapest"]
    )
    assert unbounded.exit_code != 0 and "needs --pair-budget" in unbounded.output
    summary = runner.invoke(args=["advice", "simulate", "--chi2018", str(SAMPLES)])
    assert summary.exit_code == 0 and "360 pairs, human reviewer, advisor" in summary.output


@pytest.mark.slow
def test_fit_check_says_the_file_is_up_to_date(runner):
    result = runner.invoke(args=["advice", "fit", "--check"])
    assert result.exit_code == 0 and "up to date" in result.output
