"""Blocking rules in Splink's spelling, read by a safe grammar and written back for Splink.

Read (:func:`parse_splink_rule`): ``block_on("surname", "substr(given_name, 1, 1)")``, a
SQL-like rule ``l.given_name = r.surname AND l.surname = r.given_name`` or Splink's saved
``{"blocking_rule": "...", "sql_dialect": "duckdb"}``. The rule is parsed by
:func:`app.core.sqlexpr.parse` (nothing is evaluated) and must be keys joined by ``AND``,
each ``=`` comparing a key of ``l`` with a key of ``r``. A key is an attribute, or one of
``substr(x, 1, n)`` / ``left(x, n)`` (first n characters), ``right(x, n)`` (last n),
``soundex(x)``, ``metaphone(x)``, ``nysiis(x)``, ``year(x)``, ``month(x)``, ``day(x)``,
``month_day(x)``: the transforms of :class:`~app.projects.blocking.rules.Key`, computed by
the application the same way for its own blocking and for Splink.

Written (:func:`splink_sql`): plain equalities of the working table's key columns, which
the scoring job fills with :meth:`Key.apply`, so Splink and the in-app blocking cannot
disagree on what a key is.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Collection

from app.core.sqlexpr import (
    BLOCKING_FUNCTIONS,
    Binary,
    Column,
    Func,
    Literal,
    Node,
    SqlError,
    parse,
)
from app.projects.blocking.rules import BlockingError, Key, Rule, check_key

__all__ = ["parse_splink_rule", "splink_sql"]

_BLOCK_ON = re.compile(r"\s*block_on\s*\((?P<args>.*)\)\s*", re.DOTALL)
_DICT_KEYS = {"blocking_rule", "sql_dialect", "salting_partitions"}
_SPLINK_DIALECTS = (None, "duckdb", "spark")
_FUNCTION_TRANSFORMS = {
    "soundex", "metaphone", "nysiis", "year", "month", "day", "month_day",
}  # fmt: skip
MAX_RULE_TEXT = 2_000


class _Anything:
    """Every name is an attribute (rules checked without a project)."""

    def __contains__(self, name: object) -> bool:
        return True

    def __iter__(self):
        return iter(())


def parse_splink_rule(raw: object, attributes: object = None, *, where: str = "rule") -> Rule:
    """The :class:`Rule` of a Splink blocking rule (string or saved dict), or the problem."""
    if isinstance(raw, dict):
        if "arrays_to_explode" in raw:
            raise BlockingError(
                f"{where}: exploding blocking rules (arrays_to_explode) are not supported"
            )
        unknown = set(raw) - _DICT_KEYS
        if unknown:
            raise BlockingError(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}")
        if raw.get("sql_dialect") not in _SPLINK_DIALECTS:
            raise BlockingError(f"{where}: sql_dialect is duckdb or spark")
        raw = raw.get("blocking_rule")
    if not isinstance(raw, str) or not raw.strip():
        raise BlockingError(f"{where}: a Splink blocking rule is a non-empty string")
    if len(raw) > MAX_RULE_TEXT:
        raise BlockingError(f"{where}: a blocking rule has at most {MAX_RULE_TEXT:,} characters")
    names: Collection[str] = _Anything() if attributes is None else attributes  # type: ignore[assignment]
    try:
        call = _BLOCK_ON.fullmatch(raw)
        if call is not None:
            keys = tuple(
                _key(arg, names, attributes, where) for arg in _block_on_args(call["args"], where)
            )
            return Rule(keys)
        terms = _terms(parse(raw, names, style="prefixed", functions=BLOCKING_FUNCTIONS), where)
    except SqlError as exc:
        raise BlockingError(f"{where}: {exc}") from None
    left, right = [], []
    for term in terms:
        (side_a, key_a), (side_b, key_b) = (
            _key_of(term.left, attributes, where),
            _key_of(term.right, attributes, where),
        )
        if {side_a, side_b} != {"l", "r"}:
            raise BlockingError(f"{where}: each '=' compares a key of l with a key of r")
        if side_a == "r":
            key_a, key_b = key_b, key_a
        left.append(key_a)
        right.append(key_b)
    keys, rights = tuple(left), tuple(right)
    return Rule(keys, None if rights == keys else rights)


def _block_on_args(text: str, where: str) -> list[str]:
    try:
        args = ast.literal_eval(f"({text},)") if text.strip() else ()
    except (ValueError, SyntaxError, RecursionError, MemoryError):
        args = None
    if not args or not all(isinstance(a, str) for a in args):
        raise BlockingError(f"{where}: block_on takes one or more quoted attribute names")
    return list(args)


def _key(text: str, names, attributes, where: str) -> Key:
    node = parse(text, names, style="bare", functions=BLOCKING_FUNCTIONS)
    return _key_of(node, attributes, where)[1]


def _terms(node: Node, where: str) -> list[Binary]:
    if isinstance(node, Binary) and node.op == "AND":
        return _terms(node.left, where) + _terms(node.right, where)
    if isinstance(node, Binary) and node.op == "=":
        return [node]
    raise BlockingError(
        f"{where}: a blocking rule is keys joined by AND, each l.<key> = r.<key> "
        "(OR, NOT and other comparisons make blocks no index can find)"
    )


def _key_of(node: Node, attributes: object, where: str) -> tuple[str, Key]:
    """``(side, key)`` of one side of an ``=``."""
    if isinstance(node, Column):
        return node.side, check_key(node.name, "exact", None, where, attributes)
    if isinstance(node, Func) and node.args and isinstance(node.args[0], Column):
        column, rest = node.args[0], node.args[1:]
        numbers = [a.value for a in rest if isinstance(a, Literal) and type(a.value) is int]
        if len(numbers) != len(rest):
            raise BlockingError(f"{where}: {node.name} takes whole numbers after the attribute")
        if node.name == "substr":
            if numbers[0] != 1:
                raise BlockingError(f"{where}: substr(x, 1, n) keys a prefix: start at 1")
            transform, n = "first_n", numbers[1]
        elif node.name in ("left", "right"):
            transform, n = ("first_n" if node.name == "left" else "last_n"), numbers[0]
        elif node.name in _FUNCTION_TRANSFORMS:
            transform, n = node.name, None
        else:  # pragma: no cover (the grammar's table and this list agree)
            raise BlockingError(f"{where}: {node.name} is not a blocking key")
        return column.side, check_key(column.name, transform, n, where, attributes)
    raise BlockingError(
        f"{where}: a key is an attribute or substr/left/right/soundex/metaphone/nysiis/"
        "year/month/day/month_day of one attribute"
    )


def splink_sql(rule: Rule, column: Callable[[Key], str], dialect: str = "duckdb") -> str:
    """The rule as Splink SQL over working columns: ``column(key)`` names a key's column
    (a plain identifier the caller made), quoted for ``dialect``."""
    mark = "`" if dialect == "spark" else '"'

    def quote(name: str) -> str:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError("working column names are plain identifiers")
        return f"{mark}{name}{mark}"

    return " AND ".join(
        f"l.{quote(column(a))} = r.{quote(column(b))}"
        for a, b in zip(rule.keys, rule.right_keys, strict=True)
    )
