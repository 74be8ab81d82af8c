"""Blocking keys and pair counts over Arrow columns: the same as the per-value functions."""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.projects.blocking.codes import rule_codes
from app.projects.blocking.columns import (
    candidate_codes,
    column_codes,
    count_candidates_of,
    key_column,
)
from app.projects.blocking.counting import count_pairs, rule_pairs
from app.projects.blocking.rules import DATE_PARTS, PHONETIC, Key, Rule

# Arrow holds UTF-8: no lone surrogates. Digits of other scripts pass str.isdigit().
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=10)
DIGITS = st.from_regex(r"[0-9]{8}", fullmatch=True)
ODD_DIGITS = st.text("0123456789٣²", min_size=7, max_size=9)
VALUES = st.lists(st.one_of(st.none(), TEXT, DIGITS, ODD_DIGITS), max_size=30)
DATES = st.lists(st.one_of(st.none(), DIGITS), max_size=30)
KEYS = st.one_of(
    st.builds(Key, st.just("x"), st.sampled_from(["first_n", "last_n"]), st.integers(1, 6)),
    st.builds(Key, st.just("x"), st.sampled_from(["exact", *DATE_PARTS])),
)


@settings(max_examples=300, deadline=None)
@given(KEYS, st.one_of(VALUES, DATES))
def test_key_column_is_apply_value_by_value(key, values):
    column = key_column(key, pa.array(values, pa.string()))
    assert column.type == pa.string()
    assert column.to_pylist() == [key.apply(v) for v in values]


@pytest.mark.parametrize("transform", list(PHONETIC))
def test_a_phonetic_key_column_is_apply_value_by_value(transform):
    values = ["Smith", "Smyth", None, "", "O'Brien", "Smith", "Ærøskøbing"]
    key = Key("x", transform)
    assert key_column(key, pa.array(values)).to_pylist() == [key.apply(v) for v in values]


@given(VALUES)
def test_column_codes_are_equal_exactly_where_the_values_are(values):
    codes = column_codes(pa.array(values, pa.string())).tolist()
    for i, a in enumerate(values):
        assert (codes[i] == -1) == (not a)
        for j, b in enumerate(values):
            if a and b:
                assert (codes[i] == codes[j]) == (a == b)


NAMES = st.sampled_from(["ann", "bob", "Ann", "", None, "annie"])
RECORD = st.fixed_dictionaries(
    {"first": NAMES, "last": NAMES, "dob": st.sampled_from(["01021990", "01021991", None, ""])}
)
RULES = [
    Rule((Key("last"),)),
    Rule((Key("first"), Key("last")), (Key("last"), Key("first"))),  # swapped names
    Rule((Key("first", "first_n", 1), Key("dob", "year"))),
    Rule((Key("last", "soundex"),), (Key("first", "soundex"),)),
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(RECORD, max_size=25),
    st.one_of(st.none(), st.lists(RECORD, max_size=25)),
    st.lists(st.sampled_from(RULES), min_size=1, max_size=4, unique=True),
)
def test_count_candidates_of_is_count_pairs(a, b, rules):
    records_a = dict(enumerate(a))
    records_b = None if b is None else dict(enumerate(b))
    every = [*a, *(b or [])]
    columns = {name: pa.array([r[name] for r in every], pa.string()) for name in RECORD_NAMES}
    expected = count_pairs(records_a, records_b, rules, rule_codes(rules, every))
    assert count_candidates_of(rules, columns, len(a), dedupe=b is None) == expected.total
    codes = candidate_codes(rules, columns)
    alone = rule_pairs(codes, len(a), len(every), dedupe=b is None)
    assert alone == expected.per_rule and sum(alone) >= expected.total


RECORD_NAMES = ("first", "last", "dob")
