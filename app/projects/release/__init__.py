"""The release-risk check of an export that leaves without identifiers (issue 25, item 1)."""

from app.projects.release.request import (
    DEFAULT_THRESHOLD,
    ReleaseRequest,
    ReleaseRequestError,
    columns_of,
)
from app.projects.release.service import (
    default_columns,
    read_table,
    release_risk_of_csv,
    release_risk_of_project,
)

__all__ = [
    "DEFAULT_THRESHOLD",
    "ReleaseRequest",
    "ReleaseRequestError",
    "columns_of",
    "default_columns",
    "read_table",
    "release_risk_of_csv",
    "release_risk_of_project",
]
