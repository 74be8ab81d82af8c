"""The comparisons a manager may choose per attribute type, and the model they make.

Each choice is one of Splink's own comparison library functions (so the levels, and their
SQL, are exactly Splink's); the settings Splink writes for them go through
:func:`~app.projects.scoring.model.checking.check_model` like an uploaded model. The menu
(docs/scoring.md says the same):

===========  =====================================================================
type         choices (the first is the default)
===========  =====================================================================
string       ``name`` (Splink's NameComparison: exact, Jaro-Winkler ≥ 0.92/0.88/0.7),
             ``jaro_winkler`` (≥ 0.9/0.7), ``levenshtein`` (≤ 1/2), ``exact``
date         ``date_of_birth`` (DateOfBirthComparison: exact, one character, within a
             month, a year, ten years), ``levenshtein``, ``exact``
id           ``levenshtein``, ``damerau_levenshtein`` (≤ 1/2), ``exact``
category     ``exact``
===========  =====================================================================

Every choice may add term-frequency adjustments to its exact level (``tf``), and any
attribute may be left out (``none``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from app.core.disclosure import AttributeType
from app.projects.blocking import BlockingError, Rule, parse_rules
from app.projects.scoring.model.checking import ModelError, check_model
from app.projects.scoring.model.definition import Model

__all__ = ["CHOICES", "Training", "TrainingError", "comparison_settings", "model_to_train"]

CHOICES: dict[str, tuple[str, ...]] = {
    AttributeType.STRING.value: ("name", "jaro_winkler", "levenshtein", "exact"),
    AttributeType.DATE.value: ("date_of_birth", "levenshtein", "exact"),
    AttributeType.ID.value: ("levenshtein", "damerau_levenshtein", "exact"),
    AttributeType.CATEGORY.value: ("exact",),
}
MAX_U_PAIRS = 10_000_000


class TrainingError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True)
class Training:
    """What a manager chose: comparisons per attribute, rules for prediction, for EM (one
    session each: m), for the prior (deterministic rules and their recall: λ), and how many
    random pairs estimate u."""

    comparisons: dict[str, tuple[str, bool]]  # attribute -> (choice, term frequencies)
    rules: list = field(default_factory=list)
    em_rules: list = field(default_factory=list)
    deterministic_rules: list = field(default_factory=list)
    recall: float = 0.7
    u_pairs: int = 1_000_000
    seed: int = 1

    def as_json(self) -> dict:
        return {
            "comparisons": {k: list(v) for k, v in self.comparisons.items()},
            "rules": self.rules, "em_rules": self.em_rules,
            "deterministic_rules": self.deterministic_rules, "recall": self.recall,
            "u_pairs": self.u_pairs, "seed": self.seed,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping) -> Training:
        return cls(
            {k: (v[0], bool(v[1])) for k, v in data["comparisons"].items()},
            list(data["rules"]), list(data["em_rules"]), list(data["deterministic_rules"]),
            float(data["recall"]), int(data["u_pairs"]), int(data["seed"]),
        )  # fmt: skip


def comparison_settings(column: str, choice: str, tf: bool) -> dict:
    """Splink's settings (DuckDB) of one menu choice on ``column``."""
    import splink.comparison_library as cl

    builders = {
        "name": lambda: cl.NameComparison(column),
        "jaro_winkler": lambda: cl.JaroWinklerAtThresholds(column, [0.9, 0.7]),
        "levenshtein": lambda: cl.LevenshteinAtThresholds(column, [1, 2]),
        "damerau_levenshtein": lambda: cl.DamerauLevenshteinAtThresholds(column, [1, 2]),
        "date_of_birth": lambda: cl.DateOfBirthComparison(column, input_is_string=True),
        "exact": lambda: cl.ExactMatch(column),
    }
    comparison = builders[choice]()
    if tf:
        comparison = comparison.configure(term_frequency_adjustments=True)
    return comparison.get_comparison("duckdb").as_dict()


def model_to_train(
    training: Training, attributes: Mapping[str, AttributeType | str], kind: str
) -> tuple[Model, list[Rule], list[Rule]]:
    """The untrained model of ``training`` and its EM and deterministic rules, checked."""
    problems: list[str] = []
    comparisons = []
    for name, (choice, tf) in training.comparisons.items():
        if name not in attributes:
            problems.append(f"comparison on {name!r}: not an identifying attribute")
        elif choice == "none":
            continue
        elif choice not in CHOICES[AttributeType(attributes[name]).value]:
            allowed = ", ".join(CHOICES[AttributeType(attributes[name]).value])
            problems.append(f"comparison on {name!r}: choose one of {allowed} or none")
        else:
            comparisons.append(comparison_settings(name, choice, tf))
    if not comparisons:
        problems.append("choose a comparison for at least one attribute")
    if not 0 < training.recall <= 1:
        problems.append("recall of the deterministic rules: between 0 and 1")
    if not 1_000 <= training.u_pairs <= MAX_U_PAIRS:
        problems.append(f"pairs sampled for u: from 1,000 to {MAX_U_PAIRS:,}")
    rules, em, deterministic = [], [], []
    for label, raw, out in (
        ("prediction rules", training.rules, rules),
        ("EM rules", training.em_rules, em),
        ("deterministic rules", training.deterministic_rules, deterministic),
    ):
        if not raw and out is not rules:
            continue  # no EM (m keeps its starting values) or no prior estimate (λ's default)
        try:
            out.extend(parse_rules(raw, attributes))
        except BlockingError as exc:
            problems.append(f"{label}: {exc}")
    if problems:
        raise TrainingError(problems)
    settings = {
        "link_type": "link_only" if kind == "link" else "dedupe_only",
        "blocking_rules_to_generate_predictions": [rule.sql() for rule in rules],
        "comparisons": comparisons,
    }
    try:
        model = check_model(settings, attributes, kind)
    except ModelError as exc:
        raise TrainingError(exc.problems) from None
    return model, em, deterministic
