"""A Splink model JSON checked for a project: what is kept, what is refused and why."""

from __future__ import annotations

import copy
import json

import pytest

from app.projects.scoring import ModelError, check_model
from tests.projects.scoring.conftest import MODEL_FILE

ATTRIBUTES = {
    "given_name": "string", "surname": "string", "date_of_birth": "date",
    "suburb": "category", "postcode": "id",
}  # fmt: skip


@pytest.fixture
def model() -> dict:
    return json.loads(MODEL_FILE.read_text(encoding="utf-8"))


def test_splinks_own_model_is_accepted_and_written_back_from_its_trees(model):
    checked = check_model(model, ATTRIBUTES, "link")
    assert len(checked.rules) == 4 and len(checked.comparisons) == 5
    assert str(checked.rules[2]) == "l.given_name = r.surname AND l.surname = r.given_name"
    stored = checked.as_json()
    assert check_model(stored, ATTRIBUTES, "link") == checked  # stored text reads back the same
    level = stored["comparisons"][0]["comparison_levels"][2]
    assert level["sql_condition"] == "jaro_winkler_similarity(given_name_l, given_name_r) >= 0.92"
    assert (
        level["m_probability"] == model["comparisons"][0]["comparison_levels"][2]["m_probability"]
    )
    assert not {"retain_matching_columns", "linker_uid", "unique_id_column_name"} & set(stored)


def test_settings_that_would_keep_values_are_set_by_the_app_and_noted(model):
    model["retain_matching_columns"] = True
    model["additional_columns_to_retain"] = ["soc_sec_id"]
    checked = check_model(model, ATTRIBUTES, "link")
    assert any("additional_columns_to_retain" in n for n in checked.notes)
    assert "additional_columns_to_retain" not in checked.as_json()


def _level(model, i=0, j=1):
    return model["comparisons"][i]["comparison_levels"][j]


HOSTILE = [
    # SQL that would read files, settings or other tables, or write them
    (lambda m: _level(m).update(sql_condition="(SELECT count(*) FROM read_csv('/etc/passwd')) > 0"),
     "comparisons[0].comparison_levels[1].sql_condition: at character 1: SELECT is not allowed"),
    (lambda m: _level(m).update(sql_condition="read_text('/etc/shadow') = given_name_l"),
     "the function 'read_text' is not allowed"),
    (lambda m: _level(m).update(sql_condition="given_name_l = given_name_r; COPY x TO '/tmp/y'"),
     "a character outside the grammar"),
    (lambda m: _level(m).update(sql_condition="getenv('AWS_SECRET_ACCESS_KEY') IS NOT NULL"),
     "the function 'getenv' is not allowed"),
    (lambda m: _level(m).update(sql_condition="soc_sec_id_l = soc_sec_id_r"),
     "unknown attribute 'soc_sec_id'"),  # a sensitive column is not an attribute here
    (lambda m: m["blocking_rules_to_generate_predictions"].append(
        {"blocking_rule": "l.surname = r.surname OR 1=1", "sql_dialect": "duckdb"}),
     "blocking_rules_to_generate_predictions[4]: a blocking rule is keys joined by AND"),
    (lambda m: m["blocking_rules_to_generate_predictions"].append(
        "l.surname = (SELECT max(surname) FROM __splink__df_concat)"),
     "SELECT is not allowed"),
    (lambda m: m.update(blocking_rules_to_generate_predictions=[]), "at least one blocking rule"),
    # names that Splink would put into SQL
    (lambda m: _level(m).update(tf_adjustment_column='given_name" FROM x; --'),
     "tf_adjustment_column: not an identifying attribute"),
    (lambda m: m["comparisons"][1].update(output_column_name="given_name"), "is used twice"),
    # structure
    (lambda m: m.update(link_type="dedupe_only"), "link_type: a link project takes"),
    (lambda m: m.update(spark_jars=["evil.jar"]), "spark_jars: not one of Splink's settings"),
    (lambda m: _level(m).update(m_probability=1.5), "a probability between 0 and 1"),
    (lambda m: _level(m).update(sql_tricks=1), "sql_tricks: not a setting of a comparison level"),
    (lambda m: m["comparisons"][0]["comparison_levels"].pop(), "the last level is ELSE"),
    (lambda m: m.update(max_iterations=10**9), "max_iterations: a whole number"),
]  # fmt: skip


@pytest.mark.parametrize(("change", "message"), HOSTILE)
def test_hostile_or_broken_models_are_refused_place_by_place(model, change, message):
    broken = copy.deepcopy(model)
    change(broken)
    with pytest.raises(ModelError) as caught:
        check_model(broken, ATTRIBUTES, "link")
    assert any(message in problem for problem in caught.value.problems), caught.value.problems


def test_a_refusal_never_quotes_a_string_literal_of_the_model(model):
    _level(model).update(sql_condition="given_name_l = 'a secret value' 'x'")
    with pytest.raises(ModelError) as caught:
        check_model(model, ATTRIBUTES, "link")
    assert "secret" not in str(caught.value)


def test_not_an_object():
    with pytest.raises(ModelError, match="a JSON object"):
        check_model([1, 2], ATTRIBUTES, "link")
