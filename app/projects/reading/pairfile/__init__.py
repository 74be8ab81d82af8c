"""MINDFIRL's pair files (with a header, internal, display) read into pairs and records."""

from app.projects.reading.pairfile.internal import MAX_COUNT, MAX_COUNTED_NAME
from app.projects.reading.pairfile.read import (
    NOT_ATTRIBUTES,
    PAIRFILE_ATTRIBUTES,
    STRUCTURE,
    NameFrequencies,
    Pair,
    PairFile,
    read_name_frequencies,
    read_pairfile,
)

__all__ = [
    "MAX_COUNT",
    "MAX_COUNTED_NAME",
    "NOT_ATTRIBUTES",
    "PAIRFILE_ATTRIBUTES",
    "STRUCTURE",
    "NameFrequencies",
    "Pair",
    "PairFile",
    "read_name_frequencies",
    "read_pairfile",
]
