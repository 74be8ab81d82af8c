"""Read a linkage output with ground truth (JSON, CSV or a trajectory RL result) and audit it.

JSON::

    {"records": [
       {"record": "y1", "truth": "x3", "probabilities": {"x1": "1/2", "x3": "1/2"}},
       {"record": "y2", "truth": ["x4", "x5"], "masses": [{"set": ["x4", "x6"], "mass": 1}]}]}

CSV (one row per focal set; a single candidate is a probability on it)::

    record,candidates,mass,truth
    y1,x1,1/2,x3
    y1,x3,1/2,x3
    y2,x4|x6,1,x4|x5

A trajectory record-linkage result (the job's result as downloaded from its page, the API's
job object, or its ``exact`` / ``windowed`` section) audits *every* anonymized trajectory
(``all_links``) as the categorical belief ``m(G_j) = 1`` on its ``ties`` closest originals,
the truth inside G_j exactly when ``probability > 0``; one linked to no original has all its
mass on "no original" (P(truth) = 0), so the mean P(truth) over the n anonymized trajectories
is RL when every original has one. A result listing only its top links (older jobs) is
refused rather than audited in part. Labels are opaque; a record's frame is its candidates
and its truth.
"""

from __future__ import annotations

import csv
import io
import json
from fractions import Fraction

from flask import current_app, has_app_context

from app.analytics.belief.json_body import BeliefRequestError, exact, read_number
from app.core.belief import LinkageAudit, MassFunction, RecordOutput, audit_linkage
from app.limits import Limits

MAX_RECORDS = 100_000
#: Closest originals (ties) over all the links of a trajectory result (each is a label).
MAX_LABELS = 1_000_000


def _labels(value, where: str) -> list:
    items = value if isinstance(value, list) else [value]
    if not items or any(isinstance(x, bool) or not isinstance(x, str | int) for x in items):
        raise BeliefRequestError(f"{where}: a label or a list of labels")
    return items


def _output(record: str, focal: dict, truth: list, where: str) -> RecordOutput:
    if sum(focal.values()) != 1:  # the sum is not quoted: it is the file's data
        raise BeliefRequestError(f"{where}: the masses do not sum to 1")
    frame = list(dict.fromkeys([x for s in focal for x in sorted(s, key=str)] + truth))
    return RecordOutput(str(record), MassFunction(tuple(frame), focal), frozenset(truth))


def from_json(body, id_problem=None) -> list[RecordOutput]:
    """Per-record outputs from the JSON form, or from a trajectory RL result; ``id_problem``
    bounds each record and label given as text (an id: ``MAX_RECORD_ID_CHARS``)."""
    if isinstance(body, dict) and "records" not in body:
        return from_trajectory(body)
    records = body.get("records") if isinstance(body, dict) else None
    if not isinstance(records, list) or not records:
        raise BeliefRequestError("records: a non-empty list")
    if len(records) > MAX_RECORDS:
        raise BeliefRequestError(f"records: at most {MAX_RECORDS}")
    out = []
    for i, entry in enumerate(records):
        where = f"records[{i}]"
        if not isinstance(entry, dict) or "truth" not in entry:
            raise BeliefRequestError(f"{where}: an object with \"record\", \"truth\" and "
                                     "\"probabilities\" or \"masses\"")  # fmt: skip
        truth = _labels(entry["truth"], f"{where}.truth")
        focal: dict = {}
        if isinstance(entry.get("probabilities"), dict):
            for label, value in entry["probabilities"].items():
                focal[frozenset([label])] = read_number(value, f"{where}.probabilities")
        elif isinstance(entry.get("masses"), list):
            for j, item in enumerate(entry["masses"]):
                if not isinstance(item, dict) or "set" not in item or "mass" not in item:
                    raise BeliefRequestError(f'{where}.masses[{j}]: {{"set": [...], "mass": ...}}')
                subset = frozenset(_labels(item["set"], f"{where}.masses[{j}].set"))
                focal[subset] = focal.get(subset, 0) + read_number(
                    item["mass"], f"{where}.masses[{j}]"
                )
        else:
            raise BeliefRequestError(f'{where}: give "probabilities" or "masses"')
        _check_ids(f"{where}, record", [entry.get("record", i)], id_problem)
        _check_ids(f"{where}, labels", [*truth, *(x for f in focal for x in f)], id_problem)
        out.append(_output(entry.get("record", i), focal, truth, where))
    return out


def _check_ids(where: str, ids, id_problem) -> None:
    """Refuse at ``where`` the first of ``ids`` (texts only) ``id_problem`` refuses."""
    found = (id_problem(x) for x in ids if isinstance(x, str)) if id_problem else ()
    problem = next(filter(None, found), None)
    if problem is not None:
        raise BeliefRequestError(f"{where}: {problem}")


def from_csv(text: str, row_problem=None, id_problem=None) -> list[RecordOutput]:
    """Per-record outputs from ``record,candidates,mass,truth`` rows (``|`` separates labels).

    ``row_problem(fields)`` bounds the header and each row (:meth:`app.limits.Limits.row_problem`),
    ``id_problem(text)`` each record and label (an id: ``MAX_RECORD_ID_CHARS``).
    A message names the line and the column, never a record id, label or mass.
    """
    reader = csv.reader(io.StringIO(text))
    header = [name.strip() for name in next(reader, [])]
    _bounded(row_problem, header, 1)
    needed = ("record", "candidates", "mass", "truth")
    if not set(needed) <= set(header):
        raise BeliefRequestError("CSV: the header must name record, candidates, mass and truth")
    at = {name: header.index(name) for name in needed}
    focal: dict[str, dict] = {}
    truth: dict[str, list] = {}
    first: dict[str, int] = {}  # record -> its first line
    while True:
        line = reader.line_num + 1
        fields = next(reader, None)
        if fields is None:
            break
        if not fields:
            continue
        _bounded(row_problem, fields, line)
        if len(fields) != len(header):
            raise BeliefRequestError(
                f"CSV line {line}: expected {len(header)} fields, found {len(fields)}"
            )
        row = {name: fields[i] for name, i in at.items()}
        record = row["record"]
        labels = [x for x in row["candidates"].split("|") if x]
        if not record or not labels:
            raise BeliefRequestError(f"CSV line {line}: record and candidates are required")
        _check_ids(f"CSV line {line}, record", [record], id_problem)
        _check_ids(f"CSV line {line}, candidates", labels, id_problem)
        first.setdefault(record, line)
        given = [x for x in row["truth"].split("|") if x]
        if given and truth.setdefault(record, given) != given:
            raise BeliefRequestError(
                f"CSV line {line}, truth: another truth than on line {first[record]} for the "
                "same record"
            )
        subset = frozenset(labels)
        bucket = focal.setdefault(record, {})
        bucket[subset] = bucket.get(subset, 0) + read_number(row["mass"], f"CSV line {line}, mass")
    if not focal:
        raise BeliefRequestError("CSV: no rows")
    if len(focal) > MAX_RECORDS:
        raise BeliefRequestError(f"CSV: at most {MAX_RECORDS} records")
    missing = [r for r in focal if r not in truth]
    if missing:
        raise BeliefRequestError(
            f"CSV: {len(missing)} record(s) without a truth, the first on line {first[missing[0]]}"
        )
    return [
        _output(r, focal[r], truth[r], f"CSV line {first[r]} (the record's first row)")
        for r in focal
    ]


def _bounded(row_problem, fields: list[str], line: int) -> None:
    problem = row_problem(fields) if row_problem is not None else None
    if problem is not None:
        raise BeliefRequestError(f"CSV line {line}: {problem}")


def _section(result: dict):
    """The exact (else windowed) section of a job result, the API's job object or a section."""
    if isinstance(result.get("result"), dict):  # GET /api/v1/admin/jobs/<id>
        result = result["result"]
    section = result.get("exact") or result.get("windowed") or result
    return section if isinstance(section, dict) else {}


def _every_link(section: dict) -> list[dict]:
    whole = section.get("all_links")
    if isinstance(whole, dict) and isinstance(whole.get("rows"), list):
        columns = whole.get("columns") or []
        if not isinstance(columns, list) or not {"ties", "probability"} <= set(columns):
            raise BeliefRequestError("all_links: needs the columns ties and probability")
        rows = whole["rows"]
        if len(rows) > MAX_RECORDS:
            raise BeliefRequestError(f"all_links: at most {MAX_RECORDS} trajectories")
        bad = next((i for i, r in enumerate(rows) if not isinstance(r, list)), None)
        if bad is not None or any(len(r) != len(columns) for r in rows):
            raise BeliefRequestError(f"all_links.rows[{bad or 0}]: one value per column")
        return [dict(zip(columns, row, strict=True)) for row in rows]
    links = section.get("links")
    if not isinstance(links, list):
        raise BeliefRequestError('give "records", or a trajectory result with "links"')
    listed, total = len(links), section.get("n_anonymized")
    if isinstance(total, int) and listed < total:
        raise BeliefRequestError(
            f"this result lists only {listed} of its {total} anonymized trajectories (the top "
            "ones): download the whole result from the job's page and audit that"
        )
    return links


def from_trajectory(result: dict) -> list[RecordOutput]:
    """Every anonymized trajectory of a trajectory RL result as ``m(G_j) = 1`` against its
    truth (see the module docstring)."""
    out, labels = [], 0
    for i, link in enumerate(_every_link(_section(result))):
        try:
            ties = link.get("ties")
            ties = int(len(link["closest_ids"]) if ties is None else ties)
            probability = Fraction(str(link["probability"]))
        except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError):
            raise BeliefRequestError(
                f"links[{i}]: needs ties (or closest_ids) and probability"
            ) from None
        if ties < 0 or not 0 <= probability <= 1 or probability > 0 and ties == 0:
            raise BeliefRequestError(f"links[{i}]: ties >= 0 and a probability in [0, 1]")
        labels += ties
        if labels > MAX_LABELS:
            raise BeliefRequestError(f"more than {MAX_LABELS:,} closest originals in all")
        if ties == 0:  # linked to no original: all the mass on that, the truth outside it
            m = MassFunction(("no original", "true original"), {frozenset(["no original"]): 1})
            out.append(
                RecordOutput(str(link.get("anonymized_id", i)), m, frozenset(["true original"]))
            )
            continue
        group = [f"closest {j + 1}" for j in range(ties)]
        truth = [group[0]] if probability > 0 else ["true original"]
        frame = tuple(dict.fromkeys(group + truth))
        m = MassFunction(frame, {frozenset(group): Fraction(1)})
        out.append(RecordOutput(str(link.get("anonymized_id", i)), m, frozenset(truth)))
    return out


def linkage_json(audit: LinkageAudit) -> dict:
    return {
        "summary": {
            "records": len(audit.records),
            "compatible": audit.compatible,
            "overconfident": len(audit.overconfident),
            "support_violations": audit.support_violations,
            "argmax_outside_true_set": audit.argmax_outside,
            "mean_true_probability": exact(audit.mean_true_probability),
        },
        "records": [
            {
                "record": r.record,
                "candidates": r.candidates,
                "compatible": r.compatible,
                "overconfident": r.overconfident,
                "max_violation": exact(r.max_violation),
                "witness_size": r.witness_size,
                "support_ok": r.support_ok,
                "true_probability": exact(r.true_probability),
                "argmax_outside_true_set": r.argmax_outside_true_set,
                "nonspecificity_bits": r.nonspecificity_bits,
            }
            for r in audit.records
        ],
    }


def audit_upload(text: str, filename: str = "") -> dict:
    """Audit an uploaded CSV or JSON linkage output; the JSON report.

    Each CSV row is bounded by the app's limits (:meth:`app.limits.Limits.row_problem`), and
    every record and label of either form is an id (:meth:`app.limits.Limits.id_problem`).
    """
    limits = Limits.of(current_app.config) if has_app_context() else Limits()
    stripped = text.lstrip()
    if filename.lower().endswith(".json") or stripped.startswith(("{", "[")):
        try:
            body = json.loads(text)
        except json.JSONDecodeError:
            raise BeliefRequestError("the file is not valid JSON") from None
        except RecursionError:  # 100,000 nested "[" must be a 400, not a 500
            raise BeliefRequestError("the file's JSON is nested too deeply") from None
        outputs = from_json(body, limits.id_problem)
    else:
        outputs = from_csv(text, limits.row_problem, limits.id_problem)
    try:
        return linkage_json(audit_linkage(outputs))
    except ValueError:  # its message may name a record: say which rule, not which record
        raise BeliefRequestError(
            "the linkage output cannot be audited: every record needs its truth in its frame "
            "and some mass outside the empty set"
        ) from None


def audit_trajectory_result(result: dict) -> dict:
    """Audit the whole result of a trajectory record-linkage job; the JSON report."""
    try:
        return linkage_json(audit_linkage(from_trajectory(result)))
    except ValueError as exc:
        raise BeliefRequestError(str(exc)) from None
