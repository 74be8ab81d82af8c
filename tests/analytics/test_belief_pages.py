"""Admins' audit pages: charts with CSV downloads, per worker, and the linkage upload."""

from __future__ import annotations

import io

from tests.analytics.conftest import login
from tests.api.conftest import make_worker


def test_audit_pages(app, client, people):
    worker = make_worker(app, client, model="row", name="wen")
    for pair_id, row, attribute, _cell in list(worker.cells())[:4]:
        assert worker.reveal(pair_id, row, attribute).status_code == 200
    admin = login(client, "ada")
    listing = admin.get("/admin/audits")
    assert listing.status_code == 200 and b"Paper example" in listing.data
    page = admin.get("/admin/projects/1/audit")
    assert page.status_code == 200
    html = page.data.decode()
    assert html.count('<figure class="chart"') == 4 and "wen (#1)" in html
    assert 'class="chart-spec"' in html and "chart-4.6.1.umd.min.js" in html
    for chart in ("rows", "distribution", "nonspecificity", "trail", "rows-full", "trail-full"):
        download = admin.get(f"/admin/projects/1/audit/{chart}.csv?model=pair")
        assert download.status_code == 200 and download.mimetype == "text/csv"
        assert download.headers["Cache-Control"] == "no-store"
    trail = admin.get("/admin/projects/1/audit/trail-full.csv").data.decode().splitlines()
    assert len(trail) == 1 + 5  # header, the start and four reveals
    assert admin.get("/admin/projects/1/audit/nope.csv").status_code == 404
    assert admin.get("/admin/projects/9/audit").status_code == 404
    assert admin.get("/admin/projects/1/audit?model=both").status_code == 400


def test_audit_pages_are_for_admins(app, client, people):
    login(client, "max")
    assert client.get("/admin/projects/1/audit").status_code == 403


def test_linkage_upload_page(client, admin):
    assert admin.get("/admin/risk/belief/links").status_code == 200
    data = {"file": (io.BytesIO(b"record,candidates,mass,truth\ny1,x2,1,x1\n"), "links.csv")}
    page = admin.post("/admin/risk/belief/links", data=data, content_type="multipart/form-data")
    assert page.status_code == 200 and b"1 over-confident" in page.data
    bad = admin.post("/admin/risk/belief/links", data={"text": "record\n"})
    assert bad.status_code == 400 and b"header must name" in bad.data
