"""Every CSV export read back by Python's ``csv`` and by a reader that ends rows at a bare CR
sees the rows that were written and no formula (issue 28, point 4).

Each writer the app serves CSV with (the project exports, the peer labels, the KAPR report and
:func:`app.charts.csv_text`, behind every chart, audit and recommendation download) is fed
text drawn by hypothesis from the characters that break CSV or start a formula. Today's
regression: ``"\\r=1D5"`` was written ``'\\r=1D5`` unquoted, and a CR-splitting reader began a
row at ``=1D5``.
"""

from __future__ import annotations

import csv
import io
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.analytics.kapr.reports import KaprReport, RiskRow, kapr_csv
from app.charts import csv_text
from app.core.disclosure import AttributeType
from app.projects.exports.formats import (
    Decision,
    Judgement,
    LabelRow,
    is_formula,
    neutralize,
    write_clusters,
    write_labels,
    write_legacy_result,
    write_linked_dataset,
)
from app.projects.exports.linkage import write_linkage
from app.projects.exports.peers import SettledPair, write_splink_labels
from app.projects.reading.pairfile import Pair, PairFile

TRICKY = "=+-@\t\r\n,\"' ab1\uff1d\uff0b\u3000"
texts = st.text(alphabet=st.sampled_from(TRICKY), max_size=8)
rows_of = st.lists(st.tuples(texts, texts, texts), min_size=1, max_size=5)


def cr_rows(text: str) -> list[list[str]]:
    """Rows as a reader that ends a row at CR, LF or CRLF outside quotes reads them."""
    rows, row, cell, quoted, i = [], [], [], False, 0
    while i < len(text):
        c = text[i]
        if quoted:
            if c == '"' and text[i + 1 : i + 2] == '"':
                cell.append('"')
                i += 1
            elif c == '"':
                quoted = False
            else:
                cell.append(c)
        elif c == '"':
            quoted = True
        elif c == ",":
            row.append("".join(cell))
            cell = []
        elif c in "\r\n":
            rows.append([*row, "".join(cell)])
            row, cell = [], []
            i += c == "\r" and text[i + 1 : i + 2] == "\n"
        else:
            cell.append(c)
        i += 1
    if row or cell:
        rows.append([*row, "".join(cell)])
    return rows


def check(text: str, rows: int, *, formulas_allowed: bool = False) -> list[list[str]]:
    """Both readers agree, see ``rows`` rows, and (unless allowed) no cell is a formula: a
    cell starting like one must be a number the app wrote."""
    by_csv = list(csv.reader(io.StringIO(text, newline="")))
    assert cr_rows(text) == by_csv
    assert len(by_csv) == rows
    if not formulas_allowed:
        for row in by_csv:
            for cell in row:
                if is_formula(cell):
                    float(cell)  # only a numeric literal may start with "-" or "+"
    return by_csv


def written(function, *args) -> str:
    out = io.StringIO()
    function(out, *args)
    return out.getvalue()


@settings(max_examples=150, deadline=None)
@given(rows_of)
def test_labels(values):
    labels = [
        LabelRow(a, b, c, a, Judgement(Decision.SAME), reviewer=b, match_key=c, match_weight=-1.5)
        for a, b, c in values
    ]
    read = check(written(write_labels, labels), len(values) + 1)
    assert [row[:3] for row in read[1:]] == [[neutralize(v) for v in r] for r in values]


@settings(max_examples=100, deadline=None)
@given(rows_of)
def test_legacy_result(values):
    records_a = {f"a{i}": {"name": a, "note": b} for i, (a, b, _) in enumerate(values)}
    records_b = {f"b{i}": {"name": c, "note": a} for i, (a, _, c) in enumerate(values)}
    pairs = [Pair(f"p{i}", f"g{i}", f"a{i}", f"b{i}") for i in range(len(values))]
    kinds = {"name": AttributeType.STRING, "note": AttributeType.STRING}
    pairfile = PairFile(kinds, records_a, records_b, pairs)
    check(written(write_legacy_result, pairfile, {}), 2 * len(values) + 1)


@settings(max_examples=100, deadline=None)
@given(rows_of)
def test_clusters_and_linked_dataset(values):
    assignment = {(a, f"{b}{i}"): i for i, (a, b, _) in enumerate(values)}
    by = {i: c for i, (_, _, c) in enumerate(values)}
    check(written(write_clusters, assignment, by), len(assignment) + 1)
    sensitive = {f"r{i}": {"x": a, "cluster_id": b} for i, (a, b, _) in enumerate(values)}
    members = [(f"r{i}", i) for i in range(len(values))]
    text = written(write_linked_dataset, members, sensitive, ["x", "cluster_id"], by)
    check(text, len(values) + 1)


@settings(max_examples=100, deadline=None)
@given(rows_of)
def test_linkage(values):
    rows = [(a, b, c, a, "same", b, c, 1, 0.5, -2.5, a) for a, b, c in values]
    check(written(write_linkage, rows), len(values) + 1)


@settings(max_examples=100, deadline=None)
@given(rows_of)
def test_splink_labels_keep_ids_and_rows(values):
    """Ids are the join key, written unchanged (quoted): formulas are allowed here only (the
    module says these files are for Splink, not a spreadsheet); rows are never split."""
    pairs = [SettledPair(a, b, c, a, same=True) for a, b, c in values]
    read = check(written(write_splink_labels, pairs), len(values) + 1, formulas_allowed=True)
    assert [row[:3] for row in read[1:]] == [list(r) for r in values]


@settings(max_examples=100, deadline=None)
@given(rows_of, texts)
def test_chart_tables(values, title):
    """:func:`app.charts.csv_text` writes every chart's, audit's and recommendation's CSV."""
    text = csv_text([title, "y"], [[a, b, c, -0.25] for a, b, c in values])
    read = check(text, len(values) + 1)
    assert [row[:3] for row in read[1:]] == [[neutralize(v) for v in r] for r in values]


@settings(max_examples=60, deadline=None)
@given(rows_of)
def test_kapr_report(values):
    rows = [RiskRow(a, b, 1, 2, Fraction(1, 3), Fraction(1, 2), 3, 4, 5) for a, b, _ in values]
    check(kapr_csv(KaprReport(rows, [], [])), len(values) + 1)


def test_the_regression_a_bare_cr_before_a_formula_in_the_linked_export():
    sensitive = {"r1": {"x": "\r=1D5"}, "r2": {"x": "x\ry"}}
    text = written(write_linked_dataset, [("r1", 1), ("r2", 2)], sensitive, ["x"])
    assert check(text, 3)[1:] == [["1", "'\r=1D5"], ["2", "x\ry"]]
