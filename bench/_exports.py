"""``bench/scale.py``'s step 6: the exports streamed against the same exports built whole.

For each of ``labels``, ``splink?score=confidence``, ``clusters``, ``linked`` (and ``splink``
for reference): the streamed pieces (``export_chunks``) are hashed as they come, never
joined, and the whole-body path (``whole_csv``: every pair's outcome in memory, then the
text) is hashed once written; the digests must agree. Time (untraced), then the peak memory
allocated by each path in a second, traced run (``tracemalloc``), same run; ``--quick`` skips
the traced runs (a figure, not a check: the digests are compared either way).

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

import gc
import hashlib
import time
import tracemalloc

from _check import agree

KINDS = (("clusters", "binary"), ("linked", "binary"), ("splink", "confidence"),
         ("labels", "binary"), ("splink", "binary"))  # fmt: skip


def _timed(fn, *args):
    """``fn(*args)``'s value and seconds (memory not traced: tracing slows Python down)."""
    gc.collect()
    began = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - began


def _peak(fn, *args) -> int:
    """The peak of memory allocated while ``fn(*args)`` runs, bytes (``tracemalloc``: Python's
    and numpy's allocations, exact, whatever the process held before)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _streamed(project, kind: str, options) -> tuple[str, int]:
    from app.projects.exports import export_chunks

    digest, size = hashlib.sha256(), 0
    for piece in export_chunks(project, kind, options):
        data = piece.encode()
        digest.update(data)
        size += len(data)
    return digest.hexdigest(), size


def _whole(project, kind: str, options) -> tuple[str, int]:
    from app.projects.exports import whole_csv

    data = whole_csv(project, kind, options).encode()
    return hashlib.sha256(data).hexdigest(), len(data)


def measure_exports(project, line, memory: bool = True) -> None:
    """Print a line per export: ours (streamed) against the whole path, time and (with
    ``memory``) the peak memory of each."""
    from app.projects.exports import ExportOptions

    for kind, score in KINDS:
        options = ExportOptions(score=score)
        name = kind if score == "binary" else f"{kind}?score={score}"
        (ours, size), t_ours = _timed(_streamed, project, kind, options)
        (theirs, _), t_whole = _timed(_whole, project, kind, options)
        agree(ours == theirs, f"{name} export: streamed and whole bytes differ")
        mib = 2**20
        note = f"{size / mib:,.1f} MiB"
        if memory:
            m_ours, m_whole = (_peak(path, project, kind, options) for path in (_streamed, _whole))
            note += (
                f"; peak memory {m_ours / mib:,.1f} MiB streamed, "
                f"{m_whole / mib:,.1f} MiB whole ({m_whole / max(m_ours, 1):,.1f}x)"
            )
        line(f"export {name}"[:22], t_ours, t_whole, note=note)
