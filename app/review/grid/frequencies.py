"""Name-frequency markers (the FFreq/LFreq columns of the paper's Figure 1).

A count comes from the project's uploaded frequency file when it has one for that name
attribute, otherwise from the project's own records (the anonymity-set index already knows
how many records carry each value). Workers see only the class (unique, rare, common, very
common), never the count.
"""

from __future__ import annotations

from sqlalchemy import select

from app.core.disclosure import frequency_class
from app.extensions import db
from app.models import NameFrequency
from app.review.grid.state import PairState, name_attributes


def uploaded_counts(project_id: int, first: str, last: str, values) -> dict[str, dict]:
    """Uploaded counts of ``values``: ``{attribute: {name: count}}`` for kinds uploaded."""
    attribute = {"F": first, "L": last}
    out: dict[str, dict] = {}
    kinds = db.session.execute(
        select(NameFrequency.kind).where(NameFrequency.project_id == project_id).distinct()
    ).scalars()
    for kind in kinds:
        out[attribute[kind]] = {}
    if out and values:
        rows = db.session.execute(
            select(NameFrequency.kind, NameFrequency.name, NameFrequency.count).where(
                NameFrequency.project_id == project_id, NameFrequency.name.in_(values)
            )
        )
        for kind, name, count in rows:
            out[attribute[kind]][name] = count
    return out


def page_frequencies(ctx, pairs, states: list[PairState]) -> dict[tuple[int, int], dict]:
    """``(pair_id, row) -> {attribute: class}`` for the name attributes of a page."""
    names = name_attributes(ctx.attributes)
    if not names:
        return {}
    values = {s.values[row].get(a) for s in states for row in (0, 1) for a in names} - {None}
    uploaded = uploaded_counts(ctx.project.id, *names, values)
    out = {}
    for pair, state in zip(pairs, states, strict=True):
        indexes = ctx.indexes(pair)
        for row in (0, 1):
            classes = {}
            for attribute in names:
                value = state.values[row].get(attribute)
                if value is None:
                    count = None
                elif attribute in uploaded:
                    count = uploaded[attribute].get(value, 0)
                else:  # a synthetic check's row counts itself (its index is a stand-in)
                    count = indexes[row].value_count(attribute, value)
                classes[attribute] = frequency_class(count)
            out[pair.id, row] = classes
    return out
