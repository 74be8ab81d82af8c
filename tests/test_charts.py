"""Chart specs: shapes the front end can draw, and one table for the page and the CSV."""

from __future__ import annotations

import csv
import io
import math
from fractions import Fraction

import pytest

from app import charts


def test_bar_spec_and_its_table():
    spec = charts.bar(
        "Spent",
        ["a", "b"],
        [charts.Series("KAPR", [Fraction(1, 4), 0.5]), charts.Series("Budget", [1, None])],
        x_title="Assignment",
        y_title="KAPR",
    )
    assert spec == {
        "type": "bar",
        "title": "Spent",
        "x": {"title": "Assignment", "scale": "category"},
        "y": {"title": "KAPR", "scale": "linear"},
        "labels": ["a", "b"],
        "series": [
            {"label": "KAPR", "data": [0.25, 0.5]},
            {"label": "Budget", "data": [1, None]},
        ],
    }
    assert charts.table(spec) == (
        ["Assignment", "KAPR", "Budget"],
        [["a", 0.25, 1], ["b", 0.5, None]],
    )


def test_scatter_table_keeps_point_labels():
    spec = charts.scatter(
        "Risk and accuracy",
        [charts.Series("workers", [{"x": 0.1, "y": 0.9, "label": "wes"}, {"x": 0.2, "y": 1}])],
        x_title="KAPR",
        y_title="Accuracy",
    )
    header, rows = charts.table(spec)
    assert header == ["Series", "Point", "KAPR", "Accuracy"]
    assert rows == [["workers", "wes", 0.1, 0.9], ["workers", "", 0.2, 1]]


def test_line_over_points_without_labels():
    spec = charts.line(
        "RL by window",
        [charts.Series("RL", [{"x": 1, "y": 20.0}, {"x": 5, "y": 28.3}])],
        x_title="Window (%)",
        y_title="RL (%)",
        x_scale="logarithmic",
    )
    assert spec["x"] == {"title": "Window (%)", "scale": "logarithmic"}
    assert "labels" not in spec
    assert charts.table(spec)[1] == [["RL", 1, 20.0], ["RL", 5, 28.3]]


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: charts.bar("t", ["a"], [charts.Series("s", [1, 2])], x_title="x", y_title="y"),
         "2 values for 1 labels"),
        (lambda: charts.bar("t", ["a"], [charts.Series("s", [1])], x_title="x", y_title="y",
                            y_scale="pie"), "axis scale"),
        (lambda: charts.scatter("t", [charts.Series("s", [1])], x_title="x", y_title="y"),
         "points"),
        (lambda: charts.bar("t", ["a"], [charts.Series("s", [{"x": 1, "y": 1}])], x_title="x",
                            y_title="y"), "plain numbers"),
        (lambda: charts.histogram("t", [1], bins=0, x_title="x"), "at least one bin"),
    ],
)  # fmt: skip
def test_malformed_specs_are_refused(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_non_finite_values_become_gaps():
    spec = charts.bar(
        "t", ["a", "b"], [charts.Series("s", [math.nan, math.inf])], x_title="x", y_title="y"
    )
    assert spec["series"][0]["data"] == [None, None]


def test_histogram_counts_every_value_once():
    spec = charts.histogram("P", [0, 0.1, 0.5, 0.99, 1.0, 1.0], bins=4, x_title="p", lo=0, hi=1)
    assert spec["labels"] == ["0–0.25", "0.25–0.5", "0.5–0.75", "0.75–1"]
    assert spec["series"][0]["data"] == [2, 0, 1, 3]


def test_csv_quotes_formula_text_and_keeps_numbers(app):
    header, rows = ["name", "value"], [["=HYPERLINK()", -1.5], ["@x", None], ["plain", 2]]
    with app.test_request_context():
        response = charts.csv_response(header, rows, "d.csv")
    assert response.headers["Cache-Control"] == "no-store"
    assert 'filename="d.csv"' in response.headers["Content-Disposition"]
    parsed = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert parsed == [["name", "value"], ["'=HYPERLINK()", "-1.5"], ["'@x", ""], ["plain", "2"]]


def test_cell_text():
    assert [charts.cell_text(v) for v in (None, 1 / 3, 7, "a")] == ["—", "0.333333", "7", "a"]
