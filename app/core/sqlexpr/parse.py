"""Parse a SQL expression of a Splink setting into :mod:`.nodes`, or refuse it.

The grammar is a small part of SQL, read by recursive descent (nothing is evaluated)::

    expr     := or
    or       := and ("OR" and)*
    and      := not ("AND" not)*
    not      := "NOT" not | compare
    compare  := sum [("=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">=") sum
                     | "IS" ["NOT"] "NULL" | ["NOT"] "IN" "(" expr ("," expr)* ")"
                     | ["NOT"] "BETWEEN" sum "AND" sum]
    sum      := product (("+" | "-" | "||") product)*
    product  := unary (("*" | "/" | "%") unary)*
    unary    := "-" unary | primary
    primary  := number | 'string' | TRUE | FALSE | NULL | "(" expr ")"
              | CASE (WHEN expr THEN expr)+ [ELSE expr] END
              | (CAST | TRY_CAST) "(" expr AS type ")"
              | function "(" [expr ("," expr)*] ")" | column

A column is ``l.name`` / ``r.name`` (``prefixed``: blocking rules), ``name_l`` / ``name_r``
(``suffixed``: comparison levels, which also take the prefixed form) or ``name`` (``bare``:
the arguments of ``block_on``); a name may be quoted with ``"`` or a backtick and must be
one of the caller's attributes. Functions come from a table (:mod:`.functions`) that also
checks their arguments; tokens come from :mod:`.tokens`. Sizes are bounded (text, nesting,
nodes, literal length). Errors say where (the character offset) and what kind of token,
never a string literal's content.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from app.core.sqlexpr.errors import SqlError
from app.core.sqlexpr.functions import ALIASES, FUNCTIONS, Fn
from app.core.sqlexpr.nodes import (
    CAST_TYPES,
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
from app.core.sqlexpr.tokens import TokenCursor, describe, tokenize, unquote

__all__ = ["MAX_TEXT", "parse"]

MAX_TEXT = 4_000
MAX_DEPTH = 40
MAX_NODES = 400
MAX_LITERAL = 200
STYLES = ("prefixed", "suffixed", "bare")
_TYPE_NAMES = {
    **{t: t for t in CAST_TYPES},
    "TEXT": "VARCHAR",
    "STRING": "VARCHAR",
    "INT": "INTEGER",
    "REAL": "FLOAT",
}
#: Statement words: refused by name, so a refusal says why (an expression reads one pair).
_STATEMENTS = {
    "SELECT", "FROM", "WITH", "COPY", "ATTACH", "DETACH", "PRAGMA", "INSTALL", "LOAD", "CREATE",
    "DROP", "ALTER", "INSERT", "UPDATE", "DELETE", "SET", "RESET", "CALL", "EXPORT", "IMPORT",
    "EXECUTE", "PREPARE", "USE", "VACUUM", "CHECKPOINT",
}  # fmt: skip


def parse(
    text: object,
    attributes: Collection[str],
    *,
    style: str = "suffixed",
    functions: Mapping[str, Fn] = FUNCTIONS,
) -> Node:
    """Return the tree of ``text``, or raise :class:`SqlError` saying what is refused."""
    if style not in STYLES:
        raise ValueError(f"style is one of {STYLES}")
    if not isinstance(text, str):
        raise SqlError("an expression must be a string")
    if len(text) > MAX_TEXT:
        raise SqlError(f"an expression has at most {MAX_TEXT:,} characters")
    parser = _Parser(tokenize(text), set(attributes), style, functions)
    node = parser.expr()
    if parser.peek() is not None:
        raise SqlError(f"at character {parser.peek()[2]}: unexpected {describe(parser.peek())}")
    return node


class _Parser(TokenCursor):
    def __init__(self, tokens, attributes: set[str], style: str, functions) -> None:
        super().__init__(tokens)
        self.attributes, self.style, self.functions = attributes, style, functions
        self.depth = self.nodes = 0

    # -- limits ---------------------------------------------------------------------------
    def node(self, node: Node) -> Node:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise SqlError(f"an expression has at most {MAX_NODES} parts")
        return node

    # -- grammar --------------------------------------------------------------------------
    def expr(self) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise SqlError(f"an expression nests at most {MAX_DEPTH} deep")
        try:
            return self.or_()
        finally:
            self.depth -= 1

    def or_(self) -> Node:
        node = self.and_()
        while self.at("OR"):
            self.take()
            node = self.node(Binary("OR", node, self.and_()))
        return node

    def and_(self) -> Node:
        node = self.not_()
        while self.at("AND"):
            self.take()
            node = self.node(Binary("AND", node, self.not_()))
        return node

    def not_(self) -> Node:
        if self.at("NOT"):
            self.take()
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise SqlError(f"an expression nests at most {MAX_DEPTH} deep")
            try:
                return self.node(Unary("NOT", self.not_()))
            finally:
                self.depth -= 1
        return self.compare()

    def compare(self) -> Node:
        node = self.sum()
        if self.at("=", "==", "!=", "<>", "<", "<=", ">", ">="):
            op = {"==": "=", "!=": "<>"}.get(self.peek()[1], self.peek()[1])
            self.take()
            return self.node(Binary(op, node, self.sum()))
        if self.at("IS"):
            self.take()
            negated = self.at("NOT")
            if negated:
                self.take()
            self.expect("NULL")
            return self.node(IsNull(node, negated))
        negated = (
            self.at("NOT") and self.peek(1) is not None and self.peek(1)[1] in ("IN", "BETWEEN")
        )
        if negated:
            self.take()
        if self.at("IN"):
            self.take()
            self.expect("(")
            items = [self.expr()]
            while self.at(","):
                self.take()
                items.append(self.expr())
            self.expect(")")
            return self.node(In(node, tuple(items), negated))
        if self.at("BETWEEN"):
            self.take()
            low = self.sum()
            self.expect("AND")
            return self.node(Between(node, low, self.sum(), negated))
        return node

    def sum(self) -> Node:
        node = self.product()
        while self.at("+", "-", "||"):
            op = self.take()[1]
            node = self.node(Binary(op, node, self.product()))
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.at("*", "/", "%"):
            op = self.take()[1]
            node = self.node(Binary(op, node, self.unary()))
        return node

    def unary(self) -> Node:
        if self.at("-"):
            self.take()
            operand = self.unary()
            if isinstance(operand, Literal) and isinstance(operand.value, int | float):
                return self.node(Literal(-operand.value))
            return self.node(Unary("-", operand))
        return self.primary()

    def primary(self) -> Node:
        kind, value, pos = self.take()
        if kind == "number":
            number = float(value) if any(c in value for c in ".eE") else int(value)
            if isinstance(number, float) and number != number or abs(number) == float("inf"):
                raise SqlError(f"at character {pos}: a number out of range")
            return self.node(Literal(number))
        if kind == "string":
            text = value[1:-1].replace("''", "'")
            if len(text) > MAX_LITERAL:
                raise SqlError(
                    f"at character {pos}: a string literal over {MAX_LITERAL} characters"
                )
            return self.node(Literal(text))
        if kind == "keyword":
            return self.keyword(value, pos)
        if kind == "op" and value == "(":
            node = self.expr()
            self.expect(")")
            return node
        if kind == "name" and value.upper() in _STATEMENTS:
            raise SqlError(
                f"at character {pos}: {value.upper()} is not allowed "
                "(an expression reads the values of one pair, nothing else)"
            )
        if kind in ("name", "quoted"):
            if kind == "name" and self.at("("):
                return self.call(value, pos)
            return self.column(unquote(value), pos)
        raise SqlError(f"at character {pos}: unexpected {describe((kind, value, pos))}")

    def keyword(self, value: str, pos: int) -> Node:
        if value in ("TRUE", "FALSE"):
            return self.node(Literal(value == "TRUE"))
        if value == "NULL":
            return self.node(Literal(None))
        if value in ("CAST", "TRY_CAST"):
            self.expect("(")
            inner = self.expr()
            self.expect("AS")
            kind, name, where = self.take()
            type_ = _TYPE_NAMES.get(name.upper()) if kind == "name" else None
            if type_ is None:
                raise SqlError(f"at character {where}: a cast to one of {', '.join(CAST_TYPES)}")
            self.expect(")")
            return self.node(Cast(inner, type_, value == "TRY_CAST"))
        if value == "CASE":
            whens = []
            while self.at("WHEN"):
                self.take()
                condition = self.expr()
                self.expect("THEN")
                whens.append((condition, self.expr()))
            if not whens:
                raise SqlError(f"at character {pos}: CASE needs WHEN … THEN …")
            default = None
            if self.at("ELSE"):
                self.take()
                default = self.expr()
            self.expect("END")
            return self.node(Case(tuple(whens), default))
        raise SqlError(f"at character {pos}: unexpected {value!r}")

    def call(self, name: str, pos: int) -> Node:
        canonical = ALIASES.get(name.lower(), name.lower())
        fn = self.functions.get(canonical)
        if fn is None:
            raise SqlError(f"at character {pos}: the function {name!r} is not allowed")
        self.expect("(")
        args: list[Node] = []
        if not self.at(")"):
            args.append(self.expr())
            while self.at(","):
                self.take()
                args.append(self.expr())
        self.expect(")")
        fn.check_args(canonical, args, pos)
        return self.node(Func(canonical, tuple(args)))

    def column(self, name: str, pos: int) -> Node:
        if name in ("l", "r") and self.at("."):
            self.take()
            kind, value, where = self.take()
            if kind not in ("name", "quoted"):
                raise SqlError(f"at character {where}: a column name after {name}.")
            return self.attribute(name, unquote(value), where, prefixed=True)
        if self.style == "bare":
            return self.attribute("", name, pos, prefixed=False)
        if self.style == "suffixed" and name[-2:] in ("_l", "_r"):
            return self.attribute(name[-1], name[:-2], pos, prefixed=False)
        wanted = "l.<name> or r.<name>" if self.style == "prefixed" else "<name>_l or <name>_r"
        raise SqlError(f"at character {pos}: a column is written {wanted}")

    def attribute(self, side: str, name: str, pos: int, *, prefixed: bool) -> Node:
        if prefixed and self.style == "bare":
            raise SqlError(f"at character {pos}: block_on takes attribute names without l./r.")
        if name not in self.attributes:
            raise SqlError(f"at character {pos}: unknown attribute {name!r}")
        return self.node(Column(side, name))
