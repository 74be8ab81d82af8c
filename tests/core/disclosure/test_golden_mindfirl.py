"""Golden tests: the paper's tables and the original MINDFIRL partial "helper" strings.

Helper strings (spec §1, data README): ``*`` = same as the other record, a literal
character = differs and is shown in partial mode, ``_`` = gap, ``?`` = trailing gap in an
id; dates are written ``MM/DD/YYYY``.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from app.core.disclosure import (
    AttributeType,
    CellView,
    Level,
    compare,
    is_day_month_swap,
    next_level,
    normalize,
    view,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "mindfirl"
M, P, F = Level.MASKED, Level.PARTIAL, Level.FULL

# Paper Table 2: the four records of the worked example.
RECORDS = {
    1: ("Mary", "08091964", "Hispanic"),
    2: ("Mark", "08091964", "Hispanic"),
    3: ("Mary", "09081964", "Black"),
    4: ("Mary", "09081964", "Black"),
}
KINDS = (AttributeType.STRING, AttributeType.DATE, AttributeType.CATEGORY)


def text(cell: CellView) -> str:
    return "".join(s.text for s in cell.segments if s.kind != "marker")


def pattern(shown: str) -> str:
    """Reduce a masked display to where it marks a difference (``#``)."""
    return "".join(c if c in "*/" else "#" for c in shown)


# Paper Table 4 (partial where offered), rows i = 1..12: name, DOB, p_i. The OCR of the
# paper prints "***v" for "***y".
N4, D8 = Fraction(1, 4), Fraction(2, 8)  # 1 of 4 name characters, 2 of 8 DOB digits
TABLE_4 = {
    (1, 2): [("***y", "**/**/****", (N4, 0, 0)), ("***k", "**/**/****", (N4, 0, 0))],
    (1, 3): [("****", "*8/*9/****", (0, D8, 0)), ("****", "*9/*8/****", (0, D8, 0))],
    (1, 4): [("****", "*8/*9/****", (0, D8, 0)), ("****", "*9/*8/****", (0, D8, 0))],
    (2, 3): [("***k", "*8/*9/****", (N4, D8, 0)), ("***y", "*9/*8/****", (N4, D8, 0))],
    (2, 4): [("***k", "*8/*9/****", (N4, D8, 0)), ("***y", "*9/*8/****", (N4, D8, 0))],
    (3, 4): [("****", "**/**/****", (0, 0, 0)), ("****", "**/**/****", (0, 0, 0))],
}

# Paper Table 3 (masked): name and DOB of the first row of each pair; the second row has
# the same difference positions.
TABLE_3 = {
    (1, 2): ("***@", "**/**/****"),
    (1, 3): ("****", "*@/*&/****"),
    (1, 4): ("****", "*@/*&/****"),
    (2, 3): ("***@", "*@/*&/****"),
    (2, 4): ("***@", "*@/*&/****"),
    (3, 4): ("****", "**/**/****"),
}


def _stepped(kind: AttributeType, a: str, b: str, side: int, target: Level) -> CellView:
    """Reveal a cell from masked until ``target`` or the last level short of it."""
    cmp = compare(kind, a, b)
    level = M
    while (step := next_level(cmp, side, level)) is not None and step.rank <= target.rank:
        level = step
    return view(cmp, side, level)


@pytest.mark.parametrize("pair", sorted(TABLE_4))
def test_paper_table_4_partial(pair: tuple[int, int]) -> None:
    for side, (name, dob, p) in enumerate(TABLE_4[pair]):
        cells = [
            _stepped(kind, RECORDS[pair[0]][j], RECORDS[pair[1]][j], side, P)
            for j, kind in enumerate(KINDS)
        ]
        assert (text(cells[0]), text(cells[1]), text(cells[2])) == (name, dob, "*")
        assert cells[2].level is M  # race: no partial level ("N/A")
        assert tuple(Fraction(c.disclosed, c.total) for c in cells) == p


@pytest.mark.parametrize("pair", sorted(TABLE_3))
def test_paper_table_3_masked(pair: tuple[int, int]) -> None:
    for side in (0, 1):
        cells = [
            view(compare(kind, RECORDS[pair[0]][j], RECORDS[pair[1]][j]), side, M)
            for j, kind in enumerate(KINDS[:2])
        ]
        assert [pattern(text(c)) for c in cells] == [pattern(s) for s in TABLE_3[pair]]
        assert all(c.disclosed == 0 for c in cells)


@pytest.mark.parametrize(
    ("kind", "a", "b", "masked", "partial", "full"),
    [
        # Table 1 (OCR-damaged; lengths restored): suffix extension, no partial on SANCHEZ.
        ("string", "SANCHEZ JR", "SANCHEZ", "*******###", "******* JR", "SANCHEZ JR"),
        ("string", "SANCHEZ", "SANCHEZ JR", "*******", "*******", "SANCHEZ"),
        ("category", "White", "Asian", "*", "*", "White"),
        # Deliberate difference: Table 1 shows the whole month and day of a day/month swap
        # (@@/&&/****, 08/09/****) like the original code; we follow Table 3/4 and spec §1.
        ("date", "08091964", "09081964", "*#/*#/****", "*8/*9/****", "08/09/1964"),
        # Deliberate difference: Table 1 aligns these equal-length ids (*********9 /
        # *****6****); the issue asks for a position-wise comparison of equal-length ids.
        ("id", "1742682819", "1742668281", "*****#####", "*****82819", "1742682819"),
    ],
)
def test_paper_table_1(kind: str, a: str, b: str, masked: str, partial: str, full: str) -> None:
    k = AttributeType(kind)
    cells = [_stepped(k, a, b, 0, level) for level in (M, P, F)]
    assert [pattern(text(cells[0])), text(cells[1]), text(cells[2])] == [masked, partial, full]


# --- The original implementation's helper strings --------------------------------------

COLUMNS = [  # attribute, type, value column; helper columns follow in the same order
    ("id", AttributeType.ID, 1),
    ("first", AttributeType.STRING, 3),
    ("last", AttributeType.STRING, 4),
    ("dob", AttributeType.DATE, 6),
]


def helper_known(kind: AttributeType, helper: str) -> set[tuple[int, str]]:
    """Return the (position, character) pairs a helper string discloses."""
    if kind is AttributeType.DATE:
        helper = helper.replace("/", "")
    known, pos = set(), 0
    for char in helper:
        if char in "_?":  # a gap is not a character of this value
            continue
        if char != "*":
            known.add((pos, char))
        pos += 1
    return known


def compared_cells(name: str, helper_offset: int):
    """Yield (attribute, a, b, side, ours, theirs) for every record of a pf file."""
    text_ = (DATA / name).read_text(encoding="utf-8")
    rows = [line.split(",") for line in text_.splitlines()]
    assert len(rows) % 2 == 0
    for first, second in zip(rows[::2], rows[1::2], strict=True):
        assert first[0] == second[0]  # consecutive rows are the two records of a pair
        for k, (attribute, kind, column) in enumerate(COLUMNS):
            a, b = normalize(kind, first[column]), normalize(kind, second[column])
            cmp = compare(kind, a, b)
            for side, row in enumerate((first, second)):
                ours = set(view(cmp, side, P).known)
                theirs = helper_known(kind, row[helper_offset + k])
                yield attribute, a, b, side, ours, theirs


@pytest.mark.parametrize("name", ["production_p1_pf.csv", "production_p2_pf.csv"])
def test_original_mindfirl_helpers(name: str) -> None:
    cells = list(compared_cells(name, 14))
    assert len(cells) == {"production_p1_pf.csv": 96, "production_p2_pf.csv": 160}[name]
    assert [c for c in cells if c[4] != c[5]] == []


# The 2025 user-study pair sets (pinformatics/mindfirl_2025) use the 18-column format with
# helper columns 9-14. Every disagreement with our partial view is a documented deviation:
# Equal-length ids the 2025 code aligns (a shifted id discloses one digit per side there);
# the issue asks for a position-wise comparison of equal-length ids.
ID_SHIFTS = {
    ("1000065182", "2000006682"),
    ("1000152132", "1000015213"),
    ("1000158264", "2100015826"),
    ("1000167316", "1000167231"),
    ("1000181624", "1000182162"),
    ("1000529305", "2100052930"),
    ("1000686435", "1000686243"),
    ("1001231504", "1001232150"),
    ("1006825719", "1006082571"),
    ("1020466864", "2102046686"),
    ("1032462954", "1032462295"),
    ("1033263180", "1033262318"),
    ("1044439553", "1044043955"),
    ("1045746107", "2104574610"),
    ("1053909624", "1053902962"),
}
# Names with two optimal alignments that disclose different characters (tie-breaking,
# see app.core.disclosure.alignment.align).
NAME_TIES = {("LORI", "LORRAINE"), ("JAVONNIE", "JOHNNIE")}


def deviation(attribute, a, b, side, ours, theirs) -> str:
    """Classify one disagreement between our partial view and the 2025 helper string."""
    value = (a, b)[side]
    whole = set(enumerate(value or ""))
    if ours == theirs:
        return "same"
    if (a is None or b is None) and theirs == whole:
        # The original shows a value whose partner is missing in partial mode; a missing
        # pair has no partial level here (spec §1).
        return "partner_missing"
    if (
        attribute == "dob"
        and is_day_month_swap(a, b)
        and theirs == ours | {(p, value[p]) for p in range(4)}
    ):
        # The original reveals the whole month and day; the paper's Table 4 (spec §1)
        # only the differing digits.
        return "day_month_swap"
    if ours < theirs == whole:
        # The original shows the whole value when the pair differs "too much" (its own
        # threshold); partial shows exactly the edit-operation characters (spec §1).
        return "whole_value"
    if attribute == "id" and (a, b) in ID_SHIFTS:
        return "id_shift"
    if attribute in ("first", "last") and ((a, b) in NAME_TIES or (b, a) in NAME_TIES):
        return "name_tie"
    return f"unexplained {attribute} {a!r} {b!r} side {side}: {sorted(ours)} {sorted(theirs)}"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ppirl.csv", {"same": 31, "partner_missing": 3, "whole_value": 14}),
        (
            "section2.csv",
            {
                "same": 1674,
                "partner_missing": 145,
                "day_month_swap": 26,
                "whole_value": 770,
                "id_shift": 30,
                "name_tie": 3,
            },
        ),
    ],
)
def test_mindfirl_2025_helpers(name: str, expected: dict[str, int]) -> None:
    found = Counter(deviation(*cell) for cell in compared_cells(name, 9))
    assert dict(found) == expected
