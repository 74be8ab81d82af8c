"""Vectorised single-character edits on arrays of upper-case ASCII names.

Each name array (numpy ``S`` dtype) is viewed as a ``(rows, width)`` matrix of bytes, so a
substitution, adjacent transposition, insertion or deletion on many rows at once is a
handful of fancy-indexing operations instead of a Python loop. Every edit applied here
moves a name by exactly one Damerau-Levenshtein operation, the error model of
Christen, *Data Matching* (2012), §4.3, and of the synthetic generators it describes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NONE", "TYPO", "TRANSPOSE", "INSERT", "DELETE", "apply_edits"]

NONE, TYPO, TRANSPOSE, INSERT, DELETE = 0, 1, 2, 3, 4

_A = ord("A")


def _matrix(names: np.ndarray) -> tuple[np.ndarray, int]:
    """Return a writable byte matrix of ``names`` with one spare column for insertions."""
    width = names.dtype.itemsize + 1
    mat = names.astype(f"S{width}").view(np.uint8).reshape(len(names), width)
    return mat.copy(), width


def _other_letter(old: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw a letter A-Z different from each of ``old`` (assumed A-Z)."""
    shift = rng.integers(1, 26, size=len(old))
    return (_A + (old.astype(np.int64) - _A + shift) % 26).astype(np.uint8)


def apply_edits(
    names: np.ndarray, ops: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Apply at most one edit per row and return ``(edited, applied)``.

    Parameters
    ----------
    names
        ``S``-dtype array of upper-case ASCII names.
    ops
        Integer array of the same length: :data:`NONE`, :data:`TYPO` (substitute a
        different letter), :data:`TRANSPOSE` (swap two *different* adjacent letters),
        :data:`INSERT` (add a letter) or :data:`DELETE` (drop a letter).
    rng
        Source of randomness; consumed in a fixed order, so results are reproducible.

    Returns
    -------
    edited
        ``S``-dtype array one byte wider than ``names``.
    applied
        The op actually applied per row; an edit that is impossible on a given name
        (a transposition in ``"AA"``, a deletion from a one-letter name, any edit of an
        empty name) is reported as :data:`NONE` and leaves the name unchanged.
    """
    mat, width = _matrix(names)
    lengths = np.strings.str_len(names).astype(np.int64)
    ops = np.where(lengths > 0, ops, NONE)
    ops = np.where((ops == DELETE) & (lengths < 2), NONE, ops)
    applied = np.asarray(ops, dtype=np.int8).copy()

    rows = np.flatnonzero(ops == TYPO)
    if rows.size:
        pos = (rng.random(rows.size) * lengths[rows]).astype(np.int64)
        mat[rows, pos] = _other_letter(mat[rows, pos], rng)

    rows = np.flatnonzero(ops == TRANSPOSE)
    if rows.size:
        sub = mat[rows]
        cols = np.arange(width - 1)
        valid = (sub[:, :-1] != sub[:, 1:]) & (cols < (lengths[rows] - 1)[:, None])
        # A random score per valid position; argmax picks one of them uniformly.
        score = np.where(valid, rng.random(valid.shape) + 1.0, 0.0)
        pos = score.argmax(axis=1)
        ok = valid[np.arange(rows.size), pos]
        rows, pos = rows[ok], pos[ok]
        applied[np.flatnonzero(ops == TRANSPOSE)[~ok]] = NONE
        left = mat[rows, pos].copy()
        mat[rows, pos] = mat[rows, pos + 1]
        mat[rows, pos + 1] = left

    rows = np.flatnonzero(ops == INSERT)
    if rows.size:
        pos = (rng.random(rows.size) * (lengths[rows] + 1)).astype(np.int64)
        cols = np.arange(width)
        src = cols - (cols > pos[:, None])
        new = np.take_along_axis(mat[rows], src, axis=1)
        new[np.arange(rows.size), pos] = _A + rng.integers(0, 26, size=rows.size)
        mat[rows] = new

    rows = np.flatnonzero(ops == DELETE)
    if rows.size:
        pos = (rng.random(rows.size) * lengths[rows]).astype(np.int64)
        cols = np.arange(width)
        src = np.minimum(cols + (cols >= pos[:, None]), width - 1)
        new = np.take_along_axis(mat[rows], src, axis=1)
        new[:, -1] = 0
        mat[rows] = new

    return mat.view(f"S{width}").ravel(), applied
