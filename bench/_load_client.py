"""Helpers of ``bench/load.py``: a lean HTTP/1.1 keep-alive client on asyncio, CPU accounting
of processes by pid, and percentiles. Not a bench itself (``run_all.py`` skips ``_`` files).

The client is hand-written so that the load generator, which shares the 2 cores with the
server, spends as little CPU per request as it can (no HTTP library, one connection per
concurrent caller, kept alive).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import numpy as np

TICK = os.sysconf("SC_CLK_TCK")


class Connection:
    """One keep-alive connection; ``request`` returns (status, parsed JSON body, seconds)."""

    def __init__(self, host: str, port: int, token: str):
        self.host, self.port, self.token = host, port, token
        self.reader = self.writer = None

    async def _open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)

    async def request(self, method: str, path: str, body=None) -> tuple[int, object, float]:
        data = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n"
            f"Authorization: Bearer {self.token}\r\nAccept: application/json\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        ).encode()
        start = time.perf_counter()
        for attempt in (0, 1):
            if self.writer is None:
                await self._open()
            try:
                self.writer.write(head + data)
                status, payload, closing = await self._response()
                break
            except (ConnectionError, asyncio.IncompleteReadError):
                self.writer = None  # the server closed an idle keep-alive connection
                if attempt:
                    raise
        elapsed = time.perf_counter() - start
        if closing:
            self.writer.close()
            self.writer = None
        return status, payload, elapsed

    async def _response(self) -> tuple[int, object, bool]:
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split(b" ", 2)[1])
        length, closing = 0, False
        while True:
            line = await self.reader.readuntil(b"\r\n")
            if line == b"\r\n":
                break
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                closing = True
        body = await self.reader.readexactly(length) if length else b""
        try:
            payload = json.loads(body) if body else None
        except ValueError:
            payload = None
        return status, payload, closing

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of one process (0 when it has gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (gunicorn's workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


class CpuMeter:
    """CPU seconds spent by a changing set of processes between ``start`` and ``stop``."""

    def __init__(self, pids_of):
        self.pids_of = pids_of  # () -> list of pids
        self.before: dict[int, float] = {}

    def start(self) -> None:
        self.before = {pid: process_cpu(pid) for pid in self.pids_of()}

    def stop(self) -> float:
        return sum(process_cpu(p) - self.before.get(p, 0.0) for p in self.pids_of())


STAT_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def machine_cpu() -> dict[str, float]:
    """CPU seconds of the whole machine so far by ``/proc/stat`` column, all cores."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]
    return {name: int(x) / TICK for name, x in zip(STAT_FIELDS, fields, strict=True)}


def all_processes() -> dict[int, tuple[str, float]]:
    """pid -> (name, user + system CPU seconds) of every process now."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                text = (entry / "stat").read_text()
            except (FileNotFoundError, ProcessLookupError):
                continue
            name = text[text.index("(") + 1 : text.rindex(")")]
            fields = text.rsplit(")", 1)[1].split()
            found[int(entry.name)] = (name, (int(fields[11]) + int(fields[12])) / TICK)
    return found


class MachineMeter:
    """Where all the machine's CPU went between ``start`` and ``stop``: busy and idle core
    seconds from ``/proc/stat`` and every process's share, so nothing is hidden."""

    def start(self) -> None:
        self.machine, self.procs = machine_cpu(), all_processes()

    def stop(self) -> dict:
        columns = {k: v - self.machine[k] for k, v in machine_cpu().items()}
        idle = columns["idle"] + columns["iowait"]  # steal counts as busy: not ours to use
        now = all_processes()
        by_pid = {
            pid: (name, cpu - self.procs.get(pid, (name, 0.0))[1])
            for pid, (name, cpu) in now.items()
        }
        return {
            "busy": sum(columns.values()) - idle,
            "idle": idle,
            "columns": columns,
            "by_pid": {pid: v for pid, v in by_pid.items() if v[1] > 0},
        }


def pct(samples, q: float) -> float:
    return float(np.percentile(np.array(samples), q)) if samples else float("nan")


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms"
