"""Risk against utility: ground truth from the vault or a file, workers scored against it."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.analytics.utility import (
    Confusion,
    TruthError,
    confusion,
    resolve_truth,
    risk_utility,
    truth_from_file,
    truth_from_vault,
    utility_charts,
)
from app.demo import PAPER_EXAMPLE
from app.extensions import db
from app.review.services import reveal_cell
from tests.factories import PASSWORD, make_assignment, make_user, paper_project
from tests.projects.conftest import decide

CLUSTERS = {"1": "a", "2": "b", "3": "c", "4": "c"}  # only records 3 and 4 are one person


def truth_project(owner):
    spec = copy.deepcopy(PAPER_EXAMPLE)
    spec["attributes"].append({"name": "cluster_id", "type": "string", "sensitive": True})
    for record in spec["records"]:
        record["cluster_id"] = CLUSTERS[record["id"]]
    return paper_project(owner, attributes=spec["attributes"], records=spec["records"])


def pair_of(project, a: str, b: str) -> int:
    from app.models import Pair, Record

    ids = {r.external_id: r.id for r in db.session.query(Record).filter_by(project_id=project.id)}
    pair = db.session.query(Pair).filter_by(project_id=project.id).all()
    return next(p.id for p in pair if {p.record_a_id, p.record_b_id} == {ids[a], ids[b]})


@pytest.fixture
def scored(app):
    """wes answers three pairs (one right match, one false match, one right non-match)."""
    with app.app_context():
        manager = make_user("max", "manager")
        project = truth_project(manager)
        wes, wen = make_user("wes"), make_user("wen")
        a = make_assignment(project, wes)
        make_assignment(project, wen)
        decide(a, pair_of(project, "3", "4"), "same")
        decide(a, pair_of(project, "1", "2"), "same")
        decide(a, pair_of(project, "1", "3"), "different")
        decide(a, pair_of(project, "2", "3"), "unsure")
        reveal_cell(a.id, pair_of(project, "1", "2"), 0, "name", by=wes)
        pid = project.id
        db.session.commit()
    return pid


def test_vault_column_truth_scores_each_worker(app, scored):
    from app.models import Project

    with app.app_context():
        project = db.session.get(Project, scored)
        truth, source = resolve_truth(project)  # the cluster_id column is found by its name
        assert source == "the column 'cluster_id'"
        assert sorted(truth.values()) == [False] * 5 + [True]
        wes, wen = risk_utility(project, truth)
    assert wes.confusion == Confusion(tp=1, fp=1, tn=1, fn=0)
    assert (wes.pairs, wes.unscored) == (6, 3)
    assert wes.confusion.accuracy == pytest.approx(2 / 3)
    assert (wes.confusion.precision, wes.confusion.recall) == (0.5, 1.0)
    assert wes.kapr == Fraction(1, 432) and wes.chars_disclosed == 1
    assert wen.confusion.scored == 0 and wen.confusion.accuracy is None
    specs = utility_charts([wes, wen])
    (acc, prec, rec) = specs["kapr"]["series"]
    assert acc["data"] == [{"x": 100 / 432, "y": pytest.approx(2 / 3), "label": "wes"}]
    assert [s["label"] for s in specs["characters"]["series"]] == [
        "Accuracy",
        "Precision",
        "Recall",
    ]


def test_truth_file_per_record_and_per_pair(app, scored):
    from app.models import Pair, Project

    with app.app_context():
        project = db.session.get(Project, scored)
        vault = truth_from_vault(project, "cluster_id")
        per_record = "record_id,cluster_id\n" + "".join(f"{k},{v}\n" for k, v in CLUSTERS.items())
        assert truth_from_file(project, per_record.encode()) == vault
        with_source = "id;source;cluster\n1;A;x\n2;A;x\n3;B;y\n"  # a dedupe has only source A
        assert sorted(truth_from_file(project, with_source.encode()).values()) == [True]
        db.session.query(Pair).filter_by(id=pair_of(project, "3", "4")).update(
            {"external_id": "P9"}
        )
        assert truth_from_file(project, b"pair_id,match\nP9,1\nnope,0\n") == {
            pair_of(project, "3", "4"): True
        }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"who,what\n1,2\n", "needs a header"),
        (b"record_id,cluster_id\n99,a\n", "no id in the truth file"),
        (b"pair_id,match\nP1,yes\n", "line 2, column 'match'"),
        (b"record_id,cluster_id\n1\n", "line 2: fewer fields"),
        (b"", "cannot be read"),
    ],
)
def test_bad_truth_files_say_why_without_values(app, scored, text, message):
    from app.models import Project

    with app.app_context():
        project = db.session.get(Project, scored)
        with pytest.raises(TruthError, match=message) as info:
            truth_from_file(project, text)
    assert "yes" not in str(info.value) and "99" not in str(info.value)


def test_no_truth_column_is_a_clear_error(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        with pytest.raises(TruthError, match="upload a truth file"):
            resolve_truth(project)
        with pytest.raises(TruthError, match="not one of this project's non-identifying"):
            truth_from_vault(project, "name")


@given(st.lists(st.tuples(st.sampled_from(["same", "different", "unsure", None]),
                          st.sampled_from([True, False, None]))))  # fmt: skip
def test_confusion_counts_every_scored_answer_once(answers):
    c = confusion(answers)
    scored = [(d, t) for d, t in answers if t is not None and d in ("same", "different")]
    assert c.scored == len(scored)
    right = sum((d == "same") == t for d, t in scored)
    assert c.accuracy == (right / len(scored) if scored else None)
    for value in (c.accuracy, c.precision, c.recall):
        assert value is None or 0 <= value <= 1


def test_pages_csv_and_json(app, client, scored):
    client.post("/login", data={"username": "max", "password": PASSWORD})
    page = client.get(f"/projects/{scored}/risk-utility")
    assert page.status_code == 200 and b"Ground truth from the column" in page.data
    csv_text = client.get(f"/projects/{scored}/risk-utility.csv?column=cluster_id").text
    assert csv_text.splitlines()[1].startswith("wes,1,6,3,3,1,1,1,0,")
    body = client.get(f"/api/v1/projects/{scored}/risk-utility").get_json()
    assert body["workers"][0]["precision"] == 0.5 and body["truth_pairs"] == 6
    assert client.get(f"/api/v1/projects/{scored}/risk-utility?column=name").status_code == 400
    progress = client.get(f"/projects/{scored}/progress")
    assert progress.status_code == 200 and b"Collusion KAPR" in progress.data
    for name in ("budget", "characters", "reveals", "agreement"):
        assert client.get(f"/projects/{scored}/progress/{name}.csv").status_code == 200
        spec = client.get(f"/projects/{scored}/progress/{name}.json").get_json()
        assert spec["type"] in ("bar", "line") and spec["series"]
    assert client.get(f"/projects/{scored}/progress/nope.csv").status_code == 404
    assert client.get(f"/projects/{scored}/progress/budget.xls").status_code == 404


def test_uploaded_truth_file_on_the_page_and_its_csv(app, client, scored):
    import io

    client.post("/login", data={"username": "max", "password": PASSWORD})
    per_record = "record_id,cluster_id\n" + "".join(f"{k},{v}\n" for k, v in CLUSTERS.items())

    def upload(path):
        data = {"truth": (io.BytesIO(per_record.encode()), "truth.csv")}
        return client.post(path, data=data, content_type="multipart/form-data")

    page = upload(f"/projects/{scored}/risk-utility")
    assert page.status_code == 200 and b"the uploaded truth file" in page.data
    assert (
        upload(f"/projects/{scored}/risk-utility.csv")
        .text.splitlines()[1]
        .startswith("wes,1,6,3,3,1,1,1,0,")
    )
    bad = client.post(
        f"/projects/{scored}/risk-utility",
        data={"truth": (io.BytesIO(b"x,y\n1,2\n"), "t.csv")},
        content_type="multipart/form-data",
    )
    assert bad.status_code == 400 and b"needs a header" in bad.data
