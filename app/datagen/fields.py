"""Array formatting of dates and identifiers for the generator.

Building digit bytes arithmetically keeps a million values out of Python objects; the
voter number permutation keeps identifiers distinct across independently seeded blocks.
"""

from __future__ import annotations

import numpy as np

__all__ = ["EPOCH", "fixed_digits", "split_days", "voter_numbers"]

#: Day zero of the integer dates used inside the generator.
EPOCH = np.datetime64("1900-01-01", "D")


def split_days(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split days since 1900-01-01 into (year, month, day) integer arrays."""
    d = EPOCH + days.astype("timedelta64[D]")
    y, mo = d.astype("datetime64[Y]"), d.astype("datetime64[M]")
    year = y.astype(np.int64) + 1970
    month = (mo - y.astype("datetime64[M]")).astype(np.int64) + 1
    return year, month, (d - mo.astype("datetime64[D]")).astype(np.int64) + 1


def fixed_digits(values: np.ndarray, width: int) -> np.ndarray:
    """Format non-negative integers as zero-padded ``S{width}`` strings."""
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    mat = (values[:, None] // powers % 10 + 48).astype(np.uint8)
    return np.ascontiguousarray(mat).view(f"S{width}").ravel()


def voter_numbers(index: np.ndarray, seed: int) -> np.ndarray:
    """Map global person indices to distinct 10-digit numbers (a 4-round Feistel)."""
    left, right = index // 100_000 % 100_000, index % 100_000
    for k in range(4):
        key = (seed * 0x9E3779B1 + k * 0x85EBCA6B) % 1_000_003
        mixed = (right * 2_654_435_761 + key) % 4_294_967_291 % 100_000
        left, right = right, (left + mixed) % 100_000
    return fixed_digits(left * 100_000 + right, 10)
