"""What Splink itself predicts with a model on the FEBRL4 records (the tests' oracle)."""

from __future__ import annotations

import pandas as pd

from tests.projects.scoring.febrl import febrl4_records


def splink_predictions(model: dict, limit: int | None = None) -> pd.DataFrame:
    from splink import DuckDBAPI, Linker

    db = DuckDBAPI()
    frames = []
    for label, rows in zip("AB", febrl4_records(limit), strict=True):
        frame = pd.DataFrame(rows).rename(columns={"id": "unique_id"}).drop(columns="soc_sec_id")
        frames.append(db.register(frame, dataset_display_name=label))
    linker = Linker(frames, model, log_level=None)
    return linker.inference.predict().as_pandas_dataframe()
