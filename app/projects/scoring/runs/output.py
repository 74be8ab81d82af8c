"""The predictions file a scoring run writes: Splink's pairs with the records' file ids.

Splink's predictions name a record by its ``unique_id`` (its position in its file) and
``source_dataset``; the file names it by its id in the file. :class:`Ids` keeps the ids read
with the working rows as one Arrow column and, per source, where each position's id is in
it, so a batch of predictions gets its ids by one ``take`` per side on whole columns. The
file is written atomically (a temporary file renamed), its encoding overlapped with the
next batch's fetch.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

__all__ = ["OUTPUT_SCHEMA", "Ids", "write_predictions"]

OUTPUT_SCHEMA = pa.schema(
    [
        ("source_dataset_l", pa.string()),
        ("unique_id_l", pa.string()),
        ("source_dataset_r", pa.string()),
        ("unique_id_r", pa.string()),
        ("match_weight", pa.float64()),
        ("match_probability", pa.float64()),
        ("match_key", pa.string()),
    ]
)

_DICTIONARY = ["source_dataset_l", "source_dataset_r", "match_key"]


class Ids:
    """The file id of each record, by source label and position."""

    def __init__(self, labels: Iterable[str]) -> None:
        self.parts: dict[str, list[tuple[pa.Array, pa.Array]]] = {label: [] for label in labels}

    def add(self, label: str, positions: pa.Array, ids: pa.Array) -> None:
        self.parts[label].append((positions, ids))

    def tables(self) -> tuple[pa.Array, dict[str, np.ndarray]]:
        """Every id in one column, and per label the row of that column at each position
        (``-1`` where no record is)."""
        columns, where, offset = [], {}, 0
        for label, parts in self.parts.items():
            positions = [p.to_numpy() for p, _ in parts]
            size = max((int(p.max()) + 1 for p in positions if p.size), default=0)
            rows = np.full(size, -1, np.int64)
            for p, (_, ids) in zip(positions, parts, strict=True):
                rows[p] = np.arange(offset, offset + p.size)
                offset += p.size
                columns.append(ids)
            where[label] = rows
        return pa.chunked_array(columns, pa.string()).combine_chunks(), where


def write_predictions(batches, ids: Ids, path: Path, *, dedupe: bool) -> int:
    """Write the predictions with file ids; return how many.

    A batch is encoded into Parquet in a worker thread while the next one is fetched and
    given its ids (Arrow's kernels and Parquet writer release the GIL). Only the columns of
    few distinct values are dictionary-encoded: a dictionary of the ids would be as large
    as the column, and built for nothing.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    every, where = ids.tables()
    written = 0
    try:
        with (
            ThreadPoolExecutor(1, thread_name_prefix="scoring-write") as pool,
            pq.ParquetWriter(partial, OUTPUT_SCHEMA, use_dictionary=_DICTIONARY) as writer,
        ):
            pending = None
            for batch in batches:
                out = _output_batch(batch, every, where, dedupe)
                if pending is not None:
                    pending.result()
                pending = pool.submit(writer.write_batch, out)
                written += batch.num_rows
            if pending is not None:
                pending.result()
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return written


def _output_batch(batch: pa.RecordBatch, every: pa.Array, where, dedupe: bool):
    n = batch.num_rows
    columns = {}
    for side in ("l", "r"):
        position = batch.column(f"unique_id_{side}").to_numpy(zero_copy_only=False)
        position = position.astype(np.int64, copy=False)
        if dedupe:
            source = pa.repeat(pa.scalar("A", pa.string()), n)
            rows = where["A"][position]
        else:
            source = batch.column(f"source_dataset_{side}").cast(pa.string())
            rows = np.empty(n, np.int64)
            for label, table in where.items():
                mask = pc.equal(source, label).to_numpy(zero_copy_only=False)
                rows[mask] = table[position[mask]]
        columns[f"source_dataset_{side}"] = source
        columns[f"unique_id_{side}"] = every.take(pa.array(rows))
    return pa.RecordBatch.from_arrays(
        [
            columns["source_dataset_l"], columns["unique_id_l"],
            columns["source_dataset_r"], columns["unique_id_r"],
            batch.column("match_weight").cast(pa.float64()),
            batch.column("match_probability").cast(pa.float64()),
            batch.column("match_key").cast(pa.string()),
        ],
        schema=OUTPUT_SCHEMA,
    )  # fmt: skip
