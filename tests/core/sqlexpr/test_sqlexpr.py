"""The safe grammar of Splink's SQL expressions: what it reads, what it refuses, what it writes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.core.sqlexpr import Column, Func, Literal, SqlError, emit, parse, text, walk

NAMES = {"given_name", "surname", "dob", "postcode", "first name"}


def _internal(column: Column) -> str:
    return f'"c_{sorted(NAMES).index(column.name)}_{column.side}"'


# What Splink 5's comparison library writes for DuckDB (NameComparison,
# DateOfBirthComparison, PostcodeComparison, ForenameSurnameComparison, ...).
SPLINK_DUCKDB = [
    '"given_name_l" IS NULL OR "given_name_r" IS NULL',
    '"given_name_l" = "given_name_r"',
    'jaro_winkler_similarity("given_name_l", "given_name_r") >= 0.92',
    '"given_name_l" = "surname_r" AND "given_name_r" = "surname_l"',
    'levenshtein("dob_l", "dob_r") <= 1',
    'ABS(EPOCH(try_strptime("dob_l", \'%Y-%m-%d\')) - EPOCH(try_strptime("dob_r", '
    "'%Y-%m-%d'))) <= 31557600.0",
    "NULLIF(regexp_extract(\"postcode_l\", '^[A-Za-z]{1,2}[0-9][A-Za-z0-9]? [0-9]', 0), '') = "
    "NULLIF(regexp_extract(\"postcode_r\", '^[A-Za-z]{1,2}[0-9][A-Za-z0-9]? [0-9]', 0), '')",
    'damerau_levenshtein("surname_l", "surname_r") <= 2',
    'jaro_similarity("surname_l", "surname_r") >= 0.9',
    'jaccard("surname_l", "surname_r") >= 0.7',
    '("given_name_l" = "given_name_r") AND ("surname_l" = "surname_r")',
]


@pytest.mark.parametrize("sql", SPLINK_DUCKDB)
def test_reads_what_splink_writes_and_writes_it_back_the_same(sql):
    tree = parse(sql, NAMES)
    assert parse(text(tree), NAMES) == tree  # the stored text reads back to the same tree
    assert parse(emit(tree, "duckdb", lambda c: f'"{c.name}_{c.side}"'), NAMES) == tree


def test_emit_uses_the_callers_column_names_and_dialect_functions():
    tree = parse('jaro_winkler_similarity("first name_l", surname_r) >= 0.9', NAMES)
    assert emit(tree, "duckdb", _internal) == ('(jaro_winkler_similarity("c_1_l", "c_4_r") >= 0.9)')
    assert emit(tree, "spark", lambda c: f"`{c.name[:1]}_{c.side}`") == (
        "(jaro_winkler(`f_l`, `s_r`) >= 0.9)"
    )
    date = parse("EPOCH(try_strptime(dob_l, '%Y-%m-%d')) > 0", NAMES)
    assert "unix_timestamp(try_to_timestamp(`d`, 'yyyy-MM-dd'))" in emit(
        date, "spark", lambda c: "`d`"
    )


def test_string_literals_are_escaped_per_dialect():
    tree = parse("given_name_l = 'O''Brien\\'", NAMES)
    assert emit(tree, "duckdb", lambda c: "x") == "(x = 'O''Brien\\')"
    assert emit(tree, "spark", lambda c: "x") == "(x = 'O\\'Brien\\\\')"


def test_reads_spark_spellings_as_the_canonical_functions():
    assert parse("jaro_winkler(`surname_l`, `surname_r`) > 0.8", NAMES) == parse(
        "jaro_winkler_similarity(surname_l, surname_r) > 0.8", NAMES
    )


def test_prefixed_and_bare_columns():
    tree = parse('l.given_name = r."first name"', NAMES, style="prefixed")
    assert [n for n in walk(tree) if isinstance(n, Column)] == [
        Column("l", "given_name"),
        Column("r", "first name"),
    ]
    assert parse("surname", NAMES, style="bare") == Column("", "surname")


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("read_csv('/etc/passwd') IS NULL", "the function 'read_csv' is not allowed"),
        ("getenv('HOME') = given_name_l", "'getenv' is not allowed"),
        ("read_text('/etc/passwd') = given_name_l", "'read_text' is not allowed"),
        ("current_setting('temp_directory') = surname_l", "'current_setting' is not allowed"),
        ("given_name_l IN (SELECT * FROM read_csv('x'))", "SELECT is not allowed"),
        ("COPY (SELECT 1) TO '/tmp/x'", "COPY is not allowed"),
        ("given_name_l = 1; ATTACH 'x'", "a character outside the grammar"),
        ("given_name_l = 1 -- comment", "a column is written"),
        ("given_name_l = r.x", "unknown attribute 'x'"),
        ("password_l = password_r", "unknown attribute 'password'"),
        ("given_name = surname", "a column is written <name>_l or <name>_r"),
        ("regexp_matches(surname_l, '(a+)+$')", "may not repeat a group without bound"),
        ("regexp_extract(surname_l, surname_r)", "argument 2 of regexp_extract must be a string"),
        ("levenshtein(surname_l)", "levenshtein takes 2 argument(s)"),
        ("CAST(surname_l AS BLOB) IS NULL", "a cast to one of"),
        ("surname_l = '" + "x" * 300 + "'", "a string literal over 200 characters"),
        ("(" * 60 + "surname_l" + ")" * 60, "nests at most"),
        ("surname_l =", "ends too early"),
        (42, "must be a string"),
    ],
)
def test_refuses_what_is_not_in_the_grammar(sql, message):
    with pytest.raises(SqlError) as caught:
        parse(sql, NAMES)
    assert message in str(caught.value)


def test_errors_never_quote_a_string_literal():
    with pytest.raises(SqlError) as caught:
        parse("surname_l = 'Secret Smith' 'more'", NAMES)
    assert "Secret" not in str(caught.value)


def test_functions_without_a_spark_name_refuse_to_be_written_for_spark():
    tree = Func("soundex", (Column("l", "surname"),))
    with pytest.raises(SqlError, match="no Spark equivalent"):
        emit(tree, "spark", lambda c: "x")


IDENT = st.sampled_from(sorted(NAMES))
LEAF = st.one_of(
    st.builds(Column, st.sampled_from(["l", "r"]), IDENT),
    st.builds(Literal, st.integers(-1000, 1000) | st.text(max_size=8) | st.none()),
)
TREES = st.recursive(
    LEAF,
    lambda inner: st.one_of(
        st.builds(Func, st.sampled_from(["levenshtein", "jaro_winkler_similarity"]),
                  st.tuples(inner, inner)),
        st.builds(Func, st.sampled_from(["lower", "abs", "length"]), st.tuples(inner)),
    ),
    max_leaves=6,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(TREES)
def test_what_emit_writes_parses_back_to_the_same_tree(tree):
    name = {"l": "_l", "r": "_r"}
    written = emit(tree, "duckdb", lambda c: '"' + c.name + name[c.side] + '"')
    assert parse(written, NAMES) == tree
