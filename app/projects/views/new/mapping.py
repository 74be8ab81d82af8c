"""What the mapping page shows besides the columns: file layouts, date layouts, problems."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.disclosure import COMMON_FORMATS
from app.projects.importing import Staged
from app.projects.importing.layouts import HEADER_CHOICES, guess_date_formats

__all__ = ["Problems", "mapping_context"]


@dataclass(frozen=True)
class Problems:
    """The problems listed on a page and how many there are in all."""

    listed: list[str]
    total: int

    def __bool__(self) -> bool:
        return bool(self.listed)

    def __iter__(self):
        return iter(self.listed)

    @property
    def more(self) -> int:
        return max(0, self.total - len(self.listed))


def mapping_context(staged: Staged, shown: dict) -> dict:
    """The layouts of the files, the date layouts offered and guessed per column."""
    return {
        "layouts": staged.meta.get("layout", {}),
        "names": staged.meta.get("names") or [],
        "header_choices": HEADER_CHOICES,
        "date_formats": COMMON_FORMATS,
        "guessed_formats": guess_date_formats(staged) if shown else {},
    }
