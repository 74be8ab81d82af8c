"""Reviewer quality: agreement between coders, accuracy intervals, sequential alerts."""

from app.core.quality.agreement import (
    Interval,
    cohen_kappa,
    discordance,
    fleiss_kappa,
    paired_answers,
    wilson_interval,
)
from app.core.quality.sequential import Sprt, SprtState

__all__ = [
    "Interval",
    "Sprt",
    "SprtState",
    "cohen_kappa",
    "discordance",
    "fleiss_kappa",
    "paired_answers",
    "wilson_interval",
]
