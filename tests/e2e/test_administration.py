"""User administration in a browser: deactivate, one-time password, tokens, the audit, the
account page; a deactivated user's open session stops at once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from app.auth.services import issue_token
from app.extensions import db
from app.models import User
from tests.e2e.test_login import log_in
from tests.factories import make_user


@pytest.fixture
def team(app):
    with app.app_context():
        ids = {
            n: make_user(n, r).id
            for n, r in [("ada", "admin"), ("max", "manager"), ("wes", "worker")]
        }
        issue_token(db.session.get(User, ids["wes"]), "nightly export")
        db.session.commit()
        return ids


@pytest.fixture
def second(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def test_admin_deactivates_resets_and_revokes(page, second, live_server, team):
    log_in(second, live_server, "wes")  # wes is working in another browser
    second.wait_for_url(f"{live_server}/review/")

    log_in(page, live_server, "ada")
    page.wait_for_url(f"{live_server}/admin/")
    row = page.locator(f"#user-{team['wes']}")
    expect(row).to_contain_text("active")
    row.get_by_role("button", name="Deactivate wes").click()
    expect(page.locator(".flash-info")).to_contain_text("wes is deactivated")
    assert page.url.endswith(f"/admin/#user-{team['wes']}")  # back at the row
    expect(page.locator(f"#user-{team['wes']}")).to_contain_text("deactivated")
    second.reload()  # wes's session stopped at once
    expect(second).to_have_url(re.compile(r"/login"))

    page.locator(f"#user-{team['wes']}").get_by_role("button", name="Reactivate wes").click()
    page.locator(f"#user-{team['wes']}").get_by_role(
        "button", name="Reset the password of wes"
    ).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("One-time password for wes")
    one_time = page.locator("#password").inner_text()

    second.goto(f"{live_server}/login")
    log_in(second, live_server, "wes", one_time)
    expect(second).to_have_url(f"{live_server}/account")
    expect(second.locator("#must-change")).to_be_visible()
    second.goto(f"{live_server}/review/")  # nothing else until a new password is chosen
    expect(second).to_have_url(f"{live_server}/account")
    second.get_by_label("Current password (the one-time password)").fill(one_time)
    second.get_by_label("New password (at least 8 characters)").fill("wes chose this")
    second.get_by_label("New password again").fill("wes chose this")
    second.get_by_role("button", name="Change password").click()
    expect(second).to_have_url(f"{live_server}/review/")
    expect(second.locator(".flash-info")).to_contain_text("Password changed")

    page.goto(f"{live_server}/admin/")
    page.get_by_role("link", name="wes", exact=True).click()
    tokens = page.locator("#token-list tbody tr")
    expect(tokens).to_have_count(1)
    expect(tokens.first).to_contain_text("nightly export")
    tokens.first.get_by_role("button", name="Revoke token 1").click()
    expect(page.locator(".flash-info")).to_contain_text("Token 1 of wes revoked")
    expect(page.locator("#token-list")).to_contain_text("No API tokens.")
    history = page.locator("#account-events tbody tr").all_inner_texts()
    assert [h.split("\t")[1] for h in history] == [
        "API token revoked", "password changed by its user",
        "password reset (one-time password issued)", "reactivated", "deactivated",
        "API token issued", "account created",
    ]  # fmt: skip
    assert all(one_time not in h and "wes chose this" not in h for h in history)


def test_a_user_revokes_their_own_token_on_their_account_page(page, live_server, team):
    log_in(page, live_server, "wes")
    page.wait_for_url(f"{live_server}/review/")
    page.get_by_role("link", name=re.compile("^wes")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your account: wes")
    page.get_by_role("button", name="Revoke token 1").click()
    expect(page.locator(".flash-info")).to_contain_text("Token 1 revoked")
    expect(page.locator("#token-list")).to_contain_text("No API tokens.")
