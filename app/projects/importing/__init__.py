"""From staged uploads to a project: the upload store, the import service, import jobs."""

from app.projects.importing.jobs import needs_job, submit_import
from app.projects.importing.service import (
    check_upload,
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
    "check_upload",
    "default_role",
    "default_type",
    "discard",
    "import_upload",
    "load",
    "mapping_columns",
    "needs_job",
    "previews",
    "stage",
    "submit_import",
]
