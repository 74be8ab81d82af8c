"""Belief audits from text: parsing with clear errors, exact Bel/Pl, combinations."""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

from app.analytics.belief.text_form import (
    BeliefInputError,
    parse_frame,
    parse_probability,
    parse_sets,
    run_audit,
)
from app.analytics.views.reports import BELIEF_EXAMPLE


def test_masses_are_read_exactly():
    sets = parse_sets("a,b: 0.5\n{c}: 1/4  # comment\nc : 1/4", "masses", "First body")
    assert sets == {frozenset("ab"): F(1, 2), frozenset("c"): F(1, 2)}


def test_candidate_weights_are_normalised_and_default_to_one():
    sets = parse_sets("r1 r2 r3: 2\nr2", "candidates", "First body")
    assert sets == {frozenset({"r1", "r2", "r3"}): F(2, 3), frozenset({"r2"}): F(1, 3)}


@pytest.mark.parametrize(
    ("text", "mode", "message"),
    [
        ("a,b 1/2", "masses", "First body, line 1: write the set, a colon"),
        ("a: 1/2\n: 1/2", "masses", "First body, line 2: the set is empty"),
        ("a: half", "masses", "First body, line 1: 'half' is not a number"),
        ("a: 1/0", "masses", "is not a number"),
        ("a: -1/2\nb: 3/2", "masses", "line 1: -1/2 is negative"),
        ("a: 1/2\nb: 1/3", "masses", "the masses sum to 5/6, not 1"),
        ("", "masses", "enter at least one set"),
        ("a: 0", "candidates", "the weights sum to 0"),
    ],
)
def test_parse_errors_name_field_and_line(text, mode, message):
    with pytest.raises(BeliefInputError, match=message):
        parse_sets(text, mode, "First body")


def test_frame_defaults_to_the_union_and_rejects_outsiders():
    body = {frozenset("ab"): F(1)}
    assert parse_frame("", body, {frozenset("c"): F(1)}) == ("a", "b", "c")
    with pytest.raises(BeliefInputError, match="Frame: b is not in the frame"):
        parse_frame("a c", body)


def test_probability_parsing():
    assert parse_probability("a: 1/2, b: 0.5", ("a", "b", "c")) == {"a": F(1, 2), "b": F(1, 2)}
    assert parse_probability("  ", ("a",)) is None
    with pytest.raises(BeliefInputError, match="sums to 3/4"):
        parse_probability("a: 3/4", ("a", "b"))
    with pytest.raises(BeliefInputError, match="z is not in the frame"):
        parse_probability("z: 1", ("a", "b"))


def test_dempster_counterexample_violates_by_one_quarter():
    report = run_audit(BELIEF_EXAMPLE)
    titles = [b.title for b in report.bodies]
    assert titles == ["First body", "Second body", "Conjunctive (unnormalised)", "Dempster"]
    first, _, _, dempster = report.bodies
    assert first.compatibility.compatible
    assert [(r.label, r.bel, r.pl, r.pignistic) for r in first.singletons] == [
        ("{a}", F(1, 2), F(1), F(3, 4)),
        ("{b}", F(0), F(1, 2), F(1, 4)),
    ]
    assert report.dempster_conflict == 0
    assert dempster.compatibility.violation == F(1, 4)
    assert dempster.compatibility.witness == frozenset({"a"})
    assert [(r.label, r.mass, r.bel) for r in dempster.focal] == [
        ("{a}", F(3, 4), F(3, 4)),
        ("{a, b}", F(1, 4), F(1)),
    ]
    assert dempster.nonspecificity == pytest.approx(0.25)
    assert report.notes == ("Candidate intersection applies when each body is one candidate set.",)


def test_candidate_sets_intersect_and_measures_shrink():
    form = {"mode": "candidates", "first": "r1 r2 r3 r4", "second": "r2 r3 r5",
            "probability": "r2: 1/2, r3: 1/2"}  # fmt: skip
    report = run_audit(form)
    first, second, conjunctive, dempster, both = report.bodies
    assert both.title == "Candidate intersection"
    assert [r.label for r in both.focal] == ["{r2, r3}"]
    assert both.compatibility.compatible and both.nonspecificity == pytest.approx(1.0)
    assert first.nonspecificity == pytest.approx(2.0)
    assert both.entropy == pytest.approx(math.log(2))
    assert report.frame == ("r1", "r2", "r3", "r4", "r5")


def test_total_conflict_is_a_note_not_an_error():
    report = run_audit({"first": "a: 1", "second": "b: 1"})
    assert [b.title for b in report.bodies] == ["First body", "Second body"]
    assert report.notes == (
        "Conjunctive: all mass is on the empty set: no pignistic probability.",
        "Dempster: total conflict: Dempster's rule is undefined.",
        "Candidate intersection: the candidate sets have no record in common: "
        "incompatible evidence.",
    )


def test_partial_conflict_is_reported():
    report = run_audit({"frame": "a b c", "first": "a: 1/2\nb: 1/2", "second": "a,c: 1"})
    assert report.dempster_conflict == F(1, 2)
    conjunctive = report.bodies[2]
    assert conjunctive.conflict == F(1, 2)
