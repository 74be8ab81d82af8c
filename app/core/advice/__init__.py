"""Advice: reviewer models fitted to the CHI 2018 study, the disclosure advisor, policies."""

from app.core.advice.advisor import MIN_GAIN, Advice, CellAdvice, advise
from app.core.advice.display.perception import CLASSES, classify
from app.core.advice.display.state import (
    AttributeShown,
    Read,
    Reading,
    Shown,
    SideShown,
    shown_pair,
)
from app.core.advice.models.reviewers import (
    ROLES,
    EvidenceReviewer,
    HumanModel,
    HumanReviewer,
    Response,
    Reviewer,
    expected_correct,
    respond,
    roles_of,
)
from app.core.advice.models.world import AttributeTable, World, fit_em, fit_labelled, with_splink
from app.core.advice.policies import POLICIES, Case, Outcome, raw_columns, run_policy
from app.core.advice.simulate import REVIEWERS, simulate_study, study_cases, study_reviewer
from app.core.advice.study import stored
from app.core.advice.study.data import (
    DISPLAYS,
    StudyPair,
    display_levels,
    read_answers,
    read_samples,
)

__all__ = [
    "CLASSES",
    "DISPLAYS",
    "MIN_GAIN",
    "POLICIES",
    "REVIEWERS",
    "ROLES",
    "Advice",
    "AttributeShown",
    "AttributeTable",
    "Case",
    "CellAdvice",
    "EvidenceReviewer",
    "HumanModel",
    "HumanReviewer",
    "Outcome",
    "Read",
    "Reading",
    "Response",
    "Reviewer",
    "Shown",
    "SideShown",
    "StudyPair",
    "World",
    "advise",
    "classify",
    "display_levels",
    "expected_correct",
    "fit_em",
    "fit_labelled",
    "raw_columns",
    "read_answers",
    "read_samples",
    "respond",
    "roles_of",
    "run_policy",
    "shown_pair",
    "simulate_study",
    "stored",
    "study_cases",
    "study_reviewer",
    "with_splink",
]
