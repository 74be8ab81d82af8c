"""A checked Splink model: rules and comparison levels as trees, and the JSON written from them.

The model holds trees, not SQL: the SQL a scoring run sends to DuckDB or Spark is written by
the application from them (:mod:`..runs.working`), and the model stored with the project is written
back from them too (:meth:`Model.as_json`). :mod:`.checking` makes one from Splink's JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.sqlexpr import Node, text
from app.projects.blocking import Rule

__all__ = ["Comparison", "Level", "Model"]


@dataclass(frozen=True)
class Level:
    """One comparison level: its condition (``None`` for ``ELSE``) and its parameters."""

    condition: Node | None
    label: str = ""
    is_null: bool = False
    m: float | str | None = None
    u: float | str | None = None
    tf_column: str | None = None
    tf_weight: float = 1.0
    tf_minimum_u: float = 0.0
    disable_tf_exact: bool = False
    fix_m: bool = False
    fix_u: bool = False


@dataclass(frozen=True)
class Comparison:
    name: str
    levels: tuple[Level, ...]
    description: str = ""


@dataclass(frozen=True)
class Model:
    """A checked model: rules and comparison levels as trees, parameters as numbers."""

    link_type: str
    rules: tuple[Rule, ...]
    comparisons: tuple[Comparison, ...]
    probability: float = 0.0001
    em_convergence: float = 0.0001
    max_iterations: int = 25
    notes: tuple[str, ...] = field(default=(), compare=False)

    def as_json(self) -> dict:
        """The model as Splink writes it, over the attributes' names, SQL from the trees."""
        return {
            "link_type": self.link_type,
            "probability_two_random_records_match": self.probability,
            "em_convergence": self.em_convergence,
            "max_iterations": self.max_iterations,
            "sql_dialect": "duckdb",
            "blocking_rules_to_generate_predictions": [
                {"blocking_rule": rule.sql(), "sql_dialect": "duckdb"} for rule in self.rules
            ],
            "comparisons": [
                {
                    "output_column_name": c.name,
                    "comparison_description": c.description,
                    "comparison_levels": [_level_json(level) for level in c.levels],
                }
                for c in self.comparisons
            ],
        }


def _level_json(level: Level) -> dict:
    out: dict = {
        "sql_condition": "ELSE" if level.condition is None else text(level.condition),
        "label_for_charts": level.label,
    }
    if level.is_null:
        out["is_null_level"] = True
    for key, value in (("m_probability", level.m), ("u_probability", level.u)):
        if value is not None:
            out[key] = value
    if level.tf_column is not None:
        out["tf_adjustment_column"] = level.tf_column
        out["tf_adjustment_weight"] = level.tf_weight
        if level.tf_minimum_u:
            out["tf_minimum_u_value"] = level.tf_minimum_u
        if level.disable_tf_exact:
            out["disable_tf_exact_match_detection"] = True
    out["fix_m_probability"], out["fix_u_probability"] = level.fix_m, level.fix_u
    return out
