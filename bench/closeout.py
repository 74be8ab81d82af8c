"""The slow pages of issue 40.6 at FEBRL4 size, against their code paths before, same run.

    .venv/bin/python bench/closeout.py [--quick] [--postgres URL]

FEBRL4 (``tests/febrl.py``: 10,000 records, Splink's 160,856 scored pairs) imported and
triaged at [0.05, 0.95] with a calibration sample of 50; one worker answers the band and the
sample through the JSON API. Then, through the manager's browser session (the test client),
each page or download is timed (best of three) with the code of before
(``bench/_closeout_baseline.py``: rows through the ORM, the linkage text cell by cell, the
release gate measuring without a policy, the Release risk page measuring twice, the close-out
page writing every export for each view) and as it is now: the linked export, the linkage
export, the Release risk page, the close-out page (its first view runs the job that writes and
hashes the exports, inline here; a view again reuses them) and its zip (the same files both
ways; the archive's bytes differ by its deflate level). A refused close-out POST (a stale
digest) is timed both ways; the close-out POST itself runs once, now (it destroys the
values: it takes the page's prepared hashes, and its pass over the database files runs as a
job after it, timed apart), and its *before* is estimated as the same close-out's final
exports written the old way plus that POST and that pass. Each body must be the same both
ways (exit status 1 otherwise). ``--quick``: the first 400 people.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import re
import sys
import tempfile
import time
import zipfile
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _check import agree, finish, quick_postgres  # noqa: E402
from _closeout_baseline import before  # noqa: E402
from _kapr_setup import bench_app  # noqa: E402
from triage import _project, _review  # noqa: E402

from app.extensions import db  # noqa: E402
from app.jobs.worker import Worker  # noqa: E402
from tests import febrl as data  # noqa: E402
from tests.factories import PASSWORD, make_token, make_user  # noqa: E402

PAGES = {
    "linked export": "/projects/{id}/export/linked",
    "linkage export": "/projects/{id}/export/linkage",
    "release-risk page": "/projects/{id}/release-risk",
    "close-out page": "/projects/{id}/closeout",
    "close-out zip": "/projects/{id}/closeout/exports.zip",
}


def _get(client, url: str) -> tuple[float, bytes]:
    started = time.perf_counter()
    response = client.get(url)
    body = response.get_data()  # a streamed body is read to its end
    assert response.status_code == 200, (url, response.status_code)
    return time.perf_counter() - started, body


def _best(client, url: str, times: int = 3) -> tuple[float, str]:
    runs = [_get(client, url) for _ in range(times)]
    if url.endswith(".zip"):  # the same files (the deflate level differs)
        archive = zipfile.ZipFile(io.BytesIO(runs[0][1]))
        files = b"".join(n.encode() + archive.read(n) for n in sorted(archive.namelist()))
        return min(t for t, _ in runs), hashlib.sha256(files).hexdigest()
    body = re.sub(rb'((?:name="csrf_token" value|name="csrf-token" content)=")[^"]*', rb"\1",
                  runs[0][1])  # a page's CSRF token (signed with the time)  # fmt: skip
    body = re.sub(rb"-\d+-caption", b"-caption", body)  # a chart's id on the page
    return min(t for t, _ in runs), hashlib.sha256(body).hexdigest()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the first 400 people")
    parser.add_argument("--postgres", help="a PostgreSQL URL (a throwaway schema is used)")
    args = parser.parse_args(argv)
    entities = 400 if args.quick else None
    postgres = args.postgres or (quick_postgres() if args.quick else None)
    with tempfile.TemporaryDirectory() as tmp:
        febrl = data.load(Path(tmp), entities)
        # inline: the close-out page writes its exports within the request, as it is timed
        with bench_app(Path(tmp), postgres, RATELIMIT_ENABLED=False, JOBS_EXECUTOR="inline") as app:
            with app.app_context():
                manager = {"Authorization": f"Bearer {make_token(make_user('max', 'manager'))}"}
                worker = {"Authorization": f"Bearer {make_token(make_user('wes', 'worker'))}"}
            api = app.test_client()
            project = _project(api, manager, febrl, "FEBRL4")
            imported = api.post(
                f"/api/v1/projects/{project}/predictions?lower=0.05&upper=0.95&calibration=50"
                "&seed=1", data=febrl.csv.read_bytes(),
                headers={**manager, "Content-Type": "application/octet-stream"},
            )  # fmt: skip
            assert imported.status_code == 201, imported.get_json()
            pairs = imported.get_json()["counts"]["pairs"]
            _review(api, manager, worker, project, ("band", "calibration"), febrl.truth)
            client = app.test_client()
            client.post("/login", data={"username": "max", "password": PASSWORD})
            label = f"{'first 400 people' if args.quick else 'FEBRL4'}, {pairs:,} pairs, " + (
                "PostgreSQL" if postgres else "SQLite"
            )
            print(f"\n{label}: best of 3, seconds")
            print(f"{'':22}{'before':>9}{'now':>9}{'ratio':>8}")
            for name, path in PAGES.items():
                url = path.format(id=project)
                with before():
                    old, old_hash = _best(client, url)
                if name == "close-out page":  # its first view writes them (the job), once
                    first, first_hash = _best(client, url, times=1)
                    agree(old_hash == first_hash, f"{name}: the same body both ways")
                    print(f"{name + ' (first)':22}{old:9.2f}{first:9.2f}{old / first:7.1f}x")
                    name += " (again)"
                new, new_hash = _best(client, url)
                agree(old_hash == new_hash, f"{name}: the same body both ways")
                print(f"{name:22}{old:9.2f}{new:9.2f}{old / new:7.1f}x")
            page = client.get(f"/projects/{project}/closeout").get_data(as_text=True)
            digest = re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)
            refused = {}
            for way in ("before", "now"):
                with before() if way == "before" else nullcontext():
                    refused[way] = _refused(client, app, project)
            agree(refused["before"][1] == refused["now"][1], "the refused POST: the same answer")
            old, new = refused["before"][0], refused["now"][0]
            print(f"{'POST, stale digest':22}{old:9.2f}{new:9.2f}{old / new:7.1f}x")
            with app.app_context(), before():
                from app.models import Project
                from app.projects.custody import final_exports

                started = time.perf_counter()
                final_exports(db.session.get(Project, project))
                old_exports = time.perf_counter() - started
            app.config["JOBS_EXECUTOR"] = "queue"  # the pass over the files: a job, after
            started = time.perf_counter()
            closed = client.post(
                f"/projects/{project}/closeout", data={"confirm": "yes", "digest": digest}
            )
            new = time.perf_counter() - started
            started = time.perf_counter()
            agree(Worker(app, until_empty=True).run() == 1, "the pass over the files ran")
            erasing = time.perf_counter() - started
            agree(closed.status_code == 302, "the close-out POST closes the project")
            with app.app_context():
                from app.models import Project

                agree(db.session.get(Project, project).closed, "the project is closed out")
            old = old_exports + new + erasing  # the POST wrote them, closed, then erased
            print(f"{'close-out POST':22}{old:9.2f}{new:9.2f}{old / new:7.1f}x  (before: its "
                  f"exports the old way, {old_exports:.2f} s, + now + the pass)")  # fmt: skip
            print(f"{'  the pass (its job)':22}{'':9}{erasing:9.2f}  (VACUUM, after the POST)")
    return finish()


def _refused(client, app, project: int) -> tuple[float, str]:
    """A close-out POST with a stale digest (best of 3): refused, the project still open."""
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        answer = client.post(
            f"/projects/{project}/closeout", data={"confirm": "yes", "digest": "0" * 64}
        )
        runs.append(time.perf_counter() - started)
        assert answer.status_code == 302, answer.status_code
    with client.session_transaction() as session:
        flashed = repr(session.pop("_flashes", []))
    with app.app_context():
        from app.models import Project

        agree(not db.session.get(Project, project).closed, "a refused POST closes nothing")
    return min(runs), flashed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
