"""Whole tables over the 2^n subsets of a small frame: Bel, Pl, q, and m back from Bel.

Subsets are bitmasks over the frame's order (bit i is ``frame[i]``). The tables come from the
fast zeta transforms (n·2^n additions instead of 4^n), and :func:`from_belief` is the Möbius
inversion of Proposition 3, eq. (2), ``m(A) = Σ_{B ⊆ A} (-1)^{|A∖B|} Bel(B)``, done by the
inverse transform. A table that is not a belief function (Definition 1) is rejected with
:class:`NotABeliefFunction` naming the first subset at fault; total monotonicity (eq. 1) is
exactly non-negativity of the inverted masses, so that is the test.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from fractions import Fraction
from numbers import Real

from app.core.belief.mass import MassFunction, as_set

__all__ = [
    "MAX_TABLE_FRAME",
    "NotABeliefFunction",
    "bel_table",
    "from_belief",
    "pl_table",
    "q_table",
    "subsets",
]

#: Frames up to this size may be tabulated (2^16 = 65,536 subsets).
MAX_TABLE_FRAME = 16
_TOLERANCE = 1e-9


class NotABeliefFunction(ValueError):
    """A set function that violates Definition 1 (boundary, or a negative Möbius mass)."""


def _check_size(frame: tuple) -> None:
    if len(frame) > MAX_TABLE_FRAME:
        raise ValueError(f"a table over {len(frame)} elements has 2^{len(frame)} subsets; "
                         f"at most {MAX_TABLE_FRAME} elements are tabulated")  # fmt: skip


def subsets(frame: Iterable[Hashable]) -> list[frozenset]:
    """Every subset of ``frame``, indexed by bitmask (``subsets(f)[0]`` is ∅)."""
    frame = tuple(frame)
    _check_size(frame)
    out = [frozenset()]
    for x in frame:
        out += [s | {x} for s in out]
    return out


def _mask(frame: tuple, subset) -> int:
    position = {x: i for i, x in enumerate(frame)}
    mask = 0
    for x in as_set(subset):
        if x not in position:
            raise ValueError(f"{x!r} is not in the frame")
        mask |= 1 << position[x]
    return mask


def _masses(m: MassFunction) -> list:
    _check_size(m.frame)
    values = [m._zero()] * (1 << len(m.frame))
    for b, v in m.focal.items():
        values[_mask(m.frame, b)] += v
    return values


def _zeta_down(values: list, n: int) -> list:
    """``f(A) = Σ_{B ⊆ A} values(B)`` for every A."""
    out = list(values)
    for i in range(n):
        bit = 1 << i
        for a in range(len(out)):
            if a & bit:
                out[a] += out[a ^ bit]
    return out


def _zeta_up(values: list, n: int) -> list:
    """``f(A) = Σ_{B ⊇ A} values(B)`` for every A."""
    out = list(values)
    for i in range(n):
        bit = 1 << i
        for a in range(len(out)):
            if not a & bit:
                out[a] += out[a | bit]
    return out


def bel_table(m: MassFunction) -> dict[frozenset, Real]:
    """``Bel(A)`` for every subset A (eq. 3; ``Bel(∅) = 0`` even when ``m(∅) > 0``)."""
    values = _masses(m)
    values[0] = values[0] * 0
    return dict(zip(subsets(m.frame), _zeta_down(values, len(m.frame)), strict=True))


def pl_table(m: MassFunction) -> dict[frozenset, Real]:
    """``Pl(A) = Σ_{B ∩ A ≠ ∅} m(B)`` for every subset A."""
    values = _masses(m)
    n, total = len(m.frame), sum(values[1:], m._zero())
    full = (1 << n) - 1
    down = _zeta_down(values, n)  # Σ_{B ⊆ A} m(B), ∅ included
    sets = subsets(m.frame)
    return {sets[a]: total - (down[full ^ a] - values[0]) for a in range(len(sets))}


def q_table(m: MassFunction) -> dict[frozenset, Real]:
    """Commonality ``q(A) = Σ_{B ⊇ A} m(B)`` for every subset A."""
    return dict(zip(subsets(m.frame), _zeta_up(_masses(m), len(m.frame)), strict=True))


def _label(subset: frozenset, frame: tuple) -> str:
    return "{" + ", ".join(str(x) for x in frame if x in subset) + "}"


def from_belief(frame: Iterable[Hashable], table: Mapping) -> MassFunction:
    """Invert a Bel table to its mass function (Proposition 3, eq. 2).

    ``table`` maps every subset of ``frame`` (any iterable of elements; ∅ may be omitted, it is
    0) to Bel. Exact for ints and Fractions; with floats a mass above ``-1e-9`` counts as 0.

    Raises
    ------
    NotABeliefFunction
        When a subset is missing, ``Bel(∅) ≠ 0``, ``Bel(Ω) ≠ 1`` or a Möbius mass is negative
        (the table is then not totally monotone, Definition 1 (iii)).
    """
    frame = tuple(frame)
    sets = subsets(frame)
    values: list = [None] * len(sets)
    for key, value in table.items():
        if isinstance(value, bool) or not isinstance(value, Real):
            raise NotABeliefFunction(f"Bel{_label(as_set(key), frame)} = {value!r} is not a number")
        values[_mask(frame, key)] = value
    values[0] = 0 if values[0] is None else values[0]
    missing = [sets[a] for a, v in enumerate(values) if v is None]
    if missing:
        raise NotABeliefFunction(f"the table has no Bel{_label(missing[0], frame)} "
                                 f"({len(missing)} subsets missing)")  # fmt: skip
    if values[0] != 0:
        raise NotABeliefFunction(f"Bel(∅) is {values[0]}, not 0")
    top = values[-1]
    exact = all(isinstance(v, int | Fraction) for v in values)
    if (top != 1) if exact else abs(top - 1) > _TOLERANCE:
        raise NotABeliefFunction(f"Bel{_label(sets[-1], frame)} (the whole frame) is {top}, not 1")
    masses = list(values)
    for i in range(len(frame)):  # inverse zeta: m(A) = Σ_{B ⊆ A} (-1)^{|A∖B|} Bel(B)
        bit = 1 << i
        for a in range(len(masses)):
            if a & bit:
                masses[a] -= masses[a ^ bit]
    focal = {}
    for a, v in enumerate(masses):
        if v < 0 if exact else v < -_TOLERANCE:
            raise NotABeliefFunction(
                f"Möbius mass of {_label(sets[a], frame)} is {v} < 0: the table is not totally "
                "monotone (Definition 1 (iii)), so it is not a belief function"
            )
        if a and (v > 0 if exact else v > _TOLERANCE):
            focal[sets[a]] = Fraction(v) if exact else float(v)
    return MassFunction(frame, focal)
