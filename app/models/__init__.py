"""Typed SQLAlchemy models, one module per aggregate."""

from app.models.assignment import Assignment, AssignmentPair, CellState
from app.models.events import (
    CLEARED,
    AnswerState,
    DecisionEvent,
    PairAnswers,
    RevealEvent,
    current_answer_ids,
)
from app.models.job import Job
from app.models.manage import (
    AlertAction,
    BudgetChange,
    CheckSource,
    ConflictReferral,
    ConflictResolution,
    NameFrequency,
    QualityCheck,
    ReviewerAlert,
)
from app.models.pair import (
    BY_ID,
    REVIEWED,
    ModelDecision,
    Pair,
    Purpose,
    pair_rounds,
    reviewed_pairs,
)
from app.models.project import (
    ConflictPolicy,
    EvidenceModel,
    Project,
    ProjectAttribute,
    ProjectKind,
    ProjectState,
    Source,
)
from app.models.record import Record, SourceIndex, VaultRecord
from app.models.release import CloseOut, ReleaseConfirmation, ReleasePolicy, StorageErasure
from app.models.round import Round
from app.models.scoring import ScoringModel
from app.models.user import AccountEvent, ApiToken, Role, User

__all__ = [
    "BY_ID",
    "CLEARED",
    "REVIEWED",
    "AccountEvent",
    "AlertAction",
    "AnswerState",
    "ApiToken",
    "Assignment",
    "AssignmentPair",
    "BudgetChange",
    "CellState",
    "CheckSource",
    "CloseOut",
    "ConflictPolicy",
    "ConflictReferral",
    "ConflictResolution",
    "DecisionEvent",
    "EvidenceModel",
    "Job",
    "ModelDecision",
    "NameFrequency",
    "PairAnswers",
    "Pair",
    "Project",
    "ProjectAttribute",
    "ProjectKind",
    "ProjectState",
    "Purpose",
    "QualityCheck",
    "Record",
    "ReleaseConfirmation",
    "ReleasePolicy",
    "RevealEvent",
    "ReviewerAlert",
    "Role",
    "Round",
    "ScoringModel",
    "Source",
    "SourceIndex",
    "StorageErasure",
    "User",
    "VaultRecord",
    "current_answer_ids",
    "pair_rounds",
    "reviewed_pairs",
]
