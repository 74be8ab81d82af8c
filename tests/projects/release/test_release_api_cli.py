"""The release-risk check through the CLI (any CSV) and the API (a project's linked export)."""

from __future__ import annotations

import copy
import json

import pytest

from app.demo import PAPER_EXAMPLE
from tests.factories import make_token, make_user, paper_project

CSV = (
    "age,zip,dx\n30,100,flu\n30,100,flu\n30,100,cold\n40,200,flu\n40,200,hiv\n"
    "40,200,cold\n40,200,flu\n50,300,cold\n*,200,flu\n"
)
# A value no error message may carry.
SECRET = "ZQXSECRET"


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "release.csv"
    path.write_text(CSV, encoding="utf-8")
    return path


def test_cli_json_answers_the_hand_computed_report(runner, table):
    result = runner.invoke(
        args=["analytics", "release-risk", str(table), "--qi", "age,zip", "--sensitive", "dx",
              "--population", "80", "--threshold", "0.3", "--json"]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    r = json.loads(result.output)
    assert (r["k"], r["sample_uniques"], r["records_in_classes"]) == (1, 1, 8)
    assert r["prosecutor"] == pytest.approx(
        {"records_at_risk": 0.5, "highest": 1.0, "lowest": 0.25, "average": 3 / 8}
    )
    assert r["journalist"] == r["prosecutor"]  # ARX: the sample is its own population
    assert r["population_classes"] == "sample"
    assert set(r["population_uniqueness"]) >= {"zayatz", "pitman", "snb", "dankar"}
    assert set(r["attributes"]["dx"]) >= {"l_distinct", "l_entropy", "recursive_c", "t_closeness"}


def test_cli_population_file_gives_arxs_journalist_risk(runner, table, tmp_path):
    # The sample plus five people: F = 4, 4, 3 for (30,100), (40,200), (50,300).
    population = tmp_path / "population.csv"
    population.write_text(
        CSV.replace(",flu", "")
        .replace(",cold", "")
        .replace(",hiv", "")
        .replace("age,zip,dx", "age,zip")
        + "30,100\n50,300\n50,300\n60,100\n*,100\n",
        encoding="utf-8",
    )
    args = ["analytics", "release-risk", str(table), "--qi", "age,zip", "--threshold", "0.3"]
    result = runner.invoke(args=[*args, "--population-file", str(population), "--json"])
    r = json.loads(result.output)
    assert r["journalist"] == pytest.approx(
        {"records_at_risk": 1 / 8, "highest": 1 / 3, "lowest": 1 / 4, "average": 3 / 11}
    )
    assert r["population_size"] == 14
    both = runner.invoke(args=[*args, "--population-file", str(population), "--population", "99"])
    assert both.exit_code != 0 and "not both" in both.output
    short = tmp_path / "short.csv"
    short.write_text("age,zip\n30,100\n", encoding="utf-8")
    small = runner.invoke(args=[*args, "--population-file", str(short)])
    assert small.exit_code != 0 and "does not hold the sample" in small.output


def test_cli_wildcard_keeps_the_suppressed_record(runner, table):
    args = ["analytics", "release-risk", str(table), "--qi", "age,zip", "--json"]
    r = json.loads(runner.invoke(args=[*args, "--suppressed", "wildcard"]).output)
    assert (r["records_in_classes"], r["prosecutor"]["lowest"]) == (9, pytest.approx(0.2))
    r = json.loads(runner.invoke(args=[*args, "--missing", "none-such"]).output)
    assert r["records_in_classes"] == 9  # "*" is a value now: a class of its own


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--qi", "nope"], "'nope'"),
        (["--qi", "age", "--sensitive", "age"], "both"),
        (["--qi", "age", "--population", "3"], "at least the 9"),
        (["--qi", "age", "--threshold", "0"], "threshold"),
        (["--qi", "age", "--population", SECRET], "whole number"),
    ],
)
def test_cli_errors_name_the_column_never_a_value(runner, table, extra, message):
    result = runner.invoke(args=["analytics", "release-risk", str(table), *extra])
    assert result.exit_code != 0
    assert message in result.output and SECRET not in result.output


def test_cli_ragged_row_names_the_row(runner, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text(f"a,b\n1,2\n{SECRET}\n", encoding="utf-8")
    result = runner.invoke(args=["analytics", "release-risk", str(path), "--qi", "a"])
    assert "row 3" in result.output and SECRET not in result.output


def _spec() -> dict:
    spec = copy.deepcopy(PAPER_EXAMPLE)
    spec["attributes"] += [
        {"name": "zip", "type": "category", "sensitive": True},
        {"name": "cluster_id", "type": "string", "truth": True},
    ]
    for record, zip_code, truth in zip(
        spec["records"], ["100", "100", "200", "100"], ["c1", "c1", "c2", "c2"], strict=True
    ):
        record["zip"], record["cluster_id"] = zip_code, truth
    return spec


@pytest.fixture
def project(app):
    with app.app_context():
        manager = make_user("max", "manager")
        admin = make_user("ada", "admin")
        project = paper_project(manager, **_spec())
        return project.id, make_token(manager), make_token(admin)


def test_api_defaults_come_from_column_roles(client, project):
    project_id, token, _ = project
    response = client.get(
        f"/api/v1/projects/{project_id}/release-risk?population=400",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200, response.json
    r = response.json
    # zip is a category column: the QI; income the sensitive one; the truth column neither.
    assert (r["qi"], r["sensitive"]) == (["zip"], ["income"])
    # zip 100 x3, 200 x1: k = 1, one sample unique, average = 2 classes / 4 records.
    assert (r["k"], r["sample_uniques"]) == (1, 1)
    assert r["prosecutor"]["average"] == pytest.approx(0.5)
    assert r["attributes"]["income"]["l_distinct"] == 1
    assert r["population_uniqueness"]["dankar"] is not None


def test_api_journalist_and_marketer_are_arxs_unless_the_scaled_estimate_is_asked(client, project):
    project_id, token, _ = project
    headers = {"Authorization": f"Bearer {token}"}
    url = f"/api/v1/projects/{project_id}/release-risk?population=400"
    r = client.get(url, headers=headers).json
    # ARX without a population table: the sample is its own population (2 classes / 4).
    assert r["journalist"] == r["prosecutor"] and r["marketer"] == pytest.approx(0.5)
    assert r["population_classes"] == "sample"
    scaled = client.get(f"{url}&estimate=scaled", headers=headers).json
    assert scaled["population_classes"] == "scaled_estimate"
    assert scaled["marketer"] == pytest.approx(2 / 400)  # F = f * 100
    bare = f"/api/v1/projects/{project_id}/release-risk"
    needs = client.get(f"{bare}?estimate=scaled", headers=headers)
    assert needs.status_code == 400 and "needs a 'population'" in needs.get_data(as_text=True)
    assert client.get(f"{url}&estimate=guess", headers=headers).status_code == 400


def test_api_parameters_and_errors(client, project):
    project_id, token, admin_token = project
    headers = {"Authorization": f"Bearer {token}"}
    url = f"/api/v1/projects/{project_id}/release-risk"
    r = client.get(f"{url}?qi=zip,income&sensitive=&suppressed=wildcard", headers=headers).json
    assert (r["k"], r["sensitive"], r["suppressed"]) == (1, [], "wildcard")
    bad = client.get(f"{url}?qi=name", headers=headers)  # identifying: not in the export
    assert bad.status_code == 400 and "'name'" in bad.get_data(as_text=True)
    assert client.get(f"{url}?threshold=2", headers=headers).status_code == 400
    assert client.get(f"{url}?suppressed=maybe", headers=headers).status_code == 400
    admin = client.get(url, headers={"Authorization": f"Bearer {admin_token}"})
    assert admin.status_code == 403


def test_a_worker_reaches_neither_the_check_nor_the_confirmed_export(app, client, project):
    project_id, _, _ = project
    with app.app_context():
        headers = {"Authorization": f"Bearer {make_token(make_user('wes', 'worker'))}"}
    base = f"/api/v1/projects/{project_id}"
    assert client.get(f"{base}/release-risk", headers=headers).status_code == 403
    post = client.post(f"{base}/export/linked", json={"reason": "x"}, headers=headers)
    assert post.status_code == 403


def test_openapi_documents_the_route(client):
    document = client.get("/api/v1/openapi.json").json
    operation = document["paths"]["/projects/{project_id}/release-risk"]["get"]
    names = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
    assert names >= {
        "qi", "sensitive", "population", "estimate", "threshold", "suppressed", "missing",
    }  # fmt: skip


SAVED = {"qi": "zip,income", "sensitive": "", "population": "400", "threshold": "0.3",
         "suppressed": "wildcard", "missing": "-", "on_exceed": "confirm"}  # fmt: skip


@pytest.fixture
def saved(app, client, project):
    """The project with saved release thresholds, and the manager logged in for the page."""
    from app.extensions import db
    from app.models import Project, User
    from app.projects.release import save_policy
    from tests.factories import PASSWORD

    project_id, token, _ = project
    with app.app_context():
        manager = db.session.scalar(db.select(User).filter_by(username="max"))
        save_policy(db.session.get(Project, project_id), SAVED, by=manager)
        db.session.commit()
    client.post("/login", data={"username": "max", "password": PASSWORD})
    return f"/api/v1/projects/{project_id}/release-risk", {"Authorization": f"Bearer {token}"}


def test_api_without_a_query_measures_the_saved_thresholds_as_the_page_does(client, saved):
    url, headers = saved
    r = client.get(url, headers=headers).json
    assert (r["qi"], r["sensitive"], r["threshold"]) == (["zip", "income"], [], 0.3)
    assert (r["suppressed"], r["missing"], r["population_size"]) == ("wildcard", "-", 400)
    page = client.get(url.replace("/api/v1", "") + ".json")  # the page's own report
    assert page.status_code == 200 and page.json == r


def test_api_query_parameters_override_only_what_they_name(client, saved):
    url, headers = saved
    r = client.get(f"{url}?threshold=0.5&qi=zip", headers=headers).json
    assert (r["qi"], r["threshold"]) == (["zip"], 0.5)
    assert (r["suppressed"], r["missing"], r["population_size"]) == ("wildcard", "-", 400)
    blank = client.get(f"{url}?qi=", headers=headers).json  # blank: from the roles
    assert (blank["qi"], blank["population_size"], blank["threshold"]) == (["zip"], 400, 0.3)
    page = client.get(url.replace("/api/v1", "") + ".json?threshold=0.5&qi=zip").json
    assert page == r


@pytest.mark.parametrize("parameter", ["threshold", "population", "suppressed", "missing"])
def test_api_bad_parameter_is_named_never_its_value(client, saved, parameter):
    url, headers = saved
    response = client.get(f"{url}?{parameter}={SECRET * 3}", headers=headers)
    text = response.get_data(as_text=True)
    assert response.status_code == 400 and parameter in text and SECRET not in text


@pytest.mark.parametrize("population", [10**11, 2**53])
def test_a_huge_population_is_answered_in_the_same_work(client, project, population):
    """Issue 42.1: the models' work does not grow with N (10^11 took for ever before)."""
    project_id, token, _ = project
    url = f"/api/v1/projects/{project_id}/release-risk?population={population}"
    response = client.get(url, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.json
    assert response.json["population_uniqueness"]["zayatz"] is not None
    too_large = client.get(
        url.replace(str(population), str(2**53 + 1)), headers={"Authorization": f"Bearer {token}"}
    )
    assert too_large.status_code == 400 and "population" in too_large.json["message"]


@pytest.mark.parametrize(
    ("threshold", "status"), [("5e-324", 400), ("1e-310", 400), ("1e-17", 400), (str(2**-53), 200)]
)
def test_a_threshold_is_bounded_by_what_its_inverse_holds(client, project, threshold, status):
    project_id, token, _ = project
    url = f"/api/v1/projects/{project_id}/release-risk?threshold={threshold}"
    response = client.get(url, headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == status, response.json
    if status == 200:
        assert response.json["k_target"] == 2**53
    else:
        assert "'threshold' must be from 2^-53" in response.json["message"]


def test_api_unknown_project_is_404(client, saved):
    _, headers = saved
    assert client.get("/api/v1/projects/999999/release-risk", headers=headers).status_code == 404
