"""What an answer may be, and each reason one is refused (the API maps them to HTTP codes)."""

from __future__ import annotations

DECISIONS = ("same", "different", "unsure")
CONFIDENCES = ("high", "medium", "low")


class DecisionError(ValueError):
    """A user-facing reason an answer or a page is refused (HTTP 400)."""


CLOSED = "this project was closed out: its decisions are final and no answer is taken"


class AnswersClosed(Exception):
    """The assignment's project was closed out (docs/closeout.md)."""


class AccountChanged(PermissionError):
    """The account was deactivated or demoted, or its token revoked (``status``: 401, 403)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class AnswersPaused(Exception):
    """The manager paused the assignment (an alert's action, docs/quality.md): HTTP 409."""


class NotInAssignment(LookupError):
    """The pair or page is not part of the assignment (HTTP 404)."""


class AnswerChanged(Exception):
    """The pair's answer changed since the client read it (another tab): HTTP 409.

    ``version`` is the pair's newest decision event id now (None: never answered), and
    ``current`` its answer as ``(decision, confidence)`` (None: unanswered or cleared).
    """

    def __init__(self, version: int | None, current: tuple[str, str | None] | None):
        super().__init__(
            "this pair's answer was changed elsewhere (another tab or window) since you read "
            "it; yours was not saved: choose again to replace it"
        )
        self.version, self.current = version, current


def check_answer(decision, confidence, allow_unsure: bool) -> None:
    """Raise :class:`DecisionError` unless (``decision``, ``confidence``) is a valid answer.

    ``same`` and ``different`` need a confidence (high, medium, low); ``unsure`` (only when
    the project allows it) takes none.
    """
    if decision not in DECISIONS:
        raise DecisionError("the decision is one of same, different, unsure")
    if decision == "unsure":
        if not allow_unsure:
            raise DecisionError("this project does not allow 'unsure'")
        if confidence is not None:
            raise DecisionError("'unsure' takes no confidence")
    elif confidence not in CONFIDENCES:
        raise DecisionError("the confidence is one of high, medium, low")
