"""Audits of linkage outputs: compatibility, Proposition 16 and 19, over-confidence."""

from __future__ import annotations

from fractions import Fraction

from app.core.belief import MassFunction, RecordOutput, audit_linkage, audit_output, categorical
from app.core.belief.examples import proposition_19_belief

FRAME = ("x0", "x1", "x2", "x3")


def test_a_uniform_guess_over_a_superset_is_compatible():
    audit = audit_output(RecordOutput("y", categorical(FRAME, FRAME), frozenset({"x1"})))
    assert audit.compatible and audit.support_ok and not audit.overconfident
    assert audit.true_probability == Fraction(1, 4) and audit.nonspecificity_bits == 2.0


def test_certainty_on_a_wrong_record_is_overconfident():
    audit = audit_output(RecordOutput("y", categorical(FRAME, "x2"), frozenset({"x1"})))
    assert audit.overconfident and audit.max_violation == 1 and audit.witness_size == 1
    assert not audit.support_ok and audit.argmax_outside_true_set  # Proposition 16 fails


def test_proposition_19_is_compatible_yet_picks_outside():
    truth = frozenset({"x1", "x2", "x3"})
    m = proposition_19_belief(FRAME, truth, "x0")
    audit = audit_output(RecordOutput("y", m, truth))
    assert audit.compatible and audit.argmax_outside_true_set and audit.support_ok
    assert audit.true_probability == Fraction(1, 2)


def test_summary():
    outputs = [
        RecordOutput("a", categorical(FRAME, FRAME), frozenset({"x1"})),
        RecordOutput("b", MassFunction.of(FRAME, {"x2": 1}), frozenset({"x1"})),
    ]
    audit = audit_linkage(outputs)
    assert audit.compatible == 1 and audit.overconfident == ["b"]
    assert audit.mean_true_probability == Fraction(1, 8) and audit.support_violations == 1
