"""Check a drawn chart against its data table and CSV download (shared by the e2e tests)."""

from __future__ import annotations

import csv
import io

import pytest

DRAWN = (
    "f => ({labels: JSON.parse(f.querySelector('script.chart-spec').textContent).labels"
    " ? f.chart.data.labels : null,"
    " data: f.chart.data.datasets.map(d => d.data),"
    " series: f.chart.data.datasets.map(d => d.label),"
    " width: f.querySelector('canvas').width})"
)


def _number(text: str) -> float | None:
    return None if text in ("—", "") else float(text)


def _same(a: str, b: str) -> bool:
    """Two cells agree: equal text, or numbers equal to the table's six significant digits."""
    try:
        x, y = _number(a), _number(b)
    except ValueError:
        return a == b
    return x == y or (x is not None and y is not None and x == pytest.approx(y, rel=1e-5))


def table_rows(figure) -> list[list[str]]:
    """The chart's data table, opened, as text cells."""
    figure.locator("summary").click()
    return figure.locator("table.chart-data tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells, c => c.innerText))"
    )


def check_chart(page, figure, *, download: bool = True) -> dict:
    """The canvas is drawn, its data equals the table's rows, and the CSV equals the table."""
    figure.locator("canvas").wait_for()
    n = figure.evaluate(
        "f => JSON.parse(f.querySelector('script.chart-spec').textContent).series.length"
    )
    figure.and_(page.locator(f"[data-chart-ready='{n}']")).wait_for()
    drawn = figure.evaluate(DRAWN)
    assert drawn["width"] > 0
    cells = table_rows(figure)
    if drawn["labels"] is not None:  # category x: one row per label, one column per series
        assert [row[0] for row in cells] == drawn["labels"]
        for i, series in enumerate(drawn["data"]):
            assert [_number(row[i + 1]) for row in cells] == pytest.approx(series, rel=1e-5)
    else:  # x/y points: one row per point, series by series
        points = [
            (s, p) for s, data in zip(drawn["series"], drawn["data"], strict=True) for p in data
        ]
        assert [row[0] for row in cells] == [s for s, _ in points]
        shown = [_number(v) for r in cells for v in r[-2:]]
        assert shown == pytest.approx([v for _, p in points for v in (p["x"], p["y"])], rel=1e-5)
    if download:
        with page.expect_download() as info:
            figure.get_by_role("link", name="Download data (CSV)").click()
        rows = list(csv.reader(io.StringIO(info.value.path().read_text())))
        header = figure.locator("table.chart-data thead th").all_inner_texts()
        assert rows[0] == header
        assert len(rows) == len(cells) + 1
        for got, shown in zip(rows[1:], cells, strict=True):
            assert len(got) == len(shown)
            assert all(_same(a, b) for a, b in zip(got, shown, strict=True)), (got, shown)
    return drawn
