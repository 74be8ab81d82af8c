"""A scoring run that computes on in DuckDB until it is interrupted (or its process killed).

Its database holds the project's records (identifying values) when it starts the query; a
``hanging`` file in its working folder says so, for a test in another process too.
"""

from __future__ import annotations

import json
import sys

from app.projects.scoring.runs.backends import DuckDBBackend

# A filter DuckDB cannot decide from statistics: it proves `k % 7 = 11` false from the range's
# bounds and answered that query at once (DuckDB 2), so the "hanging" run went on and ended in
# half a second, and the tests that need it hanging passed or failed by timing.
ENDLESS = 'SELECT count(*) FROM "t_A", range(1000000000000) AS r(k) WHERE hash(k) = 42'
MARK = "hanging"


def hang_in_duckdb(monkeypatch=None) -> None:
    """Make every DuckDB run start an endless query once its tables are in."""
    original = DuckDBBackend.tables

    def tables(self, labels, schema):
        original(self, labels, schema)
        (self.work_dir / MARK).touch()
        answer = self.con.execute(ENDLESS).fetchall()  # only an interrupt ends it
        raise AssertionError(f"the endless query ended ({answer}): DuckDB saw through it")

    if monkeypatch is not None:
        monkeypatch.setattr(DuckDBBackend, "tables", tables)
    else:
        DuckDBBackend.tables = tables


def main(config: dict, project_id: int, user_id: int) -> None:
    """In a process of its own: score the project, inline, and hang in DuckDB."""
    from app import create_app
    from app.extensions import db
    from app.models import Project, User
    from app.projects.scoring import submit_scoring

    hang_in_duckdb()
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "AUTO_UPGRADE": False, **config})
    with app.app_context():
        submit_scoring(db.session.get(Project, project_id), db.session.get(User, user_id))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
