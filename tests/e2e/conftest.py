"""A live server in a thread and Debian's chromium driven by Playwright.

Playwright cannot download its own browsers here; it launches ``/usr/bin/chromium``.
Without chromium the browser tests are skipped locally and fail under ``CI=true``.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
ARGS = [
    "--no-sandbox",
    "--headless=new",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/e2e" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture
def app_overrides():
    return {"WTF_CSRF_ENABLED": True}


@pytest.fixture(scope="session")
def browser():
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is missing; `make test` installs it with apt-get as root")
        pytest.skip(f"{CHROMIUM} is missing (run `make test` as root to install it)")
    from playwright.sync_api import expect, sync_playwright

    # An assertion waits for its condition up to 10 s, as actions do (Playwright's 5 s was
    # passed once by four answers in flight while CI ran both engines at once); it is a bound
    # on a wait, never a time checked.
    expect.set_options(timeout=10_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def live_server(app):
    """Serve ``app`` on a free loopback port for the length of one test."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()
