"""Blocking: rules as data or in Splink's spelling, their candidate pairs, a project's pairs."""

from app.projects.blocking.columns import count_candidates_of, key_column
from app.projects.blocking.pairing import (
    BlockingRefused,
    count_candidates,
    create_pairs,
    preview_blocking,
)
from app.projects.blocking.parsing import parse_rules
from app.projects.blocking.rules import TRANSFORMS, BlockingError, Key, Rule, candidate_pairs
from app.projects.blocking.splink import parse_splink_rule, splink_sql

__all__ = [
    "TRANSFORMS",
    "BlockingError",
    "BlockingRefused",
    "Key",
    "Rule",
    "candidate_pairs",
    "count_candidates",
    "count_candidates_of",
    "create_pairs",
    "key_column",
    "parse_rules",
    "parse_splink_rule",
    "preview_blocking",
    "splink_sql",
]
