"""``flask analytics belief FILE.json`` and ``flask analytics audit --project ID``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.factories import make_assignment, make_user, paper_project

EXAMPLE = Path(__file__).resolve().parents[1] / "data" / "belief" / "example_23.json"


def test_belief_text_and_json(runner):
    text = runner.invoke(args=["analytics", "belief", str(EXAMPLE)])
    assert text.exit_code == 0, text.output
    assert (
        "x1=7/26" in text.output and "compatible with P: False (max violation 5/26)" in text.output
    )
    full = runner.invoke(args=["analytics", "belief", str(EXAMPLE), "--json"])
    assert json.loads(full.output)["pignistic"]["x2"]["exact"] == "7/26"


def test_belief_rejects_bad_files(runner, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = runner.invoke(args=["analytics", "belief", str(broken)])
    assert result.exit_code != 0 and "is not JSON" in result.output
    broken.write_text(json.dumps({"frame": ["a"], "m": [{"set": ["a"], "mass": "2"}]}))
    result = runner.invoke(args=["analytics", "belief", str(broken)])
    assert result.exit_code != 0 and "sum to 2, not 1" in result.output


def test_audit(app, runner):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        make_assignment(project, make_user("wes"))
        project_id = project.id
    text = runner.invoke(args=["analytics", "audit", "--project", str(project_id)])
    assert text.exit_code == 0, text.output
    assert "mean P(true record) 1/4" in text.output and "wes (#1)" in text.output
    out = runner.invoke(
        args=["analytics", "audit", "--project", str(project_id), "--model", "pair", "--trail",
              "--json"]
    )  # fmt: skip
    result = json.loads(out.output)
    assert result["model"] == "pair" and len(result["rows"]) == 12
    assert len(result["trails"]["wes (#1)"]) == 1  # no reveal yet: the start only
    missing = runner.invoke(args=["analytics", "audit", "--project", "99"])
    assert missing.exit_code != 0 and "no project 99" in missing.output
