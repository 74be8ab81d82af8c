"""Belief-function computations on a JSON body, for the CLI and ``POST /api/v1/analytics/belief``.

Input::

    {"frame": ["x1", "x2", ...],                        # labels: strings or integers, opaque
     "m":  [{"set": ["x1", "x2"], "mass": "5/13"}, ...],  # masses: "p/q", "0.5" or a number
     "m2": [...],                                       # optional second body
     "P":  {"x1": "1/2", ...},                          # optional true probability
     "sets": [["x1"], ["x1", "x2"]]}                    # optional; default every subset (n <= 10)

A JSON number is read as the decimal it is written as (0.1 is 1/10), so every result is exact
and written ``{"exact": "7/26", "float": 0.2692...}``. Errors name the field, never a value
beyond the label the caller sent.
"""

from __future__ import annotations

from fractions import Fraction

from app.core.belief import (
    MassFunction,
    acceptability,
    compatibility,
    conjunctive,
    dempster,
    disjunctive,
    entropy_bits,
    entropy_nats,
    nonspecificity_bits,
    nonspecificity_nats,
    subsets,
)

MAX_ALL_SUBSETS = 10
MAX_FRAME = 100_000


class BeliefRequestError(ValueError):
    """A body that cannot be read; the message names the field."""


def exact(value) -> dict:
    """``{"exact": "p/q", "float": p/q}`` for an exact number."""
    value = Fraction(value)
    return {"exact": str(value), "float": float(value)}


def read_number(value, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise BeliefRequestError(f'{where}: a number or a fraction string like "5/13"')
    try:
        number = Fraction(value) if isinstance(value, int | str) else Fraction(repr(value))
    except (ValueError, ZeroDivisionError):
        raise BeliefRequestError(f'{where}: not a number like "5/13" or 0.5') from None
    if number < 0:
        raise BeliefRequestError(f"{where}: negative")
    return number


def _frame(body: dict) -> tuple:
    frame = body.get("frame")
    if not isinstance(frame, list) or not frame:
        raise BeliefRequestError("frame: a non-empty list of labels")
    if len(frame) > MAX_FRAME:
        raise BeliefRequestError(f"frame: at most {MAX_FRAME} labels")
    for i, x in enumerate(frame):
        if isinstance(x, bool) or not isinstance(x, str | int):
            raise BeliefRequestError(f"frame[{i}]: a label is a string or an integer")
    if len(set(frame)) != len(frame):
        raise BeliefRequestError("frame: labels must be distinct")
    return tuple(frame)


def _set(value, where: str, universe: set) -> frozenset:
    if not isinstance(value, list):
        raise BeliefRequestError(f"{where}: a list of labels")
    outside = [x for x in value if not isinstance(x, str | int) or x not in universe]
    if outside:
        raise BeliefRequestError(f"{where}: {len(outside)} label(s) not in the frame")
    return frozenset(value)


def _body(entries, field: str, frame: tuple) -> MassFunction:
    if not isinstance(entries, list) or not entries:
        raise BeliefRequestError(f'{field}: a non-empty list of {{"set": [...], "mass": ...}}')
    universe, focal = set(frame), {}
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or "set" not in entry or "mass" not in entry:
            raise BeliefRequestError(f'{field}[{i}]: an object with "set" and "mass"')
        subset = _set(entry["set"], f"{field}[{i}].set", universe)
        if not subset:
            raise BeliefRequestError(f"{field}[{i}].set: empty (mass on ∅ is not an input)")
        focal[subset] = focal.get(subset, Fraction(0)) + read_number(
            entry["mass"], f"{field}[{i}].mass"
        )
    total = sum(focal.values())
    if total != 1:
        raise BeliefRequestError(f"{field}: the masses sum to {total}, not 1")
    return MassFunction(frame, focal)


def _probability(p, frame: tuple) -> dict | None:
    if p is None:
        return None
    if not isinstance(p, dict):
        raise BeliefRequestError("P: an object {label: probability}")
    by_text = {str(x): x for x in frame}  # JSON object keys are strings
    out = {}
    for key, value in p.items():
        if key not in by_text:
            raise BeliefRequestError("P: a key is not a label of the frame")
        out[by_text[key]] = read_number(value, f"P[{key!r}]")
    if sum(out.values()) != 1:
        raise BeliefRequestError(f"P: sums to {sum(out.values())}, not 1")
    return out


def _ordered(subset: frozenset, frame: tuple) -> list:
    return [x for x in frame if x in subset]


def describe(m: MassFunction, sets: list[frozenset], p: dict | None) -> dict:
    """Masses, pignistic, Bel/Pl/q of ``sets``, measures and compatibility of one body."""
    frame = m.frame
    pig = m.pignistic()
    out = {
        "m": [
            {"set": _ordered(b, frame), "mass": exact(v)}
            for b, v in sorted(
                m.focal.items(), key=lambda kv: (len(kv[0]), str(sorted(map(str, kv[0]))))
            )
        ],
        "pignistic": {str(x): exact(pig[x]) for x in frame},
        "sets": [
            {
                "set": _ordered(a, frame),
                "bel": exact(m.bel(a)),
                "pl": exact(m.pl(a)),
                "q": exact(m.q(a)),
            }
            for a in sets
        ],  # fmt: skip
        "nonspecificity": {"bits": nonspecificity_bits(m), "nats": nonspecificity_nats(m)},
        "pignistic_entropy": {"bits": entropy_bits(pig), "nats": entropy_nats(pig)},
    }
    if m.conflict:
        out["conflict"] = exact(m.conflict)
    if p is not None:
        result = compatibility(m, p)
        out["compatibility"] = {
            "compatible": result.compatible,
            "max_violation": exact(result.violation),
            "witness": _ordered(result.witness, frame),
        }
    return out


def evaluate(body) -> dict:
    """Compute everything the body asks for (see the module docstring)."""
    if not isinstance(body, dict):
        raise BeliefRequestError("the body must be a JSON object")
    frame = _frame(body)
    m1 = _body(body.get("m"), "m", frame)
    p = _probability(body.get("P"), frame)
    if body.get("sets") is not None:
        if not isinstance(body["sets"], list):
            raise BeliefRequestError("sets: a list of lists of labels")
        sets = [_set(s, f"sets[{i}]", set(frame)) for i, s in enumerate(body["sets"])]
    elif len(frame) <= MAX_ALL_SUBSETS:
        sets = subsets(frame)
    else:
        sets = []
    out = {"frame": list(frame), **describe(m1, sets, p)}
    if body.get("m2") is None:
        return out
    m2 = _body(body["m2"], "m2", frame)
    joint = conjunctive(m1, m2)
    out["m2"] = describe(m2, sets, p)
    out["conflict"] = exact(joint.conflict)
    out["conjunctive_unnormalized"] = _combined(joint, sets, p)
    out["disjunctive"] = _combined(disjunctive(m1, m2), sets, p)
    try:
        combined = dempster(m1, m2).mass
    except ValueError:
        out["dempster"] = {"error": "total_conflict"}
        combined = None
    else:
        out["dempster"] = describe(combined, sets, p)
    if p is not None:
        out["acceptability"] = {
            name: _verdict(m1, m2, m, p)
            for name, m in (("dempster", combined), ("conjunctive_unnormalized", joint),
                            ("disjunctive", disjunctive(m1, m2)))
            if m is not None
        }  # fmt: skip
    return out


def _combined(m: MassFunction, sets, p) -> dict:
    if m.conflict == 1:
        return {"m": [{"set": [], "mass": exact(1)}], "conflict": exact(1)}
    return describe(m, sets, p)


def _verdict(m1, m2, combined, p) -> dict:
    v = acceptability(m1, m2, combined, p)
    return {
        "acceptable": v.acceptable,
        "inputs_compatible": v.inputs_compatible,
        "compatible": v.compatibility.compatible,
        "max_violation": exact(v.compatibility.violation),
        "nonspecificity_bits": v.nonspecificity,
        "nonspecificity_min_bits": v.nonspecificity_min,
        "nonspecificity_ok": v.nonspecificity_ok,
    }
