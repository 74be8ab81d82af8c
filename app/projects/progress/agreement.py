"""Agreement between two reviewers of the same pairs, and a pair's consensus answer.

Pure functions over plain labels (``"same"``, ``"different"``, ``"unsure"``): no Flask, no
database.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.core.quality import cohen_kappa

__all__ = ["Agreement", "agreement", "consensus"]


@dataclass(frozen=True)
class Agreement:
    """Over ``pairs`` double-coded pairs: how many ``agreed``, the percentage, Cohen's κ.

    ``percent`` and ``kappa`` are ``None`` with no pair; ``kappa`` is also ``None`` when
    chance agreement is 1 (both reviewers always gave one and the same label), where κ is
    undefined.
    """

    pairs: int
    agreed: int
    percent: float | None
    kappa: float | None


def agreement(labels: Iterable[tuple[str, str]]) -> Agreement:
    """Percent agreement and Cohen's κ of two reviewers' labels for the same pairs.

    κ = (p_o − p_e) / (1 − p_e), with p_o the observed agreement and
    p_e = Σ_c p₁(c)·p₂(c) the agreement expected by chance from each reviewer's label
    frequencies (Cohen 1960, "A coefficient of agreement for nominal scales"). With more
    than two workers the first and second coder of a pair (by assignment) play the two
    reviewers.
    """
    pairs = list(labels)
    n = len(pairs)
    if n == 0:
        return Agreement(0, 0, None, None)
    agreed = sum(a == b for a, b in pairs)
    return Agreement(n, agreed, 100 * agreed / n, cohen_kappa(pairs))


def consensus(
    decisions: Sequence[str], resolution: str | None = None, reviewers: int = 0
) -> str | None:
    """The pair's answer: the manager's ``resolution`` if any, else the reviewers' majority.

    A label counts when more than half of the pair's ``reviewers`` give it (its reviewer
    slots; at least the answers given): one reviewer's answer decides alone, a double-coded
    pair is settled once both reviewers agree (one answer of two settles nothing), three
    decide by two to one. ``None`` when nobody answered, while too few have, on a tie (a
    conflict) or when the majority is ``unsure``.
    """
    if resolution is not None:
        return resolution
    if not decisions:
        return None
    label, count = Counter(decisions).most_common(1)[0]
    if 2 * count <= max(reviewers, len(decisions)) or label == "unsure":
        return None
    return label
