"""``flask analytics rl``: trajectory record-linkage risk from the command line.

Runs the same report as the admin page's job (:func:`app.analytics.trajectory.risk.trajectory_risk`)
in this process; its chunks go to the configured executor (threads, or the Dask cluster when
``JOBS_EXECUTOR=dask``). ``--json`` prints one JSON object, the same one
``GET /api/v1/admin/jobs/<id>`` returns as ``report`` for a finished API job; ``--result``
writes the whole result, as the job page's download. Progress goes to stderr, one line per
tenth of the work.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from flask import current_app

from app import jobs
from app.analytics.trajectory import (
    DISTANCES,
    OptionsError,
    parse_options,
    trajectory_risk,
)
from app.cli.analytics import analytics
from app.core.trajectory.model import TrajectoryFormatError


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise click.ClickException(f"{path.name}: not UTF-8 text ({exc.reason})") from None


def _runner(quiet: bool) -> jobs.ChunkRunner:
    app = current_app._get_current_object()
    name = jobs.executor_name(app)
    if name == "dask":
        executor = jobs.get_executor("dask", jobs.dask_address(app))
    elif name == "inline":
        executor = jobs.InlineExecutor()
    else:
        executor = jobs.get_executor("chunks")

    return jobs.ChunkRunner(executor, _ProgressLines() if not quiet else _silent)


def _silent(done: int, total: int) -> None:
    return None


class _ProgressLines:
    """Progress on stderr, one line per tenth of the chunks (and at the end): a terminal, a
    log file and a pipe all read whole lines."""

    def __init__(self) -> None:
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        if not total:
            return
        tenth = 10 * done // total
        if tenth > self.shown:
            self.shown = tenth
            click.echo(f"{done}/{total} chunks ({100 * done // total}%)", err=True)


@analytics.command("rl")
@click.option(
    "--original",
    "original",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
)  # noqa: E501
@click.option(
    "--anonymized",
    "anonymized",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
)  # noqa: E501
@click.option(
    "--distance", type=click.Choice(sorted(DISTANCES)), default="martinez2021", show_default=True
)  # noqa: E501
@click.option(
    "--window-percent",
    type=float,
    default=None,
    help="Windowed search with this window (percent of the originals).",
)  # noqa: E501
@click.option(
    "--windowed", is_flag=True, help="Windowed search with the reference's default window."
)  # noqa: E501
@click.option(
    "--lambda",
    "lam",
    type=float,
    default=None,
    help="λ for the Martinez distances (default: calibrated).",
)  # noqa: E501
@click.option(
    "--sweep",
    is_flag=True,
    help="Also run windowed searches from 1% to 100% (RL and time against window).",
)  # noqa: E501
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--result",
    "result_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    default=None,
    help="Also write the whole result (every anonymized trajectory's link), as the job page's "
    "download: `flask analytics links FILE` audits it.",
)
def rl(original, anonymized, distance, window_percent, windowed, lam, sweep, as_json, result_path):
    """Record-linkage risk (RL, %) of ANONYMIZED trajectories against the ORIGINAL ones."""
    form = {
        "distance": distance,
        "search": "windowed" if windowed or window_percent is not None else "exact",
        "window_percent": "" if window_percent is None else repr(window_percent),
        "lam": "" if lam is None else repr(lam),
        "compare_exact": "",
        "sweep": "on" if sweep else "",
        "top": "1000",
    }
    _import_kernels_meanwhile()
    texts = (_read(original), _read(anonymized))
    names = {"original": original.name, "anonymized": anonymized.name}
    try:  # the report checks both files as the upload does (check_upload), once
        options = parse_options(form)
        result = trajectory_risk(*texts, _asdict(options), names, progress=_runner(as_json))
    except (OptionsError, TrajectoryFormatError) as exc:
        raise click.ClickException(str(exc)) from None
    if result_path is not None:
        result_path.write_text(json.dumps(result, indent=1), encoding="utf-8")
    click.echo(json.dumps(result["report"]) if as_json else _text(result))


def _import_kernels_meanwhile() -> None:
    """Import the compiled kernels (numba: half a second of Python) in a thread while this
    one reads and parses the files (Arrow and numpy, mostly without the GIL)."""
    import importlib
    import threading

    threading.Thread(
        target=importlib.import_module, args=("app.core.trajectory.fast",), daemon=True
    ).start()


def _asdict(options) -> dict:
    from dataclasses import asdict

    return asdict(options)


def _text(result: dict) -> str:
    r = result["report"]
    lines = [
        f"RL {r['rl_percent']!r} % ({r['rl_exact']}): {r['linked']} of {r['n_anonymized']} "
        f"anonymized trajectories linked to {r['n_original']} originals",
        f"distance {r['distance']}; λ = {r['lambda']}; max_dist = {r['max_dist']}; "
        f"window = {r['window_size'] or 'all'}; {r['candidates']} distances; {r['seconds']:.3f} s",
    ]
    for name, row in result.get("ensemble", {}).get("per_distance", {}).items():
        lines.append(f"  {name:<14} RL {row['rl_percent']:.4f} % ({row['rl_exact']})")
    for row in result.get("sweep", []):
        lines.append(
            f"  window {row['percent']:g}% (m = {row['window']:g}): RL {row['rl_percent']:.4f} %"
            f" in {row['seconds']:.3f} s"
        )
    return "\n".join(lines)


@analytics.command("compile-kernels")
def compile_kernels() -> None:
    """Compile the trajectory kernels into numba's on-disk cache (make run and make test do it
    once per checkout; a deploy runs it beside `db upgrade`), so no report compiles them."""
    from app.core.trajectory.fast.warm import warm

    counts = warm()
    click.echo(
        f"trajectory kernels: {counts['misses']} signature(s) compiled, "
        f"{counts['hits']} loaded from the cache"
    )
