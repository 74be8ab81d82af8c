"""Managers' scripts: a project's pairs, scored predictions with triage, rounds, settings."""

from __future__ import annotations

from flask import abort, jsonify, request
from flask_login import current_user

from app.api.blueprint import bp
from app.api.openapi import documented
from app.api.openapi import pairs as schemas
from app.api.projects import json_body
from app.auth.decorators import roles_required
from app.extensions import db
from app.projects.blocking import BlockingRefused
from app.projects.progress.pairs import ListingError, PairFilter, list_pairs
from app.projects.quality import QualitySettingsError, set_quality_settings
from app.projects.reading.predictions import PredictionsError
from app.projects.triage import (
    ItemsError,
    ScoredPairsError,
    TriageError,
    TriageSettings,
    add_blocking_round,
    add_scored_round,
    pairs_from_items,
    preview_scores,
    read_scores,
    reblock_round,
)
from app.projects.triage.summary import round_summaries
from app.projects.views.access import MANAGERS, changeable_project, owned_project

BASE = "/projects/<int:project_id>"
REFUSED = (ItemsError, TriageError, ScoredPairsError, PredictionsError)
UPLOAD = ("application/octet-stream",)


def _int(name: str) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return None
    if not raw.isdigit() or len(raw) > 10:
        abort(400, f"query parameter {name!r} must be a whole number")
    return int(raw)


@bp.get(f"{BASE}/pairs")
@roles_required(*MANAGERS)
@documented(
    "The project's pairs: ids, purpose, round, scores, rule, decision and who decided it",
    ok=schemas.PAIR_LIST,
    query=schemas.PAIR_QUERY,
)
def pairs_view(project_id: int):
    project = owned_project(project_id)
    try:
        filters = PairFilter(
            request.args.get("purpose") or None,
            _int("round"),
            request.args.get("status") or None,
            _int("pair"),
        )
        found = list_pairs(
            project, filters, page=_int("page") or 1, per_page=_int("per_page") or 100,
            after=_int("after"),
        )  # fmt: skip
    except ListingError as exc:
        abort(400, str(exc))
    return jsonify(
        pairs=found.pairs, page=found.page, per_page=found.per_page, total=found.total,
        next_after=found.next_after,
    )  # fmt: skip


def _refused(exc: Exception):
    db.session.rollback()
    problems = getattr(exc, "problems", [str(exc)])
    return jsonify(error="invalid_pairs", message="; ".join(problems[:5]), problems=problems), 400


def _round_json(made) -> dict:
    return {
        "round": made.number,
        "origin": made.origin,
        "counts": made.counts,
        "triage": made.triage,
    }


def _sources() -> dict[str, str] | None:
    given = {label: request.args.get(f"source_{label.lower()}") for label in ("A", "B")}
    given = {label: name for label, name in given.items() if name}
    return given or None


@bp.post(f"{BASE}/predictions")
@roles_required("manager")
@documented(
    "Import a linker's scored pairs (Splink predict output, CSV or Parquet) as a new round, "
    "triaged by the query's thresholds; ?preview=true counts without writing",
    ok=schemas.ROUND,
    status=201,
    query=schemas.PREDICTIONS_QUERY,
    upload=UPLOAD,
)
def predictions_view(project_id: int):
    """The body is the file itself; ``lower``/``upper`` (and the rest) are query parameters."""
    project = changeable_project(project_id)
    upload = request.files.get("file")
    data = upload.read() if upload is not None else request.get_data(cache=False)
    if not data:
        abort(400, "send the scored pairs file as the request body (CSV or Parquet)")
    preview = request.args.get("preview", "false").lower() in ("1", "true", "yes")
    raw = {k: v for k, v in request.args.items() if k not in ("preview", "source_a", "source_b")}
    try:
        scored = read_scores(data)
        settings = TriageSettings.parse(raw) if raw else None
        if preview:
            if settings is None:
                abort(400, "a preview needs the triage thresholds 'lower' and 'upper'")
            found = preview_scores(project, scored, settings, sources=_sources())
            db.session.rollback()
            return jsonify(counts=found.counts, histogram=found.chart, sources=found.datasets)
        made = add_scored_round(
            project, scored, settings, current_user, sources=_sources(),
            filename=upload.filename if upload is not None else None,
        )  # fmt: skip
    except REFUSED as exc:
        return _refused(exc)
    db.session.commit()
    return jsonify(_round_json(made)), 201


@bp.post(f"{BASE}/rounds")
@roles_required("manager")
@documented(
    "Add a round: scored pairs (JSON, with triage), our blocking rules, or iterative blocking "
    "of one representative per current cluster (reblock)",
    body=schemas.round_spec,
    ok=schemas.ROUND,
    status=201,
)
def add_round_view(project_id: int):
    project = changeable_project(project_id)
    body = json_body()
    given = [k for k in ("pairs", "blocking", "reblock") if body.get(k) is not None]
    if len(given) != 1:
        abort(400, "give exactly one of 'pairs', 'blocking' or 'reblock'")
    try:
        if given[0] == "pairs":
            scored = pairs_from_items(body["pairs"])
            raw = body.get("triage")
            settings = None if raw is None else TriageSettings.parse(raw)
            made = add_scored_round(project, scored, settings, current_user, item="pair")
        elif given[0] == "blocking":
            made = add_blocking_round(project, body["blocking"], current_user)
        else:
            made = reblock_round(project, body["reblock"], current_user)
    except REFUSED as exc:
        return _refused(exc)
    except BlockingRefused as exc:
        db.session.rollback()
        abort(400, str(exc))
    db.session.commit()
    return jsonify(_round_json(made)), 201


@bp.get(f"{BASE}/rounds")
@roles_required(*MANAGERS)
@documented("The project's rounds: origin, triage settings and counts", ok=schemas.ROUNDS)
def rounds_view(project_id: int):
    project = owned_project(project_id)
    return jsonify(rounds=[r.as_json() for r in round_summaries(project)])


@bp.post(f"{BASE}/settings")
@roles_required("manager")
@documented(
    "Change a project's settings: show_scores (whether workers see the linker's scores),"
    " advice_hint and advice_reviewer (the advisor's hint on the worker's page),"
    " alert_error_rate, break_minutes and break_decisions (reviewer quality)",
    body=schemas.SETTINGS_BODY,
    ok=schemas.SETTINGS_BODY,
)
def settings_view(project_id: int):
    project = changeable_project(project_id)
    body = json_body()  # checked: at least one of the three, nothing else
    for name in ("show_scores", "advice_hint", "advice_reviewer"):
        if name in body:
            setattr(project, name, body[name])
    quality = ("alert_error_rate", "break_minutes", "break_decisions")
    if any(name in body for name in quality):
        try:
            set_quality_settings(project, *(body.get(n, getattr(project, n)) for n in quality))
        except QualitySettingsError as exc:
            db.session.rollback()
            abort(400, str(exc))
    db.session.commit()
    return jsonify(
        show_scores=project.show_scores,
        advice_hint=project.advice_hint,
        advice_reviewer=project.advice_reviewer,
        **{name: getattr(project, name) for name in quality},
    )
