"""Reviewer quality: agreement, accuracy intervals, sequential alerts, checks' stand-ins."""

from app.core.quality.agreement import (
    Interval,
    cohen_kappa,
    discordance,
    fleiss_kappa,
    paired_answers,
    wilson_interval,
)
from app.core.quality.sequential import Sprt, SprtState
from app.core.quality.standin import StandIn, stand_in

__all__ = [
    "Interval",
    "Sprt",
    "SprtState",
    "StandIn",
    "cohen_kappa",
    "discordance",
    "fleiss_kappa",
    "paired_answers",
    "stand_in",
    "wilson_interval",
]
