"""``bench/closeout.py``'s baseline: the code paths of the slow pages before issue 40.6, put
back for one run with :func:`before` and taken away again.

- the final pairs (``linkage``) and the records and matches of ``clusters``/``linked`` read
  through the ORM session (a SQLAlchemy row, then an ORM result per row);
- the ``linkage`` text written cell by cell by the general writer (a Python call per cell);
- the release gate measuring the linked export with no policy saved, and the Release risk page
  measuring it again for the gate;
- the close-out page writing and hashing every final export for each view (no job);
- the close-out zip deflated at level 6, the final components computed for ``clusters`` and
  again for ``linked``; the close-out POST writing the seven exports again to hash them.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from app.extensions import db
from app.projects.exports import linkage, service, streams
from app.projects.release import policy
from app.projects.views import release as release_views


def _partitions(query, size: int) -> Iterator[list]:
    result = db.session.execute(query.execution_options(yield_per=size))
    try:
        for part in result.partitions():
            yield [tuple(row) for row in part]
    finally:
        result.close()


def _final_pairs(project) -> Iterator[tuple]:
    from app.models import Pair
    from app.projects.progress.finals import final_columns, with_records

    finals = final_columns(project.id)
    query = with_records(
        finals.query(
            project.id, finals.decision, finals.decided_by, Pair.purpose, Pair.round,
            Pair.match_probability, Pair.match_weight, Pair.rule,
        ).where(finals.decision.is_not(None))
    )  # fmt: skip
    rows = db.session.execute(query.execution_options(yield_per=linkage.STREAM_ROWS))
    for *decided, sl, il, sr, ir in rows:
        yield (sl, il, sr, ir, *decided)


def _linkage_text(rows, header: bool = True) -> str:
    import io

    out = io.StringIO()
    linkage.write_linkage(out, rows, header)
    return out.getvalue()


def _gate(project, measured=None):
    chosen = policy.policy_of(project)
    risk = policy.release_risk_of_project(project, policy.policy_request(chosen))
    on_exceed = chosen.on_exceed if chosen else "confirm"
    return policy.ReleaseGate(risk, policy.exceeded_limits(chosen, risk), on_exceed)


def _archive(files):
    import io
    import zipfile

    from app.projects.custody.archive import _EPOCH, SUMS, _sums, export_hashes

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in [*sorted(files.items()), (SUMS, _sums(export_hashes(files)).encode())]:
            archive.writestr(zipfile.ZipInfo(name, _EPOCH), data)
    return out.getvalue()


def _written_again(project, files, prepared):
    from app.projects.custody.archive import export_hashes
    from app.projects.custody.closeout import final_exports

    return export_hashes(final_exports(project) if files is None else files)


def _hashes_now(project, job_id, by):
    from app.projects.custody import export_hashes, final_exports

    return export_hashes(final_exports(project)), None


@contextmanager
def before():
    """The paths as they were, for the length of the ``with`` block."""
    saved = [
        (streams, "_partitions", streams._partitions),
        (linkage, "final_pairs", linkage.final_pairs),
        (linkage, "linkage_text", linkage.linkage_text),
        (service.linkage, "final_pairs", service.linkage.final_pairs),
        (policy, "release_gate", policy.release_gate),
        (release_views, "release_gate", release_views.release_gate),
    ]
    streams._partitions, linkage.final_pairs = _partitions, _final_pairs
    linkage.linkage_text = _linkage_text
    policy.release_gate = release_views.release_gate = _gate
    import app.projects.custody.views.closeout as closeout_views
    import app.projects.views.access as access

    saved.append((access, "release_gate", access.release_gate))
    saved.append((closeout_views, "final_hashes", closeout_views.final_hashes))
    access.release_gate = _gate
    closeout_views.final_hashes = _hashes_now  # the page wrote every export for each view
    import contextlib

    from app.projects.custody import closeout

    saved.append((closeout_views, "final_archive", closeout_views.final_archive))
    saved.append((closeout, "components_kept", closeout.components_kept))
    saved.append((closeout, "_hashes", closeout._hashes))
    closeout_views.final_archive = _archive  # level 6
    closeout.components_kept = contextlib.nullcontext  # clusters' and linked's, each theirs
    closeout._hashes = _written_again  # the POST wrote the exports again
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
