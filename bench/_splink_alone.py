"""Splink alone on the scoring job's own working table: the baseline of ``bench/scoring.py``.

:func:`working_table` takes the rows the application hands Splink (its ``record_batches``
over the project, with the layout a run of the model uses) and writes them as one Parquet
file per source, untimed: that is what a linkage team running Splink by hand would start
from. :func:`splink_alone` then times what Splink itself does with them, on the same engine
settings as the job (a DuckDB database file, the predictions as Parquet):

- **load**: each file read into an Arrow table (``pyarrow.parquet.read_table``) and handed
  to DuckDB as Splink itself hands an Arrow table over (``register``, read in place);
- **predict**: a ``Linker`` on those tables with the model's settings as the job writes them
  (``run_settings``), ``inference.predict()``;
- **write**: ``COPY`` of the predictions' output columns to Parquet (record positions as
  ids: Splink alone knows no file ids).

Only names present on older revisions are imported, so a copy of this bench runs against
``main``'s scoring job too (a worktree at ``main``), for the before/after figures.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

OUTPUT = (
    "source_dataset_l", "unique_id_l", "source_dataset_r", "unique_id_r",
    "match_weight", "match_probability", "match_key",
)  # fmt: skip


def working_table(project, model, folder: Path) -> tuple[dict[str, Path], object]:
    """Per source label, a Parquet file of the working rows a run of ``model`` gives Splink;
    and the layout of their columns."""
    from app.models import ProjectKind
    from app.projects.scoring.runs.working import Layout, record_batches

    layout = Layout.of(project, model.rules, model)
    link = project.kind == ProjectKind.LINK
    parts: dict[str, list] = {}
    for label, batch, _external in record_batches(project, layout):
        parts.setdefault(label, []).append(batch)
    schema = layout.schema(with_source=link)
    files = {}
    for label in ["A", "B"] if link else ["A"]:
        files[label] = folder / f"working_{label}.parquet"
        table = pa.Table.from_batches(parts.get(label, []), schema=schema)
        # row groups of the job's batches: Arrow chunks of the same size once read back,
        # which DuckDB scans in parallel as it does the job's
        pq.write_table(table, files[label], row_group_size=50_000)
    return files, layout


def splink_alone(files: dict[str, Path], model, layout, folder: Path, threads=None) -> dict:
    """Load, predict and write with Splink alone; seconds per phase, pairs and the sum of
    their match probabilities (to compare with the job's)."""
    import duckdb
    from splink import DuckDBAPI, Linker

    from app.projects.scoring.runs.working import run_settings

    phases: dict[str, float] = {}
    clock = time.perf_counter()
    con = duckdb.connect(str(folder / "alone.duckdb"))
    spill = folder / "alone-spill"
    spill.mkdir(exist_ok=True)
    con.execute("SET temp_directory = ?", [str(spill)])  # the job's DuckDB settings
    con.execute("SET preserve_insertion_order = false")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    arrow = {label: pq.read_table(path) for label, path in files.items()}
    for label, table in arrow.items():
        con.register(f"t_{label}", table)
    phases["load"] = time.perf_counter() - clock
    clock = time.perf_counter()
    api = DuckDBAPI(connection=con)
    tables = [api.register(f"t_{label}", dataset_display_name=label) for label in files]
    settings = run_settings(model, layout, "duckdb")
    linker = Linker(tables if len(tables) > 1 else tables[0], settings, log_level=None)
    predictions = linker.inference.predict()
    phases["predict"] = time.perf_counter() - clock
    clock = time.perf_counter()
    name = predictions.physical_name
    present = {c[0] for c in con.execute(f"DESCRIBE {name}").fetchall()}
    columns = ", ".join(c for c in OUTPUT if c in present)
    out = folder / "alone.parquet"
    con.execute(f"COPY (SELECT {columns} FROM {name}) TO '{out}' (FORMAT parquet)")
    phases["write"] = time.perf_counter() - clock
    con.close()
    (folder / "alone.duckdb").unlink()
    written = pq.read_table(out, columns=["match_probability"]).column(0)
    return {
        "seconds": sum(phases.values()),
        "phases": phases,
        "pairs": len(written),
        "probability_sum": float(pc.sum(written).as_py() or 0.0),
    }
