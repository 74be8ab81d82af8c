"""Keep a manager's uploaded files under ``instance/uploads/<token>/`` between the steps.

The files and a small ``meta.json`` (project name, kind, owner, original file names, the
chosen column mapping) live on disk, never in the session cookie. A token is random and
checked against its owner on every step.
"""

from __future__ import annotations

import json
import re
import secrets
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from flask import current_app

from app.models import ProjectKind

__all__ = [
    "FILES",
    "Staged",
    "UploadError",
    "discard",
    "discard_project_uploads",
    "load",
    "stage",
    "stage_one",
    "sweep",
]

#: The files each kind of project takes: (label, required, description).
_FREQ = ("freq", False, "Name frequencies")
FILES: dict[str, tuple[tuple[str, bool, str], ...]] = {
    ProjectKind.LINK: (("A", True, "File A"), ("B", True, "File B"), _FREQ),
    ProjectKind.DEDUPE: (("A", True, "File"), _FREQ),
    ProjectKind.PAIRFILE: (("pairs", True, "Pair file"), _FREQ),
}
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


class UploadError(ValueError):
    """The upload cannot be staged or found; the message says why."""


@dataclass
class Staged:
    """A staged upload: its directory and metadata."""

    token: str
    directory: Path
    meta: dict

    @property
    def kind(self) -> str:
        return self.meta["kind"]

    def path(self, label: str) -> Path:
        return self.directory / f"{label}.csv"

    def has(self, label: str) -> bool:
        return self.path(label).is_file()

    def labels(self) -> list[str]:
        return [label for label, _, _ in FILES[self.kind] if self.has(label)]

    def record_labels(self) -> list[str]:
        """The files of records (or pairs): every staged file but the name frequencies."""
        return [label for label in self.labels() if label != "freq"]

    def save(self) -> None:
        (self.directory / "meta.json").write_text(json.dumps(self.meta), encoding="utf-8")


def _root() -> Path:
    root = current_app.config.get("UPLOAD_FOLDER") or Path(current_app.instance_path) / "uploads"
    return Path(root)


def stage(name: str, kind: str, files: Mapping[str, object], owner_id: int) -> Staged:
    """Save the uploaded ``files`` (label → werkzeug ``FileStorage``) for ``owner_id``."""
    name = (name or "").strip()
    problems = []
    if not name:
        problems.append("give the project a name")
    if kind not in FILES:
        raise UploadError("choose how to create the project: link, dedupe or pair file")
    given = {label: f for label, f in files.items() if f is not None and getattr(f, "filename", "")}
    for label, required, description in FILES[kind]:
        if required and label not in given:
            problems.append(f"choose the {description.lower()} to upload")
    if problems:
        raise UploadError("; ".join(problems))
    sweep()
    token = secrets.token_urlsafe(18)
    directory = _root() / token
    directory.mkdir(parents=True)
    staged = Staged(token, directory, {"name": name[:200], "kind": kind, "owner": owner_id})
    staged.meta["filenames"] = {}
    for label, _, _ in FILES[kind]:
        if label in given:
            given[label].save(staged.path(label))
            given[label].close()  # a large upload is spooled to a temporary file
            staged.meta["filenames"][label] = Path(given[label].filename).name[:255]
    staged.save()
    return staged


def stage_one(kind: str, label: str, upload, owner_id: int, **meta) -> Staged:
    """Save one uploaded file (``kind`` not a project kind, e.g. a linker's ``scores``) for
    ``owner_id`` between the steps of a page; :func:`load` it back with ``kind=``."""
    if kind in FILES:
        raise ValueError("stage_one is for files outside the new-project flow")
    if upload is None or not getattr(upload, "filename", ""):
        raise UploadError("choose the file to upload")
    sweep()
    token = secrets.token_urlsafe(18)
    directory = _root() / token
    directory.mkdir(parents=True)
    staged = Staged(token, directory, {"kind": kind, "owner": owner_id, **meta})
    upload.save(staged.path(label))
    upload.close()
    staged.meta["filenames"] = {label: Path(upload.filename).name[:255]}
    staged.save()
    return staged


def sweep(max_age: float | None = None) -> int:
    """Delete staged uploads older than ``max_age`` seconds (default: a day); return how many.

    Run on every new upload, so abandoned uploads do not pile up on disk.
    """
    if max_age is None:
        max_age = float(current_app.config.get("UPLOAD_MAX_AGE_SECONDS", 24 * 3600))
    root, removed = _root(), 0
    if not root.is_dir():
        return 0
    cutoff = time.time() - max_age
    for directory in root.iterdir():
        meta = directory / "meta.json"
        touched = (meta if meta.is_file() else directory).stat().st_mtime
        if directory.is_dir() and _TOKEN.match(directory.name) and touched < cutoff:
            shutil.rmtree(directory, ignore_errors=True)
            removed += 1
    return removed


def load(token: str, owner_id: int, kind: str | None = None) -> Staged:
    """Return the staged upload ``token`` of ``owner_id``, or raise :class:`UploadError`.

    Only a new project's upload (a kind of :data:`FILES`) unless ``kind`` names another
    (:func:`stage_one`): one step's file is never read as another's.
    """
    directory = _root() / token if _TOKEN.match(token or "") else None
    meta_file = directory / "meta.json" if directory else None
    meta = {}
    if meta_file is not None and meta_file.is_file():
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    wanted = meta.get("kind") == kind if kind is not None else meta.get("kind") in FILES
    if not wanted:
        raise UploadError("this upload has expired or does not exist; upload the files again")
    if meta.get("owner") != owner_id:
        raise UploadError("this upload belongs to another user")
    return Staged(token, directory, meta)


def discard(staged: Staged) -> None:
    """Delete the staged files (after a successful import, or when abandoned)."""
    shutil.rmtree(staged.directory, ignore_errors=True)


def discard_project_uploads(project_id: int, token: str | None = None) -> int:
    """Delete every staged upload of ``project_id`` (a file staged on one of its pages, or
    its import's upload ``token``); return how many (a project's close-out)."""
    root, removed = _root(), 0
    if not root.is_dir():
        return 0
    for directory in root.iterdir():
        if not directory.is_dir() or not _TOKEN.match(directory.name):
            continue
        meta = directory / "meta.json"
        try:
            owner = json.loads(meta.read_text(encoding="utf-8")).get("project_id")
        except (OSError, ValueError, AttributeError):
            owner = None
        if owner == project_id or (token is not None and directory.name == token):
            shutil.rmtree(directory, ignore_errors=True)
            removed += 1
    return removed
