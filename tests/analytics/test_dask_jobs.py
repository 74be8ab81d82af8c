"""Jobs on Dask: an in-process LocalCluster, and a scheduler and a worker as separate processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from app.analytics.trajectory import RiskOptions, trajectory_risk
from app.extensions import db
from app.jobs import executor as jobs
from app.models import Job

ROOT = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).with_name("dask")
NAMES = {"original": "o.csv", "anonymized": "a.csv"}
TIMEOUT = 120  # seconds any one wait may take before the test fails


@pytest.fixture
def dask_app(app):
    app.config["JOBS_EXECUTOR"] = "dask"
    yield app
    for key in [k for k in jobs._pools if k.startswith("dask")]:
        jobs._pools.pop(key).shutdown(wait=True)


def wait_for_job(app, job_id: int) -> Job:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        with app.app_context():
            job = db.session.get(Job, job_id)
            if job.status not in jobs.ACTIVE:
                db.session.expunge(job)
                return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} still running after {TIMEOUT} s")


def run_job(app, original_csv, anonymized_csv, **options) -> Job:
    with app.app_context():
        job_id = jobs.submit(
            "trajectory_risk", trajectory_risk, original_csv, anonymized_csv,
            asdict(RiskOptions(**options)), NAMES,
        )  # fmt: skip
    return wait_for_job(app, job_id)


def test_local_cluster_runs_the_job_in_chunks(dask_app, original_csv, anonymized_csv):
    with LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        dask_app.config["DASK_SCHEDULER_ADDRESS"] = cluster.scheduler_address
        job = run_job(
            dask_app, original_csv, anonymized_csv, search="windowed", window_percent=10.0
        )
        assert job.status == "done", job.error
        assert job.result["windowed"]["risk"] == "5/23" and job.result["exact"]["risk"] == "13/46"
        assert job.progress_done == job.progress_total == 92  # 2 passes x 46 chunks of one
        with Client(cluster.scheduler_address) as client:
            assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.workers)) == 1


RAN: list[int] = []


def slow_chunk(delay: float, k: int) -> int:
    RAN.append(k)
    time.sleep(delay)
    return k


def slow_job(n: int, *, progress) -> dict:
    return {"out": jobs.chunk_map(progress, slow_chunk, [(k,) for k in range(n)], shared=0.3)}


def test_cancel_on_dask_stops_the_chunks(dask_app):
    RAN.clear()
    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        dask_app.config["DASK_SCHEDULER_ADDRESS"] = cluster.scheduler_address
        with dask_app.app_context():
            job_id = jobs.submit("slow", slow_job, 40)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            with dask_app.app_context():
                if db.session.get(Job, job_id).progress_done >= 1:
                    assert jobs.cancel(job_id)
                    break
            time.sleep(0.05)
        job = wait_for_job(dask_app, job_id)
        time.sleep(1.0)  # chunks that were not cancelled would go on running meanwhile
        assert job.status == "cancelled" and job.result is None
        assert 1 <= job.progress_done < 40 and len(RAN) < 40


def _start(args: list[str], log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(log, "wb") as out:
        return subprocess.Popen(
            [str(DASK), *args], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def test_separate_scheduler_and_worker_processes(dask_app, tmp_path, original_csv, anonymized_csv):
    scheduler_file = tmp_path / "scheduler.json"
    processes = []
    try:
        processes.append(_start(
            ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(scheduler_file)], tmp_path / "scheduler.log",
        ))  # fmt: skip
        deadline = time.monotonic() + TIMEOUT
        while not scheduler_file.exists() and time.monotonic() < deadline:
            assert processes[0].poll() is None, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.2)
        address = json.loads(scheduler_file.read_text())["address"]
        processes.append(_start(
            ["worker", address, "--nthreads", "2", "--no-dashboard", "--no-nanny",
             "--host", "127.0.0.1"], tmp_path / "worker.log",
        ))  # fmt: skip
        with Client(address, timeout=TIMEOUT) as client:
            client.wait_for_workers(1, timeout=TIMEOUT)
        dask_app.config["DASK_SCHEDULER_ADDRESS"] = address
        job = run_job(dask_app, original_csv, anonymized_csv)
        assert job.status == "done", job.error
        assert job.result["report"]["rl_percent"] == 28.26086956521739
        assert job.progress_done == job.progress_total == 46
    finally:
        for key in [k for k in jobs._pools if k.startswith("dask@")]:
            jobs._pools.pop(key).shutdown(wait=True)
        for process in reversed(processes):
            _stop(process)


def test_thread_executor_runs_the_chunks_on_threads(app, monkeypatch, original_csv, anonymized_csv):
    pool = ThreadPoolExecutor(max_workers=1)
    monkeypatch.setitem(jobs._pools, "thread", pool)
    app.config["JOBS_EXECUTOR"] = "thread"
    job = run_job(app, original_csv, anonymized_csv, distance="dtw")
    pool.shutdown(wait=True)  # the job's thread is done with the database before teardown
    assert job.status == "done", job.error
    assert job.result["report"]["rl_exact"] == "13/46" and job.progress_done == 46
