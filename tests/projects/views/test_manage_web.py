"""The managers' pages through the test client: create, block, assign, progress, export."""

from __future__ import annotations

import csv
import io

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Assignment, CellState, Pair, Project, Record
from tests.factories import PASSWORD
from tests.projects.conftest import MALFORMED, MINDFIRL, row_counts

DEV_ROLES = {  # column index → (role, type) for dev_file1/2's 12 columns
    0: ("id", "string"), 1: ("identifying", "id"), 2: ("identifying", "string"),
    3: ("identifying", "string"), 4: ("identifying", "date"), 5: ("identifying", "category"),
    6: ("identifying", "category"),
    **{i: ("sensitive", "string") for i in range(7, 12)},
}  # fmt: skip


@pytest.fixture
def manager(client, people):
    client.post("/login", data={"username": "max", "password": PASSWORD})
    return client


def upload(client, kind, **files):
    data = {"name": "Web study", "kind": kind}
    data.update({label: (open(path, "rb"), path.name) for label, path in files.items()})  # noqa: SIM115
    response = client.post("/projects/new", data=data, content_type="multipart/form-data")
    for value in data.values():
        if isinstance(value, tuple):
            value[0].close()
    return response


def mapping_form(roles=DEV_ROLES, **extra):
    form = {f"role-{i}": role for i, (role, _) in roles.items()}
    form |= {f"type-{i}": kind for i, (_, kind) in roles.items()}
    return form | {"on_duplicate_id": "keep_first", "kappa": "1", "page_size": "10"} | extra


def create_link_project(manager) -> int:
    response = upload(manager, "link", A=MINDFIRL / "dev_file1.csv", B=MINDFIRL / "dev_file2.csv")
    assert response.status_code == 302
    map_url = response.headers["Location"]
    page = manager.get(map_url)
    assert b"Preview: dev_file1.csv" in page.data and b"1000000657" in page.data
    checked = manager.post(map_url, data=mapping_form())
    assert checked.status_code == 200 and b"but 8 rows will be dropped" in checked.data
    assert b"Every row is valid" not in checked.data  # 4 repeated ids in each file
    done = manager.post(map_url.replace("/map", "/import"))
    assert done.status_code == 302
    return int(done.headers["Location"].rstrip("/").split("/")[-1])


def test_link_project_end_to_end(app, manager):
    project_id = create_link_project(manager)
    base = f"/projects/{project_id}"
    rules = {"rule-0-attr-0": "last_name", "rule-0-transform-0": "exact"}
    preview = manager.post(f"{base}/blocking", data=rules | {"action": "preview"})
    assert b"last_name exact" in preview.data and b'id="total"' in preview.data
    assert manager.post(f"{base}/blocking", data=rules | {"action": "create"}).status_code == 302
    form = {"worker-wes": "on", "budget-wes": "50", "worker-wen": "on", "budget-wen": "30%",
            "coding": "double", "page_size": "5", "start_partial": ["dob"]}  # fmt: skip
    assert manager.post(f"{base}/assignments", data=form).status_code == 302
    with app.app_context():
        pairs = db.session.scalar(select(func.count(Pair.id)))
        assignments = db.session.scalars(select(Assignment)).all()
        assert [len(a.pairs) for a in assignments] == [pairs, pairs]
        assert db.session.scalar(select(func.count(CellState.id))) > 0  # dob starts partial
        first = assignments[0].id
    progress = manager.get(f"{base}/progress")
    assert b"wes" in progress.data and b"0 of" in progress.data
    assert manager.post(f"{base}/assignments/{first}/budget", data={"budget": "90"}).status_code
    assert b"90.00%" in manager.get(f"{base}/progress").data
    with app.app_context():
        assert db.session.get(Assignment, first).budget == 0.9  # typed in percent, kept exact
    for kind in ("labels", "clusters", "linked"):
        response = manager.get(f"{base}/export/{kind}")
        assert response.mimetype == "text/csv"
        assert len(list(csv.reader(io.StringIO(response.get_data(as_text=True))))) > 1
    assert manager.get(f"{base}/export/legacy").status_code == 404
    api = manager.get(f"/api/v1/projects/{project_id}/export/labels")
    assert api.status_code == 200 and api.data.startswith(b"source_dataset_l")


def test_pairfile_project_in_the_browser(app, manager):
    response = upload(
        manager, "pairfile", pairs=MINDFIRL / "pairfile_extra.csv", freq=MINDFIRL / "name_freq.csv"
    )
    map_url = response.headers["Location"]
    roles = {i: DEV_ROLES[i + 1] for i in range(11)}
    checked = manager.post(map_url, data=mapping_form(roles))
    assert b"12 pairs in 3 blocks" in checked.data
    project = manager.post(map_url.replace("/map", "/import"), follow_redirects=True)
    assert b"12 pairs" in project.data
    with app.app_context():
        project_id = db.session.scalar(select(Project.id))
    legacy = manager.get(f"/projects/{project_id}/export/legacy").get_data(as_text=True)
    assert len(legacy.splitlines()) == 25


def test_mindfirl_internal_pair_file_in_the_browser(app, manager):
    response = upload(manager, "pairfile", pairs=MINDFIRL / "production_p1_pairfile.csv")
    assert response.status_code == 302
    map_url = response.headers["Location"]
    page = manager.get(map_url).get_data(as_text=True)
    # Only the 11 attributes are offered for mapping; ID, type, file_id, cntfn, cntln, same
    # are structure (same, MINDFIRL's placeholder 0, is never stored).
    assert all(f'name="role-{i}"' in page for i in range(11))
    assert 'name="role-11"' not in page
    roles = {i: DEV_ROLES[i + 1] for i in range(11)}
    checked = manager.post(map_url, data=mapping_form(roles))
    text = checked.get_data(as_text=True)
    assert "12 pairs<" in text and "blocks" not in text
    project = manager.post(map_url.replace("/map", "/import"), follow_redirects=True)
    assert b"12 pairs" in project.data
    with app.app_context():
        assert db.session.scalar(select(func.count(Record.id))) == 6


def test_validation_errors_are_row_numbered_and_nothing_is_imported(app, manager):
    with app.app_context():
        before = row_counts()
    response = upload(manager, "dedupe", A=MALFORMED / "bad_date.csv")
    roles = {0: ("id", "string"), 1: ("identifying", "string"), 2: ("identifying", "string"),
             3: ("identifying", "date"), 4: ("sensitive", "string")}  # fmt: skip
    page = manager.post(response.headers["Location"], data=mapping_form(roles))
    assert page.status_code == 400
    assert b"line 2, column &#39;dob&#39;" in page.data
    assert b"Nothing was imported" in page.data
    with app.app_context():
        assert row_counts() == before


def test_mapping_needs_an_id_and_an_identifying_column(manager):
    response = upload(manager, "dedupe", A=MINDFIRL / "dev_file1.csv")
    page = manager.post(response.headers["Location"], data={"role-0": "sensitive"})
    assert page.status_code == 400
    assert b"unique id" in page.data and b"at least one identifying" in page.data


def test_upload_without_files_is_refused(manager):
    response = manager.post("/projects/new", data={"name": "x", "kind": "link"})
    assert response.status_code == 400 and b"choose the file a to upload" in response.data


def test_delete_after_confirmation(app, manager):
    project_id = create_link_project(manager)
    assert b"cannot be undone" in manager.get(f"/projects/{project_id}/delete").data
    wrong = manager.post(f"/projects/{project_id}/delete", data={"confirm_name": "nope"})
    assert wrong.status_code == 400
    done = manager.post(f"/projects/{project_id}/delete", data={"confirm_name": "Web study"})
    assert done.status_code == 302
    with app.app_context():
        assert row_counts() == dict.fromkeys(row_counts(), 0)


def test_another_managers_project_is_forbidden(app, client, people):
    from tests.factories import make_user

    with app.app_context():
        make_user("mia", "manager")
    client.post("/login", data={"username": "max", "password": PASSWORD})
    project_id = create_link_project(client)
    client.post("/logout")
    client.post("/login", data={"username": "mia", "password": PASSWORD})
    assert client.get(f"/projects/{project_id}").status_code == 403
    assert client.get(f"/api/v1/projects/{project_id}/export/labels").status_code == 403


def test_blocking_page_takes_rules_in_splink_spelling(app, manager):
    project_id = create_link_project(manager)
    base = f"/projects/{project_id}"
    swapped = "l.first_name = r.last_name AND l.last_name = r.first_name"
    form = {"splink_rules": f'block_on("last_name")\n\n{swapped}\n', "action": "preview"}
    preview = manager.post(f"{base}/blocking", data=form)
    assert preview.status_code == 200
    assert b"last_name exact" in preview.data and swapped.encode() in preview.data
    refused = manager.post(
        f"{base}/blocking", data={"splink_rules": "l.last_name = read_csv('/etc/passwd')"}
    )
    assert refused.status_code == 400 and b"is not allowed" in refused.data
