"""A reviewer's answer for a pair, and the codes MINDFIRL and Splink write it as."""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Confidence", "Decision", "Judgement", "match_score", "mindfirl_choice"]


class Decision(enum.StrEnum):
    """A reviewer's answer for a pair."""

    SAME = "same"
    DIFFERENT = "different"


class Confidence(enum.IntEnum):
    """How sure the reviewer was (MINDFIRL's High/Medium/Low)."""

    LOW = 1
    MEDIUM = 2
    HIGH = 3


@dataclass(frozen=True, slots=True)
class Judgement:
    """A decision and its confidence; both ``None`` while the pair is unanswered."""

    decision: Decision | None = None
    confidence: Confidence | None = None


def mindfirl_choice(judgement: Judgement) -> int | None:
    """MINDFIRL's answer code: 1..3 = Different High/Medium/Low, 4..6 = Same Low/Medium/High.

    ``None`` when undecided or when the confidence is unknown.
    """
    decision, confidence = judgement.decision, judgement.confidence
    if decision is None or confidence is None:
        return None
    return 4 - confidence if decision is Decision.DIFFERENT else 3 + confidence


def match_score(judgement: Judgement) -> float | None:
    """Splink's ``clerical_match_score``: the choice spread over [0, 1], else 0 or 1."""
    if judgement.decision is None:
        return None
    choice = mindfirl_choice(judgement)
    if choice is None:
        return 1.0 if judgement.decision is Decision.SAME else 0.0
    return (choice - 1) / 5
