"""Split an expression into tokens, and step through them for the parser.

A token is ``(kind, value, offset)``; names that are keywords become ``keyword`` tokens in
upper case. Errors give the offset and the token's kind, never a string literal's content.
"""

from __future__ import annotations

import re

from app.core.sqlexpr.errors import SqlError

__all__ = ["TokenCursor", "describe", "tokenize", "unquote"]

_KEYWORDS = {
    "AND", "OR", "NOT", "IS", "NULL", "TRUE", "FALSE", "IN", "BETWEEN", "CASE", "WHEN",
    "THEN", "ELSE", "END", "CAST", "TRY_CAST", "AS",
}  # fmt: skip
_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
      | (?P<string>'(?:[^']|'')*')
      | (?P<quoted>"(?:[^"]|"")+"|`(?:[^`]|``)+`)
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<op><>|!=|<=|>=|==|\|\||[=<>+\-*/%(),.])
    """,
    re.VERBOSE,
)


def tokenize(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise SqlError(f"at character {pos}: a character outside the grammar")
        kind = match.lastgroup
        if kind != "space":
            value = match.group()
            if kind == "name" and value.upper() in _KEYWORDS:
                kind, value = "keyword", value.upper()
            out.append((kind, value, pos))
        pos = match.end()
    return out


def describe(token: tuple[str, str, int]) -> str:
    kind, value, _ = token
    if kind in ("op", "keyword"):
        return repr(value)
    return {"string": "string", "number": "number"}.get(kind, f"name {unquote(value)!r}")


def unquote(value: str) -> str:
    if value[0] in '"`':
        return value[1:-1].replace(value[0] * 2, value[0])
    return value


class TokenCursor:
    """A position in a list of tokens, with the look-ahead a recursive descent needs."""

    def __init__(self, tokens: list[tuple[str, str, int]]) -> None:
        self.tokens, self.i = tokens, 0

    def peek(self, ahead: int = 0):
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def at(self, *values: str) -> bool:
        token = self.peek()
        return token is not None and token[0] in ("op", "keyword") and token[1] in values

    def take(self):
        token = self.peek()
        if token is None:
            raise SqlError("the expression ends too early")
        self.i += 1
        return token

    def expect(self, value: str) -> None:
        token = self.peek()
        if not self.at(value):
            where = f"at character {token[2]}: " if token else "at the end: "
            found = describe(token) if token else "the end"
            raise SqlError(f"{where}expected {value!r}, found {found}")
        self.i += 1
