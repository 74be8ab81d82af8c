"""The release-risk check of an export that leaves without identifiers (issue 25, item 1)."""

# Names load on first use (app.lazy): `flask analytics release-risk FILE.csv` (request,
# service) imports no model.
from app.lazy import exports

_WHERE = {
    "charts": ("driver_rows", "risk_chart"),
    "policy": (
        "ON_EXCEED", "ReleaseGate", "confirm_release", "confirmations_of", "exceeded_limits",
        "policy_of", "policy_request", "release_gate", "requested_release", "save_policy",
    ),
    "request": ("DEFAULT_THRESHOLD", "ReleaseRequest", "ReleaseRequestError", "columns_of"),
    "service": ("default_columns", "read_table", "release_risk_of_csv", "release_risk_of_project"),
}  # fmt: skip
__all__ = sorted(name for names in _WHERE.values() for name in names)
__getattr__, __dir__ = exports(__name__, _WHERE)
