"""Damerau-Levenshtein alignment of two strings as a list of edit operations.

MINDFIRL computes the masked and partial displays of a variable-length string from the
Damerau-Levenshtein alignment of the pair (paper §3.2: "insertions, deletions,
substitutions, and transposition"). This module implements the *optimal string
alignment* (OSA, "restricted edit") variant: every substring is edited at most once, so
a transposition is never followed by an edit of the transposed characters.

OSA differs from the unrestricted Damerau-Levenshtein distance only when such a second
edit would help: ``osa_distance("CA", "ABC") == 3`` (transpose is not allowed to be
followed by an insertion between the pair) whereas the unrestricted distance is 2
(``CA -> AC -> ABC``). The restricted form is what yields a plain alignment (each
character belongs to exactly one operation), which is what the display needs.

Positions are indices of code points in the (NFC-normalised) strings, so any Unicode text
works; empty strings are fine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["MAX_CELLS", "Alignment", "Op", "OpKind", "align", "align_bounded", "osa_distance"]

OpKind = Literal["match", "substitute", "insert", "delete", "transpose"]


@dataclass(frozen=True, slots=True)
class Op:
    """One edit operation of an alignment of ``a`` onto ``b``.

    ``i`` is a position in ``a`` and ``j`` a position in ``b``:

    - ``match`` / ``substitute``: ``a[i]`` is aligned with ``b[j]``;
    - ``delete``: ``a[i]`` has no counterpart; ``j`` is where the gap falls in ``b``
      (the index of the next character of ``b``, possibly ``len(b)``);
    - ``insert``: ``b[j]`` has no counterpart; ``i`` is where the gap falls in ``a``;
    - ``transpose``: ``a[i:i + 2]`` equals ``b[j:j + 2]`` reversed (adjacent swap).
    """

    kind: OpKind
    i: int
    j: int

    @property
    def cost(self) -> int:
        """Return the cost of the operation (0 for a match, 1 otherwise)."""
        return 0 if self.kind == "match" else 1

    @property
    def a_positions(self) -> tuple[int, ...]:
        """Return the positions of ``a`` this operation covers."""
        if self.kind == "insert":
            return ()
        if self.kind == "transpose":
            return (self.i, self.i + 1)
        return (self.i,)

    @property
    def b_positions(self) -> tuple[int, ...]:
        """Return the positions of ``b`` this operation covers."""
        if self.kind == "delete":
            return ()
        if self.kind == "transpose":
            return (self.j, self.j + 1)
        return (self.j,)


def _is_swap(a: str, b: str, i: int, j: int) -> bool:
    # a[i-2:i] is b[j-2:j] reversed, and the two characters differ (else it is two matches)
    return (
        i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1] and a[i - 1] != a[i - 2]
    )


# Above this many cells per dynamic-programming table the alignment is computed in a band
# around the diagonal (Ukkonen), whose width doubles while the table stays under the bound.
# 250,000 cells (two 500-character values) take well under a tenth of a second here.
MAX_CELLS = 250_000
_INF = 1 << 60


@dataclass(frozen=True, slots=True)
class Alignment:
    """An alignment with what it cost to compute.

    ``exact`` is true when ``ops`` is the minimum-cost alignment :func:`align` describes
    (always, when the full table fits under the bound); ``cells`` counts the table cells
    computed, including bands that were too narrow.
    """

    ops: tuple[Op, ...]
    exact: bool
    cells: int


class _Band:
    """The cells of a DP table with ``lo <= j - i <= hi`` (others read as infinite)."""

    __slots__ = ("lo", "m", "rows", "width")

    def __init__(self, a: str, b: str, lo: int, hi: int) -> None:
        n, m = len(a), len(b)
        self.lo, self.m, self.width = lo, m, hi - lo + 1
        width = self.width
        rows: list[list[int]] = []
        for i in range(n + 1):
            base = i + lo  # the column of row[0]
            row = [_INF] * width
            prev = rows[i - 1] if i else row
            for idx in range(max(0, -base), min(width, m - base + 1)):
                j = base + idx
                if i == 0:
                    row[idx] = j
                    continue
                if j == 0:
                    row[idx] = i
                    continue
                # prev row starts one column earlier: (i-1, j) is prev[idx + 1], (i-1, j-1)
                # is prev[idx], and (i-2, j-2) is rows[i - 2][idx].
                best = prev[idx] + (a[i - 1] != b[j - 1])
                if idx + 1 < width and prev[idx + 1] + 1 < best:
                    best = prev[idx + 1] + 1
                if idx and row[idx - 1] + 1 < best:
                    best = row[idx - 1] + 1
                if _is_swap(a, b, i, j) and rows[i - 2][idx] + 1 < best:
                    best = rows[i - 2][idx] + 1
                row[idx] = best
            rows.append(row)
        self.rows = rows

    @property
    def cells(self) -> int:
        return _band_cells(len(self.rows) - 1, self.m, self.lo, self.lo + self.width - 1)

    def get(self, i: int, j: int) -> int:
        idx = j - i - self.lo
        if 0 <= idx < self.width and 0 <= j <= self.m:
            return self.rows[i][idx]
        return _INF


def _band_cells(n: int, m: int, lo: int, hi: int) -> int:
    """The number of cells of an ``(n + 1) x (m + 1)`` table inside the diagonals lo..hi."""
    return min((n + 1) * (hi - lo + 1), (n + 1) * (m + 1))


def _band_limits(n: int, m: int, k: int) -> tuple[int, int]:
    return min(0, m - n) - k, max(0, m - n) + k


def _exact_band(a: str, b: str, max_cells: int | None) -> tuple[_Band | None, int]:
    """Return a band table whose corner is the exact distance, or None past ``max_cells``.

    Any path that leaves the band ``lo..hi`` of diagonals makes more than ``k`` insertions
    or deletions, so when the band's distance is at most ``k`` it is the true distance, and
    every optimal path (hence every tie the trace sees) lies inside the band.
    """
    n, m = len(a), len(b)
    k = max(n, m) if max_cells is None or (n + 1) * (m + 1) <= max_cells else 8
    spent = 0
    while True:
        lo, hi = _band_limits(n, m, k)
        lo, hi = max(lo, -n), min(hi, m)
        if max_cells is not None and spent + _band_cells(n, m, lo, hi) > max_cells:
            return None, spent
        band = _Band(a, b, lo, hi)
        spent += band.cells
        if band.get(n, m) <= k or (lo == -n and hi == m):
            return band, spent
        k *= 2


def osa_distance(a: str, b: str) -> int:
    """Return the optimal-string-alignment (restricted Damerau-Levenshtein) distance.

    Exact for any length; the work is about ``len(a)`` times twice the distance.
    """
    band, _ = _exact_band(a, b, None)
    assert band is not None
    return band.get(len(a), len(b))


def align(a: str, b: str) -> tuple[Op, ...]:
    """Return a minimum-cost OSA alignment of ``a`` onto ``b`` as edit operations.

    The operations are in string order, cover every character of both strings exactly
    once, and their total cost equals :func:`osa_distance`.

    Ties between optimal alignments are broken while tracing forward from the start of
    both strings, preferring, in order: match, transpose, delete, insert, substitute.
    Matching leading characters first puts a gap as far right as an optimal alignment
    allows, so a suffix extension (``SANCHEZ JR``/``SANCHEZ``, ``ADAMS SR``/``ADAMS``) is
    reported as insertions/deletions of the whole extension; preferring a gap to a
    substitution discloses fewer characters in partial mode (``ERNIE``/``ERNEST`` deletes
    ``I`` and inserts ``ST`` rather than substituting ``IE`` and inserting ``T``), as the
    original MINDFIRL helper strings do.

    The work is bounded by :data:`MAX_CELLS` (see :func:`align_bounded`): beyond it two
    long values that differ a lot get a cheap alignment that is not minimal.
    """
    return align_bounded(a, b).ops


def align_bounded(a: str, b: str, max_cells: int = MAX_CELLS) -> Alignment:
    """Align ``a`` onto ``b`` computing at most ``max_cells`` table cells.

    - When the full table fits (``(len(a) + 1) * (len(b) + 1) <= max_cells``) the result
      is exactly the one of the full table.
    - Otherwise the table is computed in a band around the diagonal, doubling its width
      while it fits; a band that holds the distance gives the same alignment as the full
      table (long values with a few edits, the usual case).
    - When no band under the bound holds the distance, the common prefix and suffix are
      matches and the middle is aligned position by position (match or substitute), the
      longer side's surplus deleted or inserted at its end. Every character is still
      covered exactly once, but more of them can be marked as different than an optimal
      alignment would mark (``exact`` is false).
    """
    band, cells = _exact_band(a[::-1], b[::-1], max_cells)
    if band is None:
        return Alignment(_positional(a, b), exact=False, cells=cells)
    return Alignment(_trace(a, b, band), exact=True, cells=cells)


def _trace(a: str, b: str, rev: _Band) -> tuple[Op, ...]:
    n, m = len(a), len(b)

    def s(i: int, j: int) -> int:
        # distance of the suffixes a[i:] and b[j:] (the table of the reversed strings)
        return rev.get(n - i, m - j)

    ops: list[Op] = []
    i = j = 0
    while i < n or j < m:
        here = s(i, j)
        if i < n and j < m and a[i] == b[j] and here == s(i + 1, j + 1):
            ops.append(Op("match", i, j))
            i, j = i + 1, j + 1
        elif (
            i + 2 <= n
            and j + 2 <= m
            and _is_swap(a, b, i + 2, j + 2)
            and (here == s(i + 2, j + 2) + 1)
        ):
            ops.append(Op("transpose", i, j))
            i, j = i + 2, j + 2
        elif i < n and here == s(i + 1, j) + 1:
            ops.append(Op("delete", i, j))
            i += 1
        elif j < m and here == s(i, j + 1) + 1:
            ops.append(Op("insert", i, j))
            j += 1
        else:
            ops.append(Op("substitute", i, j))
            i, j = i + 1, j + 1
    return tuple(ops)


def _positional(a: str, b: str) -> tuple[Op, ...]:
    n, m = len(a), len(b)
    head = 0
    while head < min(n, m) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(n, m) - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    ops = [Op("match", t, t) for t in range(head)]
    mid_a, mid_b = n - tail, m - tail
    i, j = head, head
    while i < mid_a and j < mid_b:
        ops.append(Op("match" if a[i] == b[j] else "substitute", i, j))
        i, j = i + 1, j + 1
    ops += [Op("delete", x, j) for x in range(i, mid_a)]
    ops += [Op("insert", i, y) for y in range(j, mid_b)]
    ops += [Op("match", mid_a + t, mid_b + t) for t in range(tail)]
    return tuple(ops)
