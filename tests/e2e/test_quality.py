"""Reviewer quality in a real browser: the reviewer's page with checks and a break reminder,
the alert on the progress page (pause, the reviewer refused, dismiss), an adjudication in the
conflicts queue and the quality page that shows them."""

from __future__ import annotations

import re

from playwright.sync_api import expect
from sqlalchemy import select

from app.extensions import db
from app.models import AssignmentPair, Project, QualityCheck, User
from app.projects.quality import CheckSpec
from app.projects.staffing import assign_workers
from app.review.answers import record_decision
from tests.e2e.test_login import log_in
from tests.factories import make_user
from tests.projects.quality.conftest import voters_spec

FLIP = {"same": "different", "different": "same"}


def _world(app):
    """60 voters double-coded by ann and bob with 30 % synthetic checks; a break is due
    after two decisions in a session."""
    from app.projects.lifecycle import create_project

    with app.app_context():
        manager = make_user("max", "manager")
        make_user("ann")
        bob = make_user("bob")
        project = create_project({**voters_spec(60, seed=5), "page_size": 10}, owner=manager)
        project.break_decisions = 2
        made = assign_workers(
            project, {"ann": 1.0, "bob": 1.0}, coders=2, checks=CheckSpec(0.3, "synthetic")
        )
        db.session.commit()
        by = {a.worker.username: a for a in made}
        links = db.session.scalars(
            select(AssignmentPair)
            .where(AssignmentPair.assignment_id == by["ann"].id)
            .order_by(AssignmentPair.position)
        ).all()
        checks = dict(
            db.session.execute(
                select(QualityCheck.pair_id, QualityCheck.expected).where(
                    QualityCheck.assignment_id == by["ann"].id
                )
            ).all()
        )
        order = [(i, link.handle, link.pair_id) for i, link in enumerate(links)]
        # bob answers a real pair ann will answer otherwise: the conflict to adjudicate
        real = next(pair for _i, _h, pair in order if pair not in checks)
        record_decision(by["bob"], real, "different", "high", by=db.session.get(User, bob.id))
        db.session.commit()
        return project.id, by["ann"].id, order, checks, real


def _answer(page, handle: int, decision: str) -> None:
    pair = page.locator(f'tbody.pair[data-pair="{handle}"]')
    pair.get_by_role("button", name=f"{decision}, high confidence").click()


def test_reviewer_alert_pause_dismiss_and_adjudication(app, browser, page, live_server):
    project_id, assignment, order, checks, disputed = _world(app)
    worker = browser.new_context().new_page()
    worker.set_default_timeout(10_000)
    log_in(worker, live_server, "ann")
    worker.wait_for_url(f"{live_server}/review/")

    def open_page(number: int) -> None:
        worker.goto(f"{live_server}/review/assignments/{assignment}?page={number}")
        expect(worker.locator("#review")).to_have_attribute("data-ready", "true")

    open_page(1)
    first = worker.locator("tbody.pair").first
    first.locator('.cell[data-row="0"][data-attr="last_name"]').click()
    expect(worker.locator("#kapr-value")).not_to_have_text("0.00%")
    # the disputed real pair first: "same" (bob said "different"); then the checks, all
    # wrong, until an alert opens (the checks' places are random: some may come before it)
    shown = 0
    for index, handle, pair in sorted(order, key=lambda item: item[2] != disputed):
        if pair != disputed and pair not in checks:
            continue
        if index // 10 + 1 != shown:
            shown = index // 10 + 1
            open_page(shown)
        _answer(worker, handle, "same" if pair == disputed else FLIP[checks[pair]])
        chosen = f'tbody.pair[data-pair="{handle}"] .choose[aria-pressed="true"]'
        expect(worker.locator(chosen)).to_have_count(1)
        with app.app_context():
            from app.models import ReviewerAlert

            if db.session.scalar(select(ReviewerAlert.id)):
                break
    expect(worker.locator("#break-reminder")).to_be_visible()
    expect(worker.locator("#break-reminder")).to_contain_text("time for a break")

    # the manager sees the alert on the progress page and pauses the assignment
    log_in(page, live_server, "max")
    page.goto(f"{live_server}/projects/{project_id}/progress")
    row = page.locator("#alerts-table tbody tr").first
    expect(row).to_contain_text("ann")
    expect(row.locator(".alert-state")).to_have_text("open")
    row.get_by_role("button", name="Pause").click()
    expect(page.locator(".flash-info")).to_contain_text("pause recorded")
    expect(page.locator("#alerts-table .alert-state").first).to_contain_text("paused")

    # the reviewer's next answer is refused, and says why
    index, handle = next((i, h) for i, h, p in order if p not in checks and p != disputed)
    open_page(index // 10 + 1)
    _answer(worker, handle, "same")
    expect(worker.locator("#alert")).to_contain_text("paused this assignment")

    page.locator("#alerts-table tbody tr").first.get_by_role("button", name="Dismiss").click()
    expect(page.locator("#alerts-table .alert-state").first).to_have_text("dismissed")

    # the disputed pair is settled in the conflicts queue; the quality page shows who did it
    page.goto(f"{live_server}/projects/{project_id}/conflicts")
    page.get_by_label(f"Decision for pair {disputed}").select_option("same")
    page.get_by_label(f"Confidence for pair {disputed}").select_option("high")
    page.get_by_role("button", name=f"Resolve pair {disputed}").click()
    expect(page.locator(".flash-info")).to_have_text(f"Pair {disputed} resolved: same.")
    page.goto(f"{live_server}/projects/{project_id}/quality")
    expect(page.locator("#adjudications-table")).to_contain_text("max")
    expect(page.locator("#adjudications-table")).to_contain_text("manager")
    ann_row = page.locator('#reviewers tr[data-reviewer="ann"]')
    expect(ann_row).to_contain_text(re.compile(r"0 / [34]"))  # no check right
    expect(page.locator("#kappa")).to_be_visible()
    expect(page.locator("figure.chart")).to_have_count(4)
    with app.app_context():
        assert db.session.get(Project, project_id).break_decisions == 2
