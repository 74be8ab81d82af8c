"""Which column of an upload plays which role: the id, a source, identifying, sensitive.

A :class:`ColumnMapping` is checked when it is made, so a mapping that gives a column two
roles or a date layout to a non-date never reaches the reading of a file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from app.core.disclosure import AttributeType, date_format

__all__ = ["ColumnMapping", "InvalidDates"]

#: What an identifying date that cannot be read does: reject the file, or become missing.
InvalidDates = Literal["error", "missing"]


@dataclass(frozen=True)
class ColumnMapping:
    """Role of each column: the unique id, an optional source, identifying, sensitive.

    Columns not named here are ignored. ``identifying`` maps a column to its
    :class:`AttributeType`; its values are stored normalised. ``sensitive`` values are kept
    verbatim (stripped) for the vault. With a ``source_column``, ids must be unique per
    source rather than per file. Without an ``id_column`` (None) record ids are generated
    from the lines (``line-<n>``), and the file's own id column may be any other role (the
    ground truth when it is a cluster id). ``formats`` gives a date column its layout
    (:mod:`app.core.disclosure.dates`); ``invalid_dates="missing"`` keeps a date that cannot
    be read as missing instead of rejecting the file.
    """

    id_column: str | None
    identifying: Mapping[str, AttributeType] = field(default_factory=dict)
    sensitive: tuple[str, ...] = ()
    source_column: str | None = None
    formats: Mapping[str, str] = field(default_factory=dict)
    invalid_dates: InvalidDates = "error"

    def __post_init__(self) -> None:
        typed = {name: AttributeType(kind) for name, kind in self.identifying.items()}
        object.__setattr__(self, "identifying", typed)
        object.__setattr__(self, "sensitive", tuple(self.sensitive))
        formats = {name: layout for name, layout in self.formats.items() if layout}
        object.__setattr__(self, "formats", formats)
        # The id column may also be shown as an identifying attribute; nothing else overlaps.
        roles = [*typed, *self.sensitive, self.source_column]
        roles += [] if self.id_column in typed else [self.id_column]
        doubled = sorted({n for n in roles if n is not None and roles.count(n) > 1})
        if doubled:
            raise ValueError(f"columns with more than one role: {', '.join(doubled)}")
        for name, layout in formats.items():
            if typed.get(name) is not AttributeType.DATE:
                raise ValueError(f"column {name!r}: a date format needs an identifying date")
            date_format(layout)  # raises for a bad layout
        if self.invalid_dates not in ("error", "missing"):
            raise ValueError(f"invalid_dates must be 'error' or 'missing': {self.invalid_dates!r}")

    @property
    def columns(self) -> list[str]:
        """Every mapped column, id first."""
        extra = [self.source_column] if self.source_column is not None else []
        rest = [c for c in [*self.identifying, *self.sensitive] if c != self.id_column]
        ids = [self.id_column] if self.id_column is not None else []
        return [*ids, *extra, *rest]
