"""From staged uploads to a project: the upload store, the one-pass check, import jobs."""

from app.projects.importing.pending.jobs import needs_job, submit_check
from app.projects.importing.pending.waiting import (
    check_and_write,
    check_plan,
    checked_of,
    discard_pending,
    pending_project,
    publish,
    remember,
)
from app.projects.importing.service import (
    default_role,
    default_type,
    import_upload,
    mapping_columns,
    previews,
)
from app.projects.importing.uploads import FILES, Staged, UploadError, discard, load, stage

__all__ = [
    "FILES",
    "Staged",
    "UploadError",
    "check_and_write",
    "check_plan",
    "checked_of",
    "default_role",
    "default_type",
    "discard",
    "discard_pending",
    "import_upload",
    "load",
    "mapping_columns",
    "needs_job",
    "pending_project",
    "previews",
    "publish",
    "remember",
    "stage",
    "submit_check",
]
