"""One past each bound of config.py, through every way in: the same refusal (issue 41.2).

A value one past ``MAX_VALUE_CHARS``, a record one past ``MAX_RECORD_CHARS`` (every value
within its bound) and an id one past ``MAX_RECORD_ID_CHARS`` go through the browser's and the
command line's record and pair files, the JSON API's project, a linker's scored pairs (the
triage page, the API as CSV and as Parquet, the command line, JSON pairs), and the admins'
trajectory, linkage-output and truth-file uploads. Each answer is the refusal
:class:`app.limits.Limits` words, naming the row and the column (or field), never the value,
and nothing is stored: no project, no round, no staged file, no job. The bounds are the
defaults of config.py (1,000, 10,000 and 100 characters): an app's JSON (its session cookie
too) holds no string longer than the larger two, so they cannot be lowered for a test.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sqlalchemy import func, select

from app.extensions import db
from app.limits import BOUND_NAMES
from app.models import Job, Pair, Project, User
from app.projects.lifecycle import create_project
from tests.factories import PASSWORD, make_token, make_user

VALUE, RECORD, ID = 1_000, 10_000, 100
WIDTH = 11  # value columns: 11 values within MAX_VALUE_CHARS can pass MAX_RECORD_CHARS
NAMES = [f"name_{i}" for i in range(WIDTH)]
SHORT = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kai"]
#: Never in a page or a message: "~" is in no CSRF token or other base64 text of a page.
SECRET = "Q~"


def long_text(chars: int) -> str:
    return (SECRET * chars)[:chars]


@pytest.fixture
def users(app):
    with app.app_context():
        manager, admin = make_user("max", "manager"), make_user("ada", "admin")
        return {"max": make_token(manager), "ada": make_token(admin)}


def login(client, name: str) -> None:
    client.post("/login", data={"username": name, "password": PASSWORD})


def cells(bound: str) -> tuple[str, list[str]]:
    """Record ``2``'s id and its values, one past ``bound`` (the others within theirs)."""
    if bound == "value":
        return "2", [long_text(VALUE + 1), *SHORT[1:]]
    if bound == "record":
        each = RECORD // WIDTH + 1  # 910 characters, 10,010 in all
        return "2", [long_text(each)] * WIDTH
    return long_text(ID + 1), SHORT


# --- record and pair files (browser, command line) and the JSON project ----------------------


def record_file(bound: str) -> bytes:
    rid, values = cells(bound)
    rows = [",".join(["ID", *NAMES]), ",".join(["1", *SHORT]), ",".join([rid, *values])]
    return ("\n".join(rows) + "\n").encode()


def pair_file(bound: str) -> bytes:
    rid, values = cells(bound)
    pair = long_text(ID - 1) if bound == "id" else "p1"  # <PairID>-A: two more characters
    rows = [
        ",".join(["PairID", "GroupID", "DB", "ID", *NAMES]),
        ",".join([pair, "g1", "A", rid if bound == "id" else "a1", *SHORT]),
        ",".join([pair, "g1", "B", "b1", *values]),
    ]
    return ("\n".join(rows) + "\n").encode()


def _browser(app, client, kind: str, body: bytes):
    login(client, "max")
    label = "pairs" if kind == "pairfile" else "A"
    data = {"name": "Study", "kind": kind, "header": "auto", label: (io.BytesIO(body), "f.csv")}
    staged = client.post("/projects/new", data=data, content_type="multipart/form-data")
    assert staged.status_code == 302, staged.get_data(as_text=True)[:2000]
    roles = {"kappa": "1", "page_size": "10"}
    if kind == "pairfile":
        roles |= {f"role-{i}": "identifying" for i in range(WIDTH)}
    else:
        roles |= {"role-0": "id"} | {f"role-{i}": "identifying" for i in range(1, WIDTH + 1)}
    answer = client.post(staged.headers["Location"], data=roles)
    return answer.status_code, answer.get_data(as_text=True).replace("&#39;", "'")


def _cli(app, runner, kind: str, body: bytes, tmp_path: Path):
    path = tmp_path / "in.csv"
    path.write_bytes(body)
    roles = [] if kind == "pairfile" else ["--role", "ID=id"]
    for name in NAMES:
        roles += ["--role", f"{name}=identifying"]
    args = ["projects", "import", "Study", str(path), "--kind", kind, "--owner", "max", *roles]
    result = runner.invoke(args=args)
    return (400 if result.exit_code else 200), result.output


def json_project(bound: str) -> dict:
    rid, values = cells(bound)
    return {
        "name": "Study",
        "kind": "dedupe",
        "attributes": [{"name": n} for n in NAMES],
        "records": [
            {"id": "1", **dict(zip(NAMES, SHORT, strict=True))},
            {"id": rid, **dict(zip(NAMES, values, strict=True))},
        ],
    }


# --- a linker's scored pairs ----------------------------------------------------------------


def scored_project(app) -> int:
    with app.app_context():
        owner = db.session.scalar(select(User).where(User.username == "max"))
        spec = {
            "name": "scored", "kind": "link", "attributes": [{"name": "name"}],
            "records_a": [{"id": "a1", "name": "Ann"}], "records_b": [{"id": "b1", "name": "Ann"}],
        }  # fmt: skip
        project = create_project(spec, owner)
        db.session.commit()
        return project.id


def scored_rows(bound: str) -> dict[str, list]:
    """The pairs' columns: an id one past its bound (ids are all a scored file stores)."""
    right = long_text(ID + 1) if bound == "id" else "b1"
    return {
        "unique_id_l": ["a1", "a1"], "unique_id_r": ["b1", right], "match_probability": [0.9, 0.2]
    }  # fmt: skip


def scored_csv(bound: str) -> bytes:
    columns = scored_rows(bound)
    rows = zip(*columns.values(), strict=True)
    lines = [",".join(columns)] + [",".join(map(str, row)) for row in rows]
    return ("\n".join(lines) + "\n").encode()


def scored_parquet(bound: str) -> bytes:
    sink = io.BytesIO()
    pq.write_table(pa.table(scored_rows(bound)), sink)
    return sink.getvalue()


TRIAGE = {"lower": "0.1", "upper": "0.95", "calibration": "0", "seed": "1"}


def _triage_page(app, client, body: bytes):
    project_id = scored_project(app)
    login(client, "max")
    form = {**TRIAGE, "score": "probability", "order": "uncertainty", "bins": "10",
            "action": "commit", "scores": (io.BytesIO(body), "p.csv")}  # fmt: skip
    url = f"/projects/{project_id}/triage"
    answer = client.post(url, data=form, content_type="multipart/form-data")
    return answer.status_code, answer.get_data(as_text=True).replace("&#39;", "'")


def _predictions_api(app, client, token: str, body: bytes):
    project_id = scored_project(app)
    query = "&".join(f"{k}={v}" for k, v in TRIAGE.items())
    answer = client.post(
        f"/api/v1/projects/{project_id}/predictions?{query}", data=body,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"},
    )  # fmt: skip
    return answer.status_code, answer.get_data(as_text=True)


def _triage_cli(app, runner, body: bytes, tmp_path: Path):
    project_id = scored_project(app)
    path = tmp_path / "scores.csv"
    path.write_bytes(body)
    args = ["projects", "triage", str(project_id), str(path), "--lower", "0.1", "--upper", "0.95"]
    result = runner.invoke(args=args)
    return (400 if result.exit_code else 200), result.output


def _json_pairs(app, client, token: str, bound: str):
    project_id = scored_project(app)
    right = long_text(ID + 1) if bound == "id" else "b1"
    body = {"pairs": [{"a": "a1", "b": right, "match_probability": 0.5}]}
    answer = client.post(
        f"/api/v1/projects/{project_id}/rounds", json=body,
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    return answer.status_code, answer.get_data(as_text=True)


# --- the admins' uploads ----------------------------------------------------------------------


def extra(bound: str) -> tuple[str, str, str]:
    """Columns a reader ignores (its header, a short row's, the bounded row's): a row is
    bounded whole, whatever is read of it."""
    _, values = cells(bound)
    if bound == "id":
        values = SHORT
    return ",".join(NAMES), ",".join(SHORT), ",".join(values)


def trajectory_file(bound: str) -> bytes:
    header, short, bounded = extra(bound)
    rows = [f"trajectory_id,user_id,timestamp,lon,lat,{header}"]
    rows.append(f"1,1,2020/01/01 00:00:00,116.3,39.9,{short}")
    rows.append(f"2,2,2020/01/01 00:00:00,116.3,39.9,{bounded}")
    return ("\n".join(rows) + "\n").encode()


def _trajectories(app, client, token: str | None, bound: str):
    body = trajectory_file(bound)
    files = {
        "original": (io.BytesIO(body), "o.csv"),
        "anonymized": (io.BytesIO(body), "a.csv"),
    }
    if token is None:
        login(client, "ada")
        answer = client.post("/admin/risk/trajectories", data=files)
    else:
        headers = {"Authorization": f"Bearer {token}"}
        answer = client.post("/api/v1/analytics/trajectory-risk", data=files, headers=headers)
    return answer.status_code, answer.get_data(as_text=True).replace("&#39;", "'")


def linkage_file(bound: str) -> str:
    header, short, bounded = extra(bound)
    record = long_text(ID + 1) if bound == "id" else "r2"
    return (
        f"record,candidates,mass,truth,{header}\nr1,x,1.0,x,{short}\n{record},x|y,0.9,x,{bounded}\n"
    )


def _linkage(app, client, token: str | None, bound: str):
    text = linkage_file(bound)
    if token is None:
        login(client, "ada")
        data = {"file": (io.BytesIO(text.encode()), "links.csv")}
        answer = client.post("/admin/risk/belief/links", data=data)
    else:
        answer = client.post(
            "/api/v1/analytics/belief/links", data=text, content_type="text/csv",
            headers={"Authorization": f"Bearer {token}"},
        )  # fmt: skip
    return answer.status_code, answer.get_data(as_text=True).replace("&#39;", "'")


def truth_file(bound: str) -> bytes:
    rid, values = cells(bound)
    rows = [",".join(["record_id", "cluster_id", *NAMES[1:]]), ",".join(["a1", *SHORT])]
    rows.append(",".join([rid, *values]))
    return ("\n".join(rows) + "\n").encode()


def _truth(app, client, token: str, bound: str):
    project_id = scored_project(app)
    answer = client.post(
        f"/api/v1/projects/{project_id}/risk-utility",
        data={"truth": (io.BytesIO(truth_file(bound)), "truth.csv")},
        headers={"Authorization": f"Bearer {token}"},
    )
    return answer.status_code, answer.get_data(as_text=True)


# --- the table ------------------------------------------------------------------------------

ROW_PATHS = {
    "browser-records": lambda a, c, r, t, b, p: _browser(a, c, "dedupe", record_file(b)),
    "browser-pairfile": lambda a, c, r, t, b, p: _browser(a, c, "pairfile", pair_file(b)),
    "cli-records": lambda a, c, r, t, b, p: _cli(a, r, "dedupe", record_file(b), p),
    "cli-pairfile": lambda a, c, r, t, b, p: _cli(a, r, "pairfile", pair_file(b), p),
    "api-project": lambda a, c, r, t, b, p: _api_project(c, t["max"], b),
    "trajectory-page": lambda a, c, r, t, b, p: _trajectories(a, c, None, b),
    "trajectory-api": lambda a, c, r, t, b, p: _trajectories(a, c, t["ada"], b),
    "linkage-page": lambda a, c, r, t, b, p: _linkage(a, c, None, b),
    "linkage-api": lambda a, c, r, t, b, p: _linkage(a, c, t["ada"], b),
    "truth-api": lambda a, c, r, t, b, p: _truth(a, c, t["max"], b),
}
ID_PATHS = {
    "triage-page": lambda a, c, r, t, b, p: _triage_page(a, c, scored_csv(b)),
    "triage-page-parquet": lambda a, c, r, t, b, p: _triage_page(a, c, scored_parquet(b)),
    "predictions-api-csv": lambda a, c, r, t, b, p: _predictions_api(a, c, t["max"], scored_csv(b)),
    "predictions-api-parquet": lambda a, c, r, t, b, p: _predictions_api(
        a, c, t["max"], scored_parquet(b)
    ),
    "triage-cli": lambda a, c, r, t, b, p: _triage_cli(a, r, scored_csv(b), p),
    "json-pairs": lambda a, c, r, t, b, p: _json_pairs(a, c, t["max"], b),
    "linkage-api-json": lambda a, c, r, t, b, p: _linkage_json(c, t["ada"]),
}


def _linkage_json(client, token: str):
    """A linkage output as JSON: its records and labels are ids."""
    body = {"records": [
        {"record": "r1", "truth": "x", "probabilities": {"x": 1.0}},
        {"record": "r2", "truth": "x", "probabilities": {"x": 0.5, long_text(ID + 1): 0.5}},
    ]}  # fmt: skip
    answer = client.post(
        "/api/v1/analytics/belief/links", json=body, headers={"Authorization": f"Bearer {token}"}
    )
    return answer.status_code, answer.get_data(as_text=True)


def _api_project(client, token: str, bound: str):
    answer = client.post(
        "/api/v1/projects", json=json_project(bound), headers={"Authorization": f"Bearer {token}"}
    )
    return answer.status_code, answer.get_data(as_text=True)


#: Trajectory ids are whole numbers of at most 19 digits (64 bits), within every id bound.
CASES = [(path, bound) for path in ROW_PATHS for bound in ("value", "record", "id")]
CASES = [c for c in CASES if not (c[0].startswith("trajectory") and c[1] == "id")]
CASES += [(path, "id") for path in ID_PATHS]
#: How each path names the row and the column of the refusal.
WHERE = {
    "browser-records": ("file A, line 3", "name_0", "ID"),
    "cli-records": ("file A, line 3", "name_0", "ID"),
    "browser-pairfile": ("pair file, line 3", "name_0", "ID"),
    "cli-pairfile": ("pair file, line 3", "name_0", "ID"),
    "api-project": ("body.records[1]", "name_0", "id"),
    "trajectory-page": ("line 3", "field 6", None),
    "trajectory-api": ("line 3", "field 6", None),
    "linkage-page": ("line 3", "field 5", "record"),
    "linkage-api": ("line 3", "field 5", "record"),
    "truth-api": ("line 3", "field 2", "record_id"),
}


def _stored(app) -> tuple[int, int, int]:
    with app.app_context():
        count = db.session.scalar
        projects = count(select(func.count(Project.id)).where(Project.name != "scored"))
        return projects, count(select(func.count(Pair.id))), count(select(func.count(Job.id)))


def _uploads(app) -> list[Path]:
    root = Path(app.config["UPLOAD_FOLDER"])
    return list(root.rglob("*.csv")) if root.is_dir() else []


@pytest.mark.parametrize(("path", "bound"), CASES, ids=[f"{p}-{b}" for p, b in CASES])
def test_one_past_each_bound_is_refused_alike_everywhere(
    app, client, runner, users, tmp_path, path, bound
):
    run = {**ROW_PATHS, **ID_PATHS}[path]
    status, text = run(app, client, runner, users, bound, tmp_path)
    assert status == 400, text[:3000]
    assert f"({BOUND_NAMES[bound]})" in text, text[:3000]
    most = {"value": VALUE, "record": RECORD, "id": ID}[bound]
    if path in WHERE:
        row, value_column, id_column = WHERE[path]
        assert row in text, text[:3000]
        column = {"value": value_column, "id": id_column}.get(bound)
        if column is not None:
            assert column in text
    elif path == "json-pairs":
        assert "body.pairs[0].b" in text
    elif path == "linkage-api-json":
        assert "records[1], labels: " in text
    elif path.endswith("parquet"):  # refused from the footer's statistics: its row group
        assert "column 'unique_id_r', rows 1-2" in text, text[:3000]
    else:
        assert "row 2, column 'unique_id_r'" in text, text[:3000]
    assert f"longer than {most:,} characters" in text or f"the limit of {most:,} characters" in text
    assert SECRET not in text
    assert _stored(app) == (0, 0, 0)
    assert _uploads(app) == []


def test_within_every_bound_the_same_files_are_taken(app, client, users):
    """The files one character shorter import (the bounds are not off by one)."""
    login(client, "max")
    body = json.loads(json.dumps(json_project("record")))
    body["records"][1] = {"id": long_text(ID), "name_0": long_text(VALUE)}
    body["records"][1] |= {name: long_text(900) for name in NAMES[1:]}  # 10,000 in all
    answer = client.post("/api/v1/projects", json=body)
    assert answer.status_code == 201, answer.get_data(as_text=True)


@pytest.mark.parametrize("bound", ["value", "record", "id"])
def test_the_project_service_itself_refuses_them(app, users, bound):
    """Past the API's schema (the command line, the demo): the same words, row and column."""
    from app.projects.lifecycle import ProjectSpecError

    with app.app_context():
        owner = db.session.scalar(select(User).where(User.username == "max"))
        with pytest.raises(ProjectSpecError) as refused:
            create_project(json_project(bound), owner)
        text = str(refused.value.problems)
    where = {"value": "source A, record 2, name_0: ", "record": "source A, record 2: "}
    assert where.get(bound, "source A, record 2, id: ") in text
    assert f"({BOUND_NAMES[bound]})" in text and SECRET not in text


#: Every way a file or a body comes in over HTTP: (who, method and url, how the body goes).
UPLOADS = {
    "records-page": ("max", "/projects/new", "form:A"),
    "pairfile-page": ("max", "/projects/new", "form:pairs"),
    "triage-page": ("max", "/projects/{p}/triage", "form:scores"),
    "truth-page": ("max", "/projects/{p}/risk-utility", "form:truth"),
    "predictions-api": ("max", "/api/v1/projects/{p}/predictions?lower=0.1&upper=0.9", "raw"),
    "project-api": ("max", "/api/v1/projects", "json"),
    "rounds-api": ("max", "/api/v1/projects/{p}/rounds", "json"),
    "truth-api": ("max", "/api/v1/projects/{p}/risk-utility", "form:truth"),
    "trajectory-page": ("ada", "/admin/risk/trajectories", "form:original"),
    "trajectory-api": ("ada", "/api/v1/analytics/trajectory-risk", "form:original"),
    "linkage-page": ("ada", "/admin/risk/belief/links", "form:file"),
    "linkage-api": ("ada", "/api/v1/analytics/belief/links", "raw"),
}


@pytest.mark.parametrize("path", list(UPLOADS))
def test_one_byte_past_max_content_length_is_refused_everywhere(app, client, users, path):
    """The file-size bound: a 413 naming MAX_CONTENT_LENGTH, nothing read, nothing stored."""
    who, url, how = UPLOADS[path]
    url = url.format(p=scored_project(app))
    app.config["MAX_CONTENT_LENGTH"] = limit = 4096
    body = b"unique_id_l,unique_id_r,match_probability\n" + b"a1,b1,0.5\n" * (limit // 10)
    if how.startswith("form:"):
        login(client, who)
        data = {"name": "Study", "kind": "pairfile" if "pairs" in how else "dedupe"}
        data[how.removeprefix("form:")] = (io.BytesIO(body), "f.csv")
        answer = client.post(url, data=data, content_type="multipart/form-data")
    else:
        headers = {"Authorization": f"Bearer {users[who]}"}
        kind = "application/json" if how == "json" else "application/octet-stream"
        wrapped = b'{"x": "' + body + b'"}'
        answer = client.post(url, data=wrapped, headers=headers, content_type=kind)
    text = answer.get_data(as_text=True)
    assert answer.status_code == 413, text[:2000]
    assert "larger than the limit of 4,096 bytes" in text and "MAX_CONTENT_LENGTH" in text
    assert _stored(app) == (0, 0, 0) and _uploads(app) == []


def test_a_name_past_the_frequency_column_is_refused_or_left_uncounted(
    app, runner, users, tmp_path
):
    """name_frequencies.name holds 200 characters: a frequency file's longer name is refused by
    line; a pair file's own count of one (MINDFIRL's cntfn) is left out, never cut (two
    names alike in their first 200 characters were one row twice: a 500 on PostgreSQL)."""
    from app.models import NameFrequency

    records = tmp_path / "a.csv"
    records.write_text("ID,first_name,last_name\n1,Ann,Lee\n2,Bo,Ray\n", encoding="utf-8")
    freq = tmp_path / "freq.csv"
    freq.write_text(f"F,Ann,3\nF,{'N' * 201},4\n", encoding="utf-8")
    args = ["projects", "import", "Study", str(records), "--kind", "dedupe", "--owner", "max",
            "--freq", str(freq), "--role", "ID=id"]  # fmt: skip
    roles = ["--role", "first_name=identifying", "--role", "last_name=identifying"]
    result = runner.invoke(args=[*args, *roles])
    assert result.exit_code != 0 and "line 2: a name is at most 200 characters" in result.output
    assert _stored(app) == (0, 0, 0)
    pairs = tmp_path / "internal.csv"
    long_a, long_b = "N" * 250 + "a", "N" * 250 + "b"  # alike in their first 200 characters
    rows = ["ID,first_name,last_name,type,file_id,cntfn,cntln,same"]
    rows += [f"1,{long_a},Lee,1,1-A,3,5,0", f"1,{long_b},Lee,1,1-B,4,5,0"]
    pairs.write_text("\n".join(rows) + "\n", encoding="utf-8")
    args = ["projects", "import", "Pairs", str(pairs), "--kind", "pairfile", "--owner", "max"]
    result = runner.invoke(args=args)
    assert result.exit_code == 0, result.output
    with app.app_context():
        counted = db.session.scalars(select(NameFrequency.name)).all()
        assert counted == ["Lee"]  # the long first names have no count
