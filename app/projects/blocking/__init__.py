"""Blocking: rules as data, the candidate pairs they make, and a project's pairs made from them."""

from app.projects.blocking.pairing import BlockingRefused, create_pairs, preview_blocking
from app.projects.blocking.rules import TRANSFORMS, candidate_pairs, parse_rules

__all__ = [
    "TRANSFORMS",
    "BlockingRefused",
    "candidate_pairs",
    "create_pairs",
    "parse_rules",
    "preview_blocking",
]
