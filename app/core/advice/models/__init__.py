"""The world model (Fellegi-Sunter over what a display shows) and the two reviewer models."""

from app.core.advice.models.reviewers import (
    ROLES,
    EvidenceReviewer,
    HumanModel,
    HumanReviewer,
    Response,
    Reviewer,
    expected_correct,
    features,
    respond,
    roles_of,
)
from app.core.advice.models.world import AttributeTable, World, fit_em, fit_labelled, with_splink

__all__ = [
    "ROLES",
    "AttributeTable",
    "EvidenceReviewer",
    "HumanModel",
    "HumanReviewer",
    "Response",
    "Reviewer",
    "World",
    "expected_correct",
    "features",
    "fit_em",
    "fit_labelled",
    "respond",
    "roles_of",
    "with_splink",
]
