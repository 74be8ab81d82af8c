"""Splink's predict output read from CSV and Parquet alike; problems name rows, not values."""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from app.projects.reading.predictions import PredictionsError, read_predictions

HEADER = "match_weight,match_probability,source_dataset_l,unique_id_l,source_dataset_r,unique_id_r,match_key,gamma_x,x_l,x_r"  # noqa: E501
ROWS = [
    "3.0,0.8888888888888888,dfa,1,dfb,7,0,2,SECRETNAME,SECRETNAME",
    "-2.0,0.2,dfa,2,dfb,8,1,0,Ann,Bob",
]


def _csv(*rows: str, header: str = HEADER) -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def _parquet(columns: dict) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue()


def test_csv_and_parquet_give_the_same_pairs_and_other_columns_are_not_read():
    from_csv = read_predictions(_csv(*ROWS))
    from_parquet = read_predictions(
        _parquet(
            {
                "match_weight": [3.0, -2.0], "match_probability": [8 / 9, 0.2],
                "source_dataset_l": ["dfa", "dfa"], "unique_id_l": [1, 2],  # integer ids
                "source_dataset_r": ["dfb", "dfb"], "unique_id_r": [7, 8],
                "match_key": ["0", "1"], "x_l": ["SECRETNAME", "Ann"],
            }
        )
    )  # fmt: skip
    for scored in (from_csv, from_parquet):
        assert (scored.id_l.to_pylist(), scored.id_r.to_pylist()) == (["1", "2"], ["7", "8"])
        assert scored.sources == ["dfa", "dfb"] and scored.match_key.to_pylist() == ["0", "1"]
        assert np.allclose(scored.match_probability, [8 / 9, 0.2])
        assert np.allclose(scored.match_weight, [3.0, -2.0])
    assert (from_csv.format, from_parquet.format) == ("csv", "parquet")


def test_a_missing_score_is_derived_from_the_other_one(tmp_path):
    only_weight = read_predictions(
        _csv("3,a,b", "-2,c,d", header="match_weight,unique_id_l,unique_id_r")
    )
    assert np.allclose(only_weight.match_probability, [8 / 9, 0.2])
    only_p = read_predictions(
        _csv("0.8888888888888888,a,b", header="match_probability,unique_id_l,unique_id_r")
    )
    assert np.allclose(only_p.match_weight, [3.0])
    assert only_p.source_l is None and only_p.match_key is None and only_p.sources == []
    path = tmp_path / "p.csv"
    path.write_bytes(
        _csv("0.5,a,b", header="match_probability;unique_id_l;unique_id_r".replace(";", ","))
    )
    assert read_predictions(path).id_l.to_pylist() == ["a"]


def test_semicolons_a_bom_and_crlf_are_read():
    text = "\ufeffmatch_probability;unique_id_l;unique_id_r\r\n0.5;a;b\r\n".encode()
    assert read_predictions(text).id_r.to_pylist() == ["b"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (_csv(header="match_weight,unique_id_l"), "column 'unique_id_r' is missing"),
        (_csv(header="unique_id_l,unique_id_r"), "give 'match_probability' or 'match_weight'"),
        (_csv("0.5,a,b,x", header="match_probability,unique_id_l,unique_id_r,source_dataset_l"),
         "give both 'source_dataset_l' and 'source_dataset_r'"),
        (_csv("0.5,a,b", "SECRET,c,d", header="match_probability,unique_id_l,unique_id_r"),
         "row 2, column 'match_probability': missing or not a finite number"),
        (_csv("1.5,a,b", header="match_probability,unique_id_l,unique_id_r"),
         "row 1, column 'match_probability': outside 0..1"),
        (_csv("0.5,,b", header="match_probability,unique_id_l,unique_id_r"),
         "row 1, column 'unique_id_l': empty"),
        (_csv("0.5,a,b,SECRET", header="match_probability,unique_id_l,unique_id_r"),
         "a row has 4 fields where the header has 3"),
        (b"PAR1 not really parquet", "cannot be read"),
    ],
)  # fmt: skip
def test_problems_name_the_row_and_column_never_the_value(text, problem):
    with pytest.raises(PredictionsError) as caught:
        read_predictions(text)
    assert any(problem in p for p in caught.value.problems), caught.value.problems
    assert "SECRET" not in str(caught.value)


def test_many_bad_rows_are_counted_not_listed_one_by_one():
    rows = [f"x,a{i},b{i}" for i in range(100)]
    with pytest.raises(PredictionsError) as caught:
        read_predictions(_csv(*rows, header="match_probability,unique_id_l,unique_id_r"))
    assert len(caught.value.problems) == 21
    assert "100 rows in all" in caught.value.problems[-1]


def test_the_row_limit_is_checked_before_anything_else():
    with pytest.raises(PredictionsError, match="2 pairs is more than the limit of 1"):
        read_predictions(_csv(*ROWS), max_rows=1)


def test_ids_longer_than_a_record_id_are_refused():
    with pytest.raises(PredictionsError, match="row 1, column 'unique_id_l': longer than 3"):
        read_predictions(
            _csv("0.5,abcd,b", header="match_probability,unique_id_l,unique_id_r"), max_id=3
        )
