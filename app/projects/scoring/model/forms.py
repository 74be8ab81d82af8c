"""How a model reads each date attribute, so Splink is handed the dates in that form.

A model trained outside the application was trained on the linkage team's own files, and its
SQL says how it read their dates: ``try_strptime(date_of_birth_l, '%Y%m%d')`` reads text
written ``YYYYMMDD`` (Splink's ``DateOfBirthComparison(input_is_string=True,
datetime_format=...)``), ``EPOCH(date_of_birth_l)`` reads a ``DATE`` column
(``input_is_string=False``), ``CAST(date_of_birth_l AS DATE)`` text written ``YYYY-MM-DD``.
The application stores dates as ``MMDDYYYY``; :func:`read_forms` finds the form each date
attribute must take in the working table (a ``strftime`` layout, or :data:`DATE`) and
:func:`write_dates` writes the stored dates in it, so every level (the text ones such as
``levenshtein`` on the raw string too) sees what Splink saw in training.

A model that reads one attribute in two layouts, or as a date and as text, cannot be scored
as Splink scored it (one column has one form): it is refused, saying where. A model that only
compares a date's text, naming no layout, is handed ``YYYY-MM-DD`` (the layout of the
application's own models) and noted, since a model trained on another layout would score
those levels differently.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.core.disclosure import AttributeType
from app.core.sqlexpr import Binary, Cast, Column, Func, IsNull, Node, children

__all__ = [
    "DATE", "ISO", "Forms", "date_column", "date_writer", "form_label", "read_forms", "write_dates",
]  # fmt: skip

ISO = "%Y-%m-%d"
#: The form of a date attribute read as a ``DATE`` column (``EPOCH(date_of_birth_l)``).
DATE = "date"
_CODES = {"%Y": "YYYY", "%y": "YY", "%m": "MM", "%d": "DD"}
_LAYOUT = re.compile(r"(?:%[Yymd]|[^%\w])+")
_PARSE = ("strptime", "try_strptime")
_NEUTRAL = ("=", "<>")  # a column against the other side's: true whatever the layout


@dataclass(frozen=True)
class Forms:
    """Per date attribute its form (a layout or :data:`DATE`); what is refused or noted."""

    dates: Mapping[str, str]
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def form_label(form: str) -> str:
    """How a person reads a form: ``YYYYMMDD``, ``a DATE column``."""
    if form == DATE:
        return "a DATE column"
    return re.sub(r"%[Yymd]", lambda m: _CODES[m.group()], form)


@dataclass
class _Uses:
    layouts: dict[str, str]  # layout -> first place
    typed: str | None = None  # first place read as a DATE
    cast: str | None = None  # first place cast to DATE/TIMESTAMP (ISO text or a DATE)
    text: str | None = None  # first place whose result depends on the layout


def read_forms(comparisons: Iterable, attributes: Mapping[str, AttributeType | str]) -> Forms:
    """The form of each date attribute among ``attributes`` that ``comparisons`` (checked
    :class:`~.model.Comparison` s) need, and the problems and notes of how they read them."""
    kinds = {name: AttributeType(kind) for name, kind in attributes.items()}
    uses: dict[str, _Uses] = {}
    for i, comparison in enumerate(comparisons):
        for j, level in enumerate(comparison.levels):
            if level.condition is not None:
                where = f"comparisons[{i}].comparison_levels[{j}]"
                _visit(level.condition, where, uses, context="text")
    dates, problems, notes = {}, [], []
    for name, use in uses.items():
        if kinds.get(name) is not AttributeType.DATE:
            if use.typed:
                problems.append(
                    f"{use.typed}: EPOCH reads {name} as a date, but {name} is a "
                    f"{kinds.get(name, 'string')} attribute here (declare it a date, or "
                    "read it with try_strptime)"
                )
            continue
        form, problem = _form(name, use)
        if problem:
            problems.append(problem)
        elif form is not None:
            dates[name] = form
        if form not in (None, ISO):
            how = "as the model reads it" if form == DATE else "the layout the model reads"
            notes.append(f"{name}: given to Splink as {form_label(form)}, {how}")
        if problem is None and form is None and use.text:
            notes.append(
                f"{use.text}: {name} is compared as text with no date layout named in the "
                "model; Splink is given it as YYYY-MM-DD (a model trained on dates written "
                "otherwise scores these levels differently: read it with try_strptime)"
            )
    return Forms(dates, tuple(problems), tuple(notes))


def _form(name: str, use: _Uses) -> tuple[str | None, str | None]:
    """(form, problem) of one date attribute."""
    if len(use.layouts) > 1:  # a layout that is none is not quoted (it is the model's text)
        labels = " and ".join(
            form_label(f) if _LAYOUT.fullmatch(f) else "another layout" for f in use.layouts
        )
        places = ", ".join(use.layouts.values())
        return None, (
            f"{places}: {name} is read in two date layouts ({labels}); one column has one "
            "layout, so Splink could read it only one way (retrain with one)"
        )
    layout, place = next(iter(use.layouts.items()), (None, None))
    if layout is not None and not _LAYOUT.fullmatch(layout):
        return None, (
            f"{place}: {name} is read in a date layout with codes other than %Y %y %m %d "
            "(the application writes dates with those and separators only)"
        )
    if use.typed and (layout is not None or use.text):
        other = use.text if layout is None else place
        return None, (
            f"{use.typed}, {other}: {name} is read as a DATE column (EPOCH) and as text; "
            "one column is one or the other"
        )
    if use.typed:
        return DATE, None
    if layout is not None and use.cast and layout != ISO:
        return None, (
            f"{place}, {use.cast}: {name} is read as {form_label(layout)} and cast to a date "
            "(which reads YYYY-MM-DD only)"
        )
    return layout or (ISO if use.cast else None), None


def _visit(node: Node, where: str, uses: dict[str, _Uses], context: str | tuple) -> None:
    """Record how each column under ``node`` is read; ``context`` is how its parent reads
    a bare column: ``text``, ``neutral``, ``typed``, ``cast`` or ``("layout", layout)``."""
    if isinstance(node, Column):
        use = uses.setdefault(node.name, _Uses({}))
        if context == "typed":
            use.typed = use.typed or where
        elif context == "cast":
            use.cast = use.cast or where
        elif context == "text":
            use.text = use.text or where
        elif isinstance(context, tuple):  # ("layout", a strftime layout)
            use.layouts.setdefault(context[1], where)
        return
    if isinstance(node, Func) and node.name in _PARSE:
        layout = ("layout", node.args[1].value)  # type: ignore[union-attr]
        _visit(node.args[0], where, uses, layout)
        return
    if isinstance(node, Func) and node.name == "epoch":
        _visit(node.args[0], where, uses, "typed")
        return
    if isinstance(node, Cast):
        inner = "cast" if node.type in ("DATE", "TIMESTAMP") else "neutral"
        _visit(node.expr, where, uses, inner if isinstance(node.expr, Column) else "text")
        return
    if isinstance(node, IsNull):
        _visit(node.expr, where, uses, "neutral" if isinstance(node.expr, Column) else "text")
        return
    if isinstance(node, Binary) and node.op in _NEUTRAL:
        both = isinstance(node.left, Column) and isinstance(node.right, Column)
        for side in (node.left, node.right):
            _visit(side, where, uses, "neutral" if both else "text")
        return
    for child in children(node):
        _visit(child, where, uses, "text")


def write_dates(stored: Iterable[str | None], form: str) -> list:
    """Stored ``MMDDYYYY`` dates in ``form``: text in a layout, or :class:`datetime.date`."""
    write = date_writer(form)
    return [write(v) for v in stored]


def date_column(stored, form: str):
    """:func:`write_dates` of an Arrow column of stored dates, as an Arrow column (``date32``
    for :data:`DATE`, else text).

    When every date present is eight ASCII digits, the layout is assembled from slices of
    the column, and a :data:`DATE` is Arrow's cast of its ``YYYY-MM-DD`` text (which refuses
    a day its month does not have, as :class:`datetime.date` does; year 0 is left to the
    per-value path, which refuses it); otherwise each distinct date is written once.
    """
    import pyarrow as pa

    from app.projects.blocking.columns import all_eight_digits, as_array, map_distinct

    stored = as_array(stored)
    if all_eight_digits(stored):
        text = _layout_column(stored, ISO if form == DATE else form)
        if text is not None and form != DATE:
            return text
        if text is not None and not _year_zero(stored):
            try:
                return text.cast(pa.date32())
            except pa.ArrowInvalid:
                pass  # a day not in its month: the per-value path raises as it always did
    return map_distinct(date_writer(form), stored, pa.date32() if form == DATE else pa.string())


def _layout_column(stored, layout: str):
    """The stored (eight-digit) dates in ``layout``, from slices; None for a layout of no
    code (every date the same text: left to the per-value path)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    slices = {"%Y": (4, 8), "%y": (6, 8), "%m": (0, 2), "%d": (2, 4)}
    parts = [p for p in re.split(r"(%[Yymd])", layout) if p]
    if not any(p in slices for p in parts):
        return None
    pieces = [
        pc.utf8_slice_codeunits(stored, *slices[p]) if p in slices else pa.scalar(p) for p in parts
    ]
    if len(pieces) == 1:
        return pieces[0]
    return pc.binary_join_element_wise(*pieces, "")


def _year_zero(stored) -> bool:
    import pyarrow.compute as pc

    return bool(pc.any(pc.equal(pc.utf8_slice_codeunits(stored, 4, 8), "0000")).as_py())


def date_writer(form: str):
    """The function :func:`write_dates` applies to each stored date (``None`` stays ``None``,
    and so does a text that is not eight characters long)."""
    if form == DATE:

        def write_date(v: str | None) -> dt.date | None:
            return (
                None if v is None or len(v) != 8 else dt.date(int(v[4:]), int(v[:2]), int(v[2:4]))
            )

        return write_date
    parts = re.split(r"(%[Yymd])", form)

    def write(v: str | None) -> str | None:
        if v is None or len(v) != 8:
            return None
        fields = {"%Y": v[4:8], "%y": v[6:8], "%m": v[0:2], "%d": v[2:4]}
        return "".join(fields.get(p, p) for p in parts)

    return write
