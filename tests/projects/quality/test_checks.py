"""Known-truth checks in an assignment: where they come from, what they cost, what they touch.

The property tests act on a worker's synthetic checks only (reveals, answers, clears) and
require that nothing real moved: no real KAPR, budget, accountability row, KAPR report row,
pooled KAPR or export byte.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from app.analytics.kapr import collusion_kapr, kapr_csv, kapr_report, pooled_state
from app.extensions import db
from app.models import Assignment, AssignmentPair, Pair, Project, ProjectState, QualityCheck
from app.projects.custody import disclosure_summary, project_disclosures
from app.projects.exports import KINDS, ExportRefused, export_csv
from app.projects.lifecycle.delete import delete_project
from tests.projects.quality.conftest import voters

H = lambda token: {"Authorization": f"Bearer {token}"}  # noqa: E731


def assign(client, project_id, manager, worker="ann", **body):
    body = {"worker": worker, "budget": 0.3, **body}
    return client.post(f"/api/v1/projects/{project_id}/assignments", json=body, headers=H(manager))


@pytest.fixture
def checked(app, client):
    """Ann's assignment of every pair with 20 % synthetic checks, Bob's without."""
    project_id, manager, tokens = voters(app)
    ann = assign(client, project_id, manager, checks={"share": 0.2, "source": "synthetic"})
    bob = assign(client, project_id, manager, worker="bob")
    assert ann.status_code == bob.status_code == 201, ann.get_json()
    return project_id, manager, tokens, ann.get_json()["id"], bob.get_json()["id"]


def links(assignment_id):
    return db.session.scalars(
        select(AssignmentPair)
        .where(AssignmentPair.assignment_id == assignment_id)
        .order_by(AssignmentPair.position)
    ).all()


def checks_of(assignment_id) -> dict[int, str]:
    rows = db.session.execute(
        select(QualityCheck.pair_id, QualityCheck.expected).where(
            QualityCheck.assignment_id == assignment_id
        )
    )
    return dict(rows.all())


def test_synthetic_checks_are_the_share_asked_in_random_order_under_handles(app, checked):
    project_id, _m, _t, ann, bob = checked
    with app.app_context():
        mine, theirs = links(ann), links(bob)
        checks = checks_of(ann)
        real = len(theirs)
        assert len(checks) == db.session.get(Assignment, ann).synthetic_pairs
        assert len(mine) == real + len(checks)
        assert len(checks) / len(mine) == pytest.approx(0.2, abs=0.01)
        handles = [link.handle for link in mine]
        assert all(h is not None and 2**48 < h < 2**53 for h in handles)
        assert len(set(handles)) == len(handles)
        assert all(link.handle is None for link in theirs)  # no checks: pairs keep their ids
        # the checks are spread through the assignment, not kept at its end
        positions = [i for i, link in enumerate(mine) if link.pair_id in checks]
        assert min(positions) < len(mine) / 2 < max(positions)
        # each check is a pair of the checks project, never the real project's
        shadow = db.session.scalars(select(Project).where(Project.checks_of == project_id)).one()
        assert shadow.state == ProjectState.CHECKS
        owners = set(db.session.scalars(select(Pair.project_id).where(Pair.id.in_(list(checks)))))
        assert owners == {shadow.id}
        assert set(checks.values()) == {"same", "different"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"share": 0}, "share"),
        ({"share": 0.9}, "share"),
        ({"share": 0.1, "source": "gold"}, "source"),
    ],
)
def test_bad_checks_are_refused(app, client, body, message):
    project_id, manager, _ = voters(app)
    response = assign(client, project_id, manager, checks=body)
    assert response.status_code == 400
    assert message in response.get_json()["message"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [({"evidence_model": "pair"}, "row evidence model"), ({"show_scores": True}, "scores")],
)
def test_synthetic_checks_refused_where_they_would_show(app, client, spec, message):
    project_id, manager, _ = voters(app)
    if "show_scores" in spec:
        with app.app_context():
            db.session.get(Project, project_id).show_scores = True
            db.session.commit()
    else:
        with app.app_context():
            db.session.get(Project, project_id).evidence_model = "pair"
            db.session.commit()
    response = assign(client, project_id, manager, checks={"share": 0.1})
    assert response.status_code == 400
    assert message in response.get_json()["message"]


def test_truth_checks_are_real_pairs_with_their_known_answer(app, client):
    project_id, manager, tokens = voters(app)
    response = assign(client, project_id, manager, checks={"share": 0.1, "source": "truth"})
    assert response.status_code == 201
    with app.app_context():
        aid = response.get_json()["id"]
        checks = checks_of(aid)
        assert checks and db.session.get(Assignment, aid).synthetic_pairs == 0
        owners = set(db.session.scalars(select(Pair.project_id).where(Pair.id.in_(list(checks)))))
        assert owners == {project_id}
        handle = next(link.handle for link in links(aid) if link.pair_id in checks)
    # a truth check is a real pair: its reveal is charged as usual
    reveal = {"pair_id": handle, "row": 0, "attribute": "last_name"}
    answer = client.post(f"/api/v1/assignments/{aid}/reveal", json=reveal, headers=H(tokens["ann"]))
    assert answer.status_code == 200
    with app.app_context():
        stored = db.session.get(Assignment, aid)
        assert Fraction(stored.kapr_exact) > 0 and stored.checks_kapr_exact == "0"


def snapshot(app, project_id: int, bob: int) -> dict:
    """Everything real a check must not change."""
    with app.app_context():
        project = db.session.get(Project, project_id)
        exports = {}
        for kind in KINDS:
            try:
                exports[kind] = export_csv(project, kind)
            except ExportRefused as exc:
                exports[kind] = f"refused: {exc}"
        pooled, collusion = pooled_state(project), collusion_kapr(project)
        return {
            "exports": exports,
            "disclosures": list(project_disclosures(project)),
            "summary": disclosure_summary(project),
            "pooled": (pooled.n_pairs, collusion and str(collusion.value)),
            "kapr_report": kapr_csv(kapr_report()),
            "assignments": [
                (a.kapr_exact, a.budget, a.worker_id)
                for a in db.session.scalars(select(Assignment).order_by(Assignment.id))
            ],
        }


def test_the_pooled_state_counts_the_real_pairs_only(app, checked):
    """KAPR's N counts real pairs: the pooled state of the progress page (disclosed pairs
    loaded, the rest counted by the database) takes the synthetic checks out, as the full
    listing does; with no assignment holding a check, nothing is taken out."""
    project_id, _m, _t, ann, bob = checked
    with app.app_context():
        project = db.session.get(Project, project_id)
        real = len(links(bob))  # Bob holds every real pair, Ann the same and her checks
        assert len(links(ann)) > real
        for ids in ([ann, bob], [ann], [bob], None):
            full = pooled_state(project, ids).n_pairs
            assert pooled_state(project, ids, disclosed_only=True).n_pairs == full == real


def test_checks_change_nothing_real(app, client, checked):
    project_id, _manager, tokens, ann, bob = checked
    with app.app_context():
        checks = checks_of(ann)
        handles = {link.pair_id: link.handle for link in links(ann)}
    names = sorted(handles[p] for p in checks)
    before = snapshot(app, project_id, bob)
    attributes = ["voter_reg_num", "first_name", "last_name", "dob", "sex"]
    action = st.tuples(
        st.sampled_from(["reveal", "answer", "clear"]),
        st.sampled_from(names),
        st.integers(0, 1),
        st.sampled_from(attributes),
        st.sampled_from(["same", "different"]),
    )

    @settings(
        max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )
    @given(st.lists(action, min_size=1, max_size=6))
    def run(actions):
        for kind, name, row, attribute, decision in actions:
            url = f"/api/v1/assignments/{ann}"
            if kind == "reveal":
                body = {"pair_id": name, "row": row, "attribute": attribute}
                response = client.post(f"{url}/reveal", json=body, headers=H(tokens["ann"]))
                assert response.status_code in (200, 409)
            elif kind == "answer":
                body = {"pair_id": name, "decision": decision, "confidence": "high"}
                response = client.post(f"{url}/decisions", json=body, headers=H(tokens["ann"]))
                assert response.status_code == 201
            else:
                body = {"pair_id": name}
                response = client.post(
                    f"{url}/decisions/clear", json=body, headers=H(tokens["ann"])
                )
                assert response.status_code in (201, 400)
        assert snapshot(app, project_id, bob) == before

    run()
    with app.app_context():
        stored = db.session.get(Assignment, ann)
        assert stored.kapr_exact == "0"  # nothing real was revealed
        meter = client.get(f"/api/v1/assignments/{ann}", headers=H(tokens["ann"])).get_json()
        assert Fraction(meter["assignment"]["kapr_exact"]) == Fraction(stored.checks_kapr_exact)


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(picks=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 1), st.integers(0, 4)),
                      min_size=1, max_size=5))  # fmt: skip
def test_real_reveals_cost_the_same_with_and_without_checks(app, client, checked, picks):
    """Ann (with checks) and Bob (without) reveal the same real cells: their real KAPRs are
    equal step by step, and each of Ann's costs is Bob's: N counts the real rows only."""
    _p, _m, tokens, ann, bob = checked
    attributes = ["voter_reg_num", "first_name", "last_name", "dob", "sex"]
    with app.app_context():
        real = [link.pair_id for link in links(bob)]
        handles = {link.pair_id: link.handle for link in links(ann)}
    for pick, row, a in picks:
        pair = real[pick % len(real)]
        cell = {"row": row, "attribute": attributes[a]}
        mine = client.post(
            f"/api/v1/assignments/{ann}/reveal", json={"pair_id": handles[pair], **cell},
            headers=H(tokens["ann"]),
        )  # fmt: skip
        theirs = client.post(
            f"/api/v1/assignments/{bob}/reveal", json={"pair_id": pair, **cell},
            headers=H(tokens["bob"]),
        )  # fmt: skip
        assert mine.status_code == theirs.status_code
        if mine.status_code == 200:
            assert mine.get_json()["cost_exact"] == theirs.get_json()["cost_exact"]
        with app.app_context():
            a_, b_ = db.session.get(Assignment, ann), db.session.get(Assignment, bob)
            assert a_.kapr_exact == b_.kapr_exact


def test_the_budget_bounds_the_meter_with_the_checks(app, client, checked):
    _p, _m, tokens, ann, _bob = checked
    with app.app_context():
        db.session.get(Assignment, ann).budget = 0.0005
        db.session.commit()
        checks = checks_of(ann)
        names = [link.handle for link in links(ann) if link.pair_id in checks]
    refused = None
    for name in names:
        for attribute in ("last_name", "first_name", "dob"):
            body = {"pair_id": name, "row": 0, "attribute": attribute}
            response = client.post(
                f"/api/v1/assignments/{ann}/reveal", json=body, headers=H(tokens["ann"])
            )
            if response.status_code == 409:
                refused = response.get_json()
                break
        if refused:
            break
    assert refused and refused["error"] == "budget_exceeded"
    with app.app_context():
        stored = db.session.get(Assignment, ann)
        assert Fraction(stored.checks_kapr_exact) <= Fraction("0.0005")
        assert stored.kapr_exact == "0"


def test_the_checks_project_is_nobodys_and_goes_with_its_project(app, client, checked):
    project_id, manager, _t, ann, _bob = checked
    with app.app_context():
        shadow = db.session.scalar(select(Project.id).where(Project.checks_of == project_id))
        check_pairs = list(checks_of(ann))
    assert client.get(f"/projects/{shadow}", headers=H(manager)).status_code == 404
    listed = client.get("/api/v1/projects", headers=H(manager)).get_json()["projects"]
    assert [p["id"] for p in listed] == [project_id]
    refused = assign(client, project_id, manager, worker="bob", pairs=check_pairs[:1], round=1)
    assert refused.status_code == 400
    with app.app_context():
        delete_project(db.session.get(Project, project_id))
        db.session.commit()
        assert db.session.get(Project, shadow) is None
        assert not db.session.scalars(select(Pair.id).where(Pair.id.in_(check_pairs))).all()


def test_close_out_leaves_no_value_in_the_checks_project_either(app, client):
    """Checks are about nobody, but shaped by the project's values: close-out blanks them."""
    from app.models import Record, User
    from app.projects.custody import close_project
    from app.review.answers import record_decision

    project_id, manager, tokens = voters(app, workers=("ann",), n=60)
    made = assign(client, project_id, manager, checks={"share": 0.2})
    with app.app_context():
        assignment = db.session.get(Assignment, made.get_json()["id"])
        ann = db.session.scalar(select(User).where(User.username == "ann"))
        for link in links(assignment.id):
            record_decision(assignment, link.pair_id, "different", "high", by=ann)
        db.session.commit()
        shadow = db.session.scalar(select(Project.id).where(Project.checks_of == project_id))
        assert db.session.scalars(select(Record.values).where(Record.project_id == shadow)).first()
        project = db.session.get(Project, project_id)
        close_project(project, project.owner)
        db.session.commit()
        left = db.session.scalars(select(Record.values).where(Record.project_id == shadow)).all()
        assert left and all(values == {} for values in left)
