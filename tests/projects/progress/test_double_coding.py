"""A double-coded pair is settled once both reviewers agree, not by the first answer alone:
in the kept counts, their two oracles, the final decisions (SQL) and the reviewers' outcomes
(Python), and so in the final linkage."""

from __future__ import annotations

from app.extensions import db
from app.models import Pair, Project
from app.projects.exports import export_csv
from app.projects.progress.counts import stored_answers
from app.projects.progress.outcomes import outcomes
from app.projects.progress.pairs import PairFilter, list_pairs
from app.projects.progress.recount import answer_counts_by_sql, counted_answers
from tests.factories import make_assignment, make_user, paper_project
from tests.projects.conftest import decide


def _state(project_id: int, pair_id: int, reviewers: list[int]):
    counts = [f(project_id, reviewers) for f in (stored_answers, counted_answers,
                                                 answer_counts_by_sql)]  # fmt: skip
    assert len({c.decided for c in counts}) == 1, counts  # the kept state and its oracles
    (listed,) = list_pairs(db.session.get(Project, project_id), PairFilter(pair=pair_id)).pairs
    final = outcomes(project_id)[pair_id].final
    return counts[0].decided, listed["decision"], final


def test_one_answer_of_two_settles_nothing_two_agreeing_answers_do(app):
    with app.app_context():
        manager = make_user("max", "manager")
        project = paper_project(manager)
        wes, wen = (
            make_assignment(project, make_user("wes")),
            make_assignment(project, make_user("wen")),
        )
        reviewers = [wes.id, wen.id]
        pair = 1
        decide(wes, pair, "same")
        db.session.commit()
        assert _state(project.id, pair, reviewers) == (0, None, None)
        assert export_csv(project, "linkage").count("\n") == 1  # the header: nothing decided
        decide(wen, pair, "same")
        db.session.commit()
        assert _state(project.id, pair, reviewers) == (1, "match", "same")
        # A single-coded pair is still settled by its one reviewer's answer.
        solo = paper_project(manager, name="solo")
        only = make_assignment(solo, make_user("wyn"))
        first = db.session.scalar(db.select(db.func.min(Pair.id)).where(Pair.project_id == solo.id))
        decide(only, first, "different")
        db.session.commit()
        assert _state(solo.id, first, [only.id]) == (1, "non_match", "different")
