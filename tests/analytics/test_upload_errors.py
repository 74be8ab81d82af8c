"""The admins' uploads refuse bad files by line and field, never quoting a value; bounded as
the imports are; no body shape reaches a 500 (issue 28, points 1, 2 and 3).

Every error path of the trajectory and linkage-output uploads is driven, in the browser and
in the API, with values that carry a marker (``Q~x``), and each answer is searched for it.
"""

from __future__ import annotations

import io

import pytest

from tests.analytics.conftest import login
from tests.factories import make_token

MARK = "Q~x"  # "~" is in no CSRF token (base64url)
HEADER = "lon,lat,timestamp,trajectory_id,user_id"
GOOD = "1.25,41.5,2022/01/01 00:00:00,7,3"

#: One bad row (after a good one, line 3) per error path of the trajectory reader.
TRAJECTORY_ROWS = {
    "lon not a number": f"abc1.2345{MARK},41.5,2022/01/01 00:00:00,7,3",
    "lat not a number": f"1.25,{MARK}41.5,2022/01/01 00:00:00,7,3",
    "lat not finite": "1.25,-inf,2022/01/01 00:00:00,7,3",
    "lat outside": "1.25,95.123457,2022/01/01 00:00:00,7,3",
    "lon outside": "-181.987654,41.5,2022/01/01 00:00:00,7,3",
    "timestamp": f"1.25,41.5,2022-01-01 {MARK}:00,7,3",
    "trajectory id": f"1.25,41.5,2022/01/01 00:00:00,{MARK}7,3",
    "user id": f"1.25,41.5,2022/01/01 00:00:00,7,{MARK}3",
    "another user": "1.25,41.5,2022/01/01 00:00:09,7,987654",
    "fields": f"1.25,41.5,2022/01/01 00:00:00,7,3,{MARK}",
    "record chars": f"1.25,41.5,2022/01/01 00:00:00,7,3{MARK * 6000}",
}
#: What each row's value is, when the marker is not in it.
SPOKEN = {"lat outside": "95.12", "lon outside": "181.98", "another user": "987654"}

#: Linkage outputs (CSV) with one problem each.
LINKS = {
    "two truths": f"record,candidates,mass,truth\ny{MARK},x1,1/2,x1\ny{MARK},x2,1/2,x{MARK}9\n",
    "no truth": f"record,candidates,mass,truth\ny{MARK}1,x1,1,\n",
    "mass": f"record,candidates,mass,truth\ny1,x1,{MARK}1/2,x1\n",
    "masses sum": f"record,candidates,mass,truth\ny{MARK},x1,1/3,x1\n",
    "fields": f"record,candidates,mass,truth\ny1,x1,1,x1,{MARK}\n",
    "record chars": f"record,candidates,mass,truth\ny1,x1,1,x{MARK * 6000}\n",
    "columns": ",".join(f"c{i}{MARK}" for i in range(200)) + "\n1\n",
}


def trajectory_file(row: str) -> bytes:
    return f"{HEADER}\n{GOOD}\n{row}\n".encode()


def assert_no_value(text: str, case: str) -> None:
    assert MARK not in text, text[:2000]
    if case in SPOKEN:
        assert SPOKEN[case] not in text, text[:2000]


@pytest.fixture
def token(app, people):
    from app.extensions import db
    from app.models import User

    with app.app_context():
        return make_token(db.session.get(User, people["ada"]))


def trajectory_form(row: str) -> dict:
    good = (io.BytesIO(trajectory_file(GOOD.replace(",7,", ",8,"))), "original.csv")
    return {"original": good, "anonymized": (io.BytesIO(trajectory_file(row)), "anon.csv")}


@pytest.mark.parametrize("case", sorted(TRAJECTORY_ROWS))
def test_trajectory_upload_errors_name_the_line_and_column_only(client, people, token, case):
    row = TRAJECTORY_ROWS[case]
    login(client, "ada")
    page = client.post("/admin/risk/trajectories", data=trajectory_form(row))
    text = page.get_data(as_text=True)
    assert page.status_code == 400 and "anon.csv: line 3" in text
    assert_no_value(text, case)
    client.get("/logout")
    api = client.post(
        "/api/v1/analytics/trajectory-risk",
        data=trajectory_form(row),
        headers={"Authorization": f"Bearer {token}"},
    )
    assert api.status_code == 400 and "anon.csv: line 3" in api.get_json()["message"]
    assert_no_value(api.get_data(as_text=True), case)


def test_a_trajectory_file_wider_than_a_record_is_refused_at_its_header(admin):
    header = HEADER + "," + ",".join(f"c{i}" for i in range(200))
    body = f"{header}\n{GOOD}{',0' * 200}\n".encode()
    form = {"original": (io.BytesIO(body), "original.csv"), "anonymized": (io.BytesIO(body), "a")}
    page = admin.post("/admin/risk/trajectories", data=form)
    assert page.status_code == 400
    assert "line 1: 205 fields; a row has at most 101" in page.get_data(as_text=True)


@pytest.mark.parametrize("case", sorted(LINKS))
def test_linkage_output_errors_name_the_line_and_field_only(client, people, token, case):
    body = LINKS[case]
    login(client, "ada")
    page = client.post(
        "/admin/risk/belief/links",
        data={"file": (io.BytesIO(body.encode()), "links.csv")},
        content_type="multipart/form-data",
    )
    assert page.status_code == 400
    assert_no_value(page.get_data(as_text=True), case)
    client.get("/logout")
    api = client.post(
        "/api/v1/analytics/belief/links",
        data=body,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "text/csv"},
    )
    assert api.status_code == 400, api.get_data(as_text=True)
    assert_no_value(api.get_data(as_text=True), case)


def test_linkage_csv_messages_say_where(admin):
    two = admin.post("/admin/risk/belief/links", data={"text": LINKS["two truths"]})
    assert "CSV line 3, truth: another truth than on line 2" in two.get_data(as_text=True)
    none = admin.post("/admin/risk/belief/links", data={"text": LINKS["no truth"]})
    assert "1 record(s) without a truth, the first on line 2" in none.get_data(as_text=True)


NESTED = "[" * 100_000


def test_a_hundred_thousand_nested_brackets_are_a_400_in_the_form(admin):
    page = admin.post("/admin/risk/belief/links", data={"text": NESTED})
    assert page.status_code == 400 and "nested too deeply" in page.get_data(as_text=True)
    upload = admin.post(
        "/admin/risk/belief/links",
        data={"file": (io.BytesIO(NESTED.encode()), "links.json")},
        content_type="multipart/form-data",
    )
    assert upload.status_code == 400


@pytest.mark.parametrize("mimetype", ["text/plain", "text/csv", "application/octet-stream"])
def test_a_hundred_thousand_nested_brackets_are_a_400_in_the_api(client, token, mimetype):
    response = client.post(
        "/api/v1/analytics/belief/links",
        data=NESTED,
        headers={"Authorization": f"Bearer {token}", "Content-Type": mimetype},
    )
    assert response.status_code == 400, response.get_data(as_text=True)[:500]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (",".join(f"c{i}" for i in range(200)) + "\n1\n", "line 1: 200 fields"),
        (f"record_id,cluster_id\n1,{MARK * 400}\n", "line 2: field 2: value longer than"),
        (
            "record_id,cluster_id,"
            + ",".join(f"c{i}" for i in range(10))
            + "\n1,"
            + ",".join([MARK * 304] * 11)
            + "\n",
            "line 2: the values of this record",
        ),
    ],
    ids=["columns", "value chars", "record chars"],
)
def test_a_truth_file_is_bounded_as_the_imports_are(app, people, body, expected):
    from app.analytics.utility import TruthError, truth_from_file
    from app.extensions import db
    from app.models import User
    from tests.factories import paper_project

    with app.app_context():
        project = paper_project(db.session.get(User, people["max"]))
        with pytest.raises(TruthError, match=expected) as refused:
            truth_from_file(project, body.encode())
        assert MARK not in str(refused.value)


def test_nested_json_on_the_command_line_is_a_message_not_a_traceback(app, runner, tmp_path):
    path = tmp_path / "evidence.json"
    path.write_text(NESTED)
    belief = runner.invoke(args=["analytics", "belief", str(path)])
    assert belief.exit_code == 1 and "is not JSON" in belief.output
    links = runner.invoke(args=["analytics", "links", str(path)])
    assert links.exit_code == 1 and "nested too deeply" in links.output
