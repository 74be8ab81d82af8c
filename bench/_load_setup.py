"""Set up and audit ``bench/load.py``: the study (project, workers, assignments, tokens), the
audit of budgets and events afterwards, and the PostgreSQL backends serving the bench.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache

import sqlalchemy as sa

from app.auth.services import create_user, issue_token
from app.extensions import db
from app.models import Assignment, DecisionEvent, Pair, RevealEvent
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs

SMALL_BUDGET = 0.02  # every fourth worker's: refusals must happen and must hold


def make_study(spec: dict, n_workers: int, n_pairs: int) -> dict:
    """A project, ``n_workers`` workers with disjoint assignments, a burster and a bystander
    (``n_workers + 4`` chunks of ``n_pairs`` pairs)."""
    manager, _ = create_user("load-manager", "manager")
    project = create_project(spec, manager)
    ids = db.session.scalars(
        sa.select(Pair.id).where(Pair.project_id == project.id).order_by(Pair.id)
    ).all()

    def worker(name: str, chunk: int, budget: float, chunks: int = 1) -> dict:
        user, _ = create_user(name, "worker")
        pairs = ids[chunk * n_pairs : (chunk + chunks) * n_pairs]
        assignment = assign_pairs(project, user, budget, pair_ids=pairs)
        return {
            "assignment": assignment.id,
            "token": issue_token(user),
            "pairs": list(pairs),
            "budget": budget,
        }

    workers = [
        worker(f"load-{i}", i, SMALL_BUDGET if i % 4 == 3 else 1.0) for i in range(n_workers)
    ]
    burster = worker("load-burst", n_workers, 1.0)
    # the bystander reveals through every phase: two chunks of pairs, the whole KAPR budget
    bystander = worker("load-bystander", n_workers + 1, 1.0, chunks=2)
    study = {"workers": workers, "burster": burster, "bystander": bystander}
    db.session.commit()
    return study


def audit(study: dict, results: list[dict]) -> tuple[int, int]:
    """(budget overruns, lost events) over every assignment of the study.

    An overrun is an assignment whose KAPR is above its budget or whose events do not chain
    (each starts where the previous ended, the last ends at the stored KAPR). A lost event is
    a reveal answered 200 without an event, or an event without an answer; likewise for
    answers (decisions answered 201 against decision events).
    """
    overruns = lost = 0
    for worker in [*study["workers"], study["burster"], study["bystander"]]:
        assignment = db.session.get(Assignment, worker["assignment"])
        events = db.session.scalars(
            sa.select(RevealEvent)
            .where(RevealEvent.assignment_id == assignment.id)
            .order_by(RevealEvent.id)
        ).all()
        kapr, chained = Fraction(0), True
        for event in events:
            chained &= Fraction(event.kapr_before_exact) == kapr
            kapr += Fraction(event.cost_exact)
            chained &= Fraction(event.kapr_after_exact) == kapr
        chained &= Fraction(assignment.kapr_exact) == kapr
        if not chained or kapr > Fraction(repr(assignment.budget)):
            overruns += 1
        answered = sum(r["answered"].get(assignment.id, 0) for r in results)
        answered += (
            sum(r.get("by_answered", 0) for r in results) if worker is study["bystander"] else 0
        )
        lost += abs(answered - len(events))
    decided = sum(r["decisions"] for r in results)
    stored = db.session.scalar(sa.select(sa.func.count()).select_from(DecisionEvent))
    lost += abs(decided - stored)
    return overruns, lost


@cache
def _admin(url: str) -> sa.Engine:
    url = re.sub(r"^postgres(ql)?(\+psycopg)?://", "postgresql+psycopg://", url)
    return sa.create_engine(url, isolation_level="AUTOCOMMIT", pool_size=1)


def pg_backends(url: str, application_name: str) -> list[int]:
    """The pids of the PostgreSQL backends whose client calls itself ``application_name``."""
    with _admin(url).connect() as conn:
        query = sa.text("SELECT pid FROM pg_stat_activity WHERE application_name = :name")
        return list(conn.execute(query, {"name": application_name}).scalars())
