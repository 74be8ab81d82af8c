"""The column-wise JSON encoding of a batch equals ``json.dumps`` row by row."""

import json

from hypothesis import given
from hypothesis import strategies as st

from app.projects.lifecycle.bulk import json_columns, json_rows

keys = st.lists(st.text(max_size=8), min_size=1, max_size=4, unique=True)
values = st.one_of(st.none(), st.text(max_size=12))


@given(keys.flatmap(lambda k: st.lists(st.fixed_dictionaries({n: values for n in k}))))
def test_flat_string_rows_match_dumps(rows):
    assert json_rows(rows) == [json.dumps(r) for r in rows]


@given(
    st.lists(
        st.dictionaries(
            st.one_of(st.text(max_size=4), st.integers()),
            st.one_of(st.none(), st.text(max_size=6), st.integers(), st.booleans()),
            max_size=3,
        )
    )
)
def test_any_rows_match_dumps(rows):
    # Keys in other orders, other types, empty dicts: the general encoder takes over.
    assert json_rows(rows) == [json.dumps(r) for r in rows]


@given(
    st.lists(st.text(max_size=8), max_size=4, unique=True).flatmap(
        lambda names: st.integers(0, 6).flatmap(
            lambda n: st.fixed_dictionaries(
                {name: st.lists(values, min_size=n, max_size=n) for name in names}
            ).map(lambda columns: (columns, n))
        )
    )
)
def test_columns_match_dumps_of_each_rows_dict(given_columns):
    # Keys with quotes, percent signs or non-ASCII, missing values: exactly json.dumps.
    columns, count = given_columns
    rows = [{name: values[i] for name, values in columns.items()} for i in range(count)]
    assert json_columns(columns, count) == [json.dumps(r) for r in rows]


def test_columns_of_other_types_take_the_general_encoder():
    columns = {"a": [1, None], 2: ["x", True]}
    assert json_columns(columns, 2) == [
        json.dumps({"a": 1, 2: "x"}),
        json.dumps({"a": None, 2: True}),
    ]


def test_percent_signs_in_names_are_not_format_fields():
    columns = {"100%": ["a"], "%s": [None], '"%d"': ["%s"]}
    assert json_columns(columns, 1) == [json.dumps({"100%": "a", "%s": None, '"%d"': "%s"})]
