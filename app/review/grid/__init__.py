"""The grid's state: displayed pairs' disclosure, the project's attributes, sources' indexes."""

from app.review.grid.frequencies import page_frequencies, uploaded_counts
from app.review.grid.indexes import (
    drop_stored_indexes,
    records_not_in_memory,
    source_index,
    source_indexes,
    stand_in_indexes,
    store_indexes,
)
from app.review.grid.scope import Schema, project_schema
from app.review.grid.state import SIDE_NAMES, Attribute, PairState, name_attributes

__all__ = [
    "SIDE_NAMES",
    "Attribute",
    "PairState",
    "Schema",
    "drop_stored_indexes",
    "name_attributes",
    "page_frequencies",
    "project_schema",
    "records_not_in_memory",
    "source_index",
    "source_indexes",
    "stand_in_indexes",
    "store_indexes",
    "uploaded_counts",
]
