"""The admins' report of disclosure policies: the bench's figures as charts and CSV."""

from __future__ import annotations

import csv
import io

import pytest

from app.analytics import advice
from tests.analytics.conftest import login

PAGES = ["/admin/reports/advice", "/admin/reports/advice.csv", "/admin/reports/advice-0-kapr.csv"]


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("username", ["max", "wes"])
def test_only_admins(client, people, username, path):
    login(client, username)
    assert client.get(path).status_code == 403


def test_the_stored_figures_cover_every_dataset_policy_and_model():
    figures = advice.load_figures()
    assert figures["date"] and figures["machine"]
    names = advice.datasets(figures)
    assert [n.split(" ")[0] for n in names] == ["CHI", "MINDFIRL", "FEBRL4"]
    for name in names:
        rows = [r for r in figures["rows"] if r["dataset"] == name]
        assert {r["reviewer"] for r in rows} == {"human", "evidence"}
        assert {"reveal-all", "moderate", "low", "masked", "advisor", "advisor+budget"} <= {
            r["policy"] for r in rows
        }
    assert [s["mode"] for s in figures["study"]] == [
        "baseline",
        "full",
        "moderate",
        "low",
        "masked",
    ]


def test_the_page_charts_accuracy_with_the_study_on_the_same_axes(admin):
    html = admin.get("/admin/reports/advice").get_data(as_text=True)
    assert html.count('data-chart-type="scatter"') == 3 and html.count('data-chart-type="bar"') == 3
    assert "CHI 2018 participants" in html and "bench/advisor.py" in html


def test_the_downloads(admin):
    everything = admin.get("/admin/reports/advice.csv")
    rows = list(csv.reader(io.StringIO(everything.get_data(as_text=True))))
    assert rows[0] == list(advice.CSV_COLUMNS) and len(rows) == 1 + len(
        advice.load_figures()["rows"]
    )
    chart = admin.get("/admin/reports/advice-0-accuracy.csv").get_data(as_text=True)
    rows = list(csv.reader(io.StringIO(chart)))
    assert rows[0] == ["Series", "Point", "Characters shown (%)", "Accuracy (%)"]
    assert ["CHI 2018 participants (the paper, 104 people)", "moderate", "30.4", "84.49"] in rows
    assert admin.get("/admin/reports/advice-9-kapr.csv").status_code == 404
