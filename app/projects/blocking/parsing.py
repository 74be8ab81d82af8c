"""Blocking rules from what a manager sends: JSON-like keys, or Splink's own spelling.

``[["surname"], [["given_name", "first_n", 1], ["dob", "year"]]]`` and
``["block_on(\\"surname\\")", "l.given_name = r.surname AND l.surname = r.given_name"]`` (or
Splink's ``{"blocking_rule": "..."}``) may be mixed in one list; each becomes one
:class:`~app.projects.blocking.rules.Rule`. The Splink spelling is read by
:mod:`app.projects.blocking.splink`, never run as SQL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.core.disclosure import AttributeType
from app.projects.blocking.rules import MAX_RULES, BlockingError, Key, Rule, check_key
from app.projects.blocking.splink import parse_splink_rule

__all__ = ["parse_rules"]


def parse_rules(
    data: object, attributes: Mapping[str, AttributeType] | Sequence[str] | None = None
) -> list[Rule]:
    """Build rules from JSON-like ``data``, checking them against ``attributes``.

    ``data`` is a list of rules. A rule is a list of keys (or ``{"keys": [...]}``), a string
    in Splink's spelling (``block_on("a", "b")`` or ``l.a = r.b AND …``), or Splink's
    ``{"blocking_rule": "..."}``. A key is ``"attribute"`` (exact),
    ``{"attribute": a, "transform": t, "n": n}`` or ``[a, t]`` / ``[a, t, n]``. With typed
    ``attributes``, date parts need a date attribute and phonetic codes a string or
    category one.
    """
    if not isinstance(data, list) or not data:
        raise BlockingError("blocking rules must be a non-empty list of rules")
    if len(data) > MAX_RULES:
        raise BlockingError(f"at most {MAX_RULES} blocking rules, got {len(data)}")
    rules = []
    for r, raw_rule in enumerate(data, 1):
        if isinstance(raw_rule, str) or (
            isinstance(raw_rule, dict) and "blocking_rule" in raw_rule
        ):
            rules.append(parse_splink_rule(raw_rule, attributes, where=f"rule {r}"))
            continue
        raw_keys = raw_rule.get("keys") if isinstance(raw_rule, dict) else raw_rule
        if not isinstance(raw_keys, list) or not raw_keys:
            raise BlockingError(f"rule {r}: must be a non-empty list of keys or a Splink rule")
        keys = tuple(
            _parse_key(raw, f"rule {r}, key {k}", attributes) for k, raw in enumerate(raw_keys, 1)
        )
        rules.append(Rule(keys))
    return rules


def _parse_key(raw: object, where: str, attributes: object) -> Key:
    if isinstance(raw, str):
        raw = {"attribute": raw}
    elif isinstance(raw, list | tuple) and 1 <= len(raw) <= 3:
        raw = dict(zip(("attribute", "transform", "n"), raw, strict=False))
    if not isinstance(raw, dict):
        raise BlockingError(f"{where}: a key is a name, a list or an object, not {raw!r}")
    unknown = set(raw) - {"attribute", "transform", "n"}
    if unknown:
        raise BlockingError(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}")
    return check_key(
        raw.get("attribute"), raw.get("transform", "exact"), raw.get("n"), where, attributes
    )
