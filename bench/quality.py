"""Early alerts on reviewers: simulated reviewers with known error rates, through the JSON API.

    .venv/bin/python bench/quality.py [--quick] [--streams N] [--share S] [--postgres URL]

One project of synthetic voters (``tests/projects/quality/conftest.py``, its ground truth the
generator's clusters). Each *stream* is a new reviewer with an assignment of every pair and
synthetic checks at ``--share`` (``POST /api/v1/projects/<id>/assignments`` with ``checks``),
who answers pair after pair in the assignment's order through
``POST /api/v1/assignments/<id>/decisions``, wrong with a fixed probability on every pair (a
check's answer is the generator's, a real pair's the truth's), seeded per stream.

- **Careless** reviewers (59 % wrong, the worst reviewer of Gupta et al. 2024) answer until
  the project's alert flags them; the figure is the share of streams flagged before their
  50th decision (``flagged_after`` of ``GET /api/v1/projects/<id>/reviewers`` < 50).
- **Careful** reviewers (2 % wrong) answer every pair; each alert is dismissed
  (``POST .../alerts/<id>``) and the test starts again, so the figure is false alerts per
  1,000 decisions.

The rule is the project's default (threshold 20 %, ``ALERT_P0_SHARE``, ``ALERT_ALPHA``,
``ALERT_BETA`` of ``config.py``). The oracle: each stream's check answers are run through the
same :class:`app.core.quality.Sprt` offline; its first alert must fall on the decision the
API raised it at (exit status 1 otherwise, ``bench/_check.py``). Also printed: the same
careless reviewers at a 5 % share (the usual share, and why the figure above needs more).
``--quick``: 3 streams of each kind on a smaller project.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _check import agree, finish, quick_postgres  # noqa: E402
from _kapr_setup import bench_app  # noqa: E402

from app.analytics.utility import truth_from_vault  # noqa: E402
from app.core.quality import Sprt  # noqa: E402
from app.extensions import db  # noqa: E402
from app.models import AssignmentPair, QualityCheck, ReviewerAlert  # noqa: E402
from app.projects.lifecycle import create_project  # noqa: E402
from app.projects.quality import alert_rule  # noqa: E402
from tests.factories import make_token, make_user  # noqa: E402
from tests.projects.quality.conftest import voters_spec  # noqa: E402

FLIP = {"same": "different", "different": "same"}
CARELESS, CAREFUL, BEFORE = 0.59, 0.02, 50


def _headers(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


class World:
    """The project, its manager and the truth of its real pairs."""

    def __init__(self, app, records: int):
        self.app, self.client = app, app.test_client()
        with app.app_context():
            manager = make_user("manager", "manager")
            project = create_project(voters_spec(records, seed=11), owner=manager)
            db.session.commit()
            self.project_id, self.manager = project.id, _headers(make_token(manager))
            truth = truth_from_vault(project, "cluster_id")
            self.truth = {p: "same" if same else "different" for p, same in truth.items()}
            self.rule: Sprt = alert_rule(project)
        self.workers = 0

    def reviewer(self, share: float) -> tuple[int, dict, list[tuple[int, int]], dict]:
        """A new worker's assignment with checks: its id, headers, (handle, pair) in order and
        the checks' answers."""
        self.workers += 1
        with self.app.app_context():
            worker = make_user(f"r{self.workers}", "worker")
            headers, name = _headers(make_token(worker)), worker.username
        body = {"worker": name, "budget": 1.0, "checks": {"share": share, "source": "synthetic"}}
        made = self.client.post(
            f"/api/v1/projects/{self.project_id}/assignments", json=body, headers=self.manager
        )
        assert made.status_code == 201, made.get_json()
        assignment = made.get_json()["id"]
        with self.app.app_context():
            links = db.session.scalars(
                db.select(AssignmentPair)
                .where(AssignmentPair.assignment_id == assignment)
                .order_by(AssignmentPair.position)
            ).all()
            order = [(link.handle, link.pair_id) for link in links]
            checks = dict(
                db.session.execute(
                    db.select(QualityCheck.pair_id, QualityCheck.expected).where(
                        QualityCheck.assignment_id == assignment
                    )
                ).all()
            )
        return assignment, headers, order, checks

    def stream(self, error: float, share: float, seed: int, stop_at_alert: bool) -> dict:
        """One reviewer answering with ``error``; the API's alerts and the check trials."""
        assignment, headers, order, checks = self.reviewer(share)
        rng = np.random.default_rng(seed)
        url = f"/api/v1/assignments/{assignment}/decisions"
        trials, alerts, decisions = [], [], 0
        for handle, pair in order:
            right = checks.get(pair) or self.truth.get(pair, "different")
            wrong = bool(rng.random() < error)
            body = {"pair_id": handle, "decision": FLIP[right] if wrong else right,
                    "confidence": "high"}  # fmt: skip
            answered = self.client.post(url, json=body, headers=headers)
            assert answered.status_code == 201, answered.get_json()
            decisions += 1
            if pair not in checks:
                continue
            trials.append((decisions, wrong))
            with self.app.app_context():
                raised = db.session.scalars(
                    db.select(ReviewerAlert)
                    .where(ReviewerAlert.assignment_id == assignment)
                    .order_by(ReviewerAlert.id)
                ).all()
            if len(raised) > len(alerts):
                alerts.append(raised[-1].after_decisions)
                if stop_at_alert:
                    break
                dismiss = f"/api/v1/projects/{self.project_id}/alerts/{raised[-1].id}"
                done = self.client.post(dismiss, json={"action": "dismiss"}, headers=self.manager)
                assert done.status_code == 200, done.get_json()
        return {"assignment": assignment, "decisions": decisions, "alerts": alerts,
                "trials": trials}  # fmt: skip

    def flagged_after(self) -> dict[int, int | None]:
        """``flagged_after`` per reviewer from ``GET /api/v1/projects/<id>/reviewers``."""
        found = self.client.get(
            f"/api/v1/projects/{self.project_id}/reviewers", headers=self.manager
        )
        assert found.status_code == 200
        return {r["worker"]: r["flagged_after"] for r in found.get_json()["reviewers"]}


def oracle(rule: Sprt, trials: list[tuple[int, bool]], stop_at_alert: bool) -> list[int]:
    """The decisions the rule flags at, offline: restarted after each (dismissed) alert."""
    found, start = [], 0
    while start < len(trials):
        state = rule.run(wrong for _d, wrong in trials[start:])
        if state.flagged_at is None:
            break
        found.append(trials[start + state.flagged_at - 1][0])
        if stop_at_alert:
            break
        start += state.flagged_at
    return found


def careless(world: World, streams: int, share: float, seed: int) -> dict:
    before, delays, runs = 0, [], []
    for i in range(streams):
        run = world.stream(CARELESS, share, seed + i, stop_at_alert=True)
        agree(run["alerts"] == oracle(world.rule, run["trials"], True),
              f"careless stream {i}: API alerts {run['alerts']} vs the rule offline")  # fmt: skip
        runs.append(run)
    flagged = world.flagged_after()
    for i, run in enumerate(runs):
        after = run["alerts"][0] if run["alerts"] else None
        agree(flagged.get(f"r{world.workers - streams + i + 1}") == after,
              f"careless stream {i}: flagged_after of the reviewers endpoint")  # fmt: skip
        if after is not None:
            delays.append(after)
            before += after < BEFORE
    return {"streams": streams, "before": before, "delays": delays}


def careful(world: World, streams: int, share: float, seed: int) -> dict:
    alerts, decisions = 0, 0
    for i in range(streams):
        run = world.stream(CAREFUL, share, seed + 10_000 + i, stop_at_alert=False)
        agree(run["alerts"] == oracle(world.rule, run["trials"], False),
              f"careful stream {i}: API alerts {run['alerts']} vs the rule offline")  # fmt: skip
        alerts += len(run["alerts"])
        decisions += run["decisions"]
    return {"streams": streams, "alerts": alerts, "decisions": decisions}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--share", type=float, default=0.25)
    parser.add_argument("--postgres")
    args = parser.parse_args(argv)
    streams = 3 if args.quick else args.streams
    records = 120 if args.quick else 600
    postgres = quick_postgres() if args.quick else args.postgres
    started = time.perf_counter()
    with (
        tempfile.TemporaryDirectory() as tmp,
        bench_app(Path(tmp), postgres, RATELIMIT_ENABLED=False) as app,
    ):
        world = World(app, records)
        rule = world.rule
        print(f"rule: SPRT p0={rule.p0:g} p1={rule.p1:g} alpha={rule.alpha:g} "
              f"beta={rule.beta:g} (a={rule.upper:.3f}, b={rule.lower:.3f})")  # fmt: skip
        print(f"Wald's one-test false-alert chance at 2% error: {rule.false_alert(CAREFUL):.2e}")
        bad = careless(world, streams, args.share, seed=1)
        good = careful(world, streams, args.share, seed=1)
        usual = careless(world, streams if args.quick else 100, 0.05, seed=5_000)
    elapsed = time.perf_counter() - started
    share = f"{args.share:.0%}"
    delays = bad["delays"]
    spread = (
        f"flagged after a median of {np.median(delays):.0f} decisions (90th percentile "
        f"{np.percentile(delays, 90):.0f})"
        if delays
        else "none flagged"
    )
    print(
        f"\ncareless reviewers (59% wrong), checks at {share}: {bad['before']} of "
        f"{bad['streams']} streams flagged before their {BEFORE}th decision "
        f"({bad['before'] / bad['streams']:.1%}); {spread}"
    )
    rate = 1000 * good["alerts"] / max(good["decisions"], 1)
    print(
        f"careful reviewers (2% wrong), checks at {share}: {good['alerts']} false alerts in "
        f"{good['decisions']:,} decisions ({rate:.3f} per 1,000 decisions)"
    )
    late = usual["delays"]
    when = f"a median of {np.median(late):.0f} decisions" if late else "none flagged"
    print(
        f"careless reviewers, checks at 5%: {usual['before']} of {usual['streams']} flagged "
        f"before their {BEFORE}th decision; {len(late)} flagged at all, after {when}"
    )
    print(f"{streams * 3} streams in {elapsed:.0f} s")  # fmt: skip
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
