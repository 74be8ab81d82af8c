"""The column-wise JSON encoding of a batch equals ``json.dumps`` row by row."""

import json

from hypothesis import given
from hypothesis import strategies as st

from app.projects.lifecycle.bulk import json_rows

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
