"""Reveals and decisions under gunicorn, and a bystander's reveals while another worker bursts:
``.venv/bin/python bench/load.py [--database-url postgresql://...]``.

One command. On the embedded SQLite default (files in a temporary folder, shared by
gunicorn's processes) or, with ``--database-url URL``, on a throwaway PostgreSQL schema, it
makes a generated dedupe project of ``--records`` records, ``--workers`` workers with disjoint
assignments of ``--pairs`` pairs each (every fourth with a small budget, so refusals happen),
a burster and a bystander; starts gunicorn (``--gunicorn-workers`` processes, ``--threads``
threads each) on loopback; reads every page once (warm-up, not timed), then runs three phases,
each bounded in time (``--seconds``) and count (``--max-reveals``):

0. **alone**: only the bystander reveals: the same-run baseline of its latency;
1. **mixed**: every worker reveals cells (``--per-worker`` callers each), together at an
   offered ``--rate`` (default 300 reveals/s; 0: back to back, the saturation throughput),
   and answers a pair every ``--decide-every`` reveals;
2. **burst**: one worker fires 32 concurrent reveals on its one assignment, again and again
   (those past the account's ``REVEALS_IN_FLIGHT_PER_ACCOUNT`` get 429 and are sent again).

Throughout, the bystander (another worker, its own assignment) reveals one cell every 20 ms;
its p50/p99 in each phase are printed with their ratio to phase 0's. Targets (issue 28): the
bystander's p99 during the burst ≤ 250 ms on SQLite, ≤ 100 ms on PostgreSQL (printed, never
an exit status: the machine is shared). Then it stops gunicorn, audits the database and drops
the schema. It prints reveals/s, reveal p50/p99, CPU per reveal (gunicorn workers + their
PostgreSQL backends, and with the load generator), **budget overruns** (assignments whose KAPR
passed the budget or whose event chain does not add up) and **lost events** (reveals answered
200 without their event, or events without an answer); both must be 0. Exit status 1 when
they are not.

``--quick`` (seconds, for CI): 1,000 records, 4 workers x 20 pairs, one gunicorn process of 4
threads, 1.5 s phases, on a free port; on the test suite's PostgreSQL when
``TEST_DATABASE_URL`` is set (or ``--database-url``), else on SQLite (the PostgreSQL CPU column
is then 0).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _check import agree, finish, quick_postgres  # noqa: E402
from _kapr_setup import bench_app, project_spec  # noqa: E402
from _load_client import Connection, CpuMeter, MachineMeter, children, ms, pct  # noqa: E402
from _load_setup import audit, make_study, pg_backends  # noqa: E402

HOST = "127.0.0.1"


def gunicorn(url: str, args) -> subprocess.Popen:
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "SECRET_KEY": "load-bench-only",
        "FLASK_RATELIMIT_ENABLED": "true" if args.rate_limits else "false",
        "FLASK_AUTO_UPGRADE": "false",  # the bench made the schema (SQLite would upgrade)
    }
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "--workers", str(args.gunicorn_workers),
        "--worker-class", args.worker_class or ("gthread" if args.threads > 1 else "sync"),
        "--threads", str(args.threads),
        "--bind", f"{HOST}:{args.port}",
        "--log-level", "warning",
        "app:create_app()",
    ]  # fmt: skip
    return subprocess.Popen(command, cwd=ROOT, env=env)


async def wait_ready(token: str, port: int, server: subprocess.Popen) -> None:
    for _ in range(300):
        if server.poll() is not None:
            raise RuntimeError("gunicorn exited")
        try:
            status, _, _ = await Connection(HOST, port, token).request("GET", "/api/v1/me")
            if status == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.1)
    raise RuntimeError("gunicorn did not answer")


async def cells_of(worker: dict, port: int) -> list:
    """Every cell with a next level, read page by page (the warm-up)."""
    conn, cells, page, pages = Connection(HOST, port, worker["token"]), [], 1, 1
    while page <= pages:
        path = f"/api/v1/assignments/{worker['assignment']}?page={page}"
        status, body, _ = await conn.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET page: {status} {body}")
        pages = body["assignment"]["pages"]
        for pair in body["pairs"]:
            for row in pair["rows"]:
                for name, cell in row["cells"].items():
                    if cell["next_level"]:
                        cells.append((pair["id"], row["row"], name))
        page += 1
    conn.close()
    random.Random(worker["assignment"]).shuffle(cells)
    return cells


class Phase:
    """Counts and latencies of one phase; ``stop`` is set at the time or count bound."""

    def __init__(self, seconds: float, max_reveals: int):
        self.deadline, self.max_reveals = time.perf_counter() + seconds, max_reveals
        self.latencies, self.statuses, self.sent = [], {}, 0
        self.answered = {}  # assignment id -> reveals answered 200
        self.decisions = 0

    def more(self) -> bool:
        return time.perf_counter() < self.deadline and self.sent < self.max_reveals

    async def reveal(self, conn: Connection, worker: dict, cell) -> int:
        self.sent += 1
        pair_id, row, attribute = cell
        body = {"pair_id": pair_id, "row": row, "attribute": attribute}
        path = f"/api/v1/assignments/{worker['assignment']}/reveal"
        status, answer, seconds = await conn.request("POST", path, body)
        self.latencies.append(seconds)
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status == 200:
            key = worker["assignment"]
            self.answered[key] = self.answered.get(key, 0) + 1
            if answer["cell"]["next_level"]:
                worker["cells"].append(cell)  # reveal it further later
        elif status == 429:  # the account's reveals in flight are bounded: again later
            worker["cells"].insert(0, cell)
        return status


async def mixed_caller(
    phase: Phase, worker: dict, port: int, decide_every: int, interval: float
) -> None:
    """Reveal (and now and then answer) every ``interval`` seconds, or back to back if 0."""
    conn, done = Connection(HOST, port, worker["token"]), 0
    due = time.perf_counter() + random.random() * interval
    while phase.more() and worker["cells"]:
        if interval:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            due += interval
        await phase.reveal(conn, worker, worker["cells"].pop())
        done += 1
        if done % decide_every == 0:
            path = f"/api/v1/assignments/{worker['assignment']}/decisions"
            body = {"pair_id": worker["pairs"][done % len(worker["pairs"])]}
            body |= {"decision": "same", "confidence": "high"}
            status, _, _ = await conn.request("POST", path, body)
            phase.decisions += status == 201
    conn.close()


async def burst(phase: Phase, worker: dict, port: int, width: int = 32) -> None:
    conns = [Connection(HOST, port, worker["token"]) for _ in range(width)]
    while phase.more() and worker["cells"]:
        batch = [worker["cells"].pop() for _ in range(min(width, len(worker["cells"])))]
        await asyncio.gather(
            *(phase.reveal(c, worker, x) for c, x in zip(conns, batch, strict=False))
        )
    for conn in conns:
        conn.close()


async def bystander(worker: dict, port: int, stop: asyncio.Event, samples: list) -> int:
    """Reveal one of the bystander's cells every 20 ms until ``stop``; the reveals charged."""
    conn, charged = Connection(HOST, port, worker["token"]), 0
    path = f"/api/v1/assignments/{worker['assignment']}/reveal"
    while not stop.is_set() and worker["cells"]:
        pair_id, row, attribute = cell = worker["cells"].pop()
        body = {"pair_id": pair_id, "row": row, "attribute": attribute}
        status, answer, seconds = await conn.request("POST", path, body)
        if status == 200:
            samples.append(seconds)
            charged += 1
            if answer["cell"]["next_level"]:
                worker["cells"].insert(0, cell)  # further, later
        await asyncio.sleep(0.02)
    conn.close()
    return charged


async def idle(phase: Phase) -> None:
    """Phase 0's only load: none (the bystander reveals alone until the time bound)."""
    await asyncio.sleep(max(0.0, phase.deadline - time.perf_counter()))


async def run_phase(name, coroutines, study, args, meters) -> dict:
    phase = Phase(args.seconds, args.max_reveals)
    stop, watch = asyncio.Event(), []
    machine = MachineMeter()
    machine.start()
    for meter in meters.values():
        meter.start()
    own = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    watcher = asyncio.create_task(bystander(study["bystander"], args.port, stop, watch))
    await asyncio.gather(*(c(phase) for c in coroutines))
    elapsed = time.perf_counter() - start
    stop.set()
    by_answered = await watcher
    cpu = {k: m.stop() for k, m in meters.items()}
    whole = machine.stop()
    whole["groups"] = {k: set(m.pids_of()) for k, m in meters.items()}
    now = resource.getrusage(resource.RUSAGE_SELF)
    cpu["client"] = now.ru_utime + now.ru_stime - own.ru_utime - own.ru_stime
    ok = phase.statuses.get(200, 0)
    return {
        "name": name,
        "elapsed": elapsed,
        "ok": ok,
        "statuses": dict(sorted(phase.statuses.items())),
        "rate": ok / elapsed,
        "p50": pct(phase.latencies, 50),
        "p99": pct(phase.latencies, 99),
        "by50": pct(watch, 50),
        "by99": pct(watch, 99),
        "by_n": len(watch),
        "by_answered": by_answered,
        "cpu": cpu,
        "machine": whole,
        "answered": phase.answered,
        "decisions": phase.decisions,
    }


def report(result: dict, alone: dict) -> None:
    ratio = (
        f"{result['by50'] / alone['by50']:.1f}x / {result['by99'] / alone['by99']:.1f}x of alone"
        if alone["by_n"] and result["by_n"]
        else "no ratio"
    )
    print(
        f"  bystander reveal  p50 {ms(result['by50'])}  p99 {ms(result['by99'])}"
        f"  ({result['by_n']} reveals; {ratio})"
    )
    if result is alone:
        return
    cpu, ok = result["cpu"], max(1, result["ok"])
    server = cpu["gunicorn"] + cpu["postgres"]
    print(
        f"  {result['ok']} reveals in {result['elapsed']:.1f} s = "
        f"{result['rate']:.0f} reveals/s; statuses {result['statuses']};"
        f" {result['decisions']} decisions"
    )
    answered = sum(result["statuses"].values()) / result["elapsed"]
    print(f"  reveal requests answered (charged or refused) {answered:.0f}/s")
    if result.get("offered") and answered >= 0.95 * result["offered"]:
        print(
            f"  (the {result['offered']:g} requests/s offered, refusals included, are the limit"
            " here, not the server: --rate 0 measures the saturation throughput)"
        )
    print(f"  reveal            p50 {ms(result['p50'])}  p99 {ms(result['p99'])}")
    print(
        f"  CPU per reveal {server / ok * 1e3:.2f} ms (gunicorn {cpu['gunicorn'] / ok * 1e3:.2f}"
        f" + PostgreSQL backends {cpu['postgres'] / ok * 1e3:.2f});"
        f" with the load generator {(server + cpu['client']) / ok * 1e3:.2f} ms"
    )


def breakdown(result: dict) -> None:
    """Every core second of the phase: the bench's processes, the rest by name, and idle."""
    whole, ok = result["machine"], max(1, result["ok"])
    shares: dict[str, float] = {}
    client = os.getpid()
    for pid, (name, cpu) in whole["by_pid"].items():
        group = next((g for g, pids in whole["groups"].items() if pid in pids), None)
        if group is None:
            group = "load generator" if pid == client else f"other: {name}"
        shares[group] = shares.get(group, 0.0) + cpu
    attributed = sum(shares.values())
    shares["unattributed (irq, exited processes)"] = whole["busy"] - attributed
    cores = whole["busy"] + whole["idle"]
    print(
        f"  machine: {cores:.1f} core-s = busy {whole['busy']:.1f} + idle {whole['idle']:.1f};"
        f" per reveal {whole['busy'] / ok * 1e3:.2f} ms busy; "
        + ", ".join(f"{k} {v:.1f}" for k, v in whole["columns"].items() if k != "idle")
    )
    top = sorted(shares.items(), key=lambda kv: -kv[1])
    listed = [kv for kv in top if kv[1] / ok * 1e3 >= 0.05][:10]
    for name, cpu in listed:
        print(f"    {cpu / ok * 1e3:6.2f} ms  {100 * cpu / cores:5.1f}%  {name}")


def pg_url(schema_options: str, base: str) -> str:
    """``base`` with the bench schema on the search path and a recognisable client name."""
    query = urllib.parse.urlencode({"options": schema_options, "application_name": "mindfirl-load"})
    plain = re.sub(r"^postgres(ql)?(\+psycopg)?://", "postgresql://", base)
    return f"{plain}?{query}"


async def drive(study: dict, args, server: subprocess.Popen, schema: str) -> list[dict]:
    await wait_ready(study["bystander"]["token"], args.port, server)
    workers, burster = study["workers"], study["burster"]
    for worker in [*workers, burster, study["bystander"]]:
        worker["cells"] = await cells_of(worker, args.port)
    meters = {
        "gunicorn": CpuMeter(lambda: children(server.pid)),
        "postgres": CpuMeter(
            lambda: pg_backends(args.postgres, "mindfirl-load") if args.postgres else []
        ),
    }
    n = len(workers) * args.per_worker
    interval = n / args.rate if args.rate else 0.0
    callers = [
        (lambda phase, w=w: mixed_caller(phase, w, args.port, args.decide_every, interval))
        for w in workers
        for _ in range(args.per_worker)
    ]
    offered = f"offered {args.rate:g} reveals/s" if args.rate else "back to back"
    results = [await run_phase("alone (the bystander only)", [idle], study, args, meters)]
    results.append(await run_phase(f"mixed ({offered})", callers, study, args, meters))
    results[1]["offered"] = args.rate
    one = [lambda phase: burst(phase, burster, args.port)]
    results.append(
        await run_phase("burst (one worker, 32 concurrent reveals)", one, study, args, meters)
    )
    return results


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url",
        "--postgres",
        dest="postgres",
        help="a PostgreSQL server (a throwaway schema is made there); default: SQLite files",
    )
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--pairs", type=int, default=100, help="pairs per worker")
    parser.add_argument("--per-worker", type=int, default=2, help="requests in flight per worker")
    parser.add_argument("--decide-every", type=int, default=10)
    parser.add_argument("--rate", type=float, default=300, help="offered reveals/s; 0: flat out")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--max-reveals", type=int, default=20_000)
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=8, help="1: sync workers")
    parser.add_argument("--worker-class", help="gunicorn's (default: gthread, sync for 1 thread)")
    parser.add_argument("--port", type=int, default=18_765, help="0: a free one")
    parser.add_argument("--rate-limits", action="store_true", help="keep the throttle on")
    parser.add_argument("--quick", action="store_true", help="1.5 s phases, 1,000 records")
    args = parser.parse_args(argv)  # fmt: skip
    if args.quick:
        args.seconds, args.records, args.workers, args.pairs = 1.5, 1_000, 4, 20
        args.gunicorn_workers, args.threads, args.port = 1, 4, 0
        args.postgres = args.postgres or quick_postgres()
    args.port = args.port or free_port()
    print(
        f"bench/load.py: gunicorn {args.gunicorn_workers} workers x {args.threads} threads on "
        f"{'PostgreSQL' if args.postgres else 'SQLite'}; {args.workers} workers x {args.pairs}"
        f" pairs, {args.records:,} records; load: {os.getloadavg()[0]:.2f}"
    )
    spec = project_spec(args.records, args.pairs * (args.workers + 4), seed=7)
    with tempfile.TemporaryDirectory() as tmp, bench_app(Path(tmp), args.postgres) as app:
        with app.app_context():
            study = make_study(spec, args.workers, args.pairs)
        del spec
        if args.postgres:
            options = app.config["SQLALCHEMY_ENGINE_OPTIONS"]["connect_args"]["options"]
            url = pg_url(options, args.postgres)
        else:  # the app puts the vault beside the main file, where bench_app made it
            options, url = None, f"sqlite:///{Path(tmp) / 'main.sqlite'}"
        server = gunicorn(url, args)
        try:
            results = asyncio.run(drive(study, args, server, options))
        finally:
            server.terminate()
            server.wait(timeout=30)
        with app.app_context():
            overruns, lost = audit(study, results)
    engine, target = ("PostgreSQL", 0.100) if args.postgres else ("SQLite", 0.250)
    for result in results:
        print(f"\n{result['name']}:")
        report(result, results[0])
        if result is not results[0]:
            breakdown(result)
    burst_p99 = results[-1]["by99"]
    met = "met" if burst_p99 <= target else "NOT met"
    print(
        f"\nbystander reveal p99 during the burst {ms(burst_p99)} on {engine}: target"
        f" <= {target * 1e3:.0f} ms {met} ({burst_p99 / results[0]['by99']:.1f}x of alone)"
    )
    print(f"\nbudget overruns: {overruns}   lost events: {lost}   (both must be 0)")
    agree(overruns == 0, f"{overruns} budget overrun(s)")
    agree(lost == 0, f"{lost} lost event(s)")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
