"""The ``pair`` evidence model: k_i of a row shown beside its partner (definition in count.py)."""

from app.core.kapr.pair.count import count_pair
from app.core.kapr.pair.reference import count_pair_reference

__all__ = ["count_pair", "count_pair_reference"]
