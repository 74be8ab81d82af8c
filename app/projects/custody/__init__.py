"""The end of a project: who saw what of whom (accountability) and the close-out."""

from app.projects.custody.archive import SUMS, digest, export_hashes, final_archive, write_exports
from app.projects.custody.closeout import (
    CloseOutRefused,
    close_project,
    completed_at,
    final_exports,
    finish_destruction,
    unsettled_pairs,
)
from app.projects.custody.disclosures import (
    COLUMNS,
    Disclosure,
    RecordDisclosures,
    RecordNotFound,
    project_disclosures,
    record_disclosures,
)
from app.projects.custody.due import ClosedDue, close_due, due_projects, set_auto_close
from app.projects.custody.erasure import (
    describe,
    erase_storage,
    latest_erasure,
    pending_erasures,
)
from app.projects.custody.summary import (
    DisclosureSummary,
    disclosure_chart,
    disclosure_summary,
    summaries,
)

__all__ = [
    "COLUMNS",
    "SUMS",
    "CloseOutRefused",
    "ClosedDue",
    "Disclosure",
    "DisclosureSummary",
    "RecordDisclosures",
    "RecordNotFound",
    "close_due",
    "close_project",
    "completed_at",
    "describe",
    "digest",
    "disclosure_chart",
    "disclosure_summary",
    "due_projects",
    "erase_storage",
    "export_hashes",
    "final_archive",
    "final_exports",
    "finish_destruction",
    "latest_erasure",
    "pending_erasures",
    "project_disclosures",
    "record_disclosures",
    "set_auto_close",
    "summaries",
    "unsettled_pairs",
    "write_exports",
]
