"""MAX_ATTRIBUTES and MAX_RECORD_CHARS hold on every way into a project (issue 28, point 1).

A 50,000-column file, 101 identifying columns and a 12,000-character record are refused in
the browser, on the command line, in a pair file and in the JSON API, with a message that
names the file, line or field and never a value, and nothing is left behind: no project row,
no staged upload on disk (point 7).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.models import Project
from tests.factories import PASSWORD

WIDE = 50_000
#: A value that must never come back in a message: two characters, one of them ("~") in no
#: CSRF token or other base64 text of a page, so it cannot appear there by chance.
SECRET = "Q~"


def wide_file(width: int = WIDE) -> bytes:
    """A header and one row (under werkzeug's 500 kB, which the test client would spool to
    a temporary file it never closes)."""
    header = ",".join(f"c{i}" for i in range(width))
    row = ",".join(SECRET for _ in range(width))
    return f"{header}\n{row}\n".encode()


def attribute_file(count: int = 101) -> bytes:
    """An id and ``count`` name columns (each proposed as identifying)."""
    header = "ID," + ",".join(f"first_name_{i}" for i in range(count))
    rows = [f"{n}," + ",".join(f"{SECRET}{n}" for _ in range(count)) for n in (1, 2)]
    return "\n".join([header, *rows, ""]).encode()


def long_record_file(columns: int = 13, chars: int = 950) -> bytes:
    """Line 3 holds a record of ``columns * chars`` characters (each value under the limit
    of one value, MAX_VALUE_CHARS)."""
    header = "ID," + ",".join(f"name_{i}" for i in range(columns))
    short = "1," + ",".join("Ann" for _ in range(columns))
    long = "2," + ",".join(SECRET * (chars // 2) for _ in range(columns))
    return "\n".join([header, short, long, ""]).encode()


def long_pair_file(columns: int = 13, chars: int = 950) -> bytes:
    header = "PairID,GroupID,DB,ID," + ",".join(f"name_{i}" for i in range(columns))
    short = ",".join("Ann" for _ in range(columns))
    long = ",".join(SECRET * (chars // 2) for _ in range(columns))
    rows = [f"p1,g1,A,a1,{short}", f"p1,g1,B,b1,{long}"]
    return "\n".join([header, *rows, ""]).encode()


@pytest.fixture
def manager(client, people):
    client.post("/login", data={"username": "max", "password": PASSWORD})
    return client


def uploads_left(app) -> list[Path]:
    root = Path(app.config["UPLOAD_FOLDER"])
    return list(root.iterdir()) if root.is_dir() else []


def projects(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count(Project.id)))


def post_files(client, kind, **files):
    data = {"name": "Study", "kind": kind, "header": "auto"}
    data.update({label: (io.BytesIO(body), f"{label}.csv") for label, body in files.items()})
    return client.post("/projects/new", data=data, content_type="multipart/form-data")


def assert_refused_and_gone(app, response, *expected: str) -> None:
    page = response.get_data(as_text=True)
    assert response.status_code == 400, page[:2000]
    for text in expected:
        assert text in page, page[:3000]
    assert SECRET not in page
    assert len(page) < 100_000  # the refusal, not a page of the file's columns
    assert uploads_left(app) == [] and projects(app) == 0


@pytest.mark.parametrize(
    ("kind", "label", "body", "expected"),
    [
        ("dedupe", "A", wide_file(), "file A, line 1: 49,999 columns besides the record id"),
        ("link", "B", wide_file(), "file B, line 1: 49,999 columns besides the record id"),
        ("dedupe", "A", attribute_file(), "file A, line 1: 101 columns besides the record id"),
        ("pairfile", "pairs", wide_file(), "pair file, line 1: 49,999 columns"),
    ],
    ids=["wide-A", "wide-B", "attributes", "wide-pairs"],
)
def test_a_file_wider_than_a_project_is_refused_at_upload(
    app, manager, kind, label, body, expected
):
    files = {"A": attribute_file(3), "B": attribute_file(3)} if kind == "link" else {}
    response = post_files(manager, kind, **(files | {label: body}))
    assert_refused_and_gone(app, response, expected, "at most 100 attributes (MAX_ATTRIBUTES)")


def test_one_hundred_attributes_and_an_id_are_accepted(app, manager):
    response = post_files(manager, "dedupe", A=attribute_file(100))
    assert response.status_code == 302
    page = manager.get(response.headers["Location"])
    assert page.status_code == 200 and len(uploads_left(app)) == 1


def mapping(columns: int) -> dict:
    form = {"role-0": "id", "kappa": "1", "page_size": "10"}
    return form | {f"role-{i}": "identifying" for i in range(1, columns + 1)}


def test_a_record_past_max_record_chars_is_refused_in_the_browser(app, manager):
    response = post_files(manager, "dedupe", A=long_record_file())
    assert response.status_code == 302
    refused = manager.post(response.headers["Location"], data=mapping(13))
    assert_refused_and_gone(
        app,
        refused,
        "file A, line 3: the values of this record together are longer than 10,000 characters",
        "upload them again",
    )


def test_a_pair_file_record_past_max_record_chars_is_refused(app, manager):
    response = post_files(manager, "pairfile", pairs=long_pair_file())
    assert response.status_code == 302
    form = {"kappa": "1", "page_size": "10"} | {f"role-{i}": "identifying" for i in range(13)}
    refused = manager.post(response.headers["Location"], data=form)
    assert_refused_and_gone(app, refused, "pair file, line 3: the values of this record together")


def test_an_unreadable_file_is_deleted_at_once(app, manager):
    response = post_files(manager, "dedupe", A=b"ID,name\n1,\xff\xfe\n")
    page = manager.get(response.headers["Location"])
    assert_refused_and_gone(app, page, "not valid UTF-8", "upload them again")


@pytest.mark.parametrize(
    ("kind", "body", "expected"),
    [
        ("dedupe", wide_file(), "file A, line 1: 49,999 columns besides the record id"),
        ("dedupe", attribute_file(), "file A, line 1: 101 columns besides the record id"),
        ("dedupe", long_record_file(), "file A, line 3: the values of this record together"),
        ("pairfile", long_pair_file(), "pair file, line 3: the values of this record together"),
    ],
    ids=["wide", "attributes", "record", "pair-record"],
)
def test_the_command_line_refuses_the_same_files(
    app, runner, people, tmp_path, kind, body, expected
):
    path = tmp_path / "in.csv"
    path.write_bytes(body)
    roles = [] if kind == "pairfile" else ["--role", "ID=id"]
    for i in range(13):
        roles += ["--role", f"name_{i}=identifying"]
    args = ["projects", "import", "Study", str(path), "--kind", kind, "--owner", "max", *roles]
    result = runner.invoke(args=args)
    assert result.exit_code != 0
    assert expected in result.output and SECRET not in result.output
    assert uploads_left(app) == [] and projects(app) == 0


def json_project(attributes: int = 2, value: str = "Ann") -> dict:
    names = [f"name_{i}" for i in range(attributes)]
    records = [{"id": str(n), **dict.fromkeys(names, value)} for n in (1, 2)]
    return {
        "name": "Study",
        "kind": "dedupe",
        "attributes": [{"name": n} for n in names],
        "records": records,
    }


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (json_project(101), "attributes"),
        (json_project(13, SECRET * 475), "longer than 10,000 characters"),
    ],
    ids=["attributes", "record"],
)
def test_the_json_api_refuses_the_same_projects(app, manager, body, expected):
    response = manager.post("/api/v1/projects", json=body)
    assert response.status_code == 400
    assert expected in response.get_data(as_text=True)
    assert SECRET not in response.get_data(as_text=True) and projects(app) == 0


def test_the_project_schema_itself_refuses_101_attributes(app, people):
    from app.models import User
    from app.projects.lifecycle import ProjectSpecError, create_project

    with app.app_context():
        owner = db.session.get(User, people["max"])
        spec = json_project(101)
        with pytest.raises(ProjectSpecError, match=r"101 attributes; a project has at most 100"):
            create_project(spec, owner)


def long_ids_pair_file() -> bytes:
    """Two pairs whose PairIDs (120 characters) are the same in their first 100."""
    stem = SECRET * 50
    rows = [
        f"{stem}{tail},g1,{side},{side}{tail},Ann"
        for tail in ("x" * 20, "y" * 20)
        for side in ("A", "B")
    ]
    return "\n".join(["PairID,GroupID,DB,ID,first_name", *rows, ""]).encode()


def test_pair_ids_past_100_characters_are_refused_not_cut(app, manager):
    response = post_files(manager, "pairfile", pairs=long_ids_pair_file())
    assert response.status_code == 302
    form = {"kappa": "1", "page_size": "10", "role-0": "identifying"}
    refused = manager.post(response.headers["Location"], data=form)
    page = refused.get_data(as_text=True)
    assert refused.status_code == 400, page[:2000]
    problems = page.split('<ul class="problems">')[1].split("</ul>")[0]
    assert "pair file, line 2, column &#39;PairID&#39;: longer than 100 characters" in problems
    assert "line 5, column &#39;PairID&#39;" in problems  # each long id, none cut to another
    assert SECRET not in problems and projects(app) == 0  # (the page previews the file)


def test_an_unreadable_scored_pairs_file_is_deleted_at_once(app, manager, people):
    """Point 7 on the triage page: a predictions file no setting can read is not kept."""
    from app.models import User
    from app.projects.lifecycle import create_project
    from tests.projects.triage.test_rounds import link_spec

    with app.app_context():
        project = create_project(link_spec(), db.session.get(User, people["max"]))
        db.session.commit()
        project_id = project.id
    form = {"lower": "0.1", "upper": "0.95", "calibration": "1", "seed": "3",
            "score": "probability", "order": "uncertainty", "bins": "10", "action": "preview",
            "scores": (io.BytesIO(b"PK\x03\x04 a workbook"), "p.xlsx")}  # fmt: skip
    response = manager.post(
        f"/projects/{project_id}/triage", data=form, content_type="multipart/form-data"
    )
    assert response.status_code == 400
    assert 'name="token" value="' not in response.get_data(as_text=True)
    assert uploads_left(app) == []


def test_a_record_past_the_limit_in_a_job_check_deletes_the_upload(app, manager):
    """A large upload is checked by a job; its refusal deletes the files as well."""
    app.config["IMPORT_JOB_THRESHOLD"] = 1
    response = post_files(manager, "dedupe", A=long_record_file())
    started = manager.post(response.headers["Location"], data=mapping(13))
    assert started.status_code == 302 and "/jobs/" in started.headers["Location"]
    page = manager.get(started.headers["Location"]).get_data(as_text=True)
    assert "failed" in page and SECRET not in page
    assert uploads_left(app) == [] and projects(app) == 0
