"""Import a MINDFIRL pair file (any of its three formats) and a name-frequency file.

The pair file is read whole (its pairs are cross-checked), then its records go to sources A
and B and its pairs are written; a frequency file uploaded beside any kind of project
becomes the project's name counts (it wins over the counts MINDFIRL's own pair files carry).
"""

from __future__ import annotations

from flask import current_app
from sqlalchemy import insert

from app.core.disclosure import AttributeType
from app.extensions import db
from app.limits import Limits
from app.models import Pair, Project, Source
from app.projects.importing.checked import Checked, labelled
from app.projects.importing.layouts import names_of
from app.projects.importing.uploads import Staged
from app.projects.lifecycle.bulk import CHUNK, insert_record_rows
from app.projects.lifecycle.frequencies import store_frequencies
from app.projects.reading.pairfile import read_name_frequencies, read_pairfile

__all__ = ["import_pairfile", "new_source", "store_frequency_file"]


def new_source(project: Project, label: str, filename: str | None) -> Source:
    """Add an empty source ``label`` to ``project``; flush."""
    source = Source(project_id=project.id, label=label, filename=filename, record_count=0)
    db.session.add(source)
    db.session.flush()
    return source


def store_frequency_file(project: Project, staged: Staged) -> int:
    """Read the staged name-frequency file and store its counts; how many."""
    found = labelled("name frequencies", read_name_frequencies, staged.path("freq"))
    return store_frequencies(project.id, found)


def _read_pairfile(staged: Staged, plan: dict):
    # Sensitive and ignored columns are read as plain strings: only shown columns are typed.
    shown = plan["identifying"]
    kinds = {name: AttributeType(shown.get(name, "string")) for name in plan["header"]}
    return labelled(
        "pair file", read_pairfile, staged.path("pairs"), attributes=kinds,
        names=names_of(staged, "pairs"), formats=plan.get("formats") or {},
        invalid_dates=plan.get("invalid_dates", "error"), pair_truth=plan.get("truth"),
        limits=Limits.of(current_app.config),
    )  # fmt: skip


def import_pairfile(project: Project, staged: Staged, plan: dict, attributes) -> Checked:
    """Check the staged pair file and write its records, pairs and name counts; flush."""
    parsed = _read_pairfile(staged, plan)
    checked = Checked(
        pairs=len(parsed.pairs), blocks=len({p.block_id for p in parsed.pairs if p.block_id})
    )
    checked.note_missing("pair file", parsed.missing)
    ids = {}
    for label, records in (("A", parsed.records_a), ("B", parsed.records_b)):
        source = new_source(project, label, staged.meta["filenames"].get("pairs"))
        rows = [
            {
                "id": record_id,
                "identifying": {a.name: values[a.name] for a in attributes if a.identifying},
                "sensitive": {a.name: values[a.name] for a in attributes if not a.identifying},
            }
            for record_id, values in records.items()
        ]
        source.record_count = checked.records[label] = len(rows)
        ids[label] = insert_record_rows(project.id, source.id, rows, attributes)
    # A record pair the file repeats (under another PairID) is one more pair over the same
    # two records: each record is stored once, so anonymity sets count it once.
    rows = [
        {
            "project_id": project.id,
            "record_a_id": ids["A"][p.id_a],
            "record_b_id": ids["B"][p.id_b],
            "external_id": p.pair_id,  # at most 100 characters (read_pairfile)
            "block": p.block_id,
            "rule": "pair file",
        }
        for p in parsed.pairs
    ]
    for start in range(0, len(rows), CHUNK):
        db.session.execute(insert(Pair), rows[start : start + CHUNK])
    # An uploaded frequency file wins over the counts MINDFIRL's own pair files carry.
    if staged.has("freq"):
        checked.frequencies = store_frequency_file(project, staged)
    elif parsed.frequencies is not None:
        checked.frequencies = store_frequencies(project.id, parsed.frequencies)
    return checked
