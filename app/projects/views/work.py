"""A project's work: blocking into pairs, assignments and budgets, progress."""

from __future__ import annotations

from flask import abort, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy import select

from app import charts
from app.analytics.kapr import collusion_kapr
from app.analytics.utility import default_truth_column
from app.auth.decorators import roles_required
from app.extensions import db
from app.models import Assignment, Role, User
from app.projects.blocking import TRANSFORMS, BlockingRefused, create_pairs, preview_blocking
from app.projects.progress import project_progress
from app.projects.progress.charts import CHARTS as PROGRESS_CHARTS
from app.projects.quality import CheckError, parse_checks, project_alerts
from app.projects.staffing import AssignmentError, assign_workers, change_budget
from app.projects.staffing.jobs import find_assignment_job, needs_job, submit_assignment
from app.projects.staffing.recommendation import (
    distribution_chart,
    form_recommendation,
    sample_size,
)
from app.projects.staffing.recommending import runs_as_job
from app.projects.triage import add_blocking_round, reblock_round
from app.projects.triage.summary import round_summaries
from app.projects.views.access import MANAGERS, changeable_project, owned_project
from app.projects.views.blueprint import bp
from app.projects.views.forms import (
    KEY_SLOTS,
    RULE_SLOTS,
    FormError,
    parse_assignments,
    parse_rules,
)
from app.units import parse_percent, percent


def _blocking_page(project, preview=None, problems=(), status=200):
    return render_template(
        "projects/blocking.html", project=project, preview=preview, problems=list(problems),
        transforms=TRANSFORMS, rule_slots=RULE_SLOTS, key_slots=KEY_SLOTS, form=request.form,
        rounds=round_summaries(project), assigned=_assigned(project),
    ), status  # fmt: skip


def _assigned(project) -> bool:
    query = select(Assignment.id).where(Assignment.project_id == project.id).limit(1)
    return db.session.scalar(query) is not None


@bp.route("/<int:project_id>/blocking", methods=["GET", "POST"])
@roles_required(*MANAGERS)
def blocking(project_id: int):
    if request.method == "GET":
        return _blocking_page(owned_project(project_id))
    project = changeable_project(project_id)
    action = request.form.get("action")
    try:
        rules = parse_rules(request.form)
        if action == "round":  # the new pairs of these rules, as the next round
            made = add_blocking_round(project, rules, current_user)
        elif action == "reblock":  # MINDFIRL's iterative blocking over the current clusters
            made = reblock_round(project, rules, current_user)
        elif action == "create":
            made = create_pairs(project, rules)
        else:
            return _blocking_page(project, preview_blocking(project, rules))
    except (FormError, BlockingRefused) as exc:
        db.session.rollback()
        return _blocking_page(project, problems=getattr(exc, "problems", [str(exc)]), status=400)
    db.session.commit()
    if action == "create":
        flash(f"{made:,} pairs created.", "info")
    else:
        flash(f"Round {made.number}: {made.counts['pairs']:,} new pairs to review.", "info")
    return redirect(url_for("projects.project", project_id=project.id))


def _workers() -> list[User]:
    query = select(User).where(User.role == Role.WORKER, User.active.is_(True))
    return db.session.scalars(query.order_by(User.username)).all()


@bp.route("/<int:project_id>/assignments", methods=["GET", "POST"])
@roles_required(*MANAGERS)
def assignments(project_id: int):
    project = (owned_project if request.method == "GET" else changeable_project)(project_id)
    workers = _workers()
    page = "projects/assignments.html"
    advice, n_pairs = form_recommendation(project, inline=not runs_as_job(project))
    shown = {"project": project, "workers": workers, "form": request.form, "advice": advice,
             "n_pairs": n_pairs, "rounds": round_summaries(project),
             "sample": sample_size()}  # fmt: skip
    if advice is not None:
        shown["advice_chart"] = distribution_chart(advice)
    if request.method == "GET":
        return render_template(page, problems=[], **shown)
    try:
        plan = parse_assignments(
            request.form, [w.username for w in workers], [a.name for a in project.identifying]
        )
        if needs_job(project, plan["round"]):  # a large round: a job, and its progress page
            job_id = submit_assignment(project, plan, current_user)
            return redirect(url_for(".assignment_job", project_id=project.id, job_id=job_id))
        made = assign_workers(
            project, plan["workers"], coders=plan["coders"],
            start_partial=plan["start_partial"], page_size=plan["page_size"], round=plan["round"],
            checks=parse_checks(plan["checks"]),
        )  # fmt: skip
    except (FormError, AssignmentError, CheckError) as exc:
        db.session.rollback()
        problems = getattr(exc, "problems", [str(exc)])
        return render_template(page, problems=problems, **shown), 400
    db.session.commit()
    flash(f"{len(made)} assignment(s) created.", "info")
    return redirect(url_for("projects.progress", project_id=project.id))


@bp.get("/<int:project_id>/assignments/jobs/<int:job_id>")
@roles_required(*MANAGERS)
def assignment_job(project_id: int, job_id: int):
    """An assignment job's progress (the page refreshes itself), then what it made."""
    project = owned_project(project_id)
    job = find_assignment_job(project, job_id, current_user)
    if job is None:
        abort(404, "no such assignment job")
    return render_template("projects/assign_job.html", project=project, job=job)


@bp.post("/<int:project_id>/assignments/<int:assignment_id>/budget")
@roles_required("manager")  # the owning manager only, as in the API (README, Security model)
def budget(project_id: int, assignment_id: int):
    project = changeable_project(project_id)
    assignment = db.session.get(Assignment, assignment_id)
    if assignment is None or assignment.project_id != project.id:
        return redirect(url_for("projects.progress", project_id=project.id))
    try:
        budget = parse_percent(request.form.get("budget", ""), "the new budget")
        change_budget(assignment, budget, by=current_user)
    except (ValueError, AssignmentError) as exc:
        db.session.rollback()
        flash(f"Budget not changed: {exc}", "error")
    else:
        db.session.commit()
        flash(
            f"Budget of {assignment.worker.username} set to {percent(assignment.budget)} "
            "of the maximum KAPR.",
            "info",
        )
    return redirect(url_for("projects.progress", project_id=project.id) + "#workers")


@bp.route("/<int:project_id>/progress")
@roles_required(*MANAGERS)
def progress(project_id: int):
    project = owned_project(project_id)
    return render_template(
        "projects/progress.html",
        project=project,
        progress=project_progress(project),
        collusion=collusion_kapr(project),
        column=default_truth_column(project),
        charts={name: build(project) for name, build in PROGRESS_CHARTS.items()},
        alerts=project_alerts(project.id),
        workers=_workers(),
    )


@bp.route("/<int:project_id>/progress/<name>.<ext>")
@roles_required(*MANAGERS)
def progress_chart_data(project_id: int, name: str, ext: str):
    """One progress chart's data: ``.csv`` (its table) or ``.json`` (its spec)."""
    build = PROGRESS_CHARTS.get(name)
    if build is None or ext not in ("csv", "json"):
        abort(404, "no such chart")
    spec = build(owned_project(project_id))
    if ext == "json":
        return jsonify(spec), 200, {"Cache-Control": "no-store"}
    return charts.spec_csv_response(spec, f"progress_{project_id}_{name}.csv")
