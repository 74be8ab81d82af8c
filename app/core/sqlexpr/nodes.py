"""The syntax tree of a checked SQL expression: a few frozen dataclasses, nothing else.

A Splink model carries SQL (comparison levels, blocking rules) that Splink runs as it is.
Nothing of it reaches a database here: :func:`~app.core.sqlexpr.parse.parse` reads an
expression into this tree — columns of the caller's attributes, literals, operators and the
listed functions — and :func:`~app.core.sqlexpr.emit.emit` writes the SQL for DuckDB or Spark
from it, with the working tables' own column names; :func:`~app.core.sqlexpr.emit.text`
writes it back readably over the attributes' names (what the application stores and shows).

Every tree the parser returns is made only of these nodes, so what can reach a database is
exactly what :mod:`.emit` writes for them: columns the caller named, literals, operators
and functions of :data:`app.core.sqlexpr.functions.FUNCTIONS`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Between",
    "Binary",
    "Case",
    "Cast",
    "Column",
    "Func",
    "In",
    "IsNull",
    "Literal",
    "Node",
    "Unary",
    "children",
    "walk",
]

#: Binary operators, by precedence group (lowest first); ``||`` is string concatenation.
COMPARISONS = ("=", "<>", "<", "<=", ">", ">=")
ARITHMETIC = ("+", "-", "*", "/", "%", "||")
BOOLEAN = ("AND", "OR")
#: Types a ``CAST`` may name.
CAST_TYPES = ("VARCHAR", "INTEGER", "BIGINT", "DOUBLE", "FLOAT", "DATE", "TIMESTAMP")


@dataclass(frozen=True, slots=True)
class Column:
    """An attribute of the left (``l``) or right (``r``) record of a pair."""

    side: str
    name: str


@dataclass(frozen=True, slots=True)
class Literal:
    """A string, number, boolean or ``NULL`` (``None``)."""

    value: str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Func:
    """A call of a listed function, by its canonical (DuckDB) name."""

    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Cast:
    expr: Node
    type: str
    safe: bool = False  # TRY_CAST


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # "NOT" or "-"
    expr: Node


@dataclass(frozen=True, slots=True)
class IsNull:
    expr: Node
    negated: bool = False


@dataclass(frozen=True, slots=True)
class In:
    expr: Node
    items: tuple[Node, ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Between:
    expr: Node
    low: Node
    high: Node
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Case:
    whens: tuple[tuple[Node, Node], ...]
    default: Node | None = None


Node = Column | Literal | Func | Cast | Binary | Unary | IsNull | In | Between | Case


def children(node: Node) -> tuple[Node, ...]:
    """The nodes directly under ``node``, in order."""
    if isinstance(node, Func):
        return node.args
    if isinstance(node, Cast | Unary | IsNull):
        return (node.expr,)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, In):
        return (node.expr, *node.items)
    if isinstance(node, Between):
        return (node.expr, node.low, node.high)
    if isinstance(node, Case):
        default = (node.default,) if node.default is not None else ()
        return tuple(x for pair in node.whens for x in pair) + default
    return ()


def walk(node: Node):
    """Yield ``node`` and every node under it, depth first."""
    yield node
    for child in children(node):
        yield from walk(child)
