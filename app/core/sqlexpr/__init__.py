"""A safe grammar for the SQL of Splink settings: parse, check, write again (per dialect)."""

from app.core.sqlexpr.cost import Cost, cost
from app.core.sqlexpr.emit import DIALECTS, emit, text
from app.core.sqlexpr.errors import SqlError
from app.core.sqlexpr.functions import BLOCKING_FUNCTIONS, FUNCTIONS
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
    children,
    walk,
)
from app.core.sqlexpr.parse import parse
from app.core.sqlexpr.regex import check_regex

__all__ = [
    "BLOCKING_FUNCTIONS",
    "DIALECTS",
    "FUNCTIONS",
    "Between",
    "Binary",
    "Case",
    "Cast",
    "Column",
    "Cost",
    "Func",
    "In",
    "IsNull",
    "Literal",
    "Node",
    "SqlError",
    "Unary",
    "check_regex",
    "children",
    "cost",
    "emit",
    "parse",
    "text",
    "walk",
]
