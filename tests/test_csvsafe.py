"""The CSV writer's shortcut for plain texts writes exactly what its every check writes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app import csvsafe

# The characters every rule of ``app.csvsafe`` looks at, and a few that none does.
TRICKY = "=+-@\t\r\n,\"' ab1\uff1d\uff0b\uff0d\uff20\u3000"


@given(st.text(alphabet=st.sampled_from(TRICKY), max_size=8) | st.text(max_size=8))
def test_the_shortcut_writes_what_the_checks_write(text):
    for neutral in (True, False):
        writer = csvsafe.writer(None, neutral=neutral)
        assert writer.cell(text) == writer.general(text)


def test_plain_texts_take_the_shortcut_and_the_rest_do_not():
    plain = ("rec-1", "A", "x y", "x\t", "1'2")
    tricky = ("", "=1", " a", "a ", "'=1", "-1", "a,b", 'a"b', "a\rb", "\uff1d1", "x\u3000")
    assert all(csvsafe._PLAIN.fullmatch(text) for text in plain)
    assert not any(csvsafe._PLAIN.fullmatch(text) for text in tricky)
