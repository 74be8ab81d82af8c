"""Bound what a checked expression computes for one pair: the longest string each node can
make and the character operations of its functions, from the longest value of each column.

The grammar (:mod:`.parse`) says *what* an expression may call, not how much work it asks
for: ``levenshtein(concat(concat(a_l, a_l), concat(a_l, a_l)), ...)`` on 1,000-character
values nests its way to strings of millions of characters, and an edit distance between two
of them takes the product of their lengths (issue 42: 20 pairs ran for 10 minutes). So each
node gets an upper bound of the length of the string it makes (:attr:`Cost.chars`) and of
the work it does (:attr:`Cost.work`, in character operations: an edit distance or a Jaro
similarity of strings of lengths m and n counts m·n, any other string function the length of
what it reads and makes), computed from the longest value each column can hold. A caller
refuses an expression whose strings or work pass its bounds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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
)

__all__ = ["Cost", "NUMBER_CHARS", "cost"]

#: The longest text of a number, a date or a truth value (what a CAST to VARCHAR makes).
NUMBER_CHARS = 32
#: Functions whose work is the product of their two strings' lengths (dynamic programming).
QUADRATIC = frozenset(
    {"levenshtein", "damerau_levenshtein", "jaro_similarity", "jaro_winkler_similarity"}
)
#: Functions of one string that make a string no longer than it (case mapping may grow a
#: character into three: ``upper('ß')`` is ``SS``, ``lower('İ')`` two code points).
_SAME = {"trim": 1, "ltrim": 1, "rtrim": 1, "lower": 3, "upper": 3, "regexp_extract": 1}
_PREFIX = frozenset({"substr", "left", "right"})
_ANY_OF = frozenset({"coalesce", "greatest", "least", "nullif"})


@dataclass(frozen=True)
class Cost:
    """The longest string a node makes (``chars``; ``NUMBER_CHARS`` for anything else), the
    longest any node under it makes (``widest``, its own included) and an upper bound of its
    work for one pair (``work``, its arguments' included)."""

    chars: int
    work: int
    widest: int = 0
    text: bool = False  # a string (reading it costs its length; a number costs one)


def cost(node: Node, longest: Callable[[Column], int]) -> Cost:
    """The :class:`Cost` of ``node`` when column ``c`` holds at most ``longest(c)`` characters."""
    parts = [cost(child, longest) for child in children(node)]
    below = sum(part.work for part in parts)
    chars, text = _chars(node, parts, longest), _is_text(node, parts)
    widest = max([chars, *(part.widest for part in parts)])
    if isinstance(node, Func) and node.name in QUADRATIC:
        a, b = parts[0].chars, parts[1].chars
        return Cost(chars, below + a * b + a + b, widest, text)
    if isinstance(node, Func) and node.name in ("regexp_extract", "regexp_matches"):
        pattern = node.args[1].value if isinstance(node.args[1], Literal) else ""
        return Cost(chars, below + parts[0].chars * max(1, len(str(pattern))), widest, text)
    if not parts:  # a column or a literal: read where it is
        return Cost(chars, 0, widest, text)
    reads = sum(part.chars if part.text else 1 for part in parts)
    return Cost(chars, below + reads + (chars if text else 1), widest, text)


def _is_text(node: Node, parts: list[Cost]) -> bool:
    """Whether ``node`` makes a string (what its ``chars`` then measures)."""
    if isinstance(node, Column):
        return True
    if isinstance(node, Literal):
        return isinstance(node.value, str)
    if isinstance(node, Binary):
        return node.op == "||"
    if isinstance(node, Cast):
        return node.type == "VARCHAR"
    if isinstance(node, Case):
        return any(part.text for k, part in enumerate(parts) if _is_result(node, k))
    if isinstance(node, Func):
        name = node.name
        if name in _ANY_OF:
            return any(part.text for part in parts)
        return name == "concat" or name in _SAME or name in _PREFIX
    return False


def _chars(node: Node, parts: list[Cost], longest: Callable[[Column], int]) -> int:
    if isinstance(node, Column):
        return longest(node)
    if isinstance(node, Literal):
        return len(node.value) if isinstance(node.value, str) else NUMBER_CHARS
    if isinstance(node, Binary) and node.op == "||":
        return parts[0].chars + parts[1].chars
    if isinstance(node, Cast):
        return max(parts[0].chars, NUMBER_CHARS) if node.type == "VARCHAR" else NUMBER_CHARS
    if isinstance(node, Case):
        results = [cost_of for k, cost_of in enumerate(parts) if _is_result(node, k)]
        return max((r.chars for r in results), default=0)
    if isinstance(node, Unary | IsNull | In | Between | Binary):
        return NUMBER_CHARS
    if node.name == "concat":
        return sum(part.chars for part in parts)
    if node.name in _SAME:
        return parts[0].chars * _SAME[node.name]
    if node.name in _PREFIX:
        count = node.args[-1] if node.name != "substr" or len(node.args) == 3 else None
        if isinstance(count, Literal) and isinstance(count.value, int) and count.value >= 0:
            return min(parts[0].chars, count.value)
        return parts[0].chars
    if node.name in _ANY_OF:
        return max(part.chars for part in parts)
    return NUMBER_CHARS  # a number, a truth value or a date


def _is_result(node: Case, k: int) -> bool:
    """Whether child ``k`` of a CASE (conditions and results alternate, then the default)
    is a result."""
    return k >= 2 * len(node.whens) or k % 2 == 1
