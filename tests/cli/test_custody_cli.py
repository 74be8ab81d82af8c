"""``flask projects accountability|close|close-due|auto-close`` over the paper example."""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import pytest

from app.extensions import db
from app.models import CloseOut, Project
from app.projects.custody import due_projects
from app.review.answers.save import save_answer
from app.review.services import reveal_cell
from tests.factories import make_assignment, make_user, paper_project


@pytest.fixture
def settled(app):
    """Two paper-example projects, every pair answered by wes (one reveal in the first)."""
    with app.app_context():
        max_, wes = make_user("max", "manager"), make_user("wes")
        ids = []
        for name in ("First", "Second"):
            project = paper_project(max_, name=name)
            assignment = make_assignment(project, wes, 1.0)
            pairs = [link.pair_id for link in assignment.pairs]
            ids.append((project.id, assignment.id, pairs))
        db.session.commit()
        reveal_cell(ids[0][1], ids[0][2][0], 0, "name", by=wes)
        db.session.commit()
        for _, assignment_id, pairs in ids:
            for pair_id in pairs:
                save_answer(assignment_id, pair_id, "different", "low", by=wes)
                db.session.commit()
    return [i[0] for i in ids]


def test_accountability_prints_the_summary_and_a_record(runner, settled):
    out = runner.invoke(args=["projects", "accountability", str(settled[0]), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["by_attribute"]["name"]["something"] == 1
    one = runner.invoke(args=["projects", "accountability", str(settled[0]), "--record", "1"])
    assert "wes" in one.output and "masked -> partial" in one.output and "Mary" not in one.output
    missing = runner.invoke(args=["projects", "accountability", str(settled[0]), "--record", "9"])
    assert missing.exit_code != 0 and "no record" in missing.output


def test_close_writes_the_exports_then_destroys(app, runner, settled, tmp_path):
    refused = runner.invoke(
        args=["projects", "close", str(settled[0]), "--by", "wes", "--out", str(tmp_path / "x")]
    )
    assert refused.exit_code != 0 and "not the manager" in refused.output
    out = runner.invoke(
        args=["projects", "close", str(settled[0]), "--by", "max", "--out", str(tmp_path / "final")]
    )
    assert out.exit_code == 0, out.output
    assert "destroyed vault_rows: 4" in out.output
    assert "erased from the database files" in out.output
    assert "beyond the application's reach: " in out.output
    sums = (tmp_path / "final" / "SHA256SUMS").read_text().splitlines()
    with app.app_context():
        row = db.session.query(CloseOut).filter_by(project_id=settled[0]).one()
        assert row.closed_by is not None and len(sums) == len(row.exports)
        for line in sums:
            sha, name = line.split("  ")
            assert hashlib.sha256((tmp_path / "final" / name).read_bytes()).hexdigest() == sha
            assert row.exports[name]["sha256"] == sha


def test_automatic_close_out_after_the_days_set(app, runner, settled, tmp_path):
    assert runner.invoke(args=["projects", "auto-close", str(settled[1]), "30"]).exit_code == 0
    with app.app_context():
        now = dt.datetime.now(dt.UTC)
        assert due_projects(now) == []
        assert [p.id for p in due_projects(now + dt.timedelta(days=31))] == [settled[1]]
    runner.invoke(args=["projects", "auto-close", str(settled[1]), "0"])
    out = runner.invoke(args=["projects", "close-due", "--out", str(tmp_path / "archive")])
    assert out.exit_code == 0, out.output
    assert "1 project(s) closed" in out.output
    assert (tmp_path / "archive" / f"project_{settled[1]}" / "SHA256SUMS").is_file()
    with app.app_context():
        row = db.session.query(CloseOut).filter_by(project_id=settled[1]).one()
        assert row.automatic and row.closed_by is None
        assert not db.session.get(Project, settled[0]).closed  # no days set: left open
    assert (
        "0 project(s) closed"
        in runner.invoke(args=["projects", "close-due", "--out", str(tmp_path)]).output
    )


def test_commands_that_need_values_refuse_a_closed_project(runner, settled, tmp_path):
    pid = str(settled[0])
    runner.invoke(args=["projects", "close", pid, "--by", "max", "--out", str(tmp_path)])
    for args in (["analytics", "audit", "--project", pid], ["scoring", "run", pid],
                 ["projects", "reblock", pid, '[["dob"]]']):  # fmt: skip
        out = runner.invoke(args=args)
        assert out.exit_code != 0 and "closed out" in out.output, args
