"""Why a reveal is refused: each carries its HTTP status and error name for the API."""

from __future__ import annotations


class RevealRefused(Exception):
    """A reveal that cannot be made; ``code`` is the HTTP status, ``error`` its name."""

    code = 409
    error = "refused"

    def __init__(self, message: str, **details):
        super().__init__(message)
        self.details = details


class BudgetExceeded(RevealRefused):
    error = "budget_exceeded"


class NothingToReveal(RevealRefused):
    error = "nothing_to_reveal"


class StaleView(RevealRefused):
    """The client showed the cell at another level than the server holds (another tab)."""

    error = "stale"


class ProjectClosed(RevealRefused):
    """The project was closed out: its values are destroyed (docs/closeout.md)."""

    code = 410
    error = "gone"


class NotInAssignment(RevealRefused):
    code = 404
    error = "not_found"


class AccountChanged(RevealRefused):
    """The account was deactivated or demoted, or the token revoked, since it was cached."""

    error = "unauthorized"

    def __init__(self, message: str, *, code: int):
        super().__init__(message)
        self.code = code
        self.error = "unauthorized" if code == 401 else "forbidden"


class AssignmentPaused(RevealRefused):
    """The manager paused the assignment (an alert's action, docs/quality.md)."""

    error = "paused"


#: What a worker is told while their assignment is paused (reveals and answers alike).
PAUSED = "your manager paused this assignment: nothing can be revealed or answered until resumed"
