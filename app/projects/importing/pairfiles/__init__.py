"""Pair files and name-frequency files written into a project, and the frequencies read back."""

from app.projects.importing.pairfiles.frequencies import name_frequencies
from app.projects.importing.pairfiles.store import (
    import_pairfile,
    new_source,
    store_frequency_file,
)

__all__ = ["import_pairfile", "name_frequencies", "new_source", "store_frequency_file"]
