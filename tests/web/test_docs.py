"""The documentation as pages: every page that cites a document links to it."""

from __future__ import annotations

import re
from pathlib import Path

from app import docs
from tests.factories import PASSWORD, make_user

ROOT = Path(__file__).resolve().parents[2]


def _login(app, client, role="worker"):
    with app.app_context():
        make_user("reader", role)
    client.post("/login", data={"username": "reader", "password": PASSWORD})


def test_a_document_is_a_page_with_its_links_to_the_others(app, client):
    assert client.get("/docs/release-risk").status_code == 302  # to the login page
    _login(app, client)
    page = client.get("/docs/release-risk").get_data(as_text=True)
    assert "<h1>Release risk: what the linked export still reveals</h1>" in page
    assert "<table>" in page  # the parameters' table
    api = client.get("/docs/api").get_data(as_text=True)
    assert '<a href="triage"><code>docs/triage.md</code></a>' in api
    for bad in ("nope", "..%2Fconfig", "README", "Release-Risk"):
        assert client.get(f"/docs/{bad}").status_code == 404, bad


def test_raw_html_in_a_document_is_shown_as_text(app, client, tmp_path, monkeypatch):
    (tmp_path / "x.md").write_text("# X\n\n<script>alert(1)</script> see `docs/y.md`\n")
    (tmp_path / "y.md").write_text("# Y\n")
    monkeypatch.setattr(docs, "_folder", lambda: tmp_path)
    _login(app, client)
    page = client.get("/docs/x").get_data(as_text=True)
    assert "<script>alert(1)" not in page and "&lt;script&gt;" in page
    assert '<a href="y"><code>docs/y.md</code></a>' in page


def test_every_cited_document_exists_and_is_linked():
    cited = set()
    for template in (ROOT / "templates").rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"(?<!<code>)docs/[a-z-]+\.md(?!</code></a>)", text), template
        cited |= set(re.findall(r"doc_url\('([a-z-]+)'\)", text))
    assert cited and all((ROOT / "docs" / f"{name}.md").is_file() for name in cited), cited
