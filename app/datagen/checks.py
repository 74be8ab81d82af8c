"""Synthetic known-truth checks: record pairs that resemble a project's, about nobody.

A check is a pair of records made here, with its answer known: ``same`` (one invented
person and a duplicate carrying the generator's discrepancies: a one-operation typo,
transposition, insertion or deletion in a name, a day/month swap or a digit typo in a date,
a missing value, a first/last swap; Christen, *Data Matching*, 2012, §4.3, the error model
of :mod:`app.datagen.generator`) or ``different`` (two invented people sharing some values,
as blocked candidate pairs do). The project's own values shape the records but are never
copied, except words (of a non-name text) that many records share:

- names come from the generator's lists (:mod:`app.datagen.names`), chosen so that the
  frequency class a worker sees (unique, rare, common, very common) follows the project's;
- other texts and identifiers follow the *shape* of a real value (its length, its letters,
  digits, spaces and signs), filled with random digits and letters or common words;
- dates draw their year from the project's years, categories from its categories;
- each attribute is missing about as often as in the project, and a ``different`` pair
  agrees on an attribute about as often as the project's pairs do.

Framework-free: :class:`Profile` values in, plain dicts out (``app.projects.quality`` reads
the profiles from the database and stores the records).
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from app.core.disclosure import frequency_class
from app.datagen.generator import Config

__all__ = ["CheckPair", "Profile", "make_checks", "name_class", "shape_of"]

_DEFAULTS = Config()
#: Share of a ``same`` pair's name values edited once (the generator's four edit rates).
EDIT_RATE = _DEFAULTS.typo + _DEFAULTS.transposition + _DEFAULTS.insertion + _DEFAULTS.deletion


@dataclass(frozen=True)
class Profile:
    """What a project's values of one identifying attribute look like (no value kept).

    ``shapes``: shapes of real values (:func:`shape_of`), for texts and identifiers;
    ``words``: words many records share; ``categories``/``weights``: a category's values;
    ``years``: years of real dates; ``classes``: frequency classes of real names, and
    ``pool``: generator names with the frequency class a check carrying one shows;
    ``missing``: share of records without a value; ``agree``: share of the project's pairs
    whose two values are equal; ``case``: ``upper``, ``lower``, ``title`` or ``mixed``.
    """

    name: str
    kind: str  # id | string | date | category
    missing: float = 0.0
    agree: float = 0.0
    case: str = "upper"
    shapes: Sequence[str] = ()
    words: Sequence[str] = ()
    categories: Sequence[str] = ()
    weights: Sequence[float] = ()
    years: Sequence[int] = ()
    classes: Sequence[str] = ()
    pool: dict[str, str] = field(default_factory=dict)

    @property
    def is_name(self) -> bool:
        return bool(self.pool)


@dataclass(frozen=True)
class CheckPair:
    """Two invented records (normalised values by attribute) and the answer they should get."""

    a: dict[str, str | None]
    b: dict[str, str | None]
    expected: str  # same | different


def shape_of(value: str) -> str:
    """The shape of a value: ``A`` an upper-case letter, ``a`` a lower-case one, ``9`` a
    digit, anything else itself (``"12 Main St"`` -> ``"99 Aaaa Aa"``)."""
    return "".join(
        "9" if c.isdigit() else "A" if c.isupper() else "a" if c.islower() else c for c in value
    )


def make_checks(
    profiles: Sequence[Profile], n: int, rng: np.random.Generator, same_share: float = 0.5
) -> list[CheckPair]:
    """``n`` synthetic check pairs, about ``same_share`` of them of one invented person."""
    made = []
    for _ in range(n):
        a = _person(profiles, rng)
        if rng.random() < same_share:
            made.append(CheckPair(a, _duplicate(a, profiles, rng), "same"))
        else:
            made.append(CheckPair(a, _other(a, profiles, rng), "different"))
    return made


def _person(profiles: Sequence[Profile], rng) -> dict[str, str | None]:
    return {
        p.name: None if rng.random() < p.missing and len(profiles) > 1 else _value(p, rng)
        for p in profiles
    }


def _value(p: Profile, rng) -> str | None:
    if p.kind == "category":
        if not p.categories:
            return None
        weights = np.asarray(p.weights, dtype=float)
        return str(p.categories[rng.choice(len(p.categories), p=weights / weights.sum())])
    if p.kind == "date":
        year = int(rng.choice(p.years)) if len(p.years) else int(rng.integers(1940, 2007))
        month = int(rng.integers(1, 13))
        day = int(rng.integers(1, _days(year, month) + 1))
        return f"{month:02d}{day:02d}{year:04d}"
    if p.is_name:
        return _name(p, rng)
    if not p.shapes:
        return None
    return _fill(str(rng.choice(p.shapes)), p.words, rng)


def _name(p: Profile, rng) -> str:
    """A generator name showing the frequency class of a real name drawn at random."""
    wanted = str(rng.choice(p.classes)) if len(p.classes) else "unique"
    fitting = [name for name, shown in p.pool.items() if shown == wanted]
    if not fitting:  # the nearest class the pool can show
        order = ["unique", "rare", "common", "very_common"]
        target = order.index(wanted) if wanted in order else 0
        present = sorted({c for c in p.pool.values() if c in order}, key=order.index)
        nearest = min(present, key=lambda c: abs(order.index(c) - target))
        fitting = [name for name, shown in p.pool.items() if shown == nearest]
    return str(fitting[rng.integers(len(fitting))])


def _fill(shape: str, words: Sequence[str], rng) -> str:
    """A value of ``shape``: each word of letters a common word of its length and case when
    there is one, else random letters; digits random; other signs kept."""
    out = []
    for part in shape.split(" "):
        if part and set(part) <= {"A", "a"}:
            fitting = [w for w in words if shape_of(w) == part]
            if fitting:
                out.append(str(fitting[rng.integers(len(fitting))]))
                continue
        out.append("".join(_char(c, rng) for c in part))
    return " ".join(out)


def _char(c: str, rng) -> str:
    if c == "9":
        return str(rng.integers(10))
    if c == "A":
        return string.ascii_uppercase[rng.integers(26)]
    if c == "a":
        return string.ascii_lowercase[rng.integers(26)]
    return c


def _duplicate(a: dict, profiles: Sequence[Profile], rng) -> dict:
    """The same invented person as recorded again, with the generator's discrepancies."""
    b = dict(a)
    for p in profiles:
        value = b[p.name]
        if value is None:
            continue
        if rng.random() < p.missing and len(profiles) > 1:
            b[p.name] = None
        elif p.kind == "date" and rng.random() < _DEFAULTS.dob_swap + EDIT_RATE / 2:
            b[p.name] = _date_edit(value, rng)
        elif p.kind == "string" and rng.random() < EDIT_RATE * 2:
            b[p.name] = _edit(value, rng)
        elif p.kind == "id" and rng.random() < _DEFAULTS.typo:
            b[p.name] = _edit(value, rng, typo_only=True)  # an identifier keeps its length
    names = [p.name for p in profiles if p.is_name]
    # Only two values swap: a missing first name moved into the surname would make a check
    # miss a value where the project's records may never miss one (a check told apart).
    both = len(names) == 2 and all(b[name] is not None for name in names)
    if both and rng.random() < _DEFAULTS.name_swap:
        b[names[0]], b[names[1]] = b[names[1]], b[names[0]]
    return b


def _other(a: dict, profiles: Sequence[Profile], rng) -> dict:
    """Another invented person sharing some of ``a``'s values, never all of them."""
    b = _person(profiles, rng)
    for p in profiles:  # an identifier in common would make them one person
        if p.kind != "id" and rng.random() < p.agree:
            b[p.name] = a[p.name]
    differing = [p for p in profiles if p.kind != "category" and a[p.name] is not None]
    if differing and all(a[p.name] == b[p.name] for p in differing):
        p = differing[rng.integers(len(differing))]
        while b[p.name] == a[p.name]:
            b[p.name] = _edit(a[p.name], rng) if p.kind != "date" else _value(p, rng)
    return b


def _edit(value: str, rng, typo_only: bool = False) -> str:
    """One Damerau-Levenshtein operation: a typo, a transposition, an insertion or a
    deletion, in proportion to the generator's rates; letters keep their case."""
    rates = np.array(
        [_DEFAULTS.typo, _DEFAULTS.transposition, _DEFAULTS.insertion, _DEFAULTS.deletion]
    )
    op = 0 if typo_only else int(rng.choice(4, p=rates / rates.sum()))
    chars = list(value)
    i = int(rng.integers(len(chars)))
    if op == 1 and len(chars) > 1:
        j = min(i, len(chars) - 2)
        if chars[j] != chars[j + 1]:
            chars[j], chars[j + 1] = chars[j + 1], chars[j]
            return "".join(chars)
        op = 0
    if op == 3 and len(chars) > 1:
        del chars[i]
        return "".join(chars)
    new = _like(chars[i], rng)
    if op == 2:
        chars.insert(i, new)
    else:
        while new == chars[i] and chars[i].isalnum():
            new = _like(chars[i], rng)
        chars[i] = new
    return "".join(chars)


def _like(c: str, rng) -> str:
    """A random character of ``c``'s kind (digit, upper- or lower-case letter)."""
    return _char("9" if c.isdigit() else "a" if c.islower() else "A", rng)


def _date_edit(value: str, rng) -> str:
    """A day/month swap when the day can be a month, else another day of the month."""
    month, day, year = int(value[:2]), int(value[2:4]), int(value[4:])
    if day <= 12 and day != month and rng.random() < 0.6:
        return f"{day:02d}{month:02d}{year:04d}"
    other = day
    while other == day:
        other = int(rng.integers(1, _days(year, month) + 1))
    return f"{month:02d}{other:02d}{year:04d}"


def _days(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def name_class(records: int, shown: int) -> str | None:
    """The class a generator name shows, or None when it may not be used: a name exactly one
    record carries is that person's alone and never appears in a check."""
    return None if records == 1 else frequency_class(shown)
