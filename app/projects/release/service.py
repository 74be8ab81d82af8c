"""Run the release-risk check on a CSV text or on a project's ``linked`` export.

The ``linked`` export (cluster id, linked-by and the vault's columns; no identifying column)
is what leaves the project, so it is what is measured. Without ``qi`` the quasi-identifiers
are the export's vault columns typed ``category`` or ``date`` (sex, zip, birth year: what an
attacker may know from elsewhere) or, when there are none, every vault column (the attacker
knows all that is released: the strictest reading); without ``sensitive``, the remaining vault
columns. The ground-truth column, ``cluster_id`` and ``linked_by`` are left out of both
(``docs/release-risk.md``).
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from app.core.release import ReleaseRisk, assess_release
from app.projects.release.request import ReleaseRequest, ReleaseRequestError

if TYPE_CHECKING:  # a CSV's check (the command line) needs no model
    from app.models import Project

__all__ = ["default_columns", "read_table", "release_risk_of_csv", "release_risk_of_project"]

_DEFAULT_QI_KINDS = ("category", "date")


def read_table(text: str) -> dict[str, list[str]]:
    """A CSV text with a header row as ``{column: values}``; errors name a row, never a value."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        raise ReleaseRequestError("the file has no header row")
    names = [name.strip() for name in header]
    if len(set(names)) < len(names):
        raise ReleaseRequestError("the header names a column twice")
    columns: dict[str, list[str]] = {name: [] for name in names}
    for number, row in enumerate(reader, start=2):
        if not row:
            continue
        if len(row) != len(names):
            raise ReleaseRequestError(
                f"row {number} has {len(row)} cells where the header has {len(names)}"
            )
        for name, value in zip(names, row, strict=True):
            columns[name].append(value)
    return columns


def _assess(
    table: dict[str, list[str]],
    qi,
    sensitive,
    request: ReleaseRequest,
    population_table: dict[str, list[str]] | None = None,
) -> ReleaseRisk:
    for parameter, names in (("qi", qi), ("sensitive", sensitive)):
        for name in names:
            if name not in table:
                raise ReleaseRequestError(f"'{parameter}' names column {name!r}, not in the data")
    if not qi:
        raise ReleaseRequestError("choose at least one quasi-identifier ('qi')")
    if set(qi) & set(sensitive):
        both = sorted(set(qi) & set(sensitive))[0]
        raise ReleaseRequestError(f"column {both!r} cannot be both 'qi' and 'sensitive'")
    rows = len(next(iter(table.values()), []))
    if request.population is not None and request.population < rows:
        raise ReleaseRequestError(f"'population' must be at least the {rows} records")
    if population_table is not None:
        if request.population is not None or request.estimate == "scaled":
            raise ReleaseRequestError("give a population size or a population file, not both")
        for name in qi:
            if name not in population_table:
                raise ReleaseRequestError(f"the population file has no column {name!r}")
    try:
        return assess_release(
            table,
            qi,
            sensitive,
            convention=request.suppressed,
            missing=request.missing,
            threshold=request.threshold,
            population=request.population,
            population_table=population_table,
            scaled=request.estimate == "scaled",
        )
    except ValueError as exc:  # the core's messages name no value
        raise ReleaseRequestError(str(exc)) from None


def release_risk_of_csv(
    text: str, request: ReleaseRequest, population_text: str | None = None
) -> ReleaseRisk:
    """Check a CSV file's release risk; ``request.qi`` is required (a file has no roles).

    ``population_text``: a CSV of the population the file is a sample of (a superset with the
    same QI columns), for journalist and marketer risk exactly as ARX computes them.
    """
    table = read_table(text)
    population = read_table(population_text) if population_text is not None else None
    return _assess(table, request.qi or (), request.sensitive or (), request, population)


def _vault_header(project: Project, truth: bool = False) -> dict[str, str]:
    """Each vault column's name in the ``linked`` export's header (``vault_cluster_id`` for a
    vault ``cluster_id``), by attribute name; the ground truth only when ``truth``."""
    return {
        a.name: (f"vault_{a.name}" if a.name.lower() == "cluster_id" else a.name)
        for a in project.sensitive
        if truth or not a.truth
    }


def default_columns(project: Project) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The quasi-identifiers and sensitive columns of the linked export from column roles."""
    vault = [a for a in project.sensitive if not a.truth]
    header = _vault_header(project)
    qi = [header[a.name] for a in vault if a.kind in _DEFAULT_QI_KINDS] or list(header.values())
    sensitive = [name for name in header.values() if name not in qi]
    return tuple(qi), tuple(sensitive)


def release_risk_of_project(project: Project, request: ReleaseRequest) -> ReleaseRisk:
    """Check the release risk of ``project``'s ``linked`` export."""
    from app.projects.exports import export_csv, neutralize

    table = read_table(export_csv(project, "linked"))
    # The export guards a header cell that starts like a formula (``-dx`` is written ``'-dx``):
    # each column is measured under its own name, as the policy and the page name it.
    written = {neutralize(name): name for name in _vault_header(project, truth=True).values()}
    table = {written.get(name, name): values for name, values in table.items()}
    default_qi, default_sensitive = default_columns(project)
    qi = request.qi if request.qi is not None else default_qi
    if request.sensitive is not None:
        sensitive = request.sensitive
    else:
        sensitive = tuple(name for name in default_sensitive if name not in qi)
    return _assess(table, qi, sensitive, request)
