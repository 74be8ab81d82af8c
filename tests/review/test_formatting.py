"""Risk percentages: a non-zero cost never reads as zero."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.review.views.formatting import percent


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (0, "0.00%"),
        (0.1234, "12.34%"),
        (1, "100.00%"),
        (0.00004321, "0.00432%"),
        (0.0001, "0.0100%"),
        (0.009999, "1.000%"),
        (1.5e-12, "1.50e-10%"),
    ],
)
def test_percent(x, text):
    assert percent(x) == text


@given(st.floats(min_value=1e-300, max_value=1.0))
def test_a_non_zero_value_never_reads_as_zero(x):
    text = percent(x)
    shown = float(text.rstrip("%"))
    assert shown > 0
    assert shown == pytest.approx(100 * x, rel=0.01)  # three significant digits at least
