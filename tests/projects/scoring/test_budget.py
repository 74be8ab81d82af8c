"""A Splink model's work is bounded (issue 42.6): the strings a condition can make are bounded
when it is checked, and a run estimates its candidate pairs and the work of one pair (at the
records' longest values) before predicting, refused past the bounds the manager sees."""

from __future__ import annotations

import json

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.sqlexpr import cost, emit, parse
from app.extensions import db
from app.models import Job, Project, ScoringModel, User
from app.projects.lifecycle import create_project
from app.projects.scoring import ScoringRefused, submit_scoring, upload_model
from tests.factories import PASSWORD

NAMES = ["ann", "anne", "bob", "rob", "cy", "di", "ed", "flo"]


def model(condition: str) -> dict:
    """A link model of one comparison on ``name`` whose middle level is ``condition``."""
    levels = [
        {"sql_condition": '"name_l" IS NULL OR "name_r" IS NULL', "is_null_level": True},
        {"sql_condition": condition, "m_probability": 0.9, "u_probability": 0.1},
        {"sql_condition": "ELSE", "m_probability": 0.1, "u_probability": 0.9},
    ]
    return {
        "link_type": "link_only",
        "probability_two_random_records_match": 0.01,
        "blocking_rules_to_generate_predictions": ['block_on("initial")'],
        "comparisons": [{"output_column_name": "name", "comparison_levels": levels}],
    }


def nested_concat(depth: int) -> str:
    """The attack round's condition: ``concat`` of ``concat`` ... under an edit distance."""
    inner = '"name_l"'
    for _ in range(depth):
        inner = f"concat({', '.join([inner] * 8)})"
    return f'levenshtein({inner}, "name_r") <= 2'


def project(app, manager: int, long: int = 0) -> int:
    """A link project: names (one of ``long`` characters on each side) blocked by initial."""
    names = NAMES + (["x" * long] if long else [])
    records = [{"id": f"{i}", "name": n, "initial": n[0]} for i, n in enumerate(names)]
    spec = {
        "name": "scores", "kind": "link",
        "attributes": [{"name": "name"}, {"name": "initial"}],
        "records_a": records, "records_b": [dict(r, id=f"b{r['id']}") for r in records],
    }  # fmt: skip
    with app.app_context():
        found = create_project(spec, db.session.get(User, manager))
        db.session.commit()
        return found.id


def score(app, project_id: int, manager: int, data: dict) -> Job:
    with app.app_context():
        found, user = db.session.get(Project, project_id), db.session.get(User, manager)
        upload_model(found, json.dumps(data), user)
        db.session.commit()
        job_id = submit_scoring(found, user)  # inline under TESTING
        db.session.commit()
        return db.session.get(Job, job_id)


def test_the_attack_rounds_nested_concat_is_refused_when_checked(app, manager):
    project_id = project(app, manager)
    with app.app_context():
        found, user = db.session.get(Project, project_id), db.session.get(User, manager)
        with pytest.raises(ScoringRefused) as refused:
            upload_model(found, json.dumps(model(nested_concat(2))), user)
        assert refused.value.problems == [
            "comparisons[0].comparison_levels[1].sql_condition: it can make a string of "
            "64,000 characters from values of 1,000 (MAX_VALUE_CHARS); a condition may make at "
            "most 20,000"
        ]
        upload_model(found, json.dumps(model(nested_concat(1))), user)  # 8,000: taken


def test_a_run_within_its_bounds_scores_the_pairs_it_estimated(app, manager):
    project_id = project(app, manager)
    job = score(app, project_id, manager, model('levenshtein("name_l", "name_r") <= 1'))
    assert job.status == "done" and job.result["refused"] is None, job.error
    estimate = job.result["estimate"]
    assert estimate["pairs"] == job.result["pairs"]  # the count is Splink's own
    # per pair: the null level (two reads), the edit distance at 4 characters, and = 1
    assert 16 <= estimate["work_per_pair"] < 100


@pytest.fixture
def app_overrides(app_overrides):
    return {**app_overrides, "SCORING_MAX_WORK": 10**6}  # a million character operations


def test_long_values_under_an_edit_distance_are_refused_before_predicting(app, client, manager):
    """One 1,000-character name makes a pair of them a million operations of levenshtein."""
    project_id = project(app, manager, long=1_000)
    job = score(app, project_id, manager, model('levenshtein("name_l", "name_r") <= 1'))
    assert job.status == "done" and job.result["pairs"] is None
    assert job.result["refused"].startswith("scoring ")
    assert "(SCORING_MAX_WORK): compare fewer or shorter values" in job.result["refused"]
    assert job.result["estimate"]["work"] > 10**6
    with app.app_context():
        row = db.session.get(ScoringModel, job.result["model_id"])
        assert row.predictions is None and row.predicted_pairs is None
    client.post("/login", data={"username": "max", "password": PASSWORD})
    page = client.get(f"/projects/{project_id}/scoring/jobs/{job.id}").get_data(as_text=True)
    assert 'id="scoring-refused"' in page and "SCORING_MAX_WORK" in page
    shown = client.get(f"/projects/{project_id}/scoring").get_data(as_text=True)
    assert 'id="scoring-bounds"' in shown and "1,000,000 character operations" in shown


def test_more_pairs_than_the_bound_are_refused_before_predicting(app, manager):
    app.config["SCORING_MAX_PAIRS"] = 3
    project_id = project(app, manager)
    job = score(app, project_id, manager, model('"name_l" = "name_r"'))
    assert job.result["pairs"] is None and "(SCORING_MAX_PAIRS)" in job.result["refused"]
    assert job.result["estimate"]["pairs"] > 3


@pytest.mark.parametrize("bound, refused", [(10, False), (9, True)])
def test_rules_that_overlap_past_the_bound_are_counted_exactly(app, manager, bound, refused):
    """By initial: 10 pairs (ann, anne against ann, anne; one each for the rest); by name: 8,
    all of them among those. Each rule alone sums to 18, past the bound: the run counts the
    distinct 10 exactly, and scores them when the bound is 10, refuses at 9."""
    app.config["SCORING_MAX_PAIRS"] = bound
    project_id = project(app, manager)
    data = model('"name_l" = "name_r"')
    data["blocking_rules_to_generate_predictions"] = ['block_on("initial")', 'block_on("name")']
    job = score(app, project_id, manager, data)
    assert job.status == "done", job.error
    assert job.result["estimate"]["pairs"] == 10
    assert job.result["pairs"] == (None if refused else 10)
    assert (job.result["refused"] is not None) == refused


_COLUMN = st.sampled_from(['"a_l"', '"a_r"', '"b_l"', "'xy'"])


def _expressions():
    leaf = _COLUMN
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, min_size=1, max_size=3).map(lambda xs: f"concat({', '.join(xs)})"),
            inner.map(lambda x: f"upper({x})"),
            inner.map(lambda x: f"trim({x})"),
            st.tuples(inner, st.integers(0, 5)).map(lambda t: f"substr({t[0]}, 2, {t[1]})"),
            st.tuples(inner, st.integers(0, 5)).map(lambda t: f"left({t[0]}, {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"coalesce({t[0]}, {t[1]})"),
            st.tuples(inner, inner).map(lambda t: f"{t[0]} || {t[1]}"),
        ),
        max_leaves=8,
    )


@settings(max_examples=60, deadline=None)
@given(_expressions(), st.lists(st.text("aßİz ", max_size=6), min_size=3, max_size=3))
def test_no_string_is_longer_than_its_bound(expression, values):
    """DuckDB's own length of every expression is within :func:`cost`'s ``chars``."""
    attributes = {"a": "string", "b": "string"}
    node = parse(expression, attributes, style="suffixed")
    longest = dict(zip(("a_l", "a_r", "b_l"), map(len, values), strict=True))
    bound = cost(node, lambda c: longest[f"{c.name}_{c.side}"]).chars
    sql = emit(node, "duckdb", lambda c: f'"{c.name}_{c.side}"')
    row = duckdb.execute(
        f"SELECT length({sql}) FROM (SELECT ? AS a_l, ? AS a_r, ? AS b_l)", values
    ).fetchone()
    assert (row[0] or 0) <= bound
