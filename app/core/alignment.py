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

__all__ = ["Op", "OpKind", "align", "osa_distance"]

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


def _table(a: str, b: str) -> list[list[int]]:
    n, m = len(a), len(b)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = i
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        row, prev = d[i], d[i - 1]
        for j in range(1, m + 1):
            best = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if _is_swap(a, b, i, j):
                best = min(best, d[i - 2][j - 2] + 1)
            row[j] = best
    return d


def osa_distance(a: str, b: str) -> int:
    """Return the optimal-string-alignment (restricted Damerau-Levenshtein) distance."""
    return _table(a, b)[len(a)][len(b)]


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
    """
    n, m = len(a), len(b)
    # s[i][j] = distance of the suffixes a[i:] and b[j:] (the table of the reversed strings)
    rev = _table(a[::-1], b[::-1])
    s = [[rev[n - i][m - j] for j in range(m + 1)] for i in range(n + 1)]
    ops: list[Op] = []
    i = j = 0
    while i < n or j < m:
        here = s[i][j]
        if i < n and j < m and a[i] == b[j] and here == s[i + 1][j + 1]:
            ops.append(Op("match", i, j))
            i, j = i + 1, j + 1
        elif (
            i + 2 <= n
            and j + 2 <= m
            and _is_swap(a, b, i + 2, j + 2)
            and (here == s[i + 2][j + 2] + 1)
        ):
            ops.append(Op("transpose", i, j))
            i, j = i + 2, j + 2
        elif i < n and here == s[i + 1][j] + 1:
            ops.append(Op("delete", i, j))
            i += 1
        elif j < m and here == s[i][j + 1] + 1:
            ops.append(Op("insert", i, j))
            j += 1
        else:
            ops.append(Op("substitute", i, j))
            i, j = i + 1, j + 1
    return tuple(ops)
