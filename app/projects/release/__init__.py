"""The release-risk check of an export that leaves without identifiers (issue 25, item 1)."""

from app.projects.release.charts import driver_rows, risk_chart
from app.projects.release.policy import (
    ON_EXCEED,
    ReleaseGate,
    confirm_release,
    confirmations_of,
    exceeded_limits,
    policy_of,
    policy_request,
    release_gate,
    requested_release,
    save_policy,
)
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
    "ON_EXCEED",
    "ReleaseGate",
    "confirm_release",
    "confirmations_of",
    "exceeded_limits",
    "policy_of",
    "policy_request",
    "release_gate",
    "requested_release",
    "save_policy",
    "ReleaseRequest",
    "ReleaseRequestError",
    "columns_of",
    "default_columns",
    "driver_rows",
    "read_table",
    "release_risk_of_csv",
    "release_risk_of_project",
    "risk_chart",
]
