"""Benchmark the reveal service end to end: ``.venv/bin/python bench/kapr.py``.

For each size (``--sizes``, default 10k, 100k, 1M records) it generates records with
:func:`app.datagen.generate` (6 identifying attributes: voter_reg_num id, first and last name,
dob date, sex and race categories; income and diagnosis sensitive), creates a dedupe project
with ``--pairs`` candidate pairs (true duplicates and same-last-name near misses) in a
temporary SQLite database (``--postgres [URL]``: a throwaway PostgreSQL schema instead), gives
one worker an assignment and measures:

- index build time and memory (``AnonymityIndex.nbytes`` and the process RSS delta);
- reveal latency and CPU through the JSON API (Flask test client, bearer token), after a
  warm-up, alternating with the **baseline**: the reveal as it was before issue 15
  (``bench/_kapr_baseline.py``), on the same assignment, in the same run;
- GET page latency through the API, and the page preview (``page_costs`` of 10 pairs;
  ``bench/_kapr_preview.py``): ``--preview-rounds`` times every page, also at first sight
  (remembered counts emptied), and ``--preview-against REV`` with REV's code on the same database;
- the ``pair`` evidence model's page preview on the same pages, first and shown again, and
  the same first pages with the sorted-key count it replaced (baseline; ``bench/_kapr_pair.py``);
- a naive baseline in the same run: a pure-Python loop over every record per ``k_i``
  (what the original MINDFIRL did) doing the same work as a reveal (charge and the pair's
  fresh previews) and as a page preview. Above ``--naive-max`` records it scans a prefix of
  that many records and scales linearly; the output says so with ``~``.

The ratios are naive time / our time; ours includes HTTP, SQL and JSON, the baseline only
the scans, so the reveal ratio understates the gain. The naive scan's k must equal the index's
and the sorted-key count's page costs the tables' (exit status 1 otherwise).

``--quick``: 2,000 records, 40 pairs, 10 reveals, one page of the ``pair`` model; on the test
suite's PostgreSQL when ``TEST_DATABASE_URL`` is set (as in CI's second run), else SQLite.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _check import agree, finish, quick_postgres  # noqa: E402
from _kapr_baseline import register as register_baseline  # noqa: E402
from _kapr_pair import PAIR_HEADER, pair_phase, pair_report, pair_row  # noqa: E402
from _kapr_preview import against, preview_phase  # noqa: E402
from _kapr_setup import (  # noqa: E402
    bench_app,
    make_worker,
    naive_columns,
    naive_k,
    naive_pair_preview,
    project_spec,
)

from app.extensions import db  # noqa: E402
from app.models import Assignment  # noqa: E402
from app.review.grid import SIDE_NAMES, source_index  # noqa: E402
from app.review.services import Context, page_of, pair_states  # noqa: E402


def rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def pct(samples: list[float], q: float) -> float:
    """The ``q``-th percentile, NaN when nothing was measured (e.g. ``--pair-pages 0``)."""
    return float(np.percentile(np.array(samples), q)) if samples else float("nan")


def spread(found: dict) -> dict:
    """p50/p99 of wall and CPU seconds per page (``{}`` when nothing was timed)."""
    if not found:
        return {}
    return {f"{kind}{q}": pct(found[kind], q) for kind in ("wall", "cpu") for q in (50, 99)} | {
        "n": len(found["wall"])
    }


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f} ms" if seconds < 10 else f"{seconds:8.1f} s "


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def api_phase(app, assignment_id: int, token: str, reveals: int, rng) -> dict:
    """Warm up, read every page through the API, then time ``reveals`` reveals."""
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    url = f"/api/v1/assignments/{assignment_id}"
    warm = timed(lambda: client.get(url + "?page=1", headers=headers))
    first = client.get(url + "?page=1", headers=headers).get_json()
    pages, gets, cells = first["assignment"]["pages"], [], []
    for page in range(1, pages + 1):
        start = time.perf_counter()
        body = client.get(f"{url}?page={page}", headers=headers).get_json()
        gets.append(time.perf_counter() - start)
        for pair in body["pairs"]:
            for row in pair["rows"]:
                for name, cell in row["cells"].items():
                    if cell["next_level"] and cell["affordable"]:
                        cells.append((pair["id"], row["row"], name))
    rng.shuffle(cells)
    # Reveals alternate between today's endpoint and the baseline (the code path before
    # issue 15, bench/_kapr_baseline.py, token looked up every time as it was then).
    old_url = f"/bench/old/assignments/{assignment_id}/reveal"
    times, cpu = {"new": [], "old": []}, {"new": 0.0, "old": 0.0}
    for i, (pair_id, row, name) in enumerate(cells[: 2 * reveals]):
        path = "old" if i % 2 else "new"
        app.config["TOKEN_CACHE_SECONDS"] = 0 if path == "old" else 10
        payload = {"pair_id": pair_id, "row": row, "attribute": name}
        start, start_cpu = time.perf_counter(), time.process_time()
        answer = client.post(
            old_url if path == "old" else url + "/reveal", json=payload, headers=headers
        )
        cpu[path] += time.process_time() - start_cpu
        times[path].append(time.perf_counter() - start)
        if answer.status_code != 200:
            raise RuntimeError(f"reveal refused: {answer.get_json()}")
    app.config["TOKEN_CACHE_SECONDS"] = 10
    return {
        "warm": warm,
        "get": gets,
        "reveal": times["new"],
        "reveal_old": times["old"],
        "cpu": cpu["new"] / max(1, len(times["new"])),
        "cpu_old": cpu["old"] / max(1, len(times["old"])),
        "pages": pages,
    }


def naive_phase(assignment_id: int, index, limit: int, pages: int) -> dict:
    """Time the pure-Python scan on one page and on single pairs (a reveal's work)."""
    values = naive_columns(index, limit)
    ctx = Context.of(db.session.get(Assignment, assignment_id))
    pairs, _ = page_of(ctx, min(2, pages))
    states = pair_states(ctx, pairs)
    per_pair, scans = [], 0
    for state in states:

        def next_evidence(side, attribute, state=state):
            row = SIDE_NAMES.index(side)
            level = state.next_level(row, attribute)
            return None if level is None else state.evidence(row, attribute, level)

        start = time.perf_counter()
        scans += naive_pair_preview(values, state.pair_view(), next_evidence)
        per_pair.append(time.perf_counter() - start)
    view = states[0].pair_view()
    charge = timed(lambda: [naive_k(values, view.left) for _ in range(2)])
    if len(next(iter(values.values()))) == index.n:  # every record scanned: k must agree
        rows = [s.pair_view().row(side) for s in states for side in ("left", "right")]
        agree(
            all(naive_k(values, row) == index.count(row) for row in rows),
            f"{index.n:,} records: the naive scan's k against the index's",
        )
    scale = index.n / len(next(iter(values.values())))
    page = sum(per_pair) * scale
    reveal = (charge + float(np.mean(per_pair))) * scale
    return {"page": page, "reveal": reveal, "scans": scans, "sampled": scale > 1}


def run(n: int, args) -> dict:
    rng = random.Random(n)
    spec_start = time.perf_counter()
    spec = project_spec(n, args.pairs, seed=1)
    with tempfile.TemporaryDirectory() as tmp, bench_app(Path(tmp), args.postgres) as app:
        register_baseline(app)
        with app.app_context():
            assignment_id, token = make_worker(spec)
            setup = time.perf_counter() - spec_start
            del spec
            assignment = db.session.get(Assignment, assignment_id)
            project = assignment.project
            source_id = assignment.pairs[0].pair.record_a.source_id
            before = rss()
            start = time.perf_counter()
            index = source_index(project, source_id)
            build = time.perf_counter() - start
            grown = rss() - before
            db.session.rollback()
        api = api_phase(app, assignment_id, token, args.reveals, rng)
        with app.app_context():
            rounds = args.preview_rounds
            preview = preview_phase(assignment_id, api["pages"], rounds)
            cold = preview_phase(assignment_id, api["pages"], rounds, cold=True)
        base = {}
        if args.preview_against and not args.postgres:
            base = against(args.preview_against, Path(tmp), assignment_id, token, rounds)
        with app.app_context():
            pair_pages = min(api["pages"], args.pair_pages)
            base_pages = min(pair_pages, args.pair_baseline_pages)
            pair = pair_phase(assignment_id, index, pair_pages, base_pages) if pair_pages else {}
            pair_model = [wall for wall, _ in pair.get("pair_cold", [])]
            # The same pages again: counts the index remembers (a reload, untouched pairs).
            pair_warm = [wall for wall, _ in pair.get("pair_again", [])]
            naive = naive_phase(assignment_id, index, args.naive_max, api["pages"])
    result = {
        "n": n,
        "setup": setup,
        "build": build,
        "nbytes": index.nbytes,
        "rss": grown,
        "warm": api["warm"],
        "reveal50": pct(api["reveal"], 50),
        "reveal99": pct(api["reveal"], 99),
        "reveals": len(api["reveal"]),
        "old50": pct(api["reveal_old"], 50),
        "old99": pct(api["reveal_old"], 99),
        "cpu": api["cpu"],
        "cpu_old": api["cpu_old"],
        "get50": pct(api["get"], 50),
        "get99": pct(api["get"], 99),
        "page50": pct(preview["wall"], 50),
        "page99": pct(preview["wall"], 99),
        "previews": {"ours": spread(preview), "first sight": spread(cold), "base": spread(base)},
        "preview_against": args.preview_against,
        "pair50": pct(pair_model, 50),
        "pair99": pct(pair_model, 99),
        "pair_warm50": pct(pair_warm, 50),
        **{f"naive_{k}": v for k, v in naive.items()},
        **pair,
    }
    report(result)
    if pair:
        pair_report(result)
    return result


def report(r: dict) -> None:
    approx = "~" if r["naive_sampled"] else " "
    print(f"\n{r['n']:,} records x 6 identifying attributes (setup {r['setup']:.1f} s)")
    print(f"  index build      {ms(r['build'])}   (warm-up request after it {ms(r['warm'])})")
    print(f"  index memory     {r['nbytes'] / 2**20:8.1f} MB   RSS delta {r['rss'] / 2**20:.1f} MB")
    print(
        f"  reveal (HTTP)    p50 {ms(r['reveal50'])}  p99 {ms(r['reveal99'])}"
        f"   naive {approx}{ms(r['naive_reveal'])}  x{r['naive_reveal'] / r['reveal50']:,.0f}"
        f"   ({r['reveals']} reveals)"
    )
    print(
        f"  baseline reveal  p50 {ms(r['old50'])}  p99 {ms(r['old99'])}   (the path before"
        f" issue 15)  new is x{r['old50'] / r['reveal50']:.1f} at p50,"
        f" x{r['old99'] / r['reveal99']:.1f} at p99"
    )
    print(
        f"  CPU per reveal   {ms(r['cpu'])}  baseline {ms(r['cpu_old'])}"
        f"  x{r['cpu_old'] / r['cpu']:.1f}   (this process: app, driver, HTTP test client)"
    )
    print(f"  GET page (HTTP)  p50 {ms(r['get50'])}  p99 {ms(r['get99'])}")
    print(
        f"  page preview     p50 {ms(r['page50'])}  p99 {ms(r['page99'])}"
        f"   naive {approx}{ms(r['naive_page'])}  x{r['naive_page'] / r['page50']:,.0f}"
    )
    preview_report(r)
    print(
        f"  pair model page  p50 {ms(r['pair50'])}  p99 {ms(r['pair99'])}"
        f"   shown again p50 {ms(r['pair_warm50'])}"
    )
    if r["naive_sampled"]:
        print("  ~ naive estimated from a scan of a record prefix, scaled to all records")


def preview_report(r: dict) -> None:
    """The page preview: ours (counts remembered), first sight, and the baseline revision."""
    names = {"ours": "ours", "first sight": "first sight", "base": r["preview_against"]}
    ours = r["previews"]["ours"]
    for key, p in r["previews"].items():
        if not p:
            continue
        ratio = "" if key == "ours" else f"   p99 {p['wall99'] / ours['wall99']:.2f}x ours"
        print(
            f"    {names[key]:<12} wall p50 {ms(p['wall50'])} p99 {ms(p['wall99'])}"
            f" | CPU p50 {ms(p['cpu50'])} p99 {ms(p['cpu99'])}  ({p['n']} pages){ratio}"
        )


def table(results: list[dict]) -> None:
    print(
        "\n| records | reveal p50 | reveal p99 | baseline reveal p50/p99 | CPU/reveal (baseline)"
        " | page preview p50/p99 | pair-model page p50/p99"
        " | build | index MB | RSS MB | reveal vs naive | page vs naive |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        a = "~" if r["naive_sampled"] else ""
        print(
            f"| {r['n']:,} | {r['reveal50'] * 1e3:.2f} ms | {r['reveal99'] * 1e3:.2f} ms"
            f" | {r['old50'] * 1e3:.2f} / {r['old99'] * 1e3:.2f} ms"
            f" | {r['cpu'] * 1e3:.2f} ms ({r['cpu_old'] * 1e3:.2f} ms)"
            f" | {r['page50'] * 1e3:.2f} / {r['page99'] * 1e3:.2f} ms"
            f" | {r['pair50'] * 1e3:.1f} / {r['pair99'] * 1e3:.1f} ms | {r['build']:.2f} s"
            f" | {r['nbytes'] / 2**20:.1f} | {r['rss'] / 2**20:.0f}"
            f" | {a}{r['naive_reveal'] / r['reveal50']:,.0f}x"
            f" | {a}{r['naive_page'] / r['page50']:,.0f}x |"
        )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--quick", action="store_true", help="2,000 records, 40 pairs")
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--reveals", type=int, default=300)
    parser.add_argument("--pair-pages", type=int, default=3, help="0 skips the pair model")
    parser.add_argument(
        "--pair-baseline-pages", type=int, default=1, help="pages timed with the sorted keys"
    )
    parser.add_argument(
        "--preview-rounds", type=int, default=1, help="page previews per page (more samples)"
    )
    parser.add_argument(
        "--preview-against", metavar="REV", help="time the page preview of REV's app/ too"
    )
    parser.add_argument("--naive-max", type=int, default=100_000)
    parser.add_argument(
        "--postgres",
        nargs="?",
        const=os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test"),
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.pairs, args.reveals, args.pair_pages = "2000", 40, 10, 1
        args.postgres = args.postgres or quick_postgres()
    db_name = "PostgreSQL" if args.postgres else "SQLite"
    print(
        f"bench/kapr.py on {db_name}: {args.pairs} pairs, {args.reveals} reveals per size"
        f" (and as many baseline reveals); load average {os.getloadavg()[0]:.2f}"
    )
    results = [run(int(s), args) for s in args.sizes.split(",")]
    table(results)
    if any("pair_cold" in r for r in results):
        print("\n" + PAIR_HEADER)
        for r in results:
            if "pair_cold" in r:
                print(pair_row(r))


if __name__ == "__main__":
    main()
    sys.exit(finish())
