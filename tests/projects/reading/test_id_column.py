"""The inline id normalisation equals :func:`normalize` for ids, value by value."""

from hypothesis import given
from hypothesis import strategies as st

from app.core.disclosure import AttributeType, normalize
from app.projects.reading.batches import id_column

PIECES = st.sampled_from(["1", "a", "B", " ", "\t", "\u00a0", "\u3000", "na", "N/A", "?",
                          "nan", "e\u0301", "é", "-", "none", "null", "\n"])  # fmt: skip


@given(st.lists(st.one_of(st.lists(PIECES, max_size=6).map("".join), st.text(max_size=8))))
def test_ids_normalise_as_normalize(values):
    assert id_column(values) == [normalize(AttributeType.ID, v) for v in values]


def test_missing_tokens_with_inner_spaces_are_ids():
    assert id_column([" n a ", "N/A", " ", "1 2"]) == ["na", None, None, "12"]
