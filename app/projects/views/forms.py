"""Turn the managers' HTML forms into plain data for the services, or list the problems.

The forms are dynamic (one row per uploaded column, per blocking key, per worker), so they
are parsed here rather than declared as WTForms classes; CSRF is checked app-wide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.core.disclosure import AttributeType
from app.models import EvidenceModel
from app.projects.importing.plans import ROLES, ColumnChoice, PlanError, plan_columns
from app.units import parse_percent

__all__ = [
    "ROLES",
    "FormError",
    "parse_assignments",
    "parse_training",
    "parse_columns",
    "parse_rules",
    "parse_settings",
]

#: Rule and key slots shown on the blocking page.
RULE_SLOTS, KEY_SLOTS = 4, 3


class FormError(ValueError):
    """The form has problems; ``problems`` lists them for the page."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def _number(form, name, cast, label, problems, default):
    raw = (form.get(name) or "").strip()
    if not raw:
        return default
    try:
        return cast(raw)
    except ValueError:
        problems.append(f"{label} must be a {'whole ' if cast is int else ''}number, not {raw!r}")
        return default


def _percent(form, name, label, problems, default):
    """A budget typed in percent of the maximum KAPR, as the fraction the services take."""
    raw = (form.get(name) or "").strip()
    if not raw:
        return default
    try:
        return parse_percent(raw, label)
    except ValueError as exc:
        problems.append(str(exc))
        return default


def parse_settings(form: Mapping[str, str]) -> dict:
    """Project settings as ``create_project`` spells them (services check the ranges)."""
    problems: list[str] = []
    settings = {
        "kappa": _number(form, "kappa", int, "κ", problems, 1),
        "default_budget": _percent(form, "default_budget", "The default budget", problems, 0.1),
        "page_size": _number(form, "page_size", int, "The page size", problems, 10),
        "evidence_model": form.get("evidence_model") or EvidenceModel.ROW.value,
        "allow_unsure": form.get("allow_unsure") == "on",
    }
    if problems:
        raise FormError(problems)
    return settings


def parse_columns(
    form: Mapping[str, str], header: Sequence[str], *, with_id: bool, generate_ids: bool = False
) -> dict:
    """The role, type and date layout of every column (``role-<i>``, ``type-<i>``,
    ``format-<i>``) as a plan (:func:`app.projects.importing.plan_columns`), or
    :class:`FormError` listing the problems."""
    choices = [
        ColumnChoice(
            column,
            form.get(f"role-{i}", "ignored"),
            form.get(f"type-{i}", AttributeType.STRING.value),
            form.get(f"format-{i}") or "",
        )
        for i, column in enumerate(header)
    ]
    try:
        return plan_columns(choices, with_id=with_id, generate_ids=generate_ids)
    except PlanError as exc:
        raise FormError(exc.problems) from None


def parse_rules(form: Mapping[str, str]) -> list[list[dict]]:
    """Blocking rules from the slots ``rule-<r>-attr-<k>``, ``-transform-<k>``, ``-n-<k>``.

    Empty slots are skipped; a rule is the AND of its keys, the rules are OR-ed. Each
    non-empty line of ``splink_rules`` is one more rule in Splink's spelling
    (``block_on("surname")``, ``l.given_name = r.surname AND l.surname = r.given_name``),
    kept as text: :func:`app.projects.blocking.parse_rules` checks all of them.
    """
    problems: list[str] = []
    rules = []
    for r in range(RULE_SLOTS):
        keys = []
        for k in range(KEY_SLOTS):
            attribute = (form.get(f"rule-{r}-attr-{k}") or "").strip()
            if not attribute:
                continue
            key = {"attribute": attribute, "transform": form.get(f"rule-{r}-transform-{k}")}
            key["transform"] = key["transform"] or "exact"
            if key["transform"] in ("first_n", "last_n"):
                where = f"rule {r + 1}, key {k + 1}"
                if not (form.get(f"rule-{r}-n-{k}") or "").strip():
                    problems.append(
                        f"{where}: {key['transform']} needs n, how many characters (1 or more)"
                    )
                    continue
                key["n"] = _number(form, f"rule-{r}-n-{k}", int, f"{where}: n", problems, 0)
            keys.append(key)
        if keys:
            rules.append(keys)
    rules.extend(line.strip() for line in form.get("splink_rules", "").splitlines() if line.strip())
    if not rules and not problems:
        problems.append("add at least one blocking rule (an attribute to block on)")
    if problems:
        raise FormError(problems)
    return rules


def parse_assignments(form, workers: Sequence[str], attributes: Sequence[str]) -> dict:
    """Workers with their budgets, coding, page size and the attributes starting at partial."""
    problems: list[str] = []
    chosen = {}
    for name in workers:
        if form.get(f"worker-{name}") == "on":
            budget = _percent(form, f"budget-{name}", f"{name}'s budget", problems, None)
            if budget is None and not problems:
                problems.append(f"give {name} a budget")
            chosen[name] = budget
    if not chosen:
        problems.append("choose at least one worker")
    coding = form.get("coding", "single")
    if coding not in ("single", "double"):
        problems.append("coding is single or double")
    partial = [a for a in form.getlist("start_partial") if a in attributes]
    page_size = _number(form, "page_size", int, "The page size", problems, None)
    number = _number(form, "round", int, "The round", problems, None)
    share = _number(form, "check_share", float, "The share of checks", problems, None)
    if problems:
        raise FormError(problems)
    checks = None
    if share:  # percent of the pairs (docs/quality.md); the service checks the range
        checks = {"share": share / 100, "source": form.get("check_source", "synthetic")}
    return {
        "workers": chosen,
        "coders": 2 if coding == "double" else 1,
        "start_partial": partial,
        "page_size": page_size,
        "round": number,
        "checks": checks,
    }


def _lines(form: Mapping[str, str], name: str) -> list[str]:
    return [line.strip() for line in form.get(name, "").splitlines() if line.strip()]


def parse_training(form: Mapping[str, str], attributes: Mapping[str, str]):
    """A model to train from the scoring page: a comparison per attribute (``cmp-<i>``,
    ``tf-<i>``), rules one per line (``rules``, ``em_rules``, ``deterministic_rules``, in
    Splink's spelling), ``recall``, ``u_pairs``, ``seed``. Checked by the scoring service."""
    from app.projects.scoring import Training

    problems: list[str] = []
    comparisons = {
        name: (form.get(f"cmp-{i}") or "none", form.get(f"tf-{i}") == "on")
        for i, name in enumerate(attributes)
    }
    training = Training(
        comparisons=comparisons,
        rules=_lines(form, "rules"),
        em_rules=_lines(form, "em_rules"),
        deterministic_rules=_lines(form, "deterministic_rules"),
        recall=_number(form, "recall", float, "The recall", problems, 0.7),
        u_pairs=_number(form, "u_pairs", int, "The pairs sampled for u", problems, 1_000_000),
        seed=_number(form, "seed", int, "The seed", problems, 1),
    )
    if problems:
        raise FormError(problems)
    return training
