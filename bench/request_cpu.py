"""App CPU per API request, in-process on PostgreSQL, against a baseline revision in one run.

    .venv/bin/python bench/request_cpu.py [--against dcea9a8] [--rounds 2] [--rate-limits]

``bench/load.py``'s study (a generated dedupe project, 16 workers with 100 pairs each, every
fourth on a small budget) is served by calling the WSGI app directly with bearer tokens, so
what is timed is the application alone: no gunicorn, no sockets. The mix follows the load
bench's: reveals in random order (a refusal where the budget is spent), an answer every tenth
reveal, the bystander's ``GET /api/v1/me``. Each round runs this tree, then the ``--against``
revision's ``app/`` (``git archive``), each in its own process on its own schema; rate limits
are off, as in the load bench, unless ``--rate-limits`` (each request then counts against its
account, in ``memory://``, as a production process counts in its store). Prints CPU
milliseconds per request of each kind (``time.process_time``) and the baseline / ours ratios.
Neither tree may answer a request with a server error (exit status 1 otherwise).

``--quick`` (seconds, for CI): 1,000 records, 4 workers x 20 pairs, 40 requests, one round; on
the test suite's PostgreSQL when ``TEST_DATABASE_URL`` is set, else on SQLite.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
KINDS = ("reveal 200", "reveal 409", "decision 201", "me 200")

from _check import agree, finish, have_revision, quick_postgres  # noqa: E402


def _call(app, method: str, path: str, token: str, body=None) -> tuple[int, bytes]:
    data = b"" if body is None else json.dumps(body).encode()
    route, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": method, "PATH_INFO": route, "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(data), "wsgi.errors": sys.stderr,
        "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False,
        "HTTP_AUTHORIZATION": f"Bearer {token}", "HTTP_HOST": "127.0.0.1:8000",
        "REMOTE_ADDR": "127.0.0.1", "CONTENT_LENGTH": str(len(data)),
        "CONTENT_TYPE": "application/json" if body is not None else "",
    }  # fmt: skip
    status = []
    out = b"".join(app(environ, lambda s, _headers, _exc=None: status.append(s)))
    return int(status[0][:3]), out


def _cells(app, worker: dict) -> list[tuple]:
    cells, page, pages = [], 1, 1
    while page <= pages:
        path = f"/api/v1/assignments/{worker['assignment']}?page={page}"
        body = json.loads(_call(app, "GET", path, worker["token"])[1])
        pages = body["assignment"]["pages"]
        for pair in body["pairs"]:
            for row in pair["rows"]:
                cells += [(worker, pair["id"], row["row"], a) for a, c in row["cells"].items()]
        page += 1
    return cells


def measure(
    requests: int,
    postgres: str | None,
    records: int = 20_000,
    workers: int = 16,
    pairs: int = 100,
    rate_limits: bool = False,
) -> dict[str, float]:
    """CPU ms per request of each kind, for the ``app`` package first on ``sys.path``."""
    sys.path.insert(1, str(ROOT / "bench"))
    import _kapr_setup
    from _load_setup import make_study

    create = _kapr_setup.create_app
    _kapr_setup.create_app = lambda config: create({**config, "RATELIMIT_ENABLED": rate_limits})
    spec = _kapr_setup.project_spec(records, pairs * (workers + 2), seed=7)
    with tempfile.TemporaryDirectory() as tmp, _kapr_setup.bench_app(Path(tmp), postgres) as app:
        with app.app_context():
            study = make_study(spec, workers, pairs)
        cells = [c for w in study["workers"] for c in _cells(app, w)]
        random.Random(1).shuffle(cells)
        spent: dict[str, list[float]] = {k: [] for k in KINDS}

        def timed(kind: str, *args) -> None:
            start = time.process_time()
            status, _ = _call(app, *args)
            spent.setdefault(f"{kind} {status}", []).append(time.process_time() - start)

        for i in range(requests + 50):
            if i == 50:  # warmed up
                spent = {k: [] for k in KINDS}
            worker, pair_id, row, attribute = cells.pop()
            base = f"/api/v1/assignments/{worker['assignment']}"
            body = {"pair_id": pair_id, "row": row, "attribute": attribute}
            timed("reveal", "POST", f"{base}/reveal", worker["token"], body)
            if i % 10 == 9:
                body = {
                    "pair_id": worker["pairs"][i % len(worker["pairs"])],
                    "decision": "same",
                    "confidence": "high",
                }
                timed("decision", "POST", f"{base}/decisions", worker["token"], body)
            if i % 4 == 0:
                timed("me", "GET", "/api/v1/me", study["bystander"])
    return {k: 1e3 * sum(v) / len(v) for k, v in spent.items() if v}


def _run(source: Path, args) -> dict[str, float]:
    """:func:`measure` in a fresh process with ``source`` (a tree holding ``app/``) first."""
    from _legacy import paths  # what an older revision imports and this one does not install

    extra = paths() if source != ROOT else []
    code = (
        f"import sys, json; sys.path[:0] = [{str(source)!r}, {str(ROOT)!r}, *{extra!r}]; "
        f"sys.path.insert(2, {str(ROOT / 'bench')!r}); import request_cpu; "
        f"print(json.dumps(request_cpu.measure({args.requests}, {args.postgres!r}, "
        f"{args.records}, {args.workers}, {args.pairs}, {args.rate_limits!r})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="dcea9a8", help="baseline revision")
    parser.add_argument("--rounds", type=int, default=2, help="alternated runs of each")
    parser.add_argument("--requests", type=int, default=1500, help="reveals per run")
    parser.add_argument("--postgres", help="default: $TEST_DATABASE_URL or the loopback server")
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--pairs", type=int, default=100, help="pairs per worker")
    parser.add_argument(
        "--rate-limits", action="store_true", help="counts on, as in production (memory://)"
    )
    parser.add_argument("--quick", action="store_true", help="1,000 records, 40 requests")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.requests, args.records, args.workers, args.pairs = 1, 40, 1_000, 4, 20
        args.postgres = args.postgres or quick_postgres()
    elif not args.postgres:
        default = "postgresql://postgres@127.0.0.1:5432/test"
        args.postgres = os.environ.get("TEST_DATABASE_URL", default)
    print(f"bench/request_cpu.py against {args.against}; load {os.getloadavg()[0]:.2f}")
    baseline = have_revision(args.against)
    with tempfile.TemporaryDirectory() as tmp:
        if baseline:
            archive = subprocess.run(
                ["git", "archive", args.against, "app", "config.py"],
                cwd=ROOT, check=True, capture_output=True,
            ).stdout  # fmt: skip
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        ours, theirs = [], []
        for _ in range(args.rounds):
            ours.append(_run(ROOT, args))
            if baseline:
                theirs.append(_run(Path(tmp), args))
    for name, runs in (("ours", ours), (args.against, theirs)):
        errors = sorted({k for r in runs for k in r if k.split()[-1].startswith("5")})
        agree(not errors, f"{name}: server errors {errors}")
    for kind in KINDS:
        mine = [r[kind] for r in ours if kind in r]
        base = [r[kind] for r in theirs if kind in r]
        if mine and not base:
            print(f"  {kind:13s} ours {min(mine):6.3f} ms  (best of {len(mine)})")
        if mine and base:
            print(
                f"  {kind:13s} ours {min(mine):6.3f} ms  {args.against} {min(base):6.3f} ms"
                f"  (best of {len(mine)}; {args.against} / ours = {min(base) / min(mine):.2f}x)"
            )
    return finish()


if __name__ == "__main__":
    sys.exit(main())
