"""The functions a checked expression may call, their arity and their names per dialect.

Only scalar functions of one row's values are listed: string similarity (the ones Splink's
comparison library writes), string and number helpers, date parsing. Nothing that reads or
writes files, settings, the environment or other tables (``read_csv``, ``COPY``,
``getenv``, ``current_setting``, table functions, subqueries) can be spelled: an unlisted
name is refused by the parser. Spark names are those of Spark SQL or of the UDFs Splink
registers in Spark (``jaro_winkler``, ``jaro_sim``, ``damerau_levenshtein``, ``jaccard``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.sqlexpr.errors import SqlError
from app.core.sqlexpr.nodes import Literal, Node
from app.core.sqlexpr.regex import check_regex

__all__ = ["ALIASES", "BLOCKING_FUNCTIONS", "FUNCTIONS", "Fn"]


@dataclass(frozen=True, slots=True)
class Fn:
    """Arity, which arguments must be literal strings, and the Spark name (``None``: none)."""

    low: int
    high: int
    spark: str | None = ""  # "" = the same name
    literal: tuple[int, ...] = ()  # argument positions that must be string literals
    regex: int | None = None  # the argument position holding a regular expression

    def check_args(self, name: str, args: Sequence[Node], pos: int) -> None:
        """Refuse a call of ``name`` at ``pos`` whose arguments this function does not take."""
        if not self.low <= len(args) <= self.high:
            wanted = self.low if self.low == self.high else f"{self.low} to {self.high}"
            raise SqlError(f"at character {pos}: {name} takes {wanted} argument(s)")
        for k in self.literal:
            if k < len(args) and not (
                isinstance(args[k], Literal) and isinstance(args[k].value, str)
            ):
                raise SqlError(
                    f"at character {pos}: argument {k + 1} of {name} must be a string literal"
                )
        if self.regex is not None and self.regex < len(args):
            try:
                check_regex(args[self.regex].value)
            except SqlError as exc:
                raise SqlError(f"at character {pos}: {exc}") from None


FUNCTIONS: dict[str, Fn] = {
    # string similarity (Splink's comparison library, DuckDB names)
    "jaro_winkler_similarity": Fn(2, 2, "jaro_winkler"),
    "jaro_similarity": Fn(2, 2, "jaro_sim"),
    "levenshtein": Fn(2, 2),
    "damerau_levenshtein": Fn(2, 2),
    "jaccard": Fn(2, 2),
    # strings
    "lower": Fn(1, 1),
    "upper": Fn(1, 1),
    "trim": Fn(1, 1),
    "ltrim": Fn(1, 1),
    "rtrim": Fn(1, 1),
    "length": Fn(1, 1),
    "substr": Fn(2, 3),
    "left": Fn(2, 2),
    "right": Fn(2, 2),
    "concat": Fn(1, 8),
    "regexp_extract": Fn(2, 3, literal=(1,), regex=1),
    "regexp_matches": Fn(2, 2, "regexp_like", literal=(1,), regex=1),
    # numbers and NULLs
    "abs": Fn(1, 1),
    "floor": Fn(1, 1),
    "ceil": Fn(1, 1),
    "round": Fn(1, 2),
    "greatest": Fn(2, 8),
    "least": Fn(2, 8),
    "coalesce": Fn(1, 8),
    "nullif": Fn(2, 2),
    # dates: parse a string with a strftime format, seconds since the epoch
    "try_strptime": Fn(2, 2, "try_to_timestamp", literal=(1,)),
    "strptime": Fn(2, 2, "to_timestamp", literal=(1,)),
    "epoch": Fn(1, 1, "unix_timestamp"),
}

#: Other spellings (Spark's, SQL's) read as the canonical name.
ALIASES = {
    "jaro_winkler": "jaro_winkler_similarity",
    "jaro_sim": "jaro_similarity",
    "substring": "substr",
    "regexp_like": "regexp_matches",
    "rlike": "regexp_matches",
    "ceiling": "ceil",
    "char_length": "length",
}

#: Key functions a blocking rule may apply to one attribute (interpreted by the app's
#: blocking, never sent to a database as calls).
BLOCKING_FUNCTIONS: dict[str, Fn] = {
    "substr": Fn(3, 3),
    "left": Fn(2, 2),
    "right": Fn(2, 2),
    "soundex": Fn(1, 1, None),
    "metaphone": Fn(1, 1, None),
    "nysiis": Fn(1, 1, None),
    "year": Fn(1, 1, None),
    "month": Fn(1, 1, None),
    "day": Fn(1, 1, None),
    "month_day": Fn(1, 1, None),
}
