"""Write MINDFIRL's own result file: its pair file again, each pair's answer appended."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

from app.core.disclosure import AttributeType, format_date
from app.projects.exports.formats.answers import Decision, Judgement, mindfirl_choice
from app.projects.exports.formats.csvwriter import export_writer
from app.projects.reading.pairfile import STRUCTURE, PairFile

__all__ = ["write_legacy_result"]


def write_legacy_result(
    out: TextIO, pairfile: PairFile, judgements: Mapping[str, Judgement]
) -> int:
    """Write MINDFIRL's result layout: the pair-file columns + ``decision`` + ``choice``.

    Two rows per pair (A then B), both carrying the pair's ``decision`` (1 = same,
    0 = different, empty = undecided) and ``choice`` (:func:`mindfirl_choice`). Dates are
    written back as ``MM/DD/YYYY``. Returns the number of pairs written.
    """
    writer = export_writer(out)
    attributes = list(pairfile.attributes)
    writer.writerow([*STRUCTURE, *attributes, "decision", "choice"])
    for pair in pairfile.pairs:
        judgement = judgements.get(pair.pair_id, Judgement())
        decision = {Decision.SAME: 1, Decision.DIFFERENT: 0}.get(judgement.decision)
        tail = [decision, mindfirl_choice(judgement)]
        for db, record_id, records in (
            ("A", pair.id_a, pairfile.records_a),
            ("B", pair.id_b, pairfile.records_b),
        ):
            values = [
                _legacy_value(pairfile.attributes[a], records[record_id][a]) for a in attributes
            ]
            writer.writerow([pair.pair_id, pair.block_id, db, record_id, *values, *tail])
    return len(pairfile.pairs)


def _legacy_value(kind: AttributeType, value: str | None) -> str:
    if value is None:
        return ""
    return format_date(value) if kind is AttributeType.DATE else value
