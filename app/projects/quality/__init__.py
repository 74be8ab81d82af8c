"""Reviewer quality: known-truth checks, agreement and accuracy, alerts (docs/quality.md)."""

from app.projects.quality.alerts import (
    ACTIONS,
    AlertError,
    act_on_alert,
    alert_rule,
    alert_state,
    observe_answer,
    project_alerts,
)
from app.projects.quality.placing import (
    CheckPlan,
    CheckSpec,
    Placed,
    parse_checks,
    place,
    plan_checks,
    record_checks,
)
from app.projects.quality.settings import QualitySettingsError, set_quality_settings
from app.projects.quality.synthetic import CheckError

__all__ = [
    "ACTIONS",
    "AlertError",
    "CheckError",
    "CheckPlan",
    "CheckSpec",
    "Placed",
    "QualitySettingsError",
    "act_on_alert",
    "alert_rule",
    "alert_state",
    "observe_answer",
    "parse_checks",
    "place",
    "plan_checks",
    "project_alerts",
    "record_checks",
    "set_quality_settings",
]
