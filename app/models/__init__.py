"""Typed SQLAlchemy models, one module per aggregate."""

from app.models.assignment import Assignment, AssignmentPair, CellState
from app.models.events import CLEARED, DecisionEvent, RevealEvent, current_answer_ids
from app.models.job import Job
from app.models.manage import (
    BudgetChange,
    ConflictReferral,
    ConflictResolution,
    NameFrequency,
)
from app.models.pair import Pair
from app.models.project import (
    ConflictPolicy,
    EvidenceModel,
    Project,
    ProjectAttribute,
    ProjectKind,
    ProjectState,
    Source,
)
from app.models.record import Record, VaultRecord
from app.models.scoring import ScoringModel
from app.models.user import AccountEvent, ApiToken, Role, User

__all__ = [
    "CLEARED",
    "AccountEvent",
    "ApiToken",
    "Assignment",
    "AssignmentPair",
    "BudgetChange",
    "CellState",
    "ConflictPolicy",
    "ConflictReferral",
    "ConflictResolution",
    "DecisionEvent",
    "EvidenceModel",
    "Job",
    "NameFrequency",
    "Pair",
    "Project",
    "ProjectAttribute",
    "ProjectKind",
    "ProjectState",
    "Record",
    "RevealEvent",
    "Role",
    "ScoringModel",
    "Source",
    "User",
    "VaultRecord",
    "current_answer_ids",
]
