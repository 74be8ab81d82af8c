"""The page-preview phase of ``bench/kapr.py``, and the same phase on another revision's code.

Page preview = ``page_costs`` of one page (10 pairs, every cell's next cost) under the
project's evidence model, after the pages were read once through the API. ``--preview-rounds``
repeats it over every page so that a p99 rests on more than a hundred samples. ``cold`` empties
the row-model counts the index remembers before each page (the first sight of a page).

``against(revision, ...)`` runs this module as a child process with ``app/`` exported from
``revision`` (``git archive``) on the same SQLite database, the way ``bench/pair_page.py
--against`` does: the baseline is timed in the same run, on the same pages and reveals.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":  # a child: import app/ from the working directory (the revision)
    sys.path[:1] = [str(Path.cwd()), str(HERE)]
    from _legacy import paths  # what an older revision imports and this one does not install

    sys.path += paths()


def preview_phase(
    assignment_id: int, pages: int, rounds: int = 1, cold: bool = False, model=None
) -> dict:
    """Time ``page_costs`` of each page ``rounds`` times; wall and CPU seconds per page."""
    from app.extensions import db
    from app.models import Assignment
    from app.review.services import Context, page_costs, page_of, pair_states

    ctx = Context.of(db.session.get(Assignment, assignment_id))
    if model:
        ctx.project.evidence_model = model  # in memory only: rolled back below
    loaded = []
    for page in range(1, pages + 1):
        pairs, _ = page_of(ctx, page)
        loaded.append((pairs, pair_states(ctx, pairs)))
    wall, cpu = [], []
    for _ in range(rounds):
        for pairs, states in loaded:
            if cold:
                for index in set(ctx.indexes(pairs[0])):
                    getattr(index, "row_counts", {}).clear()  # absent before this bench
            start, start_cpu = time.perf_counter(), time.process_time()
            page_costs(ctx, pairs, states)
            cpu.append(time.process_time() - start_cpu)
            wall.append(time.perf_counter() - start)
    db.session.rollback()
    return {"wall": wall, "cpu": cpu}


def read_pages(app, assignment_id: int, token: str) -> int:
    """GET every page once through the API, as a worker would; return the number of pages."""
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    url = f"/api/v1/assignments/{assignment_id}"
    pages = client.get(url + "?page=1", headers=headers).get_json()["assignment"]["pages"]
    for page in range(2, pages + 1):
        client.get(f"{url}?page={page}", headers=headers)
    return pages


def against(revision: str, directory: Path, assignment_id: int, token: str, rounds: int) -> dict:
    """Time the preview phase with ``app/`` at ``revision`` on the database in ``directory``."""
    root = HERE.parent
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "archive", revision, "app", "config.py"],
            cwd=root,
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        for name in ("_kapr_setup.py", "_kapr_preview.py"):
            shutil.copy(HERE / name, Path(tmp) / name)
        argv = [str(directory), str(assignment_id), token, str(rounds)]
        child = subprocess.run(
            [sys.executable, str(Path(tmp) / "_kapr_preview.py"), *argv],
            capture_output=True, text=True, cwd=tmp,
        )  # fmt: skip
    if child.returncode:
        raise RuntimeError(f"the {revision} preview failed:\n{child.stderr[-2000:]}")
    return json.loads(next(x for x in child.stdout.splitlines() if x.startswith("{")))


def _child() -> None:
    parser = argparse.ArgumentParser()
    for name in ("directory", "assignment", "token", "rounds"):
        parser.add_argument(name)
    args = parser.parse_args()
    from _kapr_setup import bench_app

    from app.extensions import db
    from app.models import Assignment

    try:
        from app.review.grid import source_index
    except ImportError:  # a revision before the review rooms (issue 26)
        from app.review.risk import source_index

    with bench_app(Path(args.directory)) as app:
        with app.app_context():
            assignment = db.session.get(Assignment, int(args.assignment))
            source_index(assignment.project, assignment.pairs[0].pair.record_a.source_id)
            db.session.rollback()
        pages = read_pages(app, int(args.assignment), args.token)
        with app.app_context():
            found = preview_phase(int(args.assignment), pages, int(args.rounds))
    print(json.dumps(found))


if __name__ == "__main__":
    _child()
