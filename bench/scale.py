"""Benchmark the manager's steps at scale: ``.venv/bin/python bench/scale.py [--quick]``.

One run on a generated deduplication project (``--records``, default 1,000,000):

1. **import** ``--import-pairs`` scored pairs (default 10,000,000; a Parquet file of Splink's
   columns, probabilities uniform) with triage thresholds around 0.5 that send
   ``--review-pairs`` of them (default 1,000,000) to review and let the model decide the
   rest: read, resolve the ids, triage, store (``add_scored_round``; COPY on PostgreSQL) and
   commit. Baseline (SQLite): the same import writing one row a statement, as before bulk
   statements (``app.bulk.ROWS_PER_STATEMENT`` = 1), timed on the first ``--baseline-import``
   pairs in a rolled-back savepoint (so without its commit) and scaled (``~``). Target ≤ 60 s.
2. **assign** the pairs to review to two workers (``assign_workers``). Baseline: main's
   ``assign_pairs`` before issue 24 (``bench/_scale_baseline.py``: an ORM object per pair and
   every pair rendered for the characters meter), timed on ``--baseline-max`` pairs and scaled
   (``~``); ours is timed on the same pairs too, for the ratio. Target ≤ 10 s.
3. **recommendation** over the pairs to review (a seeded sample above
   ``RECOMMENDATION_SAMPLE``), cold: no index in memory, the one the import stored is loaded.
   Baselines: pricing every pair (``exact_recommendation``), timed on ``--baseline-rec`` pairs
   and scaled; and the same recommendation with the index built from the records (the path
   before stored indexes). Target ≤ 5 s.
4. **progress page** (``GET /projects/<id>/progress``, every chart) right after assigning.
   Baseline: the old summary alone (every pair's outcome in Python), in full. Target ≤ 1 s.
5. **conflicts queue** and **splink export** after every pair got an answer (written in bulk:
   ``same`` for even pair ids, ``different`` for odd): the export streamed by
   ``export_chunks`` against the old path (every pair's outcome, then written), both in full,
   same bytes. Target ≤ 30 s. The progress page is timed again with every pair answered.
6. **the other streamed exports** (``labels``, ``splink?score=confidence``, ``clusters``,
   ``linked``) against the whole-body path, same bytes: time and peak memory
   (``bench/_exports.py``). With ``--exports`` or ``--quick`` only: no target, and at full size
   it times each of five exports four times (at 1M records, longer than steps 1-5).
7. **delete project**: ``delete_project`` and its commit, every pair, assignment and answer
   of the project (no baseline in the run: before 2026-12-02 the keys to ``pairs`` made it
   grow with pairs times answers, 9.2 s on PostgreSQL at ``--quick``).

Paths must agree (``bench/_check.py``): the characters meter and positions of the two assign
paths (and the two workers' meters against every record's characters counted from its
values), the progress numbers, the export's bytes, the sampled pairs' exact values.
``--quick``: 5,000 records, 40,000 pairs imported, 8,000 to review (seconds; CI, on
``TEST_DATABASE_URL`` when set). ``--postgres URL`` runs on PostgreSQL (a throwaway schema).

``--both URL`` runs every step on SQLite, then on PostgreSQL at ``URL``, each engine in a
fresh process of this script with the same sizes, and ends with a table of each step's time
on both and the ratio PostgreSQL / SQLite (issue 39: at most 1 on every step; printed, never
an exit status). The exit status is the worse of the two runs'.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _scale_baseline as baseline  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from _check import agree, finish, quick_postgres  # noqa: E402
from _exports import measure_exports  # noqa: E402
from _kapr_setup import bench_app, project_spec  # noqa: E402
from sqlalchemy import select  # noqa: E402

from app.extensions import db  # noqa: E402

PASSWORD = "bench-password-1234"
#: Each step's time in this run (``ours``), in the order run: what ``--both`` compares.
STEPS: dict[str, float] = {}


def _timed(fn):
    started = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - started


def _line(step: str, ours: float, base: float | None = None, scaled=False, note="") -> None:
    STEPS[step] = ours
    if base is None:
        print(f"{step:22s} ours {ours:8.2f} s   {note}", flush=True)
        return
    mark = "~" if scaled else " "
    print(
        f"{step:22s} ours {ours:8.2f} s   baseline{mark}{base:9.2f} s   "
        f"baseline/ours {base / max(ours, 1e-9):7.1f}   {note}",
        flush=True,
    )


def _scored_file(path: Path, external_ids: np.ndarray, n_pairs: int, seed: int) -> None:
    """``n_pairs`` distinct pairs of the records, Splink's columns, probabilities uniform."""
    rng = np.random.default_rng(seed)
    n = len(external_ids)
    keys = np.zeros(0, dtype=np.int64)
    while len(keys) < n_pairs:
        a = rng.integers(0, n, 2 * (n_pairs - len(keys)) + 16)
        b = rng.integers(0, n, len(a))
        keep = a != b
        lo, hi = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
        keys = np.unique(np.concatenate([keys, lo.astype(np.int64) * n + hi]))
    keys = rng.permutation(keys)[:n_pairs]
    lo, hi = keys // n, keys % n
    table = pa.table(
        {
            "unique_id_l": pa.array(external_ids[lo]),
            "unique_id_r": pa.array(external_ids[hi]),
            "match_probability": rng.random(n_pairs),
        }
    )
    pq.write_table(table, path)


def _import_one_row_a_statement(project, path: Path, settings, manager, args, tmp: Path):
    """The baseline of step 1 on SQLite: the same import with one row a statement (the write
    before bulk statements), on the file's first ``--baseline-import`` pairs, rolled back;
    its time scaled to the whole file."""
    from app.projects.triage import add_scored_round
    from app.projects.triage.scored import read_scores

    n = min(args.baseline_import, args.import_pairs)
    part = tmp / "scored_part.parquet"
    pq.write_table(pq.read_table(path).slice(0, n), part)
    nested = db.session.begin_nested()
    with mock.patch("app.bulk.ROWS_PER_STATEMENT", 1):
        _, took = _timed(
            lambda: add_scored_round(project, read_scores(str(part)), settings, manager)
        )
    nested.rollback()
    part.unlink()
    return took * args.import_pairs / n


def _answer_all(assignments) -> int:
    """Every assigned pair answered once by its worker, written in bulk: 50,000 events a
    statement (``app.bulk.write_columns``: ``COPY`` on PostgreSQL, whose answer trigger runs
    once a statement; 1,000-row inserts on SQLite, whose triggers run per row)."""
    from app.bulk import int_table, write_columns
    from app.models import AssignmentPair, DecisionEvent
    from app.models.base import utcnow

    made = 0
    for assignment in assignments:
        query = select(AssignmentPair.pair_id).where(AssignmentPair.assignment_id == assignment.id)
        ids = int_table(query, 1)[:, 0]
        for start in range(0, len(ids), 50_000):
            chunk = ids[start : start + 50_000]
            decisions = np.where(chunk % 2 == 0, "same", "different").astype(object)
            events = {
                "assignment_id": assignment.id, "pair_id": chunk, "user_id": assignment.worker_id,
                "at": utcnow(), "decision": decisions, "confidence": "high", "past_break": False,
            }  # fmt: skip
            write_columns(DecisionEvent, events, len(chunk))
        made += len(ids)
    db.session.commit()
    return made


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--import-pairs", type=int, default=10_000_000)
    parser.add_argument("--review-pairs", type=int, default=1_000_000)
    parser.add_argument("--baseline-max", type=int, default=20_000)
    parser.add_argument("--baseline-rec", type=int, default=1_000)
    parser.add_argument("--baseline-import", type=int, default=1_000_000)
    parser.add_argument("--postgres", help="run on PostgreSQL (a throwaway schema)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--exports", action="store_true", help="step 6 (always with --quick)")
    parser.add_argument(
        "--both", metavar="URL", help="SQLite, then PostgreSQL at URL; PostgreSQL / SQLite per step"
    )
    parser.add_argument("--steps-to", help=argparse.SUPPRESS)  # a --both child's JSON file
    args = parser.parse_args(argv)
    if args.both:
        return _both(argv, args.both)
    if args.quick:
        args.records, args.import_pairs, args.review_pairs = 5_000, 40_000, 8_000
        args.baseline_max, args.baseline_rec, args.baseline_import = 2_000, 200, 10_000
    postgres = args.postgres or (quick_postgres() if args.quick else None)
    where = "PostgreSQL" if postgres else "SQLite"
    print(
        f"records {args.records:,}  scored pairs {args.import_pairs:,}  "
        f"to review ~{args.review_pairs:,}  on {where}",
        flush=True,
    )
    config = {"RATELIMIT_ENABLED": False, "REVIEW_MAX_PAIRS": 10**9, "MAX_SCORED_PAIRS": 10**9}
    with (
        tempfile.TemporaryDirectory() as tmp,
        bench_app(Path(tmp), postgres, **config) as app,
        app.app_context(),
    ):
        _run(app, args, Path(tmp))
    if args.steps_to:
        Path(args.steps_to).write_text(json.dumps(STEPS))
    return finish()


def _both(argv: list[str], url: str) -> int:
    """``--both``: this script on SQLite, then on PostgreSQL, each in a process of its own
    (neither warms the other's caches), then the steps side by side."""
    rest = _without(argv, ("--both", "--postgres"))
    runs, status = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        for engine, extra in (("SQLite", []), ("PostgreSQL", ["--postgres", url])):
            out = Path(tmp) / f"{engine}.json"
            command = [sys.executable, __file__, *rest, *extra, "--steps-to", str(out)]
            # the SQLite run's --quick must not follow the suite's PostgreSQL (quick_postgres)
            env = {k: v for k, v in os.environ.items() if extra or k != "TEST_DATABASE_URL"}
            print(f"=== {engine}", flush=True)
            status = max(status, subprocess.run(command, cwd=ROOT, env=env).returncode)
            if not out.exists():
                print(f"the {engine} run ended before its last step (exit status {status})")
                return max(status, 1)
            runs[engine] = json.loads(out.read_text())
    sqlite, postgres = runs["SQLite"], runs["PostgreSQL"]
    print(f"\n{'step':22s} {'SQLite':>10s} {'PostgreSQL':>11s} {'PostgreSQL / SQLite':>20s}")
    for step in [s for s in sqlite if s in postgres]:
        ratio = postgres[step] / max(sqlite[step], 1e-9)
        verdict = "<= 1: met" if ratio <= 1 else "> 1: not met"
        print(
            f"{step:22s} {sqlite[step]:8.2f} s {postgres[step]:9.2f} s {ratio:10.2f}  {verdict}",
            flush=True,
        )
    slower = [s for s in sqlite if s in postgres and postgres[s] > sqlite[s]]
    print(f"PostgreSQL slower than SQLite on {len(slower)} of {len(postgres)} steps")
    return status


def _run(app, args, tmp: Path) -> None:
    from app.auth.services import create_user
    from app.models import Pair, Purpose
    from app.projects.conflicts.queue import conflict_queue
    from app.projects.exports.service import export_chunks
    from app.projects.lifecycle import create_project, delete_project
    from app.projects.progress.summary import project_progress
    from app.projects.staffing import assign_pairs, assign_workers
    from app.projects.staffing.assignments import round_pairs
    from app.projects.staffing.characters import count_record_characters
    from app.projects.staffing.recommendation import budget_recommendation, exact_recommendation
    from app.projects.triage import TriageSettings, add_scored_round
    from app.projects.triage.scored import read_scores
    from app.review.grid import indexes

    manager, _ = create_user("max", "manager", PASSWORD)
    workers = [create_user(name, "worker")[0] for name in ("wes", "wen", "old", "new")]
    spec = project_spec(args.records, 2, seed=1)
    external = np.array([r["id"] for r in spec["records"]])
    project, t_create = _timed(lambda: create_project(spec, manager))
    db.session.commit()
    STEPS["create project"] = t_create
    print(
        f"{'create project':22s} {t_create:8.2f} s (records imported, their index stored; "
        "not a target)",
        flush=True,
    )

    # 1. import of scored pairs, triaged
    path = tmp / "scored.parquet"
    _scored_file(path, external, args.import_pairs, seed=2)
    half = args.review_pairs / args.import_pairs / 2
    settings = TriageSettings(lower=0.5 - half, upper=0.5 + half)
    t_base = None
    if db.engine.dialect.name == "sqlite":  # PostgreSQL writes by COPY either way
        t_base = _import_one_row_a_statement(project, path, settings, manager, args, tmp)

    def import_and_commit():
        made = add_scored_round(project, read_scores(str(path)), settings, manager)
        db.session.commit()  # a round is imported once it is committed (SQLite: WAL + checkpoint)
        return made

    result, t_import = _timed(import_and_commit)
    number = result.number
    review = db.session.scalars(
        select(Pair.id)
        .where(Pair.project_id == project.id, Pair.round == number)
        .where(Pair.purpose != Purpose.MODEL.value)
        .order_by(Pair.id)
    ).all()
    stored = db.session.scalar(
        select(db.func.count()).select_from(Pair).where(Pair.round == number)
    )
    agree(stored == args.import_pairs, f"import stored {stored:,} of {args.import_pairs:,}")
    _line(
        "import + triage",
        t_import,
        t_base,
        scaled=True,
        note=f"{stored:,} pairs ({stored / t_import:,.0f}/s), {len(review):,} to review; "
        "target <= 60 s",
    )

    # 2. assign: both paths on the same pairs, then ours in full to two workers
    part = review[: args.baseline_max]
    old, t_old = _timed(lambda: baseline.assign_pairs(project, workers[2], 1.0, part, number))
    new, t_new = _timed(lambda: assign_pairs(project, workers[3], 1.0, part, round=number))
    db.session.flush()
    agree(
        (old.chars_total, [p.pair_id for p in old.pairs])
        == (new.chars_total, [p.pair_id for p in new.pairs]),
        "assign: old and new characters meter / pairs differ",
    )
    db.session.rollback()
    _line(f"assign {len(part):,}", t_new, t_old, note="one worker, same pairs")
    made, t_assign = _timed(lambda: assign_workers(project, {"wes": 0.5, "wen": 0.5}))
    db.session.commit()
    scale = len(review) / max(len(part), 1)
    _line("assign to two", t_assign, t_old * scale, scaled=True, note="target <= 10 s")
    ids, counted = count_record_characters(project)  # the path before the stored counts
    _, record_a, record_b = round_pairs(project, number)
    expected = counted[np.searchsorted(ids, record_a)] + counted[np.searchsorted(ids, record_b)]
    agree(
        sum(a.chars_total for a in made) == int(expected.sum()),
        "assign: the stored characters and the values' count differ",
    )

    # 3. recommendation, cold: a process with no index in memory loads the stored one (the
    # baseline, first, builds it from the records as before stored indexes)
    app.extensions.pop("mindfirl_indexes", None)
    with mock.patch.object(indexes, "stored_index", return_value=None):
        built, t_built = _timed(lambda: budget_recommendation(project))
    app.extensions.pop("mindfirl_indexes", None)
    advice, t_rec = _timed(lambda: budget_recommendation(project))
    agree(built.per_pair == advice.per_pair, "recommendation: stored and built index differ")
    priced = [p for p, _ in advice.per_pair]
    check = exact_recommendation(project, priced)
    agree(check.per_pair == advice.per_pair, "recommendation: sampled pairs' values differ")
    some = review[: args.baseline_rec]
    _, t_exact = _timed(lambda: exact_recommendation(project, some))
    interval = (
        f"{100 * advice.interval[0]:.3f}-{100 * advice.interval[1]:.3f} %"
        if advice.sampled
        else "exact"
    )
    _line(
        "recommendation",
        t_rec,
        t_exact * len(review) / len(some),
        scaled=True,
        note=f"{advice.pairs:,} of {len(review):,} priced, {100 * float(advice.kapr):.3f} % "
        f"({interval}); target <= 5 s",
    )
    _line("recommendation cold", t_rec, t_built, note="baseline: the index built from the records")

    # 4. progress page right after assigning
    client = app.test_client()
    client.post("/login", data={"username": "max", "password": PASSWORD})
    page, t_page = _timed(lambda: client.get(f"/projects/{project.id}/progress"))
    agree(page.status_code == 200, f"progress page answered {page.status_code}")
    old_numbers, t_old_progress = _timed(lambda: baseline.progress_numbers(project))
    progress = project_progress(project)
    agree(_numbers(progress) == old_numbers, "progress: old and new numbers differ")
    _line("progress page", t_page, t_old_progress, note="baseline: the summary alone; <= 1 s")

    # 5. everything answered: conflicts queue, export, progress again
    answered = _answer_all(made)
    queue, t_queue = _timed(lambda: conflict_queue(project))
    _line("conflicts queue", t_queue, note=f"{len(queue)} conflicts, {answered:,} answers")
    text, t_export = _timed(lambda: "".join(export_chunks(project, "splink")))
    old_text, t_old_export = _timed(lambda: baseline.splink_export(project))
    agree(_digest(text) == _digest(old_text), "splink export: old and new bytes differ")
    rows = text.count("\n") - 1
    _line("splink export", t_export, t_old_export, note=f"{rows:,} rows, streamed; <= 30 s")
    page, t_page = _timed(lambda: client.get(f"/projects/{project.id}/progress"))
    agree(page.status_code == 200, f"progress page answered {page.status_code}")
    _line("progress, all answered", t_page, note="every pair answered once; <= 1 s")
    agree(
        _numbers(project_progress(project)) == baseline.progress_numbers(project),
        "progress with every pair answered: old and new numbers differ",
    )

    # 6. every export that used to be built whole, streamed against the whole path
    if args.exports or args.quick:
        measure_exports(project, _line, memory=not args.quick)

    # 7. the project deleted, with its pairs, assignments, answers and files
    pairs = db.session.scalar(select(db.func.count()).select_from(Pair))
    _, t_delete = _timed(lambda: (delete_project(project), db.session.commit()))
    left = db.session.scalar(select(db.func.count()).select_from(Pair))
    agree(left == 0, f"delete: {left:,} of {pairs:,} pairs left")
    _line("delete project", t_delete, note=f"{pairs:,} pairs and their rows; not a target")


def _without(argv: list[str], options: tuple[str, ...]) -> list[str]:
    """``argv`` less each of ``options`` and its value (``--name value`` or ``--name=value``)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in options:
            skip = True
        elif not arg.startswith(tuple(f"{o}=" for o in options)):
            kept.append(arg)
    return kept


def _numbers(progress) -> dict:
    return {
        "pairs": progress.pairs, "decided": progress.decided, "conflicts": progress.conflicts,
        "assigned": progress.assigned, "answered": progress.answered,
        "answers": progress.answers, "answers_due": progress.answers_due,
        "agreement": progress.agreement,
        "workers": {w.assignment_id: (w.pairs, w.decided) for w in progress.workers},
    }  # fmt: skip


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
