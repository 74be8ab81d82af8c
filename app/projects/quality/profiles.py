"""What a project's identifying values look like, for the synthetic checks' generator.

Read from a random sample of each source's records and of the round's pairs, reduced to
what :class:`app.datagen.checks.Profile` holds: shares (missing, agreeing), shapes, years,
categories, frequency classes, words many records share. No value is kept but those words.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import aliased

from app.core.disclosure import AttributeType, frequency_class
from app.datagen import names as name_lists
from app.datagen.checks import Profile, name_class, shape_of
from app.extensions import db
from app.models import REVIEWED, Pair, Project, Record, Source
from app.review.grid import name_attributes, source_index, uploaded_counts

__all__ = ["SAMPLE", "profiles"]

#: Records (and pairs) read per source to profile it.
SAMPLE = 2000


def profiles(project: Project, round: int, rng: np.random.Generator) -> dict[str, list[Profile]]:
    """Each source's profiles by label, one per identifying attribute."""
    agree = _agreement(project, round, rng)
    return {
        source.label: _source_profiles(project, source, agree, rng) for source in project.sources
    }


def _source_profiles(project: Project, source: Source, agree: dict, rng) -> list[Profile]:
    attributes = project.identifying
    values = _sample_values(source, [a.name for a in attributes], rng)
    names = name_attributes(attributes) or ()
    index = source_index(project, source.id)
    made = []
    for attribute in attributes:
        column = [row.get(attribute.name) for row in values]
        present = [v for v in column if v is not None]
        kind = AttributeType(attribute.kind)
        common = {
            "name": attribute.name,
            "kind": kind.value,
            "missing": 1 - len(present) / len(column) if column else 0.0,
            "agree": agree.get(attribute.name, 0.0),
            "case": _case(present),
        }
        if kind is AttributeType.CATEGORY:
            counts = Counter(present)
            made.append(Profile(**common, categories=list(counts), weights=list(counts.values())))
        elif kind is AttributeType.DATE:
            made.append(Profile(**common, years=[int(v[4:8]) for v in present]))
        elif attribute.name in names:
            role = "first" if attribute.name == names[0] else "last"
            made.append(_name_profile(project, index, names, role, present, common))
        else:
            made.append(
                Profile(**common, shapes=[shape_of(v) for v in present], words=_words(present))
            )
    return made


def _name_profile(project, index, names, role: str, present: list[str], common: dict) -> Profile:
    """A name attribute: the classes its values show, and the generator names it may use."""
    lists = (
        (name_lists.MALE_FIRST + name_lists.FEMALE_FIRST)
        if role == "first"
        else name_lists.SURNAMES
    )
    pool = list(dict.fromkeys(_in_case(n, common["case"]) for n in lists))
    attribute = common["name"]
    uploaded = uploaded_counts(project.id, *names, set(present) | set(pool)).get(attribute)
    # A real value shows its uploaded count, else its records (itself among them); a check's
    # name its uploaded count, else the records carrying it and the check's own.
    classes = [
        frequency_class(
            uploaded.get(v, 0) if uploaded is not None else index.value_count(attribute, v)
        )
        for v in present
    ]
    usable = {}
    for name in pool:
        records = index.value_count(attribute, name)
        shown = uploaded.get(name, 0) if uploaded is not None else records + 1
        found = name_class(records, shown)
        if found not in (None, "unknown"):
            usable[name] = found
    return Profile(**common, classes=classes, pool=usable)


def _sample_values(source: Source, names: list[str], rng) -> list[dict]:
    """The identifying values of up to :data:`SAMPLE` random records of ``source``."""
    n = source.record_count
    positions = rng.choice(n, size=min(n, SAMPLE), replace=False).tolist() if n else []
    rows = []
    for start in range(0, len(positions), 1000):
        rows += db.session.scalars(
            select(Record.values).where(
                Record.source_id == source.id,
                Record.position.in_(positions[start : start + 1000]),
            )
        ).all()
    return [{name: row.get(name) for name in names} for row in rows]


def _agreement(project: Project, round: int, rng) -> dict[str, float]:
    """Per identifying attribute, the share of a sample of the round's pairs to review whose
    two records hold the same value, among the pairs that differ on most attributes (the
    non-matches a ``different`` check stands for; a blocked pair shares its key)."""
    ra, rb = aliased(Record), aliased(Record)
    ids = db.session.scalars(
        select(Pair.id).where(
            Pair.project_id == project.id,
            Pair.round == round,
            Pair.purpose.in_([p.value for p in REVIEWED]),
        )
    ).all()
    chosen = rng.choice(ids, size=min(len(ids), SAMPLE), replace=False).tolist() if ids else []
    rows = []
    for start in range(0, len(chosen), 1000):
        rows += db.session.execute(
            select(ra.values, rb.values)
            .select_from(Pair)
            .join(ra, ra.id == Pair.record_a_id)
            .join(rb, rb.id == Pair.record_b_id)
            .where(Pair.id.in_(chosen[start : start + 1000]))
        ).all()
    names = [a.name for a in project.identifying]

    def same(x, y, name):
        return x.get(name) is not None and x.get(name) == y.get(name)

    unlike = [(x, y) for x, y in rows if 2 * sum(same(x, y, n) for n in names) < len(names)]
    if not unlike:
        return {}
    return {n: sum(same(x, y, n) for x, y in unlike) / len(unlike) for n in names}


def _words(values: list[str]) -> list[str]:
    """Words of letters that at least ``CHECK_WORD_MIN_RECORDS`` sampled records hold."""
    least = current_app.config.get("CHECK_WORD_MIN_RECORDS", 5)
    counts = Counter(w for v in values for w in set(v.split(" ")) if w.isalpha())
    return sorted(w for w, c in counts.items() if c >= least)


def _case(values: list[str]) -> str:
    """The letter case most of ``values`` are written in."""
    counts = Counter(
        "upper" if v.isupper() else "lower" if v.islower() else "title" if v.istitle() else "mixed"
        for v in values
        if any(c.isalpha() for c in v)
    )
    return counts.most_common(1)[0][0] if counts else "upper"


def _in_case(name: str, case: str) -> str:
    return {"lower": name.lower(), "title": name.title()}.get(case, name.upper())
