"""The conflicts queue at volume (50 conflicts): filters, pages, bulk resolution and referral,
and every action landing back where it was taken."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from app.extensions import db
from app.models import ConflictResolution, Project, User
from app.projects.conflicts import (
    ConflictError,
    ListingError,
    conflict_page,
    resolve_conflicts,
    set_conflict_policy,
)
from app.projects.progress.outcomes import outcomes
from tests.factories import PASSWORD, make_user
from tests.projects.conflicts.test_conflicts import disagreeing

CONFLICTS = 50


@pytest.fixture
def volume(app, people):
    with app.app_context():
        project, pair_ids, _ = disagreeing(people, conflicts=CONFLICTS)
        return project.id, pair_ids


def manager(app, people):
    return db.session.get(User, people["max"]), db.session.get(Project, 1)


def test_pages_filters_and_counts(app, people, volume):
    project_id, pair_ids = volume
    with app.app_context():
        project = db.session.get(Project, project_id)
        first = conflict_page(project)
        assert (first.total, first.pages, len(first.items)) == (CONFLICTS, 3, 20)
        assert [i.pair_id for i in first.items] == sorted(pair_ids)[:20]
        last = conflict_page(project, page=3)
        assert [i.pair_id for i in last.items] == sorted(pair_ids)[40:]
        assert conflict_page(project, page=99).page == 3  # past the end: the last page
        assert conflict_page(project, per_page=100).pages == 1
        assert first.counts == {
            "all": 50, "todo": 50, "open": 50, "tie": 0, "referred": 0, "settled": 0,
        }  # fmt: skip
        assert first.reviewers == ["wen", "wes"]
        assert conflict_page(project, reviewer="wes").total == CONFLICTS
        assert conflict_page(project, reviewer="nobody").total == 0
        assert conflict_page(project, state="settled").total == 0
        for bad in ({"state": "closed"}, {"per_page": 7}):
            with pytest.raises(ListingError):
                conflict_page(project, **bad)


def test_bulk_resolution_skips_what_it_cannot_decide(app, people, volume):
    project_id, pair_ids = volume
    with app.app_context():
        project = db.session.get(Project, project_id)
        max_ = db.session.get(User, people["max"])
        chosen = sorted(pair_ids)[:30]
        result = resolve_conflicts(project, [*chosen, 10**6], "same", "medium", by=max_)
        db.session.commit()
        assert result.done == chosen and result.skipped == [
            (10**6, "not a conflict in this project")
        ]
        settled = conflict_page(project, state="settled", per_page=50)
        assert [i.pair_id for i in settled.items] == chosen
        assert all(outcomes(project.id)[p].final == "same" for p in chosen)
        assert conflict_page(project, state="todo").total == CONFLICTS - 30

        set_conflict_policy(project, "reviewer", 0.05, by=max_)
        db.session.commit()
        # Under the reviewer policy an open conflict goes to a third reviewer first.
        rest = sorted(pair_ids)[30:]
        again = resolve_conflicts(project, rest[:2], "different", None, by=max_)
        assert again.done == [] and {why for _, why in again.skipped} == {
            "refer it to an additional reviewer first"
        }
        with pytest.raises(ConflictError, match="at least one"):
            resolve_conflicts(project, [], "same", "high", by=max_)
        with pytest.raises(ConflictError, match="'same' or 'different'"):
            resolve_conflicts(project, rest, "unsure", None, by=max_)


def login(client, name="max"):
    client.post("/login", data={"username": name, "password": PASSWORD})
    return client


def test_the_page_is_paged_filtered_and_keeps_its_place(app, client, people, volume):
    project_id, pair_ids = volume
    ids = sorted(pair_ids)
    login(client)
    base = f"/projects/{project_id}/conflicts"
    page = client.get(f"{base}?page=2").get_data(as_text=True)
    assert page.count('class="conflict"') == 20
    assert f'id="conflict-{ids[20]}"' in page and f'id="conflict-{ids[19]}"' not in page
    assert "Conflicts 21–40\n  of 50 (page 2 of 3)" in page
    assert client.get(f"{base}?state=closed").status_code == 400

    # Resolving one row on page 2 lands on page 2, not at the top of page 1: the settled row
    # moves to the end of the queue (waiting ones first), so at the row now in its place.
    place = {"state": "all", "reviewer": "", "page": "2", "per_page": "20", "index": "3"}
    answer = client.post(
        f"{base}/{ids[23]}/resolve", data={"decision": "same", "confidence": "high", **place}
    )
    target = urlsplit(answer.location)
    assert parse_qs(target.query) == {"page": ["2"], "per_page": ["20"]}
    assert target.fragment == f"conflict-{ids[24]}"
    landed = client.get(answer.location).get_data(as_text=True)
    assert f"Pair {ids[23]} resolved: same." in landed and f'id="conflict-{ids[24]}"' in landed

    # A settled row stays where it is among the settled ones: the anchor is that row.
    settled = {**place, "state": "settled", "page": "1", "index": "0"}
    answer = client.post(
        f"{base}/{ids[23]}/resolve", data={"decision": "different", "confidence": "low", **settled}
    )
    assert urlsplit(answer.location).fragment == f"conflict-{ids[23]}"

    # Bulk: the selection is resolved in one go, skipped rows named, place kept.
    selection = [str(p) for p in ids[40:50]] + [str(ids[23])]
    answer = client.post(
        f"{base}/bulk",
        data={"pair": selection, "decision": "different", "confidence": "medium",
              "action": "resolve", **{**place, "page": "3", "index": "0"}},
    )  # fmt: skip
    landed = client.get(answer.location).get_data(as_text=True)
    assert "11 conflict(s) resolved as different." in landed  # a re-decision counts too
    assert urlsplit(answer.location).fragment == f"conflict-{ids[40]}"
    with app.app_context():
        assert db.session.query(ConflictResolution).count() == 2 + 11  # ids[23] twice
        assert all(outcomes(project_id)[p].final == "different" for p in ids[40:50])
    todo_page = client.get(f"{base}?state=todo").get_data(as_text=True)
    assert "of 39" in todo_page  # 50 - 11 settled


def test_bulk_referral_under_the_reviewer_policy(app, client, people, volume):
    project_id, pair_ids = volume
    ids = sorted(pair_ids)
    with app.app_context():
        make_user("wil")
        set_conflict_policy(db.session.get(Project, project_id), "reviewer", 0.05,
                            by=db.session.get(User, people["max"]))  # fmt: skip
        db.session.commit()
    login(client)
    base = f"/projects/{project_id}/conflicts"
    answer = client.post(
        f"{base}/bulk",
        data={"pair": [str(p) for p in ids[:5]], "worker": "wil", "budget": "20",
              "action": "refer", "state": "todo", "page": "1", "per_page": "20"},
    )  # fmt: skip
    assert "5 conflict(s) referred to wil." in client.get(answer.location).get_data(as_text=True)
    with app.app_context():
        project = db.session.get(Project, project_id)
        referred = conflict_page(project, state="referred")
        assert [i.pair_id for i in referred.items] == ids[:5]
        assert {i.referred_to for i in referred.items} == {"wil"}
        from app.models import Assignment

        wil = db.session.query(Assignment).filter_by(worker_id=4).one()
        assert wil.budget == 0.2 and len(wil.pairs) == 5  # "20" was percent of the maximum
    again = client.post(
        f"{base}/bulk",
        data={"pair": [str(ids[0]), str(ids[5])], "worker": "wil", "action": "refer"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "1 conflict(s) referred to wil; 1 skipped" in again


def test_api_pages_filters_and_bulk(app, client, people, volume):
    project_id, pair_ids = volume
    ids = sorted(pair_ids)
    login(client)
    base = f"/api/v1/projects/{project_id}/conflicts"
    whole = client.get(base).get_json()
    assert len(whole["conflicts"]) == whole["total"] == CONFLICTS and whole["pages"] == 1
    page = client.get(f"{base}?page=3&per_page=20").get_json()
    assert [c["pair_id"] for c in page["conflicts"]] == ids[40:]
    assert (page["page"], page["pages"], page["counts"]["todo"]) == (3, 3, 50)
    assert client.get(f"{base}?state=nope").status_code == 400
    assert client.get(f"{base}?per_page=7&page=1").status_code == 400
    done = client.post(
        f"{base}/bulk", json={"pairs": ids[:3] + [10**6], "decision": "same", "confidence": "low"}
    ).get_json()
    assert done == {
        "done": ids[:3], "skipped": [{"pair_id": 10**6, "reason": "not a conflict in this project"}]
    }  # fmt: skip
    settled = client.get(f"{base}?state=settled").get_json()
    assert [c["pair_id"] for c in settled["conflicts"]] == ids[:3]
    assert client.post(f"{base}/bulk", json={"pairs": []}).status_code == 400
