"""One reveal: read and price it without a lock, then charge the budget in one short write."""

from app.review.reveal.refusals import (
    BudgetExceeded,
    NothingToReveal,
    NotInAssignment,
    ProjectClosed,
    RevealRefused,
    StaleView,
)
from app.review.reveal.service import RevealResult, reveal_cell

__all__ = [
    "BudgetExceeded",
    "ProjectClosed",
    "NotInAssignment",
    "NothingToReveal",
    "RevealRefused",
    "RevealResult",
    "StaleView",
    "reveal_cell",
]
