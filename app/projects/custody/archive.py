"""The final exports as a close-out keeps them: their SHA-256 hashes and manifest, one digest
over all of them, the zip a manager downloads and the folder an automatic close-out writes."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

__all__ = ["SUMS", "digest", "export_hashes", "final_archive", "write_exports"]

#: The manifest of the final exports: ``<sha256>  <file name>`` per line, as ``sha256sum``.
SUMS = "SHA256SUMS"
_EPOCH = (1980, 1, 1, 0, 0, 0)  # zip entries' fixed time: the same exports, the same archive


def export_hashes(files: dict[str, bytes]) -> dict[str, dict]:
    """``name → {"sha256", "bytes"}`` of the exports."""
    return {
        name: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        for name, data in sorted(files.items())
    }


def _sums(hashes: dict[str, dict]) -> str:
    return "".join(f"{h['sha256']}  {name}\n" for name, h in sorted(hashes.items()))


def digest(hashes: dict[str, dict]) -> str:
    """One SHA-256 over all exports' hashes (of the :data:`SUMS` manifest's text)."""
    return hashlib.sha256(_sums(hashes).encode("utf-8")).hexdigest()


def final_archive(files: dict[str, bytes]) -> bytes:
    """The exports and their :data:`SUMS` manifest as a zip (the same files, the same bytes).

    Deflated at level 1: FEBRL4's 18.5 MB in 0.07 s rather than 0.18 s (level 6), for a zip
    of 2.3 MB rather than 2.0 MB."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, data in [*sorted(files.items()), (SUMS, _sums(export_hashes(files)).encode())]:
            archive.writestr(zipfile.ZipInfo(name, _EPOCH), data)
    return out.getvalue()


def write_exports(files: dict[str, bytes], directory: Path) -> Path:
    """Write the exports and their manifest into ``directory`` (made if missing)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (directory / name).write_bytes(data)
    (directory / SUMS).write_text(_sums(export_hashes(files)), encoding="utf-8")
    return directory
