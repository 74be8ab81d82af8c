"""Blocking rules as data, candidate pairs, and counting them without listing them."""

from __future__ import annotations

from itertools import combinations, product
from pathlib import Path

import jellyfish
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.projects.blocking.counting import count_pairs
from app.projects.blocking.parsing import parse_rules
from app.projects.blocking.rules import BlockingError, Key, Rule, TooManyPairs, candidate_pairs
from app.projects.reading.mapping import ColumnMapping
from app.projects.reading.records import read_records

MINDFIRL = Path(__file__).parent.parent.parent / "data" / "mindfirl"
TYPES = {"first": "string", "last": "string", "dob": "date", "zip": "id"}


def test_parse_rules_accepts_every_key_form():
    rules = parse_rules(
        [
            ["last"],
            {"keys": [{"attribute": "first", "transform": "first_n", "n": 2}, ["dob", "year"]]},
            [["first", "last_n", 3], {"attribute": "last", "transform": "nysiis"}],
        ],
        TYPES,
    )
    assert rules == [
        Rule((Key("last"),)),
        Rule((Key("first", "first_n", 2), Key("dob", "year"))),
        Rule((Key("first", "last_n", 3), Key("last", "nysiis"))),
    ]
    assert str(rules[1]) == "first first_n(2) & dob year"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "non-empty list of rules"),
        ({"keys": ["last"]}, "non-empty list of rules"),
        ([["last"]] * 13, "at most 12 blocking rules"),
        ([[]], "rule 1: must be a non-empty list of keys"),
        ([["last"], 7], "rule 2: must be a non-empty list of keys"),
        ([["maiden_name"]], "rule 1, key 1: unknown attribute 'maiden_name'"),
        ([["last", ["first", "levenshtein"]]], "rule 1, key 2: unknown transform 'levenshtein'"),
        ([[["first", "first_n"]]], "first_n needs a whole number n >= 1, not None"),
        ([[["first", "first_n", 0]]], "first_n needs a whole number n >= 1, not 0"),
        ([[["first", "last_n", "3"]]], "last_n needs a whole number n >= 1, not '3'"),
        ([[["first", "first_n", True]]], "needs a whole number n >= 1, not True"),
        ([[["first", "exact", 3]]], "exact takes no n"),
        ([[["last", "year"]]], "year needs a date attribute; last is string"),
        ([[["dob", "soundex"]]], "soundex needs a string attribute; dob is date"),
        ([[{"attribute": "last", "how": "exact"}]], "unknown field(s) how"),
        ([[{"transform": "exact"}]], "missing attribute name"),
        ([[42]], "a key is a name, a list or an object, not 42"),
        ([["__import__('os')"]], "unknown attribute"),
    ],
)
def test_parse_rules_errors(data, message):
    with pytest.raises(BlockingError) as caught:
        parse_rules(data, TYPES)
    assert message in str(caught.value)


def test_parse_rules_with_untyped_attributes_skips_type_checks():
    assert parse_rules([[["last", "year"]]], ["last"]) == [Rule((Key("last", "year"),))]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        (Key("a"), "Smith", "Smith"),
        (Key("a", "first_n", 3), "Smith", "Smi"),
        (Key("a", "first_n", 9), "Smith", "Smith"),
        (Key("a", "last_n", 2), "Smith", "th"),
        (Key("a", "soundex"), "Smith", jellyfish.soundex("Smith")),
        (Key("a", "metaphone"), "Smith", jellyfish.metaphone("Smith")),
        (Key("a", "nysiis"), "Smith", jellyfish.nysiis("Smith")),
        (Key("a", "year"), "07041946", "1946"),
        (Key("a", "month"), "07041946", "07"),
        (Key("a", "day"), "07041946", "04"),
        (Key("a", "month_day"), "07041946", "0704"),
        (Key("a", "year"), "1946", None),
        (Key("a"), None, None),
        (Key("a"), "", None),
        (Key("a", "metaphone"), "123", None),  # no phonetic code: missing, not ""
    ],
)
def test_key_transforms(key, value, expected):
    assert key.apply(value) == expected


A = {
    "a1": {"first": "ANN", "last": "LEE", "dob": "01021990"},
    "a2": {"first": "ANNE", "last": "LEE", "dob": "01021991"},
    "a3": {"first": "BOB", "last": None, "dob": "01021990"},
}
B = {
    "b1": {"first": "ANN", "last": "LEE", "dob": "05061990"},
    "b2": {"first": "BOB", "last": None, "dob": "09091990"},
}


def test_link_mode_pairs_across_sources_with_first_rule():
    rules = parse_rules([["last"], [["dob", "year"]]], TYPES)
    assert list(candidate_pairs(A, B, rules)) == [
        ("a1", "b1", 0),
        ("a2", "b1", 0),
        ("a1", "b2", 1),  # a1-b1 also agrees on the year, but rule 0 produced it
        ("a3", "b1", 1),
        ("a3", "b2", 1),
    ]


def test_missing_values_never_block_together():
    rules = parse_rules([["last"]], TYPES)
    assert list(candidate_pairs(A, B, rules)) == [("a1", "b1", 0), ("a2", "b1", 0)]
    assert count_pairs(A, B, rules).total == 2


def test_dedupe_mode_pairs_within_one_source_once_and_never_self():
    rules = parse_rules([["last"], [["dob", "year"]], [["first", "first_n", 3]]], TYPES)
    assert list(candidate_pairs(A, None, rules)) == [("a1", "a2", 0), ("a1", "a3", 1)]
    assert count_pairs(A, None, rules).total == 2


def test_count_pairs_per_rule_and_distinct():
    rules = parse_rules([["last"], [["dob", "year"]], [["first", "first_n", 3]]], TYPES)
    counted = count_pairs(A, B, rules)
    assert counted.per_rule == [2, 4, 3]
    assert counted.new_per_rule == [2, 3, 0]
    assert counted.total == 5


def test_max_pairs_guards_before_listing():
    rules = parse_rules([[["dob", "year"]]], TYPES)
    with pytest.raises(TooManyPairs, match="the rules produce 4 candidate pairs \\(limit 3\\)"):
        candidate_pairs(A, B, rules, max_pairs=3)
    assert len(list(candidate_pairs(A, B, rules, max_pairs=4))) == 4


def test_empty_sources():
    rules = parse_rules([["last"]], TYPES)
    assert list(candidate_pairs({}, B, rules)) == []
    assert count_pairs({}, {}, rules).total == 0


def _load(name):
    mapping = ColumnMapping("ID", {"last_name": "string", "dob": "date"})
    chunks = read_records(MINDFIRL / name, mapping, on_duplicate_id="keep_first")
    return {r.record_id: r.identifying for chunk in chunks for r in chunk}


def test_mindfirl_dev_files_blocked_on_last_name():
    file1, file2 = _load("dev_file1.csv"), _load("dev_file2.csv")
    rules = parse_rules([["last_name"]], ["last_name", "dob"])
    pairs = list(candidate_pairs(file1, file2, rules))
    # WILDING 5 x 5, ABERNATHY 4 x 4, ADAMS 6 x 6 (after keeping the first row per id).
    assert len(pairs) == 25 + 16 + 36 == count_pairs(file1, file2, rules).total
    assert all(file1[a]["last_name"] == file2[b]["last_name"] for a, b, _ in pairs)
    assert pairs[0] == ("1", "1", 0)


VALUES = st.sampled_from([None, "", "ANN", "ANNE", "AN", "BOB", "01021990", "01021991"])
RECORDS = st.lists(st.fixed_dictionaries({"x": VALUES, "y": VALUES, "z": VALUES}), max_size=12).map(
    lambda rows: {f"r{i}": row for i, row in enumerate(rows)}
)
KEYS = st.sampled_from(
    [Key("x"), Key("y"), Key("z"), Key("x", "first_n", 2), Key("y", "soundex"), Key("z", "year")]
)
# A rule reads both records alike, or (cross-attribute) the right one with other keys.
SYMMETRIC = st.lists(KEYS, min_size=1, max_size=2).map(lambda k: Rule(tuple(k)))
CROSS = st.lists(st.tuples(KEYS, KEYS), min_size=1, max_size=2).map(
    lambda kk: Rule(tuple(a for a, _ in kk), tuple(b for _, b in kk))
)
RULES = st.lists(SYMMETRIC | CROSS, min_size=1, max_size=4)


def _brute(records_a, records_b, rules):
    """Every pair with the first rule under which its keys agree (the definition)."""
    if records_b is None:
        candidates = combinations(records_a.items(), 2)
    else:
        candidates = product(records_a.items(), records_b.items())
    found = {}
    for (ia, va), (ib, vb) in candidates:
        for r, rule in enumerate(rules):
            key = rule.key(va)  # the left record: A's, or the earlier one
            if key is not None and key == rule.right_key(vb):
                found[ia, ib] = r
                break
    return found


@settings(max_examples=150, deadline=None)
@given(records_a=RECORDS, records_b=RECORDS | st.none(), rules=RULES)
def test_candidate_pairs_and_count_pairs_match_the_definition(records_a, records_b, rules):
    expected = _brute(records_a, records_b, rules)
    got = list(candidate_pairs(records_a, records_b, rules))
    assert len(got) == len({(a, b) for a, b, _ in got})  # each pair once
    assert {(a, b): r for a, b, r in got} == expected
    counted = count_pairs(records_a, records_b, rules)
    assert counted.total == len(expected)
    assert counted.new_per_rule == [list(expected.values()).count(r) for r in range(len(rules))]
    for r, rule in enumerate(rules):
        alone = _brute(records_a, records_b, [rule])
        assert counted.per_rule[r] == len(alone)
