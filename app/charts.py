"""Chart specs for the vendored Chart.js, and the same data as a table and a CSV download.

A chart is a plain dict (its *spec*) that a view builds with :func:`bar`, :func:`line`,
:func:`scatter` or :func:`histogram` and hands to the ``chart`` macro of
``templates/_chart.html``. The macro writes the spec into the page as a JSON data block (never
executed, so the CSP needs no inline script), and ``static/js/charts-1.0.0.js`` draws it.

The page's data table, the CSV download and the drawing all come from the one spec
(:func:`table`), so what a person reads in the table is what the picture shows::

    {"type": "bar" | "line" | "scatter",
     "title": str,
     "x": {"title": str, "scale": "category" | "linear" | "logarithmic"},
     "y": {"title": str, "scale": "linear" | "logarithmic"},
     "labels": [str, ...],                     # category x axis only
     "stacked": true,                          # bar charts only, optional
     "series": [{"label": str, "data": [number | None | {"x": n, "y": n, "label": str?}]}]}
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from flask import Response

from app import csvsafe
from app.headers import attachment

TYPES = ("bar", "line", "scatter")
SCALES = ("category", "linear", "logarithmic")

Number = int | float
Point = dict


@dataclass(frozen=True)
class Series:
    """One named row of values (category charts) or of points (x/y charts)."""

    label: str
    data: Sequence[Number | None | Point]


def bar(
    title: str,
    labels: Sequence[str],
    series: Sequence[Series],
    *,
    x_title: str,
    y_title: str,
    y_scale: str = "linear",
    stacked: bool = False,
) -> dict:
    """A bar chart: one bar per label and series (``stacked``: the series on one bar)."""
    spec = _spec("bar", title, series, ("category", x_title), (y_scale, y_title), labels)
    if stacked:
        spec["stacked"] = True
    return spec


def line(
    title: str,
    series: Sequence[Series],
    *,
    x_title: str,
    y_title: str,
    labels: Sequence[str] | None = None,
    x_scale: str = "linear",
    y_scale: str = "linear",
) -> dict:
    """A line chart over category ``labels``, or over x/y points when ``labels`` is None."""
    x_scale = "category" if labels is not None else x_scale
    return _spec("line", title, series, (x_scale, x_title), (y_scale, y_title), labels)


def scatter(
    title: str,
    series: Sequence[Series],
    *,
    x_title: str,
    y_title: str,
    x_scale: str = "linear",
    y_scale: str = "linear",
) -> dict:
    """A scatter chart of x/y points; a point may carry a ``label`` shown on hover."""
    return _spec("scatter", title, series, (x_scale, x_title), (y_scale, y_title), None)


def histogram(
    title: str,
    values: Iterable[Number],
    *,
    bins: int = 10,
    x_title: str,
    y_title: str = "Count",
    label: str = "Count",
    lo: float | None = None,
    hi: float | None = None,
) -> dict:
    """A bar chart of how many ``values`` fall in each of ``bins`` equal-width intervals.

    Intervals are closed on the left, the last one on both sides; ``lo`` and ``hi`` fix the
    range (e.g. 0 and 1 for probabilities), otherwise the values' own minimum and maximum.
    """
    data = [float(v) for v in values]
    if bins < 1:
        raise ValueError("a histogram needs at least one bin")
    lo = min(data, default=0.0) if lo is None else lo
    hi = max(data, default=1.0) if hi is None else hi
    if hi <= lo:
        hi = lo + 1.0
    width = (hi - lo) / bins
    counts = [0] * bins
    for v in data:
        if lo <= v <= hi:
            counts[min(int((v - lo) / width), bins - 1)] += 1
    edges = [lo + i * width for i in range(bins + 1)]
    labels = [f"{_fmt(edges[i])}–{_fmt(edges[i + 1])}" for i in range(bins)]
    return bar(title, labels, [Series(label, counts)], x_title=x_title, y_title=y_title)


def table(spec: dict) -> tuple[list[str], list[list]]:
    """The header and rows a chart shows: its data table and its CSV download."""
    if spec["x"]["scale"] == "category":
        header = [spec["x"]["title"], *(s["label"] for s in spec["series"])]
        rows = [
            [label, *(s["data"][i] for s in spec["series"])]
            for i, label in enumerate(spec["labels"])
        ]
        return header, rows
    labelled = any(isinstance(p, dict) and "label" in p for s in spec["series"] for p in s["data"])
    header = ["Series", *(["Point"] if labelled else []), spec["x"]["title"], spec["y"]["title"]]
    rows = []
    for s in spec["series"]:
        for p in s["data"]:
            rows.append(
                [s["label"], *([p.get("label", "")] if labelled else []), p["x"], p["y"]]
            )  # fmt: skip
    return header, rows


def csv_text(header: Sequence[str], rows: Iterable[Sequence]) -> str:
    """CSV of ``rows`` under ``header`` (:mod:`app.csvsafe`: no formula, no stray row)."""
    out = io.StringIO()
    writer = csvsafe.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def csv_response(header: Sequence[str], rows: Iterable[Sequence], filename: str) -> Response:
    """A CSV download (``no-store``: risk figures are not for shared caches)."""
    return attachment(csv_text(header, rows), "text/csv", filename)


def spec_csv_response(spec: dict, filename: str) -> Response:
    """The chart's own data (:func:`table`) as a CSV download."""
    return csv_response(*table(spec), filename)


def cell_text(value) -> str:
    """How the data table shows one value: a gap as a dash, floats to six significant digits."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def register(app) -> None:
    """Make :func:`table` and :func:`cell_text` available to the ``chart`` macro."""
    app.jinja_env.globals.update(chart_table=table, chart_cell=cell_text)


def _spec(kind, title, series, x, y, labels) -> dict:
    if kind not in TYPES:
        raise ValueError(f"chart type must be one of {', '.join(TYPES)}")
    for scale, _ in (x, y):
        if scale not in SCALES:
            raise ValueError(f"axis scale must be one of {', '.join(SCALES)}, not {scale!r}")
    if y[0] == "category":
        raise ValueError("the y axis cannot be a category axis")
    category = x[0] == "category"
    if category and labels is None:
        raise ValueError("a category x axis needs labels")
    out_series = []
    for s in series:
        data = [_point(p, category) for p in s.data]
        if category and len(data) != len(labels):
            raise ValueError(f"series {s.label!r} has {len(data)} values for {len(labels)} labels")
        out_series.append({"label": str(s.label), "data": data})
    spec = {
        "type": kind,
        "title": title,
        "x": {"title": x[1], "scale": x[0]},
        "y": {"title": y[1], "scale": y[0]},
        "series": out_series,
    }
    if category:
        spec["labels"] = [str(label) for label in labels]
    return spec


def _point(p, category: bool):
    if category:
        if isinstance(p, dict):
            raise ValueError("a category chart takes plain numbers, not points")
        return _number(p)
    if not isinstance(p, dict) or "x" not in p or "y" not in p:
        raise ValueError("an x/y chart takes points {'x': ..., 'y': ...}")
    point = {"x": _number(p["x"]), "y": _number(p["y"])}
    if "label" in p:
        point["label"] = str(p["label"])
    return point


def _number(v) -> Number | None:
    """A JSON-safe number: None stays a gap, NaN and infinities become gaps too."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        v = float(v)  # Fraction, Decimal, numpy scalars
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _fmt(x: float) -> str:
    return f"{x:.3g}"
