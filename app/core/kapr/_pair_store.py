"""The ``pair`` model's count tables as arrays and back, so an index stores them with itself.

:func:`saved` gives the arrays of a :class:`~app.core.kapr._pair_tables.PairTables` (keys
start ``pt.``; an attribute is named by its position among the index's columns) and
:func:`restore` makes the same tables from them over the same columns, counting and ranking
nothing again: the index of a ``pair`` project is stored at import with its tables, so no
worker's request builds them (issue 39.5).
"""

from __future__ import annotations

import numpy as np

from app.core.kapr._pair_tables import PairTables
from app.core.kapr._value_index import ValueIndex

__all__ = ["restore", "saved"]


def saved(tables: PairTables) -> dict[str, np.ndarray]:
    """The arrays :func:`restore` rebuilds ``tables`` from."""
    at = {a: i for i, a in enumerate(tables.bit)}

    def key(attrs) -> str:
        return "-".join(str(i) for i in sorted(at[a] for a in attrs))

    out = {
        "pt.missing": tables.missing, "pt.incomplete": tables.incomplete,
        "pt.agreement": np.array([tables.agreement[a] for a in tables.bit], dtype=np.float64),
        "pt.heavy": np.array(sorted(at[a] for a in tables.heavy), dtype=np.int64),
        "pt.pivot": np.array([-1 if tables.pivot is None else at[tables.pivot]], dtype=np.int64),
    }  # fmt: skip
    out.update({f"pt.codes.{key(t)}": c for t, c in tables.codes.items() if len(t) > 1})
    out.update({f"pt.counts.{key(t)}": c for t, c in tables.counts.items()})
    for attrs, (_, last, radix) in tables.derived.items():
        out[f"pt.derived.{key(attrs)}"] = np.array([at[last], radix], dtype=np.int64)
    out.update({f"pt.both.{at[h]}.{at[f]}": c for (h, f), c in tables.both.items()})
    if tables.pairs is not None:
        out.update({f"pt.pairs{k}": a for k, a in enumerate(tables.pairs)})
    return out


def restore(columns: dict[str, ValueIndex], arrays) -> PairTables:
    """The tables whose :func:`saved` arrays are ``arrays`` (a mapping), over the same
    ``columns`` (in the same order): nothing is counted or ranked again."""
    names = list(columns)
    tables = PairTables.__new__(PairTables)
    tables.bit = {a: 1 << i for i, a in enumerate(names)}
    tables.missing, tables.incomplete = arrays["pt.missing"], arrays["pt.incomplete"]
    tables.complete = int(np.count_nonzero(tables.missing == 0))
    tables.agreement = dict(zip(names, arrays["pt.agreement"].tolist(), strict=True))
    tables.heavy = frozenset(names[i] for i in arrays["pt.heavy"].tolist())
    pivot = int(arrays["pt.pivot"][0])
    tables.pivot = None if pivot < 0 else names[pivot]
    tables.slots = {a: c.slots for a, c in columns.items()}
    tables.codes, tables.derived, tables.counts, tables.both = {}, {}, {}, {}
    for name in arrays:
        part, _, rest = name.removeprefix("pt.").partition(".")
        ids = [int(i) for i in rest.replace(".", "-").split("-")] if rest else []
        attrs = frozenset(names[i] for i in ids)
        if part in ("codes", "counts"):
            getattr(tables, part)[attrs] = arrays[name]
        elif part == "derived":
            last, radix = arrays[name].tolist()
            tables.derived[attrs] = (attrs - {names[last]}, names[last], radix)
        elif part == "both":
            tables.both[names[ids[0]], names[ids[1]]] = arrays[name]
    for a in tables.heavy:  # a single attribute's codes are its slots
        tables.codes[frozenset([a])] = columns[a].slots
    pairs = [arrays[f"pt.pairs{k}"] for k in range(4) if f"pt.pairs{k}" in arrays]
    tables.pairs = tuple(pairs) if pairs else None
    tables.n_pairs = len(pairs[0]) if pairs else 0
    tables._representatives, tables.kept, tables._most = {}, {}, {}
    return tables
