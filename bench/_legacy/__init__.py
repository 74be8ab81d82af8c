"""What a baseline revision imports and this checkout no longer installs (benches only).

Benches that run an older revision's ``app/`` in this virtualenv (``import.py``,
``request_cpu.py``) put :data:`PATH` on that process's ``sys.path`` when the real package is
missing (:func:`paths`). Each stand-in does exactly what those revisions asked of it and no
more; the measured paths never go through it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

PATH = Path(__file__).resolve().parent
#: package name -> the revision that stopped importing it
STANDS_IN_FOR = {"flask_limiter": "abc3cf5"}


def paths() -> list[str]:
    """``[PATH]`` when a package it stands in for is not installed, else ``[]``."""
    missing = [name for name in STANDS_IN_FOR if importlib.util.find_spec(name) is None]
    return [str(PATH)] if missing else []
