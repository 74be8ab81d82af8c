"""Charts draw in a real browser under the CSP, and show the rows of their data table."""

from __future__ import annotations

import csv
import io

import pytest

from app.analytics.kapr import kapr_report
from app.extensions import db
from app.review.services import reveal_cell
from tests.e2e.test_login import log_in
from tests.factories import make_assignment, make_user, paper_project


@pytest.fixture
def spent(app):
    with app.app_context():
        make_user("ada", "admin")
        manager = make_user("max", "manager")
        wes, wen = make_user("wes"), make_user("wen")
        project = paper_project(manager, name="Paper")
        first = make_assignment(project, wes, 0.5)
        pair_id = first.pairs[0].pair_id
        make_assignment(project, wen, 0.25, pairs=[pair_id])
        reveal_cell(first.id, pair_id, 0, "name", by=wes)
        db.session.commit()
        return float(kapr_report().assignments[1].kapr)


def test_kapr_report_chart_draws_its_table(page, live_server, spent):
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    log_in(page, live_server, "ada")
    page.goto(f"{live_server}/admin/reports/kapr")
    figure = page.locator("figure.chart").first
    figure.locator("canvas").wait_for()
    figure.and_(page.locator("[data-chart-ready='2']")).wait_for()
    drawn = figure.evaluate(
        "f => ({labels: f.chart.data.labels, data: f.chart.data.datasets.map(d => d.data),"
        " width: f.querySelector('canvas').width})"
    )
    assert drawn["width"] > 0
    assert drawn["labels"] == ["Paper (#1) · wen", "Paper (#1) · wes"]
    assert spent > 0
    assert drawn["data"] == [[0, pytest.approx(100 * spent)], [25, 50]]  # % of the maximum

    figure.locator("summary").click()
    cells = figure.locator("table.chart-data tbody tr").evaluate_all(
        "rows => rows.map(r => Array.from(r.cells, c => c.innerText))"
    )
    wes = ["Paper (#1) · wes", f"{100 * spent:.6g}", "50"]
    assert cells == [["Paper (#1) · wen", "0", "25"], wes]

    with page.expect_download() as download:
        figure.get_by_role("link", name="Download data (CSV)").click()
    text = download.value.path().read_text()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["Assignment", "KAPR spent (%)", "Budget (%)"]
    assert [r[0] for r in rows[1:]] == [c[0] for c in cells]
    assert [float(r[1]) for r in rows[1:]] == drawn["data"][0]
    assert problems == []


def test_counts_have_whole_ticks_and_every_label_is_written(page, live_server, spent, app):
    with app.app_context():
        from app.models import Project

        project = db.session.scalar(db.select(Project))
        project.name = "A project whose name is far longer than a tick label"
        db.session.commit()
        project_id = project.id
    log_in(page, live_server, "max")
    page.goto(f"{live_server}/projects/{project_id}/accountability")
    figure = page.locator("figure.chart").first
    figure.and_(page.locator("[data-chart-ready]")).wait_for()
    ticks = figure.evaluate(
        "f => ({y: f.chart.scales.y.ticks.map(t => t.value),"
        " x: f.chart.scales.x.ticks.map(t => t.label), labels: f.chart.data.labels})"
    )
    assert ticks["y"] and all(float(v).is_integer() for v in ticks["y"])  # records: no 0.5
    assert ticks["x"] == ticks["labels"]  # every attribute's label, none skipped (nor cut)
    page.context.clear_cookies()
    log_in(page, live_server, "ada")
    page.goto(f"{live_server}/admin/reports/kapr")
    figure = page.locator("figure.chart").first
    figure.and_(page.locator("[data-chart-ready='2']")).wait_for()
    labels = figure.evaluate("f => f.chart.scales.x.ticks.map(t => t.label)")
    assert labels and all(len(label) <= 30 for label in labels)  # cut, whole in the tooltip
    assert labels[0].endswith("…") and labels[0].startswith("A project whose name")
