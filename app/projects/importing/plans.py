"""The columns of an upload as a plan: each one's role, type and date layout, checked.

The mapping page (:func:`app.projects.views.forms.parse_columns`) and ``flask projects
import`` both say per column what it is; this turns their choices into the plan the import
reads, or lists every problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from app.core.disclosure import AttributeType, date_format

__all__ = ["ROLES", "ColumnChoice", "PlanError", "plan_columns"]

#: What a column can be in the mapping step.
ROLES = ("ignored", "id", "identifying", "sensitive", "truth")


class ColumnChoice(NamedTuple):
    """One column and what the manager made of it."""

    column: str
    role: str
    kind: str = AttributeType.STRING.value
    layout: str = ""


class PlanError(ValueError):
    """The choices have problems; ``problems`` lists them."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def plan_columns(
    choices: Sequence[ColumnChoice], *, with_id: bool, generate_ids: bool = False
) -> dict:
    """The plan of the columns: each one's role, type and date layout, checked.

    Returns ``{"id_column", "identifying": {column: type}, "sensitive": [columns], "truth",
    "formats": {column: layout}}``, in header order. ``with_id`` asks for exactly one id
    column (not for pair files). With ``generate_ids`` record ids are made from the rows
    (``id_column`` is None): a column marked "id" is kept as the ground truth (same id, same
    person), or as a sensitive column when another one is the truth. The ``truth`` column (or
    None) is a sensitive column too: it goes to the vault like them.
    """
    problems: list[str] = []
    plan: dict = {"id_column": None, "identifying": {}, "sensitive": [], "truth": None}
    plan["formats"] = {}
    for i, (column, role, kind, layout) in enumerate(choices):
        if role not in ROLES or (role == "id" and not with_id):
            problems.append(f"column {column!r}: choose one of the listed roles")
        elif role == "id":
            if plan["id_column"] is not None:
                problems.append(f"only one unique id column: {plan['id_column']!r} or {column!r}")
            plan["id_column"] = column
        elif role == "identifying":
            if kind not in set(AttributeType):
                problems.append(f"column {column!r}: unknown type {kind!r}")
            plan["identifying"][column] = kind
            layout = (layout or "").strip()
            if layout and kind == AttributeType.DATE:
                try:
                    date_format(layout)
                    plan["formats"][column] = layout
                except ValueError as exc:
                    problems.append(f"column {column!r}: {exc}")
        elif role == "sensitive":
            plan["sensitive"].append(column)
        elif role == "truth":
            if plan["truth"] is not None:
                problems.append(f"only one ground-truth column: {plan['truth']!r} or {column!r}")
            plan["truth"] = column
            plan["sensitive"].append(column)
        if role != "ignored" and not column:
            problems.append(f"column {i + 1} needs a name to be imported")
    if generate_ids and plan["id_column"] is not None:
        kept = plan.pop("id_column")
        plan["id_column"] = None
        plan["sensitive"].append(kept)
        plan["truth"] = plan["truth"] or kept
    elif with_id and plan["id_column"] is None:
        problems.append(
            "choose the column that holds each record's unique id, or generate record ids"
        )
    if not plan["identifying"]:
        problems.append("choose at least one identifying column (shown masked to workers)")
    if problems:
        raise PlanError(problems)
    return plan
