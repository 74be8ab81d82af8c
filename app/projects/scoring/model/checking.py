"""Check a Splink model (the JSON ``linker.misc.save_model_to_json`` writes) for a project.

:func:`check_model` accepts only the settings Splink knows, comparisons whose SQL reads the
project's identifying attributes through the safe grammar of :mod:`app.core.sqlexpr`, and
blocking rules in the grammar of :mod:`app.projects.blocking.splink`, and no condition that
can make a string longer than :data:`MAX_MADE_CHARS` from values of ``MAX_VALUE_CHARS``
(:func:`app.core.sqlexpr.cost`: nested ``concat`` under an edit distance); it returns a
:class:`~.model.Model` of trees. Settings that would keep record values in Splink's output
(``retain_matching_columns``, ``additional_columns_to_retain``) or name the working tables'
columns are ignored: the application decides those.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Collection, Mapping

from flask import current_app, has_app_context

from app.core.disclosure import AttributeType
from app.core.sqlexpr import Node, SqlError, cost, parse
from app.projects.blocking import BlockingError, Rule, parse_splink_rule
from app.projects.blocking.rules import MAX_RULES
from app.projects.scoring.model.definition import Comparison, Level, Model
from app.projects.scoring.model.forms import read_forms

__all__ = ["ModelError", "check_model"]


#: Every top-level setting of Splink 5's ``SettingsCreator`` (what its model JSON holds).
SPLINK_SETTINGS = {
    "link_type", "probability_two_random_records_match", "em_convergence", "max_iterations",
    "retain_matching_columns", "retain_intermediate_calculation_columns",
    "additional_columns_to_retain", "sql_dialect", "linker_uid", "unique_id_column_name",
    "source_dataset_column_name", "match_weight_column_prefix",
    "term_frequency_adjustment_column_prefix", "comparison_vector_value_column_prefix",
    "blocking_rules_to_generate_predictions", "comparisons",
}  # fmt: skip
#: Settings the application sets itself (names of working columns, what output keeps).
IGNORED = SPLINK_SETTINGS - {
    "link_type", "probability_two_random_records_match", "em_convergence", "max_iterations",
    "sql_dialect", "blocking_rules_to_generate_predictions", "comparisons",
}  # fmt: skip
COMPARISON_KEYS = {"output_column_name", "comparison_levels", "comparison_description"}
LEVEL_KEYS = {
    "sql_condition", "label_for_charts", "is_null_level", "m_probability", "u_probability",
    "tf_adjustment_column", "tf_adjustment_weight", "tf_minimum_u_value",
    "disable_tf_exact_match_detection", "fix_m_probability", "fix_u_probability",
}  # fmt: skip
LINK_TYPES = {
    "link": ("link_only", "link_and_dedupe"),
    "dedupe": ("dedupe_only", "link_and_dedupe"),
}
#: What Splink writes for a level no pair of the training data reached.
NOT_OBSERVED = "level not observed in training dataset"
MAX_COMPARISONS, MAX_LEVELS, MAX_LABEL = 40, 30, 200
#: The longest string a condition may make: two whole records (MAX_RECORD_CHARS each).
MAX_MADE_CHARS = 20_000


class ModelError(ValueError):
    """The model is refused; ``problems`` names each place (``comparisons[1]...``)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def check_model(
    data: object,
    attributes: Mapping[str, AttributeType | str],
    kind: str,
    others: Collection[str] = (),
) -> Model:
    """The :class:`Model` of ``data`` for a ``kind`` (``link``/``dedupe``) project whose
    identifying ``attributes`` are given by name and type (``others``: its other columns,
    named in a refusal); :class:`ModelError` otherwise."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise ModelError(["a Splink model is a JSON object (what save_model_to_json writes)"])
    unknown = sorted(str(k) for k in set(data) - SPLINK_SETTINGS)
    problems += [f"{k}: not one of Splink's settings" for k in unknown]
    link_type = data.get("link_type")
    if link_type not in LINK_TYPES.get(kind, ()):
        wanted = " or ".join(LINK_TYPES.get(kind, ("—",)))
        problems.append(f"link_type: a {kind} project takes a model of link_type {wanted}")
    if data.get("sql_dialect") not in (None, "duckdb", "spark"):
        problems.append("sql_dialect: duckdb or spark")
    probability = _number(data, "probability_two_random_records_match", 0.0001, problems)
    if probability is not None and not 0 < probability <= 1:
        problems.append("probability_two_random_records_match: between 0 and 1")
    convergence = _number(data, "em_convergence", 0.0001, problems)
    if convergence is not None and not 0 < convergence < 1:
        problems.append("em_convergence: between 0 and 1")
    iterations = data.get("max_iterations", 25)
    if (
        isinstance(iterations, bool)
        or not isinstance(iterations, int)
        or not 1 <= iterations <= 1000
    ):
        problems.append("max_iterations: a whole number from 1 to 1000")
    rules = _rules(data.get("blocking_rules_to_generate_predictions"), attributes, problems)
    comparisons = _comparisons(data.get("comparisons"), attributes, problems)
    forms = read_forms(comparisons, attributes)
    problems += forms.problems
    if not problems:
        problems += _too_long_strings(comparisons)
    if problems:
        raise ModelError([_why_unknown(p, others) for p in problems])
    notes = forms.notes + tuple(
        f"{k}: set by the application, the model's value is not used" for k in sorted(IGNORED)
        if k in data and data[k] not in (False, [], None) and k.startswith(("retain", "additional"))
    )  # fmt: skip
    return Model(
        "link_only" if kind == "link" else "dedupe_only", rules, comparisons,
        probability, convergence, iterations, notes,  # type: ignore[arg-type]
    )  # fmt: skip


def _too_long_strings(comparisons: tuple[Comparison, ...]) -> list[str]:
    """Each condition that can make a string past :data:`MAX_MADE_CHARS` when every value
    is as long as ``MAX_VALUE_CHARS`` allows."""
    config = current_app.config if has_app_context() else {}
    most = int(config.get("MAX_VALUE_CHARS", 1_000))
    problems = []
    for i, comparison in enumerate(comparisons):
        for j, level in enumerate(comparison.levels):
            if level.condition is None:
                continue
            made = cost(level.condition, lambda _column: most).widest
            if made > MAX_MADE_CHARS:
                problems.append(
                    f"comparisons[{i}].comparison_levels[{j}].sql_condition: it can make a "
                    f"string of {made:,} characters from values of {most:,} (MAX_VALUE_CHARS); "
                    f"a condition may make at most {MAX_MADE_CHARS:,}"
                )
    return problems


_UNKNOWN = re.compile(r"unknown attribute ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")


def _why_unknown(problem: str, others: Collection[str]) -> str:
    """``problem`` with why a column it calls unknown is not one Splink is given."""
    match = _UNKNOWN.search(problem)
    if match is None:
        return problem
    name = ast.literal_eval(match.group(1))
    if name in others:
        why = "a column of the project that is not identifying: Splink is never given it"
    else:
        why = (
            "not a column of the project: a column derived before training (a phonetic "
            "code, a concatenation, a year) cannot be made here; train on the project's "
            "identifying attributes"
        )
    return f"{problem} ({why})"


def _number(data: Mapping, key: str, default: float, problems: list[str], where: str = ""):
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        problems.append(f"{where}{key}: a number")
        return None
    return float(value)


def _rules(raw: object, attributes, problems: list[str]) -> tuple[Rule, ...]:
    where = "blocking_rules_to_generate_predictions"
    if not isinstance(raw, list) or not raw:
        problems.append(f"{where}: at least one blocking rule (no rule compares every pair)")
        return ()
    if len(raw) > MAX_RULES:
        problems.append(f"{where}: at most {MAX_RULES} rules")
        return ()
    rules = []
    for i, rule in enumerate(raw):
        try:
            rules.append(parse_splink_rule(rule, attributes, where=f"{where}[{i}]"))
        except BlockingError as exc:
            problems.append(str(exc))
    return tuple(rules)


def _comparisons(raw: object, attributes, problems: list[str]) -> tuple[Comparison, ...]:
    if not isinstance(raw, list) or not raw:
        problems.append("comparisons: at least one comparison")
        return ()
    if len(raw) > MAX_COMPARISONS:
        problems.append(f"comparisons: at most {MAX_COMPARISONS}")
        return ()
    out, names = [], set()
    for i, item in enumerate(raw):
        where = f"comparisons[{i}]"
        if not _settings(item, where, COMPARISON_KEYS, "a comparison", problems):
            continue
        name = item.get("output_column_name")
        if not isinstance(name, str) or not 0 < len(name) <= 100:
            problems.append(f"{where}.output_column_name: a name of 1 to 100 characters")
        elif name in names:
            problems.append(f"{where}.output_column_name: {name!r} is used twice")
        names.add(name)
        description = item.get("comparison_description", "")
        if not isinstance(description, str) or len(description) > 500:
            problems.append(f"{where}.comparison_description: text of at most 500 characters")
        levels = _levels(item.get("comparison_levels"), attributes, where, problems)
        out.append(Comparison(str(name), levels, str(description or "")))
    return tuple(out)


def _settings(item: object, at: str, known, what: str, problems: list[str]) -> bool:
    """Whether ``item`` is an object; each setting it has beyond ``known`` is a problem."""
    if not isinstance(item, dict):
        problems.append(f"{at}: an object")
        return False
    problems += [f"{at}.{k}: not a setting of {what}" for k in sorted(map(str, set(item) - known))]
    return True


def _levels(raw: object, attributes, where: str, problems: list[str]) -> tuple[Level, ...]:
    where = f"{where}.comparison_levels"
    if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_LEVELS:
        problems.append(f"{where}: a list of 2 to {MAX_LEVELS} levels")
        return ()
    levels = []
    for j, item in enumerate(raw):
        at = f"{where}[{j}]"
        if not _settings(item, at, LEVEL_KEYS, "a comparison level", problems):
            continue
        condition = _condition(item.get("sql_condition"), attributes, at, problems)
        label = item.get("label_for_charts", "")
        if not isinstance(label, str) or len(label) > MAX_LABEL:
            problems.append(f"{at}.label_for_charts: text of at most {MAX_LABEL} characters")
            label = ""
        tf_column = item.get("tf_adjustment_column")
        if tf_column is not None and tf_column not in attributes:
            problems.append(
                f"{at}.tf_adjustment_column: not an identifying attribute of the project"
            )
        flags = {}
        for key in (
            "is_null_level",
            "disable_tf_exact_match_detection",
            "fix_m_probability",
            "fix_u_probability",
        ):
            flags[key] = item.get(key, False)
            if not isinstance(flags[key], bool):
                problems.append(f"{at}.{key}: true or false")
        m, u = (_probability(item, key, at, problems) for key in ("m_probability", "u_probability"))
        weights = [
            _number(item, key, d, problems, f"{at}.")
            for key, d in (("tf_adjustment_weight", 1.0), ("tf_minimum_u_value", 0.0))
        ]
        if any(w is not None and not 0 <= w <= 1 for w in weights):
            problems.append(f"{at}: term-frequency weights are between 0 and 1")
        levels.append(Level(
            condition, label, bool(flags["is_null_level"]), m, u, tf_column,
            weights[0] or 0.0, weights[1] or 0.0, bool(flags["disable_tf_exact_match_detection"]),
            bool(flags["fix_m_probability"]), bool(flags["fix_u_probability"]),
        ))  # fmt: skip
    if levels and levels[-1].condition is not None:
        problems.append(f"{where}: the last level is ELSE")
    return tuple(levels)


def _condition(raw: object, attributes, at: str, problems: list[str]) -> Node | None:
    if isinstance(raw, str) and raw.strip().upper() == "ELSE":
        return None
    try:
        return parse(raw, attributes, style="suffixed")
    except SqlError as exc:
        problems.append(f"{at}.sql_condition: {exc}")
        return None


def _probability(item: Mapping, key: str, at: str, problems: list[str]):
    value = item.get(key)
    if value is None or value == NOT_OBSERVED:
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        problems.append(f"{at}.{key}: a probability between 0 and 1")
        return None
    return float(value)
