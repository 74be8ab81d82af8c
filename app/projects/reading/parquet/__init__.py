"""A scored-pairs Parquet file read footer first, then in batches under a byte budget."""

from app.projects.reading.parquet.bounded import (
    BATCH_BYTES,
    Bound,
    PredictionsError,
    open_parquet,
    read_bounded,
)

__all__ = ["BATCH_BYTES", "Bound", "PredictionsError", "open_parquet", "read_bounded"]
