"""The CHI 2018 study (Ragan, Kum et al.): its pairs, its answers and its five displays.

The ten sample files (72 rows, two per pair) and ``answers_given.csv`` are described in
``tests/data/chi2018/README.md``. The displays are the paper's five conditions written in the
application's own levels (docs/advice.md §1):

1. *baseline*: every cell full, no markup and no frequency markers;
2. *full*: every cell full;
3. *moderate*: identical and missing values masked (their markers show), differing values
   full, except an id: at partial, or masked when its partial would show all of it (the paper
   never reveals a whole id; only its *low* display shows the differing characters alone);
4. *low*: identical and missing masked; a differing value at partial when partial shows a
   few characters (at most :data:`LOW_CHARACTERS` on that side), masked otherwise; sex full;
5. *masked*: every cell masked.

Only the values, the frequency counts and the truth are read from a sample; its ``Record ID``
(the scenario type) is read for the cross-validation's folds and may be blank.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from app.core.advice.display.state import Shown, shown_pair
from app.core.disclosure import (
    AttributeType,
    Comparison,
    Level,
    compare,
    frequency_class,
    name_swap,
    next_level,
    normalize,
    partial_available,
)

__all__ = [
    "ATTRIBUTES",
    "DISPLAYS",
    "LOW_CHARACTERS",
    "Answer",
    "StudyPair",
    "display_levels",
    "read_answers",
    "read_pair_file",
    "read_samples",
]

ATTRIBUTES: dict[str, AttributeType] = {
    "id": AttributeType.ID,
    "first": AttributeType.STRING,
    "last": AttributeType.STRING,
    "dob": AttributeType.DATE,
    "sex": AttributeType.CATEGORY,
    "race": AttributeType.CATEGORY,
}
#: The study's ``mode`` numbers and the displays' names.
DISPLAYS = {1: "baseline", 2: "full", 3: "moderate", 4: "low", 5: "masked"}
LOW_CHARACTERS = 3
_COLUMNS = {"id": 1, "first": 3, "last": 4, "dob": 6, "sex": 7, "race": 8}
_COUNTS = {"first": 2, "last": 5}
_SAMPLE = re.compile(r"(\d+)")


@dataclass(frozen=True)
class StudyPair:
    """One pair of a sample file: its two records' normalised values and name counts."""

    sample: int
    question: int
    values: tuple[Mapping[str, str | None], Mapping[str, str | None]]
    counts: tuple[Mapping[str, int | None], Mapping[str, int | None]]
    truth: bool | None
    scenario: int | None = None

    @cached_property
    def comparisons(self) -> dict[str, Comparison]:
        return {
            a: compare(kind, self.values[0][a], self.values[1][a]) for a, kind in ATTRIBUTES.items()
        }

    @cached_property
    def swapped(self) -> frozenset[str]:
        a, b = self.values
        if name_swap(a["first"], a["last"], b["first"], b["last"]):
            return frozenset({"first", "last"})
        return frozenset()

    @cached_property
    def rare(self) -> frozenset[str]:
        """Identical names whose frequency marker says unique or rare on both rows."""
        out = set()
        for a in _COUNTS:
            classes = {frequency_class(c[a]) for c in self.counts}
            if classes <= {"unique", "rare"}:
                out.add(a)
        return frozenset(out)

    def shown(self, levels: Mapping[tuple[int, str], Level], *, markup: bool = True) -> Shown:
        return shown_pair(
            self.comparisons, levels, name_swap=self.swapped, rare=self.rare, markup=markup
        )


def display_levels(
    pair: StudyPair | Mapping[str, Comparison], display: str, *, shown_always=("sex",)
) -> dict[tuple[int, str], Level]:
    """The level of every cell of a pair (a study pair, or any pair's comparisons by
    attribute) in one of the study's displays (module docs); ``shown_always`` are the
    attributes the low display always shows (the study's sex)."""
    if display not in DISPLAYS.values():
        raise ValueError(f"unknown display {display!r} (one of {', '.join(DISPLAYS.values())})")
    comparisons = pair.comparisons if isinstance(pair, StudyPair) else pair
    levels = {}
    for a, cmp in comparisons.items():
        for row in (0, 1):
            levels[row, a] = _level(display, a in shown_always, cmp, row)
    return levels


def _level(display: str, always: bool, cmp: Comparison, row: int) -> Level:
    if cmp.values[row] is None or display == "masked":
        return Level.MASKED
    if display in ("baseline", "full"):
        return Level.FULL
    if display == "low" and always:
        return Level.FULL
    if cmp.relation != "different":
        return Level.MASKED
    if display == "moderate":
        if cmp.kind is AttributeType.ID:
            return Level.PARTIAL if partial_available(cmp, row) else Level.MASKED
        return Level.FULL
    if cmp.kind is AttributeType.CATEGORY or not partial_available(cmp, row):
        return Level.MASKED
    few = len(cmp.edit_positions[row]) <= LOW_CHARACTERS
    return next_level(cmp, row, Level.MASKED) if few else Level.MASKED


def read_samples(directory: str | Path) -> list[StudyPair]:
    """The pairs of every ``sample_NN.csv`` under ``directory``, by sample and question.

    Raises :class:`ValueError` naming the file and line of a row that does not parse, and
    when the directory holds no sample file.
    """
    files = sorted(Path(directory).glob("sample_*.csv"))
    if not files:
        raise ValueError(f"no sample_*.csv file in {directory}")
    pairs = []
    for path in files:
        sample = int(_SAMPLE.search(path.stem).group(1))
        pairs.extend(_read_sample(path, sample))
    return pairs


def read_pair_file(path: str | Path, sample: int = 0) -> list[StudyPair]:
    """The pairs of a MINDFIRL user-study pair file: the sample files' 18 columns without a
    header (``tests/data/mindfirl``: ``section2.csv``, ``ppirl.csv``)."""
    return _read_sample(Path(path), sample, header=False)


def _read_sample(path: Path, sample: int, *, header: bool = True) -> list[StudyPair]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.reader(handle))[1 if header else 0 :]
    if len(rows) % 2:
        raise ValueError(f"{path.name}: an odd number of rows ({len(rows)}); two rows per pair")
    out = []
    for line in range(0, len(rows), 2):
        two = rows[line : line + 2]
        try:
            out.append(_pair(two, sample))
        except (ValueError, IndexError) as exc:
            first = line + 1 + header
            raise ValueError(f"{path.name}, lines {first}-{first + 1}: {exc}") from None
    return out


def _pair(rows: list[list[str]], sample: int) -> StudyPair:
    if rows[0][0] != rows[1][0]:
        raise ValueError("the two rows of a pair have different Group IDs")
    values = tuple(
        {a: normalize(ATTRIBUTES[a], row[c]) for a, c in _COLUMNS.items()} for row in rows
    )
    counts = tuple({a: _int(row[c]) for a, c in _COUNTS.items()} for row in rows)
    truth = rows[0][17].strip()
    scenario = rows[0][15].strip()
    return StudyPair(
        sample,
        int(rows[0][0]),
        (values[0], values[1]),
        (counts[0], counts[1]),
        None if truth == "" else truth == "1",
        int(scenario) if scenario else None,
    )


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None


@dataclass(frozen=True)
class Answer:
    participant: int
    mode: int
    sample: int
    question: int
    scenario: int
    same: bool
    chosen_same: bool
    attention: bool


def read_answers(path: str | Path) -> list[Answer]:
    """The rows of ``answers_given.csv`` (attention checks included, flagged)."""
    with Path(path).open(newline="", encoding="utf-8") as handle:
        return [
            Answer(
                int(r["participant"]),
                int(r["mode"]),
                int(r["sample"]),
                int(r["question"]),
                int(r["type"]),
                r["same"] == "1",
                r["chosen_answer"] == "1",
                r["is_attention"] == "1",
            )
            for r in csv.DictReader(handle)
        ]
