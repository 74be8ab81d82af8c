"""Each reviewer's figures and the project's: agreement, accuracy, pace, alerts.

Read from the current answers of the project's reviewer assignments (``answer_states``; a
resolver's are adjudications, not reviews), the known-truth checks, the adjudicated pairs
(:func:`app.projects.quality.truth.adjudicated`), the decision events' times and the reveal
events' characters. A worker with assignments in several rounds is one reviewer.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from statistics import median

from flask import current_app
from sqlalchemy import func, select

from app.core.quality import (
    Interval,
    cohen_kappa,
    discordance,
    fleiss_kappa,
    paired_answers,
    wilson_interval,
)
from app.extensions import db
from app.models import (
    CLEARED,
    AnswerState,
    Assignment,
    DecisionEvent,
    Project,
    QualityCheck,
    RevealEvent,
    User,
)
from app.projects.quality.alerts import alert_state
from app.projects.quality.truth import adjudicated, known_answers

__all__ = ["CHAR_BINS", "ProjectQuality", "Reviewer", "project_quality"]

#: Characters disclosed of a pair, binned for the accuracy-against-disclosure curve.
CHAR_BINS = ((0, 0), (1, 5), (6, 10), (11, 20), (21, 40), (41, None))
ANSWERS = ("same", "different")


@dataclass
class Reviewer:
    worker: str
    decisions: int = 0
    checks: Interval = field(default_factory=lambda: wilson_interval(0, 0))
    checks_wrong: int = 0
    discordance: float | None = None  # against the other coders, pooled
    discordance_with: dict[str, float] = field(default_factory=dict)
    kappa: dict[str, float | None] = field(default_factory=dict)
    adjudicated: int = 0  # pairs answered that were adjudicated
    against_adjudicated: float | None = None  # discordance with the adjudicated answer
    seconds_per_decision: float | None = None
    decisions_per_hour: float | None = None
    past_break: int = 0
    by_characters: list[Interval] = field(default_factory=list)  # per CHAR_BINS
    flagged: bool = False
    flagged_after: int | None = None
    alert: int | None = None
    alert_state: str | None = None

    def as_dict(self) -> dict:
        c = self.checks
        return {
            "worker": self.worker,
            "decisions": self.decisions,
            "checks_answered": c.trials,
            "checks_wrong": self.checks_wrong,
            "accuracy": {"value": c.value, "low": c.low, "high": c.high, "level": c.level},
            "discordance": self.discordance,
            "discordance_with": self.discordance_with,
            "kappa": self.kappa,
            "adjudicated": self.adjudicated,
            "discordance_adjudicated": self.against_adjudicated,
            "seconds_per_decision": self.seconds_per_decision,
            "decisions_per_hour": self.decisions_per_hour,
            "past_break": self.past_break,
            "accuracy_by_characters": [
                {
                    "characters": _bin_label(b),
                    "answers": i.trials,
                    "accuracy": i.value,
                    "low": i.low,
                    "high": i.high,
                }
                for b, i in zip(CHAR_BINS, self.by_characters, strict=True)
            ],  # fmt: skip
            "flagged": self.flagged,
            "flagged_after": self.flagged_after,
            "alert": self.alert,
            "alert_state": self.alert_state,
        }


@dataclass
class ProjectQuality:
    reviewers: list[Reviewer]
    fleiss: float | None  # Fleiss' kappa over the pairs answered by ``coders`` reviewers
    coders: int | None
    fleiss_items: int
    checks: Interval
    discordance: float | None  # pooled over every pair of coders

    def as_dict(self) -> dict:
        c = self.checks
        return {
            "reviewers": [r.as_dict() for r in self.reviewers],
            "agreement": {
                "measure": "Fleiss' kappa",
                "value": self.fleiss,
                "coders_per_pair": self.coders,
                "pairs": self.fleiss_items,
            },
            "discordance": self.discordance,
            "checks": {"answered": c.trials, "right": c.successes, "accuracy": c.value,
                       "low": c.low, "high": c.high, "level": c.level},
        }  # fmt: skip


def project_quality(project: Project) -> ProjectQuality:
    """Every reviewer's figures and the project's agreement."""
    answers, names = _answers(project.id)  # worker -> {pair: answer}; worker -> name
    expected = _expected(project.id)  # worker -> {pair: expected}
    judged = {pair: a.answer for pair, a in adjudicated(project.id).items()}
    known = known_answers(project)  # ground truth and adjudications
    revealed = _characters(project.id)  # (worker, pair) -> characters
    pace = _pace(project.id)
    alerts = _alerts(project.id)
    reviewers, pooled = [], []
    for worker, mine in answers.items():
        r = Reviewer(names[worker], decisions=len(mine))
        mine_checks = {p: a for p, a in mine.items() if p in expected.get(worker, {})}
        scored = [(a, expected[worker][p]) for p, a in mine_checks.items() if a in ANSWERS]
        right = sum(a == e for a, e in scored)
        r.checks, r.checks_wrong = wilson_interval(right, len(scored)), len(scored) - right
        compared = []
        for other, theirs in answers.items():
            if other == worker:
                continue
            both = paired_answers(mine, theirs)
            if both:
                r.discordance_with[names[other]] = discordance(both)
                r.kappa[names[other]] = cohen_kappa(both)
                compared += both
        r.discordance = discordance(compared)
        pooled += compared
        with_answer = [(a, judged[p]) for p, a in mine.items() if p in judged and a in ANSWERS]
        r.adjudicated = len(with_answer)
        r.against_adjudicated = discordance(with_answer)
        truths = {**known, **expected.get(worker, {})}
        r.by_characters = _by_characters(worker, mine, truths, revealed)
        r.seconds_per_decision, r.decisions_per_hour, r.past_break = pace.get(
            worker, (None, None, 0)
        )
        if worker in alerts:
            r.alert, r.flagged_after, r.alert_state = alerts[worker]
            r.flagged = r.alert_state != "dismissed"
        reviewers.append(r)
    fleiss, coders, items = _fleiss(answers)
    every = [(a, e[p]) for w, e in expected.items() for p, a in answers.get(w, {}).items()
             if p in e and a in ANSWERS]  # fmt: skip
    overall = wilson_interval(sum(a == x for a, x in every), len(every))
    return ProjectQuality(reviewers, fleiss, coders, items, overall, discordance(pooled))


def _answers(project_id: int) -> tuple[dict[int, dict[int, str]], dict[int, str]]:
    rows = db.session.execute(
        select(Assignment.worker_id, User.username, AnswerState.pair_id, AnswerState.decision)
        .join(Assignment, Assignment.id == AnswerState.assignment_id)
        .join(User, User.id == Assignment.worker_id)
        .where(
            Assignment.project_id == project_id,
            Assignment.resolver.is_(False),
            AnswerState.decision != CLEARED,
        )
        .order_by(Assignment.worker_id, AnswerState.pair_id)
    ).all()
    answers: dict[int, dict[int, str]] = defaultdict(dict)
    names: dict[int, str] = {}
    for worker, name, pair, decision in rows:
        answers[worker][pair] = decision
        names[worker] = name
    return dict(answers), names


def _expected(project_id: int) -> dict[int, dict[int, str]]:
    rows = db.session.execute(
        select(Assignment.worker_id, QualityCheck.pair_id, QualityCheck.expected)
        .join(Assignment, Assignment.id == QualityCheck.assignment_id)
        .where(QualityCheck.project_id == project_id)
    ).all()
    out: dict[int, dict[int, str]] = defaultdict(dict)
    for worker, pair, answer in rows:
        out[worker][pair] = answer
    return out


def _characters(project_id: int) -> dict[tuple[int, int], int]:
    rows = db.session.execute(
        select(Assignment.worker_id, RevealEvent.pair_id, func.sum(RevealEvent.chars))
        .join(Assignment, Assignment.id == RevealEvent.assignment_id)
        .where(Assignment.project_id == project_id, Assignment.resolver.is_(False))
        .group_by(Assignment.worker_id, RevealEvent.pair_id)
    ).all()
    return {(w, p): int(c or 0) for w, p, c in rows}


def _by_characters(worker, mine, known, revealed) -> list[Interval]:
    """Accuracy on the pairs with a known answer, by characters the reviewer disclosed."""
    bins = [[0, 0] for _ in CHAR_BINS]
    for pair, answer in mine.items():
        if pair not in known or answer not in ANSWERS:
            continue
        shown = revealed.get((worker, pair), 0)
        i = next(
            i for i, (lo, hi) in enumerate(CHAR_BINS) if shown >= lo and (hi is None or shown <= hi)
        )
        bins[i][0] += answer == known[pair]
        bins[i][1] += 1
    return [wilson_interval(right, n) for right, n in bins]


def _bin_label(b: tuple[int, int | None]) -> str:
    lo, hi = b
    return f"{lo}+" if hi is None else str(lo) if lo == hi else f"{lo}-{hi}"


def _pace(project_id: int) -> dict[int, tuple[float | None, float | None, int]]:
    """Per worker: the median seconds between consecutive decisions of a session, decisions
    per hour of sessions, and how many decisions were made past a break reminder."""
    rows = db.session.execute(
        select(Assignment.worker_id, DecisionEvent.at, DecisionEvent.past_break)
        .join(Assignment, Assignment.id == DecisionEvent.assignment_id)
        .where(
            Assignment.project_id == project_id,
            Assignment.resolver.is_(False),
            DecisionEvent.decision != CLEARED,
        )
        .order_by(Assignment.worker_id, DecisionEvent.at)
    ).all()
    gap = dt.timedelta(minutes=current_app.config.get("BREAK_GAP_MINUTES", 10))
    times: dict[int, list] = defaultdict(list)
    past: dict[int, int] = defaultdict(int)
    for worker, at, marked in rows:
        times[worker].append(at)
        past[worker] += bool(marked)
    out = {}
    for worker, ats in times.items():
        steps = [b - a for a, b in zip(ats, ats[1:], strict=False) if b - a < gap]
        seconds = [s.total_seconds() for s in steps]
        per = median(seconds) if seconds else None
        busy = sum(seconds)
        rate = 3600 * len(seconds) / busy if busy > 0 else None
        out[worker] = (per, rate, past[worker])
    return out


def _alerts(project_id: int) -> dict[int, tuple[int, int, str]]:
    """Per worker, the first alert not dismissed (else the newest): id, decisions, state."""
    from app.models import ReviewerAlert

    rows = db.session.execute(
        select(ReviewerAlert.worker_id, ReviewerAlert.id, ReviewerAlert.after_decisions)
        .where(ReviewerAlert.project_id == project_id)
        .order_by(ReviewerAlert.id)
    ).all()
    out: dict[int, tuple[int, int, str]] = {}
    for worker, alert, after in rows:
        state = alert_state(alert)
        if worker not in out or out[worker][2] == "dismissed":
            out[worker] = (alert, after, state)
    return out


def _fleiss(answers: dict[int, dict[int, str]]) -> tuple[float | None, int | None, int]:
    """Fleiss' kappa over the pairs answered by the most common number (two or more) of
    reviewers, and that number and how many pairs."""
    by_pair: dict[int, list[str]] = defaultdict(list)
    for mine in answers.values():
        for pair, answer in mine.items():
            by_pair[pair].append(answer)
    sizes = defaultdict(int)
    for given in by_pair.values():
        if len(given) >= 2:
            sizes[len(given)] += 1
    if not sizes:
        return None, None, 0
    coders = max(sizes, key=lambda m: (sizes[m], m))
    items = [given for given in by_pair.values() if len(given) == coders]
    return fleiss_kappa(items), coders, len(items)
