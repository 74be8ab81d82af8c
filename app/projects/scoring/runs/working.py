"""The working tables a scoring run gives Splink, and the settings it writes for them.

Records leave the database as rows of the working table and nowhere else: ``unique_id``
(the record's position in its file), ``source_dataset`` (``A``/``B``), one column per
identifying attribute (``a0``, ``a1``, …: the app's names, never the file's), and one
column per derived blocking key (``k0``, …) filled by :meth:`Key.apply` — the same function
the in-app blocking uses, called once per distinct value
(:func:`~app.projects.blocking.key_column`). Dates are given in the form the model reads
them (:mod:`..model.forms`: the layout of its ``try_strptime``, a ``DATE`` column for
``EPOCH``, ``YYYY-MM-DD`` when it names none), and a derived key of a date's text
(``substr``) is taken from that form too, so Splink sees what it saw in training. The rows
are read as columns (:mod:`.reading`); sensitive columns are never read.

:func:`run_settings` writes the Splink settings of a checked model for those columns in a
dialect: every SQL string in them comes from :func:`app.core.sqlexpr.emit` or
:func:`app.projects.blocking.splink_sql`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import pyarrow as pa
from sqlalchemy import select

from app.core.disclosure import AttributeType
from app.core.sqlexpr import Column, emit
from app.extensions import db
from app.models import Project, ProjectKind, Source
from app.projects.blocking import Key, Rule, key_column, splink_sql
from app.projects.blocking.rules import DATE_PARTS
from app.projects.scoring.model.definition import Model
from app.projects.scoring.model.forms import DATE, ISO, date_column, read_forms
from app.projects.scoring.runs.reading import Columns, read_columns

__all__ = ["BATCH", "Layout", "Rows", "record_batches", "rule_sql", "run_settings", "working_rows"]

BATCH = 50_000


@dataclass
class Layout:
    """Working column names: attribute → ``a<i>``, derived key → ``k<j>``."""

    attributes: dict[str, AttributeType]
    keys: dict[Key, str] = field(default_factory=dict)
    dates: dict[str, str] = field(default_factory=dict)  # date attribute -> its form

    @classmethod
    def of(cls, project: Project, rules: Iterable[Rule] = (), model: Model | None = None):
        layout = cls({a.name: a.type for a in project.identifying})
        if model is not None:
            layout.dates = dict(read_forms(model.comparisons, layout.attributes).dates)
        for rule in rules:
            for key in (*rule.keys, *rule.right_keys):
                if key.transform != "exact" and key not in layout.keys:
                    layout.keys[key] = f"k{len(layout.keys)}"
        return layout

    def column(self, attribute: str) -> str:
        return f"a{list(self.attributes).index(attribute)}"

    def key_column(self, key: Key) -> str:
        return self.column(key.attribute) if key.transform == "exact" else self.keys[key]

    def schema(self, *, with_source: bool) -> pa.Schema:
        fields = [pa.field("unique_id", pa.int64())]
        if with_source:
            fields.append(pa.field("source_dataset", pa.string()))
        fields += [
            pa.field(self.column(a), pa.date32() if self.dates.get(a) == DATE else pa.string())
            for a in self.attributes
        ]
        fields += [pa.field(c, pa.string()) for c in self.keys.values()]
        return pa.schema(fields)


def rule_sql(rule: Rule, layout: Layout, dialect: str, *, mention_sources: bool = False) -> str:
    """Splink SQL of a blocking rule over the working columns.

    With ``mention_sources`` (EM training rules), the attributes behind derived keys are
    named too (``l.a1 IS NOT NULL``, true whenever a key of ``a1`` is): Splink leaves out of
    an EM session the comparisons whose columns its blocking rule reads, and it finds them
    by the columns named in the rule.
    """
    sql = splink_sql(rule, layout.key_column, dialect)
    if not mention_sources:
        return sql
    mark = "`" if dialect == "spark" else '"'
    sources = sorted(
        {
            layout.column(k.attribute)
            for k in (*rule.keys, *rule.right_keys)
            if k.transform != "exact"
        }
    )
    extra = [f"{side}.{mark}{c}{mark} IS NOT NULL" for c in sources for side in ("l", "r")]
    return " AND ".join([sql, *extra])


def run_settings(model: Model, layout: Layout, dialect: str) -> dict:
    """Splink settings of ``model`` over the working columns, in ``dialect``."""

    def name(column: Column) -> str:
        mark = "`" if dialect == "spark" else '"'
        working = layout.column(column.name)
        return f"{mark}{working}_{column.side}{mark}" if column.side else f"{mark}{working}{mark}"

    comparisons = []
    for i, comparison in enumerate(model.comparisons):
        levels = []
        for level in comparison.levels:
            out: dict = {
                "sql_condition": "ELSE"
                if level.condition is None
                else emit(level.condition, dialect, name),
                "label_for_charts": level.label or None,
                "is_null_level": level.is_null,
                "fix_m_probability": level.fix_m,
                "fix_u_probability": level.fix_u,
            }
            if level.m is not None:
                out["m_probability"] = level.m
            if level.u is not None:
                out["u_probability"] = level.u
            if level.tf_column is not None:
                out["tf_adjustment_column"] = layout.column(level.tf_column)
                out["tf_adjustment_weight"] = level.tf_weight
                out["tf_minimum_u_value"] = level.tf_minimum_u
                out["disable_tf_exact_match_detection"] = level.disable_tf_exact
            levels.append(out)
        comparisons.append({"output_column_name": f"c{i}", "comparison_levels": levels})
    return {
        "link_type": model.link_type,
        "probability_two_random_records_match": model.probability,
        "em_convergence": model.em_convergence,
        "max_iterations": model.max_iterations,
        "retain_matching_columns": False,
        "retain_intermediate_calculation_columns": False,
        "additional_columns_to_retain": [],
        "unique_id_column_name": "unique_id",
        "source_dataset_column_name": "source_dataset",
        "blocking_rules_to_generate_predictions": [
            rule_sql(rule, layout, dialect) for rule in model.rules
        ],
        "comparisons": comparisons,
    }


@dataclass(frozen=True)
class Rows:
    """One batch of a source's working rows, with what the job keeps beside them."""

    label: str
    working: pa.RecordBatch
    ids: pa.Array  # the records' ids in their file (string)
    stored: dict[str, pa.Array]  # attribute -> stored values (missing as null)


def working_rows(project: Project, layout: Layout, batch: int = BATCH) -> Iterator[Rows]:
    """The working rows of ``project`` in batches, source by source, in file order.

    Only the identifying values are read (:mod:`.reading`: columns straight from the
    database's JSON, the vault never touched); dates and derived keys are computed on
    columns, once per distinct value (:func:`~..model.forms.date_column`,
    :func:`~app.projects.blocking.columns.key_column`).
    """
    link = project.kind == ProjectKind.LINK
    schema = layout.schema(with_source=link)
    sources = db.session.execute(
        select(Source.id, Source.label)
        .where(Source.project_id == project.id)
        .order_by(Source.label)
    ).all()
    for source_id, label in sources:

        def rows(columns: Columns, label: str = label) -> Rows:
            working = _batch(label, columns, layout, schema, link)
            return Rows(label, working, columns.ids, columns.values)

        yield from read_columns(source_id, list(layout.attributes), batch, rows)


def record_batches(
    project: Project, layout: Layout, batch: int = BATCH
) -> Iterator[tuple[str, pa.RecordBatch, pa.Array]]:
    """``(source label, working rows, their file ids)`` of :func:`working_rows`."""
    for rows in working_rows(project, layout, batch):
        yield rows.label, rows.working, rows.ids


def _batch(label: str, columns: Columns, layout: Layout, schema: pa.Schema, link: bool):
    """The working rows of one batch of stored columns."""
    out: list = [columns.positions]
    if link:
        out.append(pa.repeat(pa.scalar(label, pa.string()), len(columns)))
    stored = columns.values
    text = dict(stored)  # what a key of an attribute's text reads
    for name, kind in layout.attributes.items():
        values = stored[name]
        if kind is AttributeType.DATE:
            form = layout.dates.get(name, ISO)
            values = date_column(values, form)
            text[name] = values if form != DATE else date_column(stored[name], ISO)
        out.append(values)
    for key in layout.keys:
        values = stored[key.attribute] if key.transform in DATE_PARTS else text[key.attribute]
        out.append(key_column(key, values))
    return pa.RecordBatch.from_arrays(out, schema=schema)
