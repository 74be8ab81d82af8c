"""Two reviewer models behind one interface: a displayed pair in, P(answer "same") and
P(correct) out (docs/advice.md §2-3).

- :class:`EvidenceReviewer` weighs the evidence left in the display: the Bayes decision of the
  world model's Fellegi-Sunter posterior (it answers "same" when the posterior is above 1/2).
- :class:`HumanReviewer` answers as the CHI 2018 study's participants did: a logistic model of
  P(answer "same") over what each attribute's display lets a person read (its class, at the
  masked or the shown depth), biases when differing attributes are masked, when nothing at
  all is shown and for the study's baseline display without markup, given whether the pair
  is a true match (hit and false-alarm rates move apart), fitted to ``answers_given.csv``
  (:mod:`app.core.advice.study.fit`). Its answers are averaged over the world model's posterior
  when the truth is not known.

Attributes reach the human model through their *role* (the study's six columns: ``id``,
``first``, ``last``, ``dob``, ``sex``, ``race``); an attribute without a role adds nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from app.core.advice.display.state import Reading
from app.core.advice.models.world import World
from app.core.disclosure import FIRST_NAMES, LAST_NAMES, AttributeType

__all__ = [
    "ROLES",
    "EvidenceReviewer",
    "HumanModel",
    "HumanReviewer",
    "Response",
    "Reviewer",
    "expected_correct",
    "features",
    "respond",
    "roles_of",
]

ROLES = ("id", "first", "last", "dob", "sex", "race")


class Reviewer(Protocol):
    name: str

    def p_same(self, reading: Reading, truth: bool | None = None) -> float:
        """P(the reviewer answers "same") given what is displayed (and the truth, when the
        model's answers depend on it; ``None``: averaged over the world model's posterior)."""
        ...


@dataclass(frozen=True)
class Response:
    p_same: float
    p_correct: float


def respond(reviewer: Reviewer, world: World, reading: Reading, truth: bool | None) -> Response:
    """P(answer "same") and P(correct): against ``truth`` when known, else its expectation
    under the world model's posterior."""
    if truth is not None:
        p = reviewer.p_same(reading, truth)
        return Response(reviewer.p_same(reading), p if truth else 1 - p)
    return Response(reviewer.p_same(reading), expected_correct(reviewer, world, reading))


def expected_correct(reviewer: Reviewer, world: World, reading: Reading) -> float:
    """``Σ_y P(y | display) · P(answer y | display, y)`` under the world model."""
    post = world.posterior(reading)
    return post * reviewer.p_same(reading, True) + (1 - post) * (
        1 - reviewer.p_same(reading, False)
    )


@dataclass(frozen=True)
class EvidenceReviewer:
    world: World
    name: str = "evidence"

    def p_same(self, reading: Reading, truth: bool | None = None) -> float:
        odds = self.world.log_odds(reading)
        return 1.0 if odds > 0 else 0.0 if odds < 0 else 0.5


@dataclass(frozen=True)
class HumanModel:
    """Coefficients of the logistic model, by feature name (:func:`features`)."""

    weights: Mapping[str, float]

    def log_odds(self, features: Mapping[str, float]) -> float:
        return sum(self.weights.get(f, 0.0) * x for f, x in features.items())


#: The display-wide features whose effect may differ between true matches and non-matches.
SHIFTS = ("masked_share", "no_markup", "nothing_shown")


def features(reading: Reading, roles: Mapping[str, str], truth: bool) -> dict[str, float]:
    """The human model's features of a reading (docs/advice.md §3).

    ``bias``; ``no_markup`` (the study's baseline display); ``masked_share``, the share of
    the attributes whose reading depends on depth that are read masked; ``nothing_shown``
    when the display discloses no character; one indicator ``role|depth|class`` per attribute
    with a role (depth ``any``, ``masked``, ``partial`` or ``shown``); and for a true match
    ``truth`` and ``truth*`` each of :data:`SHIFTS`, so that hits and false alarms may move
    apart (a signal-detection reading of the answers).
    """
    out = {"bias": 1.0}
    if not reading.markup:
        out["no_markup"] = 1.0
    if not reading.disclosed:
        out["nothing_shown"] = 1.0
    deep = masked = 0
    for read in reading.reads:
        role = roles.get(read.name)
        if role is None:
            continue
        depth = read.depth
        key = f"{role}|{depth}|{read.cls}"
        out[key] = out.get(key, 0.0) + 1.0
        if depth != "any":
            deep += 1
            masked += depth == "masked"
    if masked:
        out["masked_share"] = masked / deep
    if truth:
        out["truth"] = 1.0
        out.update({f"truth*{f}": out[f] for f in SHIFTS if f in out})
    return out


@dataclass(frozen=True)
class HumanReviewer:
    model: HumanModel
    roles: Mapping[str, str]
    world: World
    name: str = "human"

    def p_same(self, reading: Reading, truth: bool | None = None) -> float:
        if truth is None:
            post = self.world.posterior(reading)
            return post * self.p_same(reading, True) + (1 - post) * self.p_same(reading, False)
        x = self.model.log_odds(features(reading, self.roles, truth))
        return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def roles_of(attributes: Mapping[str, AttributeType]) -> dict[str, str]:
    """The study role of each attribute, from its type and name (docs/advice.md §3): an id
    is ``id``, a date ``dob``, a category ``sex`` when named so and else ``race``, a string
    ``first`` or ``last`` when its name is a first or last name's. Others have no role."""
    roles = {}
    for name, kind in attributes.items():
        low = name.lower().replace(" ", "_")
        if kind is AttributeType.ID:
            roles[name] = "id"
        elif kind is AttributeType.DATE:
            roles[name] = "dob"
        elif kind is AttributeType.CATEGORY:
            roles[name] = "sex" if low in ("sex", "gender") else "race"
        elif low in FIRST_NAMES:
            roles[name] = "first"
        elif low in LAST_NAMES:
            roles[name] = "last"
    return roles
