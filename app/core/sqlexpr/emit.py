"""Write a checked tree as SQL for DuckDB or Spark: every token comes from here.

Column names are passed through ``name(column)`` (the caller maps attributes to the safe
names of its working tables), literals are escaped for the dialect (Spark's string literals
take backslash escapes, DuckDB's do not), functions are renamed per dialect, and a
``strftime`` date format becomes Spark's pattern. Parentheses are written around every
operation, so precedence never depends on the dialect.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from app.core.sqlexpr.errors import SqlError
from app.core.sqlexpr.functions import FUNCTIONS
from app.core.sqlexpr.nodes import (
    Between,
    Binary,
    Case,
    Cast,
    Column,
    Func,
    In,
    IsNull,
    Literal,
    Node,
    Unary,
)

__all__ = ["DIALECTS", "emit", "text"]

DIALECTS = ("duckdb", "spark")
#: strftime codes and Spark's datetime pattern letters for them.
_DATE_CODES = {"%Y": "yyyy", "%y": "yy", "%m": "MM", "%d": "dd", "%H": "HH", "%M": "mm", "%S": "ss"}
_DATE_FORMAT = re.compile(r"(%[YymdHMS]|[-/ :T.])*")
_SPARK_TYPES = {"VARCHAR": "STRING", "INTEGER": "INT"}


def emit(node: Node, dialect: str, name: Callable[[Column], str]) -> str:
    """SQL for ``node`` in ``dialect``; ``name(column)`` gives a column's identifier."""
    if dialect not in DIALECTS:
        raise ValueError(f"dialect is one of {DIALECTS}")
    return _Writer(dialect, name).write(node)


def text(node: Node, style: str = "suffixed") -> str:
    """The tree as readable DuckDB SQL over the attributes' own names (stored, shown)."""

    def spell(column: Column) -> str:
        if not column.side:
            return _quote(column.name, "duckdb", always=False)
        if style == "prefixed":
            return f"{column.side}.{_quote(column.name, 'duckdb', always=False)}"
        return _quote(f"{column.name}_{column.side}", "duckdb", always=False)

    return _Writer("duckdb", spell, readable=True).write(node)


def _quote(identifier: str, dialect: str, *, always: bool = True) -> str:
    if not always and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", identifier):
        return identifier
    mark = "`" if dialect == "spark" else '"'
    return mark + identifier.replace(mark, mark * 2) + mark


def _string(value: str, dialect: str) -> str:
    if dialect == "spark":
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + value.replace("'", "''") + "'"


class _Writer:
    def __init__(self, dialect: str, name: Callable[[Column], str], readable: bool = False):
        self.dialect, self.name, self.readable = dialect, name, readable

    def write(self, node: Node) -> str:
        d = self.dialect
        if isinstance(node, Column):
            return self.name(node)
        if isinstance(node, Literal):
            value = node.value
            if value is None:
                return "NULL"
            if isinstance(value, bool):
                return "TRUE" if value else "FALSE"
            if isinstance(value, str):
                return _string(value, d)
            return repr(value)
        if isinstance(node, Func):
            return self.call(node)
        if isinstance(node, Cast):
            type_ = _SPARK_TYPES.get(node.type, node.type) if d == "spark" else node.type
            return f"{'TRY_CAST' if node.safe else 'CAST'}({self.write(node.expr)} AS {type_})"
        if isinstance(node, Binary):
            if self.readable:
                return (
                    f"{self.group(node.left, node.op)} {node.op} {self.group(node.right, node.op)}"
                )
            return f"({self.write(node.left)} {node.op} {self.write(node.right)})"
        if isinstance(node, Unary):
            return (
                f"(NOT {self.write(node.expr)})"
                if node.op == "NOT"
                else f"(-{self.write(node.expr)})"
            )
        if isinstance(node, IsNull):
            return f"({self.write(node.expr)} IS {'NOT ' if node.negated else ''}NULL)"
        if isinstance(node, In):
            items = ", ".join(self.write(i) for i in node.items)
            return f"({self.write(node.expr)} {'NOT ' if node.negated else ''}IN ({items}))"
        if isinstance(node, Between):
            return (
                f"({self.write(node.expr)} {'NOT ' if node.negated else ''}BETWEEN "
                f"{self.write(node.low)} AND {self.write(node.high)})"
            )
        if isinstance(node, Case):
            whens = " ".join(f"WHEN {self.write(c)} THEN {self.write(v)}" for c, v in node.whens)
            default = f" ELSE {self.write(node.default)}" if node.default is not None else ""
            return f"(CASE {whens}{default} END)"
        raise TypeError(f"not a node: {type(node).__name__}")

    def group(self, node: Node, op: str) -> str:
        """A readable operand: in parentheses when it is another operation (an AND chain
        stays flat), so reading it back gives the same tree."""
        body = self.write(node)
        if isinstance(node, Binary) and not (node.op == op and op in ("AND", "OR")):
            return f"({body})"
        return body

    def call(self, node: Func) -> str:
        args = [self.write(a) for a in node.args]
        if self.dialect == "duckdb":
            return f"{node.name}({', '.join(args)})"
        fn = FUNCTIONS.get(node.name)
        spark = fn.spark if fn is not None else None
        if spark is None:
            raise SqlError(f"the function {node.name!r} has no Spark equivalent")
        if node.name in ("try_strptime", "strptime"):
            args[1] = _string(_spark_date_format(node.args[1].value), "spark")  # type: ignore[union-attr]
        return f"{spark or node.name}({', '.join(args)})"


def _spark_date_format(strftime: str) -> str:
    """Spark's datetime pattern for a ``strftime`` format of dates and times."""
    if not _DATE_FORMAT.fullmatch(strftime):
        raise SqlError("a date format for Spark uses only %Y %y %m %d %H %M %S and - / : T .")
    out = re.sub(r"%[YymdHMS]", lambda m: _DATE_CODES[m.group()], strftime.replace("T", "'T'"))
    return out
