"""Budget recommendation: the all-partial KAPR, pinned on the paper example (spec §2)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from app.extensions import db
from app.projects.staffing.recommendation import budget_recommendation, nearest_rank
from tests.factories import PASSWORD, make_assignment, make_user, paper_project


@pytest.mark.parametrize(
    ("model", "expected"), [("row", Fraction(7, 108)), ("pair", Fraction(11, 144))]
)
def test_paper_example_all_partial(app, model, expected):
    with app.app_context():
        project = paper_project(make_user("max", "manager"), evidence_model=model)
        advice = budget_recommendation(project)
    assert advice.pairs == 6 and advice.kapr == expected and advice.within_bound
    # The assignment's value is the mean of the one-pair values.
    assert sum(advice.values) / len(advice.values) == expected
    assert advice.quantiles[1.0] == max(advice.values)
    assert advice.quantiles[0.0] == min(advice.values)


def test_paper_example_distribution_over_pairs(app):
    """Row model: Mary/Mark 1/18, the date pairs 1/24, name and date 1/8, 3-4 identical 0."""
    with app.app_context():
        advice = budget_recommendation(paper_project(make_user("max", "manager")))
    assert advice.values == [Fraction(1, 18), Fraction(1, 24), Fraction(1, 24), Fraction(1, 8),
                             Fraction(1, 8), Fraction(0)]  # fmt: skip
    assert (advice.quantiles[0.5], advice.quantiles[0.75]) == (Fraction(1, 24), Fraction(1, 8))
    assert advice.as_dict()["pairs_needing_nothing"] == 1


@pytest.mark.parametrize("model", ["row", "pair"])
def test_recommendation_equals_the_charge_of_starting_all_partial(app, model):
    """The form's "start at partial" with every attribute charges exactly the recommendation."""
    with app.app_context():
        project = paper_project(make_user("max", "manager"), evidence_model=model)
        from app.projects.staffing import assign_pairs

        some = [1, 4, 5]
        assignment = assign_pairs(project, make_user("wes"), 1.0, some, ["name", "dob", "race"])
        db.session.commit()
        assert Fraction(assignment.kapr_exact) == budget_recommendation(project, some).kapr


@given(st.lists(st.fractions(min_value=0, max_value=1), min_size=1, max_size=30), st.floats(0, 1))
def test_nearest_rank_is_a_value_with_enough_below(values, q):
    v = nearest_rank(values, q)
    assert v in values
    assert sum(x <= v for x in values) >= q * len(values)
    assert sum(x < v for x in values) < max(q * len(values), 1)


def test_api_answers_exact_and_float(app, client):
    with app.app_context():
        manager = make_user("max", "manager")
        project = paper_project(manager)
        make_user("other", "manager")
        wes = make_user("wes")
        assignment = make_assignment(project, wes, pairs=[1, 2])
        pid, aid = project.id, assignment.id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    body = client.get(f"/api/v1/projects/{pid}/budget-recommendation").get_json()
    assert body["kapr"] == {"exact": "7/108", "float": 7 / 108}
    assert body["pairs"] == 6 and len(body["per_pair"]) == 6
    assert set(body["quantiles"]) == {"0", "0.25", "0.5", "0.75", "0.9", "0.95", "1"}
    one = client.get(f"/api/v1/projects/{pid}/budget-recommendation?assignment={aid}")
    assert one.get_json()["pairs"] == 2
    assert (
        client.get(f"/api/v1/projects/{pid}/budget-recommendation?assignment=99").status_code == 404
    )
    assert (
        client.get(f"/api/v1/projects/{pid}/budget-recommendation?assignment=x").status_code == 400
    )
    client.post("/logout")
    client.post("/login", data={"username": "other", "password": PASSWORD})
    assert client.get(f"/api/v1/projects/{pid}/budget-recommendation").status_code == 403


def test_form_shows_the_recommendation_or_links_to_it_for_large_projects(app, client, monkeypatch):
    from app.projects.staffing import recommendation

    with app.app_context():
        pid = paper_project(make_user("max", "manager")).id
    client.post("/login", data={"username": "max", "password": PASSWORD})
    page = client.get(f"/projects/{pid}/assignments").text
    assert 'id="advice-quantiles"' in page
    assert 'data-exact="7/108">6.48%</span>' in page  # percent, the exact fraction on demand
    csv_rows = client.get(f"/projects/{pid}/budget-recommendation.csv").text.splitlines()
    assert csv_rows[0] == "pair,kapr_exact,kapr,kapr_percent" and csv_rows[1].startswith("1,1/18,")
    monkeypatch.setattr(recommendation, "FORM_PAIRS_LIMIT", 5)
    page = client.get(f"/projects/{pid}/assignments").text
    assert "With 6 pairs the recommendation is not computed" in page and "7/108" not in page
    # The link goes to a page (percent, exact on demand), never to raw JSON.
    link = f'href="/projects/{pid}/budget-recommendation" id="advice-link"'
    assert link in page and "/api/v1/" not in page
    full = client.get(f"/projects/{pid}/budget-recommendation")
    assert full.mimetype == "text/html"
    assert 'data-exact="7/108">6.48%</span>' in full.text and "6 of 6 pairs" not in full.text


def test_above_the_sample_size_the_recommendation_is_estimated_from_a_seeded_sample(app, client):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        exact = dict(budget_recommendation(project).per_pair)
        app.config["RECOMMENDATION_SAMPLE"] = 4
        advice = budget_recommendation(project)
        again = budget_recommendation(project)
        pid = project.id
    assert advice.sampled and (advice.pairs, advice.population) == (4, 6)
    assert advice.per_pair == again.per_pair  # the same sample every time
    assert all(exact[p] == v for p, v in advice.per_pair)  # each sampled pair priced exactly
    assert advice.kapr == sum(advice.values) / 4  # the sample's mean
    low, high = advice.interval
    assert low <= float(advice.kapr) <= high
    body = advice.as_dict()
    assert body["sampled"] and body["population"] == 6 and len(body["per_pair"]) == 4
    client.post("/login", data={"username": "max", "password": PASSWORD})
    page = client.get(f"/projects/{pid}/budget-recommendation").text
    assert 'id="advice-sample"' in page and "random sample of\n4 of them" in page
    assert "of 4 sampled pairs need nothing" in page


def test_the_model_s_pairs_are_not_in_the_recommendation(app):
    with app.app_context():
        scored = [{"a": "1", "b": "2", "match_probability": 0.5},
                  {"a": "3", "b": "4", "match_probability": 0.99},
                  {"a": "1", "b": "3", "match_probability": 0.01}]  # fmt: skip
        project = paper_project(
            make_user("max", "manager"), pairs=scored, triage={"lower": 0.1, "upper": 0.9}
        )
        advice = budget_recommendation(project)
    assert advice.pairs == 1 and advice.values == [Fraction(1, 18)]  # Mary/Mark alone


@pytest.mark.parametrize("model", ["row", "pair"])
def test_the_stored_index_prices_every_pair_as_the_index_built_from_the_records(app, model):
    """The import stores each source's index; a process loading it prices as building it."""
    from unittest import mock

    from app.models import SourceIndex
    from app.review.grid import indexes

    with app.app_context():
        project = paper_project(make_user("max", "manager"), evidence_model=model)
        app.extensions.pop("mindfirl_indexes", None)
        with mock.patch.object(indexes, "build_index", side_effect=AssertionError("built")):
            loaded = budget_recommendation(project)
        app.extensions.pop("mindfirl_indexes", None)
        db.session.execute(sa.delete(SourceIndex))
        built = budget_recommendation(project)
    assert loaded.per_pair == built.per_pair and loaded.kapr == built.kapr
