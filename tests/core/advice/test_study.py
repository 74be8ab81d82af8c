"""The CHI 2018 pairs, and the study's five displays in the application's levels and meter."""

from __future__ import annotations

import shutil

import pytest

from app.core.advice import DISPLAYS, display_levels, read_samples, stored
from app.core.disclosure import Level, view


def test_ten_samples_of_36_pairs(study_pairs):
    assert len(study_pairs) == 360
    assert {p.sample for p in study_pairs} == set(range(1, 11))
    assert sum(p.truth for p in study_pairs) == 190


def _characters(pairs, display):
    shown = total = 0
    for pair in pairs:
        levels = display_levels(pair, display)
        for attribute, cmp in pair.comparisons.items():
            for row in (0, 1):
                cell = view(cmp, row, levels[row, attribute])
                shown, total = shown + cell.disclosed, total + cell.total
    return shown, total


@pytest.mark.parametrize(
    ("display", "percent"),
    # The paper: 100, 100, about 30 (683 of 2,248), about 7.6 (170 of 2,248), 0 per sample;
    # its moderate text shows differing values whole, which the app's meter counts as 41.2 %.
    [("baseline", 100.0), ("full", 100.0), ("moderate", 41.2), ("low", 7.6), ("masked", 0.0)],
)
def test_the_displays_characters_against_the_paper(study_pairs, display, percent):
    shown, total = _characters(study_pairs, display)
    assert total == 22_473  # 2,247.3 per sample: the paper counts 2,248
    assert round(100 * shown / total, 1) == percent


def test_display_rules(study_pairs):
    pair = next(p for p in study_pairs if p.sample == 1 and p.question == 9)  # ids one digit off
    moderate, low = display_levels(pair, "moderate"), display_levels(pair, "low")
    assert moderate[0, "first"] is Level.MASKED  # identical: the marker only
    assert low[0, "sex"] is Level.FULL and moderate[0, "sex"] is Level.MASKED
    assert {display_levels(pair, "masked")[k] for k in low} == {Level.MASKED}
    with pytest.raises(ValueError, match="unknown display"):
        display_levels(pair, "partial")
    assert set(DISPLAYS.values()) == {"baseline", "full", "moderate", "low", "masked"}


def test_the_record_id_may_be_blank(tmp_path):
    """A sample whose ``Record ID`` (the scenario type) is blank reads alike: no model needs it."""
    source = stored.DATA / "samples" / "sample_01.csv"
    lines = source.read_text(encoding="utf-8").splitlines()
    fields = [line.split(",") for line in lines[1:]]
    blank = [lines[0]] + [",".join(f[:15] + [""] + f[16:]) for f in fields]
    (tmp_path / "sample_01.csv").write_text("\n".join(blank) + "\n", encoding="utf-8")
    pairs = read_samples(tmp_path)
    assert [p.scenario for p in pairs] == [None] * 36
    assert [p.comparisons for p in pairs] == [
        p.comparisons for p in read_samples(source.parent)[:36]
    ]


def test_bad_files_are_named(tmp_path):
    with pytest.raises(ValueError, match="no sample_"):
        read_samples(tmp_path)
    shutil.copy(stored.DATA / "samples" / "sample_02.csv", tmp_path / "sample_02.csv")
    text = (tmp_path / "sample_02.csv").read_text(encoding="utf-8").splitlines()
    text[5] = text[5].replace("/19", "/19x", 1)
    (tmp_path / "sample_02.csv").write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"sample_02.csv, lines 6-7: not a date"):
        read_samples(tmp_path)
