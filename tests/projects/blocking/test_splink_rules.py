"""Blocking rules in Splink's spelling: read by the safe grammar, the same rules as the JSON
form, and the same candidate pairs as Splink itself makes from them (FEBRL4)."""

from __future__ import annotations

import pytest

from app.projects.blocking import BlockingError, Key, Rule, parse_rules, parse_splink_rule
from app.projects.blocking.splink import splink_sql

TYPES = {"given_name": "string", "surname": "string", "dob": "date", "postcode": "id"}
FIRST1, FIRST2 = Key("surname", "first_n", 1), Key("surname", "first_n", 2)
SWAPPED = Rule((Key("given_name"), Key("surname")), (Key("surname"), Key("given_name")))


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ('block_on("surname")', Rule((Key("surname"),))),
        ("block_on('given_name', 'surname')", Rule((Key("given_name"), Key("surname")))),
        ('block_on("substr(surname, 1, 2)", "dob")', Rule((FIRST2, Key("dob")))),
        ('l."surname" = r."surname"', Rule((Key("surname"),))),
        ("r.surname = l.surname", Rule((Key("surname"),))),
        ("l.given_name = r.surname AND l.surname = r.given_name", SWAPPED),
        ("(l.given_name = r.surname) and (r.given_name = l.surname)", SWAPPED),
        ("substr(l.surname, 1, 1) = substr(r.surname, 1, 1)", Rule((FIRST1,))),
        ("left(l.surname, 3) = left(r.surname, 3)", Rule((Key("surname", "first_n", 3),))),
        ("right(l.postcode, 2) = right(r.postcode, 2)", Rule((Key("postcode", "last_n", 2),))),
        ("soundex(l.surname) = soundex(r.surname)", Rule((Key("surname", "soundex"),))),
        ("year(l.dob) = year(r.dob) AND l.surname = r.surname",
         Rule((Key("dob", "year"), Key("surname")))),
        ({"blocking_rule": 'l."surname" = r."surname"', "sql_dialect": "duckdb"},
         Rule((Key("surname"),))),
    ],
)  # fmt: skip
def test_splink_spellings_become_rules(raw, rule):
    assert parse_splink_rule(raw, TYPES) == rule
    # The rule's own SQL-like text reads back to the same rule.
    assert parse_splink_rule(rule.sql(), TYPES) == rule


def test_rules_of_both_spellings_mix_in_one_list():
    rules = parse_rules(
        [["surname"], "l.given_name = r.surname AND l.surname = r.given_name"], TYPES
    )
    assert rules == [Rule((Key("surname"),)), SWAPPED]
    assert str(rules[1]) == "l.given_name = r.surname AND l.surname = r.given_name"
    assert not rules[1].symmetric


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("l.surname = r.surname OR l.dob = r.dob", "keys joined by AND"),
        ("l.surname <> r.surname", "keys joined by AND"),
        ("l.surname = l.given_name", "compares a key of l with a key of r"),
        ("lower(l.surname) = lower(r.surname)", "the function 'lower' is not allowed"),
        ("substr(l.surname, 2, 3) = substr(r.surname, 2, 3)", "start at 1"),
        ("year(l.surname) = year(r.surname)", "year needs a date attribute"),
        ("l.ssn = r.ssn", "unknown attribute 'ssn'"),
        ("l.surname = r.surname AND (SELECT 1)", "SELECT is not allowed"),
        ("l.surname = read_csv('/etc/passwd')", "'read_csv' is not allowed"),
        ("block_on(__import__('os').system('x'))", "block_on takes one or more quoted"),
        ("block_on()", "block_on takes one or more quoted"),
        ('block_on("l.surname")', "without l./r."),
        ({"blocking_rule": "l.surname = r.surname", "arrays_to_explode": ["x"]}, "not supported"),
        ({"blocking_rule": "l.surname = r.surname", "sql_dialect": "sqlite"}, "duckdb or spark"),
        ({"blocking_rule": "l.surname = r.surname", "how": 1}, "unknown field(s) how"),
        ("", "non-empty string"),
    ],
)
def test_refused_spellings_say_why(raw, message):
    with pytest.raises(BlockingError) as caught:
        parse_splink_rule(raw, TYPES, where="rule 1")
    assert message in str(caught.value)
    assert str(caught.value).startswith("rule 1: ")


def test_splink_sql_uses_working_columns():
    columns = {Key("given_name"): "a0", Key("surname"): "a1"}
    assert splink_sql(SWAPPED, columns.__getitem__) == 'l."a0" = r."a1" AND l."a1" = r."a0"'
    assert (
        splink_sql(SWAPPED, columns.__getitem__, "spark") == "l.`a0` = r.`a1` AND l.`a1` = r.`a0`"
    )
    with pytest.raises(ValueError, match="plain identifiers"):
        splink_sql(SWAPPED, lambda key: 'x" OR 1=1 --')


def test_the_api_takes_splink_rules_beside_json_keys(app, client):
    from app.extensions import db
    from tests.factories import make_token, make_user, paper_project

    with app.app_context():
        owner = make_user("max", "manager")
        project_id, token = paper_project(owner).id, make_token(owner)
        db.session.commit()
    url = f"/api/v1/projects/{project_id}/blocking"
    headers = {"Authorization": f"Bearer {token}"}
    rules = ['block_on("name")', "year(l.dob) = year(r.dob) AND l.race = r.race"]
    preview = client.post(url, json={"rules": rules}, headers=headers)
    assert preview.status_code == 200, preview.json
    assert preview.json["rules"] == ["name exact", "dob year & race exact"]
    assert preview.json["per_rule"] == [3, 2] and preview.json["total"] == 4
    refused = client.post(
        url, json={"rules": ["l.name = r.name; DROP TABLE pairs"]}, headers=headers
    )
    assert refused.status_code == 400 and "outside the grammar" in refused.json["message"]
