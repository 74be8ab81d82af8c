"""Staffing: workers' assignments of pairs, single or double coding, and privacy budgets."""

from app.projects.staffing.assignments import AssignmentError, assign_pairs
from app.projects.staffing.workers import assign_workers, change_budget

__all__ = ["AssignmentError", "assign_pairs", "assign_workers", "change_budget"]
