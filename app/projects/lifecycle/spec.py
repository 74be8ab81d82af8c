"""Check a project description before anything is written: attributes, settings, options.

Every check collects all the problems it finds into one :class:`ProjectSpecError`, so an
upload is refused once with each reason named (never a record value).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from flask import current_app, has_app_context

from app.core.disclosure import AttributeType, date_format
from app.limits import Limits
from app.models import EvidenceModel, ProjectAttribute

__all__ = [
    "AttributeSpec",
    "ProjectSpecError",
    "attribute_rows",
    "parse_attributes",
    "project_settings",
    "record_options",
]


class ProjectSpecError(ValueError):
    """The project description cannot be imported; ``problems`` lists why.

    ``problems`` may be the first of more: ``total`` counts them all.
    """

    def __init__(self, problems: Sequence[str], *, total: int | None = None):
        self.problems = list(problems)
        self.total = max(total or 0, len(self.problems))
        more = self.total - min(10, len(self.problems))
        super().__init__("; ".join(self.problems[:10]) + (f"; and {more} more" if more else ""))


@dataclass(frozen=True)
class AttributeSpec:
    name: str
    kind: AttributeType
    identifying: bool
    truth: bool = False  # the ground-truth column (sensitive, at most one)
    format: str | None = None  # a date's layout (app.core.disclosure.dates); None: the default ones


def attribute_rows(attributes: Sequence[AttributeSpec]) -> list[ProjectAttribute]:
    """The project's attribute rows for ``attributes``, positioned in their order."""
    return [
        ProjectAttribute(
            position=i, name=a.name, kind=a.kind.value, identifying=a.identifying, truth=a.truth
        )
        for i, a in enumerate(attributes)
    ]


def parse_attributes(raw: object, *, reserved: tuple[str, ...] = ("id",)) -> list[AttributeSpec]:
    """Validate the ``attributes`` list of a project description.

    ``reserved`` names cannot be attributes (a JSON record's ``id`` is its record id).
    """
    if not isinstance(raw, list) or not raw:
        raise ProjectSpecError(["'attributes' must be a non-empty list"])
    limits = Limits.of(current_app.config) if has_app_context() else Limits()
    too_many = limits.attributes_problem(len(raw))
    if too_many is not None:  # before any of them is read
        raise ProjectSpecError([f"{too_many}; leave the others out (ignored)"])
    specs, problems, seen = [], [], set()
    for i, item in enumerate(raw):
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            problems.append(f"attribute {i + 1}: needs a 'name'")
            continue
        name = item["name"].strip()
        if not name or name in reserved or name in seen:
            problems.append(f"attribute {i + 1}: name {name!r} is empty, reserved or repeated")
            continue
        seen.add(name)
        try:
            kind = AttributeType(item.get("type", "string"))
        except ValueError:
            problems.append(f"attribute {name!r}: type must be id, string, date or category")
            continue
        truth = bool(item.get("truth", False))
        if truth and item.get("sensitive") is False:
            problems.append(f"attribute {name!r}: a ground-truth column is never identifying")
            continue
        identifying = not (truth or item.get("sensitive", False))
        layout = item.get("format")
        if layout is not None:
            problem = _format_problem(name, kind, identifying, layout)
            if problem:
                problems.append(problem)
                continue
        specs.append(AttributeSpec(name, kind, identifying, truth, layout or None))
    if not problems and not any(s.identifying for s in specs):
        problems.append("at least one attribute must be identifying")
    if sum(s.truth for s in specs) > 1:
        problems.append("at most one attribute can be the ground truth")
    if problems:
        raise ProjectSpecError(problems)
    return specs


def _format_problem(name: str, kind: AttributeType, identifying: bool, layout) -> str | None:
    if kind is not AttributeType.DATE or not identifying:
        return f"attribute {name!r}: a 'format' is for identifying dates"
    try:
        date_format(layout)
    except ValueError as exc:
        return f"attribute {name!r}: {exc}"
    return None


def record_options(spec: Mapping) -> dict:
    problems = []
    ids = spec.get("record_ids", "given")
    if ids not in ("given", "generated"):
        problems.append("'record_ids' must be 'given' or 'generated'")
    invalid = spec.get("invalid_dates", "error")
    if invalid not in ("error", "missing"):
        problems.append("'invalid_dates' must be 'error' or 'missing'")
    if problems:
        raise ProjectSpecError(problems)
    return {"generated": ids == "generated", "invalid_dates": invalid}


def project_settings(spec: Mapping) -> dict:
    problems = []
    kappa = spec.get("kappa", 1)
    if not isinstance(kappa, int) or isinstance(kappa, bool) or kappa < 1:
        problems.append("'kappa' must be a whole number >= 1")
    model = spec.get("evidence_model", EvidenceModel.ROW.value)
    if model not in (EvidenceModel.ROW, EvidenceModel.PAIR):
        problems.append("'evidence_model' must be 'row' or 'pair'")
    budget = spec.get("default_budget", 0.1)
    if not isinstance(budget, int | float) or isinstance(budget, bool) or budget < 0:
        problems.append("'default_budget' must be a number >= 0")
    page_size = spec.get("page_size", current_app.config["PAGE_SIZE"])
    if not isinstance(page_size, int) or isinstance(page_size, bool) or not 1 <= page_size <= 200:
        problems.append("'page_size' must be a whole number from 1 to 200")
    if problems:
        raise ProjectSpecError(problems)
    return {
        "kappa": kappa,
        "evidence_model": model,
        "default_budget": float(budget),
        "page_size": page_size,
        "allow_unsure": bool(spec.get("allow_unsure", False)),
        "show_scores": bool(spec.get("show_scores", False)),
    }
