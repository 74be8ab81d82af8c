"""Stream generated records to CSV without holding them all in memory.

Rows are assembled by scattering the bytes of whole columns into one buffer, quoted
exactly as :class:`csv.writer` does by default (``QUOTE_MINIMAL``, ``\\r\\n`` line
ends), so the file reads back with any CSV reader. Only one chunk of rows exists at a
time, and never as a Python object per row.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np

from app.datagen.generator import BLOCK, COLUMNS, TRUTH_COLUMNS, Config, iter_blocks

__all__ = ["format_csv", "write_csv"]

#: Bytes that force a field to be quoted, as a lookup table indexed by byte value.
_SPECIAL = np.zeros(256, dtype=bool)
_SPECIAL[list(b',"\n\r')] = True


def _encode(col: np.ndarray) -> np.ndarray:
    """Return ``col`` as UTF-8 bytes (``S`` dtype), quoted where CSV needs it."""
    col = np.asarray(col)
    if col.dtype.kind != "S":
        try:
            col = col.astype(f"S{max(col.dtype.itemsize // 4, 1)}")  # ASCII fast path
        except UnicodeEncodeError:
            col = np.strings.encode(col, "utf-8")
    hit = _SPECIAL[col.view(np.uint8)].reshape(len(col), col.dtype.itemsize)
    if hit.any():  # cheap flat test first: most columns never need quoting
        needs = hit.any(axis=1)
        quoted = np.strings.replace(col[needs], b'"', b'""')
        quoted = np.strings.add(np.strings.add(b'"', quoted), b'"')
        col = col.astype(quoted.dtype if quoted.itemsize > col.itemsize else col.dtype)
        col[needs] = quoted
    return col


def format_csv(columns: dict[str, np.ndarray], names: Iterable[str]) -> bytes:
    """Render the rows of ``columns`` (fields in the order of ``names``) as CSV bytes.

    Fields are scattered into one flat byte buffer: the destination of every byte is
    computed from cumulative field lengths, so no Python object exists per row.
    """
    fields = [_encode(columns[name]) for name in names]
    if not fields or len(fields[0]) == 0:
        return b""
    rows = len(fields[0])
    lengths = [np.strings.str_len(f).astype(np.int64) for f in fields]
    # Each field is followed by one separator byte: "," or, for the last, "\r" + "\n".
    row_len = sum(lengths) + len(fields) + 1
    offset = np.cumsum(row_len) - row_len
    buf = np.full(int(row_len.sum()), ord(","), dtype=np.uint8)
    for field, length in zip(fields, lengths, strict=True):
        # Only the longest value's width matters; the rest of the dtype is NUL padding.
        width = int(length.max(initial=0))
        mat = field.view(np.uint8).reshape(rows, field.dtype.itemsize)[:, :width]
        cols = np.arange(width)
        mask = cols < length[:, None]
        buf[(offset[:, None] + cols)[mask]] = mat[mask]
        offset = offset + length + 1
    buf[offset - 1], buf[offset] = ord("\r"), ord("\n")
    return buf.tobytes()


def write_csv(
    path: str | os.PathLike[str],
    n: int,
    seed: int,
    chunk: int = 100_000,
    config: Config | None = None,
    truth: bool = False,
) -> int:
    """Write the records of :func:`~app.datagen.generator.generate` to ``path``.

    The file is UTF-8 with a header row; the bytes depend only on ``(n, seed,
    config, truth)``, never on ``chunk``, which only bounds how many rows are
    rendered at once (rounded up to whole generator blocks). Returns rows written.
    """
    names = COLUMNS + (TRUTH_COLUMNS if truth else ())
    per_write = max(1, -(-chunk // BLOCK))
    written = 0
    with open(path, "wb") as fh:
        fh.write((",".join(names) + "\r\n").encode())
        pending: list[dict[str, np.ndarray]] = []
        for block in iter_blocks(n, seed, config, truth):
            pending.append(block)
            if len(pending) == per_write:
                written += _flush(fh, pending, names)
        written += _flush(fh, pending, names)
    return written


def _flush(fh: BinaryIO, pending: list[dict[str, np.ndarray]], names: tuple[str, ...]) -> int:
    """Write and clear the buffered blocks; return how many rows they held."""
    if not pending:
        return 0
    cols = {c: np.concatenate([b[c] for b in pending]) for c in names}
    pending.clear()
    fh.write(format_csv(cols, names))
    return len(cols[names[0]])
