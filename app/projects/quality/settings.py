"""A project's reviewer-quality settings: the alert's threshold and the break reminder."""

from __future__ import annotations

from app.models import Project

__all__ = ["QualitySettingsError", "set_quality_settings"]


class QualitySettingsError(ValueError):
    """A user-facing reason the settings are refused (nothing is changed)."""


def set_quality_settings(project: Project, alert_error_rate, break_minutes, break_decisions):
    """Set the error rate above which a reviewer is flagged (a share in (0, 1)) and the
    session length in minutes and decisions after which a break is due (None: no such
    reminder). The caller commits."""
    if isinstance(alert_error_rate, bool) or not isinstance(alert_error_rate, int | float):
        raise QualitySettingsError("the alert's error rate is a share between 0 and 1")
    if not 0 < alert_error_rate < 1:
        raise QualitySettingsError("the alert's error rate is a share between 0 and 1")
    for name, value in (("session length", break_minutes), ("decisions", break_decisions)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 1
        ):
            raise QualitySettingsError(f"the break's {name} is a whole number of at least 1")
    project.alert_error_rate = float(alert_error_rate)
    project.break_minutes, project.break_decisions = break_minutes, break_decisions
