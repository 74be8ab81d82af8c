"""Where Splink runs: embedded DuckDB (the default) or Spark (``SPLINK_BACKEND=spark``).

A backend takes the working rows batch by batch (:meth:`append`), hands Splink its tables
(:meth:`tables`), gives back the predictions as Arrow batches (:meth:`batches`) and removes
every working file in :meth:`close`, whatever happened before. :meth:`interrupt` (called from
another thread when the job is cancelled) stops what it is computing: DuckDB's
``interrupt()``, or Spark's cancel of the run's job group.

DuckDB reads the working rows in place, as Arrow tables registered on its connection (what
Splink itself does with an Arrow table; no copy into DuckDB's storage), and writes its own
tables to a database file inside the job's own working directory (spilling there too). Once
the rows are registered, it is locked down: ``enable_external_access = false`` (no file,
no extension, no ``read_csv``/``COPY`` reaches outside), then ``lock_configuration`` so
nothing can set it back; the SQL Splink runs is written by the application anyway
(:mod:`.working`), this is the second wall.

Spark uses one session per process (:func:`spark_session`): master ``SPARK_MASTER``
(default ``local[2]``), Splink's similarity UDF jar, UTC. Its checkpoints (Splink writes
intermediate tables as Parquet) go to ``SPARK_CHECKPOINT_DIR`` or the working directory and
are deleted after the job through Hadoop's file system (so ``hdfs://`` works too); the
predictions are written by Spark to ``SPARK_OUTPUT_DIR`` (or the working directory), read
back by the application and deleted. On a cluster both must be storage the driver and the
executors share (docs/scoring.md).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

__all__ = ["BACKENDS", "DuckDBBackend", "SparkBackend", "backend_name", "spark_session"]

BACKENDS = ("duckdb", "spark")
OUTPUT_COLUMNS = (
    "source_dataset_l", "unique_id_l", "source_dataset_r", "unique_id_r",
    "match_weight", "match_probability", "match_key",
)  # fmt: skip


def backend_name(config) -> str:
    name = config.get("SPLINK_BACKEND") or os.environ.get("SPLINK_BACKEND") or "duckdb"
    if name not in BACKENDS:
        raise ValueError(f"SPLINK_BACKEND is one of {', '.join(BACKENDS)}")
    return name


class DuckDBBackend:
    dialect = "duckdb"

    def __init__(self, work_dir: Path, *, threads: int | None = None, memory: str | None = None):
        import duckdb

        self.work_dir = work_dir
        self.con = duckdb.connect(str(work_dir / "work.duckdb"))
        spill = work_dir / "spill"
        spill.mkdir()
        self.con.execute("SET temp_directory = ?", [str(spill)])
        self.con.execute("SET preserve_insertion_order = false")
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        if memory:
            self.con.execute("SET memory_limit = ?", [str(memory)])
        self.parts: dict[str, list[pa.RecordBatch]] = {}
        self.arrow: list[pa.Table] = []  # the working tables DuckDB reads, alive until close

    def append(self, label: str, batch: pa.RecordBatch) -> None:
        self.parts.setdefault(label, []).append(batch)

    def tables(self, labels: list[str], schema: pa.Schema):
        from splink import DuckDBAPI

        for label in labels:  # a source without records still has its (empty) table
            table = pa.Table.from_batches(self.parts.pop(label, []), schema=schema)
            self.con.register(f"t_{label}", table)  # read in place: Splink's own way with Arrow
            self.arrow.append(table)
        self.con.execute("SET enable_external_access = false")
        self.con.execute("SET lock_configuration = true")
        api = DuckDBAPI(connection=self.con)
        return [api.register(f"t_{label}", dataset_display_name=label) for label in labels]

    def batches(self, predictions, size: int) -> Iterator[pa.RecordBatch]:
        present = {
            c[0] for c in self.con.execute(f"DESCRIBE {predictions.physical_name}").fetchall()
        }
        columns = ", ".join(c for c in OUTPUT_COLUMNS if c in present)
        yield from self.con.sql(
            f"SELECT {columns} FROM {predictions.physical_name}"
        ).to_arrow_reader(size)

    def interrupt(self) -> None:
        self.con.interrupt()

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            self.arrow.clear()
            shutil.rmtree(self.work_dir, ignore_errors=True)


_spark = None
_spark_lock = threading.Lock()


def spark_session(master: str | None = None, *, partitions: int = 8):
    """The process's SparkSession (created on first use)."""
    global _spark
    with _spark_lock:
        if _spark is None:
            from pyspark.sql import SparkSession
            from splink.backends.spark import similarity_jar_location

            master = master or os.environ.get("SPARK_MASTER") or "local[2]"
            _spark = (
                SparkSession.builder.master(master)
                .appName("mindfirl-scoring")
                .config("spark.jars", similarity_jar_location())
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.sql.shuffle.partitions", str(partitions))
                .config("spark.default.parallelism", str(partitions))
                .config("spark.ui.enabled", "false")
                .config("spark.sql.warehouse.dir", tempfile.mkdtemp(prefix="spark-warehouse-"))
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                .getOrCreate()
            )
            _spark.sparkContext.setLogLevel("ERROR")
        return _spark


class SparkBackend:
    dialect = "spark"

    def __init__(
        self, work_dir: Path, *, master=None, checkpoint_dir=None, output_dir=None,
        partitions: int = 8, lineage: str = "parquet",
    ):  # fmt: skip
        self.work_dir = work_dir
        self.spark = spark_session(master, partitions=partitions)
        self.partitions, self.lineage = partitions, lineage
        run = self.run = uuid.uuid4().hex
        base = checkpoint_dir or f"file://{work_dir}/checkpoints"
        self.checkpoints = f"{base.rstrip('/')}/{run}"
        self.output = f"{(output_dir or f'file://{work_dir}/output').rstrip('/')}/{run}"
        self.spark.sparkContext.setCheckpointDir(self.checkpoints)
        # Spark's jobs of this thread (Splink's) in a group of their own, for interrupt()
        self.spark.sparkContext.setJobGroup(run, "scoring", interruptOnCancel=True)
        self.parts: dict[str, list[pa.RecordBatch]] = {}
        self.views: list[str] = []

    def append(self, label: str, batch: pa.RecordBatch) -> None:
        self.parts.setdefault(label, []).append(batch)

    def tables(self, labels: list[str], schema: pa.Schema):
        from splink import SparkAPI

        api = SparkAPI(
            spark_session=self.spark,
            num_partitions_on_repartition=self.partitions,
            break_lineage_method=self.lineage,
        )
        out = []
        for label in labels:
            table = pa.Table.from_batches(self.parts.pop(label, []), schema=schema)
            frame = self.spark.createDataFrame(table)
            # The session outlives the job: names of this run's own.
            out.append(
                api.register(frame, table_name=f"r{self.run}_{label}", dataset_display_name=label)
            )
        return out

    def batches(self, predictions, size: int) -> Iterator[pa.RecordBatch]:
        import pyarrow.dataset as ds

        frame = predictions.as_spark_dataframe()
        frame.select(*[c for c in OUTPUT_COLUMNS if c in frame.columns]).write.parquet(self.output)
        local = self.output.removeprefix("file://")
        yield from ds.dataset(local, format="parquet").to_batches(batch_size=size)

    def interrupt(self) -> None:
        self.spark.sparkContext.cancelJobGroup(self.run)

    def close(self) -> None:
        try:
            for table in self.spark.catalog.listTables():
                if table.isTemporary and table.name.startswith(f"r{self.run}_"):
                    self.spark.catalog.dropTempView(table.name)
            for path in (self.checkpoints, self.output):
                self._delete(path)
        finally:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def _delete(self, uri: str) -> None:
        jvm = self.spark.sparkContext._jvm
        path = jvm.org.apache.hadoop.fs.Path(uri)
        path.getFileSystem(self.spark.sparkContext._jsc.hadoopConfiguration()).delete(path, True)
