"""Collusion KAPR: the pooled display scored by the reveal path's own functions."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.analytics.kapr import collusion_kapr, pooled_state
from app.core.disclosure import Level
from app.extensions import db
from app.review.services import NothingToReveal, reveal_cell
from tests.factories import make_assignment, make_user, paper_project

ATTRIBUTES = ("name", "dob", "race")
# A reveal: (worker 0 or 1, pair index 0..5, row, attribute).
REVEALS = st.lists(
    st.tuples(st.integers(0, 1), st.integers(0, 5), st.integers(0, 1), st.sampled_from(ATTRIBUTES)),
    max_size=12,
)


def _reveal(assignment, pair_id, row, attribute, user) -> bool:
    try:
        reveal_cell(assignment.id, pair_id, row, attribute, by=user)
    except NothingToReveal:
        db.session.rollback()
        return False
    db.session.commit()
    return True


def test_no_assignment_no_collusion_score(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        assert collusion_kapr(project) is None
        assert pooled_state(project).pairs == []


def test_pooled_levels_are_the_highest_any_worker_saw(app):
    with app.app_context():
        project = paper_project(make_user("max", "manager"))
        wes, wen = make_user("wes"), make_user("wen")
        a, b = make_assignment(project, wes, pairs=[1, 2]), make_assignment(project, wen)
        _reveal(a, 1, 0, "name", wes)  # partial
        _reveal(a, 1, 0, "name", wes)  # full
        _reveal(b, 1, 0, "name", wen)  # partial only
        _reveal(b, 3, 1, "dob", wen)
        pooled = pooled_state(project)
        assert [p.id for p in pooled.pairs] == [1, 2, 3, 4, 5, 6]
        assert pooled.states[0].level(0, "name") is Level.FULL
        assert pooled.states[2].level(1, "dob") is not Level.MASKED


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(reveals=REVEALS, split=st.lists(st.booleans(), min_size=6, max_size=6))
def test_collusion_equals_one_worker_who_saw_the_union(app, reveals, split):
    """Two workers reveal at random; a third, shown every pooled pair, reveals their union.

    Its KAPR, charged reveal by reveal by the reveal path, is the collusion KAPR.
    """
    with app.app_context():
        db.drop_all()
        db.create_all()
        project = paper_project(make_user("max", "manager"))
        users = [make_user("wes"), make_user("wen"), make_user("sol")]
        first = [i + 1 for i, s in enumerate(split) if s] or [1]
        second = [i + 1 for i, s in enumerate(split) if not s] or [6]
        mine = [
            make_assignment(project, u, pairs=p)
            for u, p in zip(users[:2], (first, second), strict=True)
        ]
        done = []
        for worker, index, row, attribute in reveals:
            pairs = first if worker == 0 else second
            pair_id = pairs[index % len(pairs)]
            if _reveal(mine[worker], pair_id, row, attribute, users[worker]):
                done.append((pair_id, row, attribute))
        expected = collusion_kapr(project)
        pooled = pooled_state(project)
        solo = make_assignment(project, users[2], pairs=[p.id for p in pooled.pairs])
        for state in pooled.states:
            for (row, attribute), level in state.levels.items():
                reached = Level.MASKED
                while reached is not level:
                    result = reveal_cell(solo.id, state.pair_id, row, attribute, by=users[2])
                    db.session.commit()
                    reached = result.state.level(row, attribute)
        db.session.refresh(solo)
        assert expected.value == Fraction(solo.kapr_exact)
        if done:
            # Each pooled pair's term is at least its term in any one assignment.
            assert expected.value * len(pooled.pairs) >= max(
                Fraction(a.kapr_exact) * len(p) for a, p in zip(mine, (first, second), strict=True)
            )
