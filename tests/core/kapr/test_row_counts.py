"""Row-model counts remembered per index (``AnonymityIndex.row_counts``) stay exact."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.kapr import AnonymityIndex, Evidence
from app.core.kapr.costs import RowQuery
from tests.core.kapr_data import ATTRS, KINDS, brute_candidates, cell, columns, row, values


@settings(max_examples=150, deadline=None)
@given(data=st.data(), cols=columns())
def test_remembered_counts_equal_a_scan(data, cols):
    index = AnonymityIndex.build(cols, KINDS)
    shown = data.draw(row(values(index, data.draw(st.integers(0, index.n - 1)))))
    other = values(index, data.draw(st.integers(0, index.n - 1)))
    cells = [(a, data.draw(cell(other[a], a))) for a in data.draw(st.permutations(ATTRS))]
    for attempt in range(3):  # counted, then remembered, then after the cache is emptied
        query = RowQuery(index, shown)
        assert query.k() == len(brute_candidates(index, shown))
        for attribute, evidence in cells:
            expected = len(brute_candidates(index, {**shown, attribute: evidence}))
            assert query.with_cell(attribute, evidence, count_only=True) == expected
        if attempt == 1:
            index._cache.clear()  # new constraint objects: old keys can never match them


def test_an_equal_row_is_looked_up_not_counted():
    cols = {"name": ["Mary", "Mark", "Mary", "Mary"], "race": ["A", "A", "B", "B"]}
    index = AnonymityIndex.build(cols, {"name": "string", "race": "category"})
    shown = {"name": Evidence.partial("Mary", [3]), "race": Evidence.full("B", category=True)}
    with mock.patch.object(index, "select", wraps=index.select) as select:
        assert RowQuery(index, shown).k() == 2
        assert RowQuery(index, dict(shown)).k() == 2
        assert select.call_count == 1
    fresh = AnonymityIndex.build(cols, {"name": "string", "race": "category"})
    assert fresh.row_counts == {}  # records changed: a new index, nothing remembered
