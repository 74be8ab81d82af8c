"""``flask projects triage`` on FEBRL4's Parquet predictions, and the other round commands."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from app.extensions import db
from app.models import Pair
from app.projects.lifecycle import create_project
from app.projects.reading.predictions import read_predictions
from app.projects.triage.plan import calibration_sample
from tests import febrl as data
from tests.factories import make_user
from tests.projects.triage.test_rounds import link_spec

TRIAGE = ["--lower", "0.05", "--upper", "0.95", "--calibration", "50", "--seed", "1"]


@pytest.mark.slow
def test_triage_from_the_command_line_reads_parquet_as_the_api_reads_csv(app, runner, febrl):
    with app.app_context():
        project = create_project(data.project_spec(febrl), make_user("max", "manager"))
        db.session.commit()
        project_id = project.id
    args = ["projects", "triage", str(project_id)]
    preview = runner.invoke(args=[*args, str(febrl.csv), *TRIAGE, "--preview", "--json"])
    assert preview.exit_code == 0, preview.output
    made = runner.invoke(args=[*args, str(febrl.parquet), *TRIAGE, "--json"])
    assert made.exit_code == 0, made.output
    expected, found = json.loads(preview.output), json.loads(made.output)
    assert found["round"] == 1 and found["counts"] == expected["counts"]
    # The same seed draws the same calibration pairs from either file.
    scored = read_predictions(febrl.csv)
    drawn, _ = calibration_sample(scored.match_weight, 50, 1)
    id_l, id_r = scored.id_l.to_pylist(), scored.id_r.to_pylist()
    want = {(id_l[i], id_r[i]) for i in drawn.tolist()}
    with app.app_context():
        pairs = db.session.scalars(select(Pair).where(Pair.purpose == "calibration")).all()
        assert {(p.record_a.external_id, p.record_b.external_id) for p in pairs} == want
    listed = runner.invoke(args=["projects", "rounds", str(project_id)])
    assert "round 1: scores [0.05, 0.95] on probability" in listed.output


def test_triage_and_reblock_refusals_name_the_problem(app, runner, tmp_path):
    with app.app_context():
        project = create_project(link_spec([["a0", "b0"]]), make_user("max", "manager"))
        db.session.commit()
        project_id = str(project.id)
    bad = tmp_path / "bad.csv"
    bad.write_text("match_probability,unique_id_l,unique_id_r\nSECRET,a0,b1\n")
    refused = runner.invoke(args=["projects", "triage", project_id, str(bad), "--lower", "0.1",
                                  "--upper", "0.9"])  # fmt: skip
    assert refused.exit_code != 0 and "row 1, column 'match_probability'" in refused.output
    assert "SECRET" not in refused.output
    good = tmp_path / "good.csv"
    good.write_text("match_probability,unique_id_l,unique_id_r\n0.5,a1,b1\n0.99,a2,b2\n")
    made = runner.invoke(args=["projects", "triage", project_id, str(good), "--lower", "0.1",
                               "--upper", "0.9"])  # fmt: skip
    assert made.exit_code == 0 and "round: 2" in made.output, made.output
    reblock = runner.invoke(args=["projects", "reblock", project_id, '[["dob"]]', "--json"])
    assert reblock.exit_code == 0, reblock.output
    assert json.loads(reblock.output)["round"] == 3
    again = runner.invoke(args=["projects", "reblock", project_id, "not json"])
    assert again.exit_code != 0 and "RULES must be JSON" in again.output
    missing = runner.invoke(args=["projects", "triage", "999", str(good)])
    assert missing.exit_code != 0 and "no project 999" in missing.output
