"""The import pages with files as they come: header choice and column names, date layouts,
invalid dates kept as missing, generated ids, and the messages (counted lists, binary
files named, "upload again" keeping the project's name and kind, a blank n)."""

from __future__ import annotations

import io
import re

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import NameFrequency, Pair, Project, Record
from tests.projects.conftest import MALFORMED, MINDFIRL
from tests.projects.views.test_manage_web import mapping_form, upload


@pytest.fixture
def manager(client, people):
    from tests.factories import PASSWORD

    client.post("/login", data={"username": "max", "password": PASSWORD})
    return client


def post_files(client, kind, name="Study", header="auto", **files):
    data = {"name": name, "kind": kind, "header": header}
    data.update({label: (io.BytesIO(body), f"{label}.csv") for label, body in files.items()})
    return client.post("/projects/new", data=data, content_type="multipart/form-data")


def text(response) -> str:
    return response.get_data(as_text=True)


def test_section2_detected_headerless_named_and_imported(app, manager):
    response = upload(manager, "pairfile", pairs=MINDFIRL / "section2.csv")
    map_url = response.headers["Location"]
    page = text(manager.get(map_url))
    assert "detected from the first rows" in page
    assert re.search(r'<option value="no" selected>is data \(no header row\)', page)
    assert 'value="PairID,voter_reg_num,FFreq,first_name' in page  # MINDFIRL's names
    # Columns offered: the attributes (PairID, FFreq, LFreq are structure); helpers ignored.
    columns = re.findall(r'<th scope="row">([^<]+)</th>', page)
    assert columns[:3] == ["voter_reg_num", "first_name", "last_name"] and len(columns) == 15
    roles = dict(
        re.findall(r'aria-label="Role of ([^"]+)">.*?<option value="(\w+)" selected', page, re.S)
    )
    assert roles["helper_first_name"] == "ignored" and roles["truth"] == "truth"
    form = {f"role-{i}": "identifying" for i in range(6)}
    form |= {"type-0": "id", "type-1": "string", "type-2": "string", "type-3": "date",
             "type-4": "category", "type-5": "category"}  # fmt: skip
    form |= {f"role-{i}": "ignored" for i in range(6, 12)}
    form |= {"role-12": "sensitive", "role-13": "sensitive", "role-14": "truth"}
    checked = manager.post(map_url, data=form)
    assert checked.status_code == 200, text(checked)
    assert "331 pairs" in text(checked) and "Every row is valid" in text(checked)
    project = manager.post(map_url.replace("/map", "/import"), follow_redirects=True)
    assert b"331 pairs" in project.data
    with app.app_context():
        project_id = db.session.scalar(select(Project.id))
        assert db.session.scalar(select(func.count(NameFrequency.id))) > 0
    utility = manager.get(f"/api/v1/projects/{project_id}/risk-utility").get_json()
    assert utility["truth_pairs"] == 331 and utility["truth"] == "the column 'truth'"


def test_the_first_row_can_be_declared_data_and_the_columns_named(app, manager):
    response = upload(manager, "dedupe", A=MALFORMED / "no_header.csv")
    map_url = response.headers["Location"]
    token = map_url.split("/")[-2]
    # Two rows are too few to be sure: the manager says the first row is data, names them.
    bad = manager.post(f"/projects/new/{token}/layout", data={"header-A": "no", "names": "a,b"})
    assert "give 5 column names" in text(manager.get(bad.headers["Location"]))
    names = "ID, first_name, last_name, dob, notes"
    manager.post(f"/projects/new/{token}/layout", data={"header-A": "no", "names": names})
    page = text(manager.get(map_url))
    assert '<th scope="row">first_name</th>' in page and "Ann" in page
    roles = {0: ("id", "string"), 1: ("identifying", "string"), 2: ("identifying", "string"),
             3: ("identifying", "date"), 4: ("sensitive", "string")}  # fmt: skip
    checked = manager.post(map_url, data=mapping_form(roles, on_duplicate_id="error"))
    assert "Source A: 2 records" in text(checked)


FEBRLISH = (
    b"rec_id,given_name,surname,date_of_birth\n"
    b"r1,ann,lee,19460704\nr2,bob,ray,19461304\nr3,cy,lo,\nr4,dee,li,19900230\n"
)
FEBRL_FORM = {
    "role-0": "id", "role-1": "identifying", "role-2": "identifying", "role-3": "identifying",
    "type-1": "string", "type-2": "string", "type-3": "date",
    "kappa": "1", "page_size": "10",
}  # fmt: skip


def test_date_layout_per_column_and_invalid_dates(app, manager):
    response = post_files(manager, "dedupe", A=FEBRLISH)
    map_url = response.headers["Location"]
    page = text(manager.get(map_url))
    # The layout is guessed from the preview: YYYYMMDD is selected for date_of_birth.
    assert re.search(
        r'aria-label="Date format of date_of_birth">.*?<option value="%Y%m%d" selected>YYYYMMDD',
        page,
        re.S,
    )
    refused = manager.post(map_url, data=FEBRL_FORM | {"format-3": "%Y%m%d"})
    assert refused.status_code == 400
    assert "file A, line 3, column &#39;date_of_birth&#39;: not a calendar date" in text(refused)
    kept = manager.post(
        map_url, data=FEBRL_FORM | {"format-3": "%Y%m%d", "invalid_dates": "missing"}
    )
    page = text(kept)
    assert kept.status_code == 200 and "Every row is valid" not in page
    assert "2 dates that cannot be read will be kept as missing" in page
    assert "file A, column date_of_birth: 2" in page
    manager.post(map_url.replace("/map", "/import"))
    with app.app_context():
        dates = db.session.scalars(select(Record.values).order_by(Record.position)).all()
        assert [d["date_of_birth"] for d in dates] == ["07041946", None, None, None]


def test_generated_ids_from_the_browser(app, manager):
    response = upload(manager, "dedupe", A=MINDFIRL / "dev_file1.csv")
    map_url = response.headers["Location"]
    checked = manager.post(map_url, data=mapping_form(on_duplicate_id="generate"))
    page = text(checked)
    assert "Source A: 19 records" in page and "Record ids generated" in page
    assert "Ground truth (vault): ID" in page and "Every row is valid" in page


def test_every_problem_counted_and_both_files_listed(manager, tmp_path):
    rows = "".join(f"{i},1,LYNN,WILDING,13/45/1946,M,W,a,b,c,d,e\n" for i in range(150))
    bad = ("ID,voter_reg_num,first_name,last_name,dob,sex,race,info1,info2,info3,info4,info5\n"
           + rows).encode()  # fmt: skip
    response = post_files(manager, "link", A=bad, B=(MINDFIRL / "dev_file2.csv").read_bytes())
    page = text(
        manager.post(response.headers["Location"], data=mapping_form(on_duplicate_id="error"))
    )
    # 150 bad dates in A (100 listed), B's 4 repeated ids and its 11-field row: 155 in all.
    assert "155 problems (the first 105 listed)" in page
    assert "… and 50 more (155 in all)." in page
    assert len(re.findall(r"file B, line \d+, column &#39;ID&#39;: duplicate id", page)) == 4


def test_a_png_is_called_a_png(manager):
    png = (MALFORMED / "binary.csv").read_bytes()
    response = post_files(manager, "dedupe", A=png)
    page = text(manager.get(response.headers["Location"]))
    assert "this is a PNG image, not a CSV file" in page and "UTF-8" not in page
    # "Upload the files again" keeps the project's name and kind.
    again = re.search(r'href="([^"]+)">Upload the files again', page).group(1).replace("&amp;", "&")
    form = text(manager.get(again))
    assert 'value="Study"' in form and re.search(r'value="dedupe" checked', form)


def test_a_blank_n_says_what_is_missing(app, manager):
    response = upload(manager, "dedupe", A=MINDFIRL / "dev_file1.csv")
    map_url = response.headers["Location"]
    manager.post(map_url, data=mapping_form())
    done = manager.post(map_url.replace("/map", "/import"))
    project = done.headers["Location"].rstrip("/")
    rules = {"rule-0-attr-0": "last_name", "rule-0-transform-0": "first_n", "rule-0-n-0": ""}
    page = text(manager.post(f"{project}/blocking", data=rules | {"action": "preview"}))
    assert "rule 1, key 1: first_n needs n, how many characters (1 or more)" in page
    assert "not 0" not in page
    with manager.application.app_context():
        assert db.session.scalar(select(func.count(Pair.id))) == 0
