"""A manager's paper project with assignments for two workers, and a logged-in client."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.factories import PASSWORD, make_assignment, make_user, paper_project


@pytest.fixture
def study(app):
    """The paper's example (6 pairs) on pages of 4, assigned to wes and to vic."""
    with app.app_context():
        manager = make_user("max", "manager")
        wes, vic = make_user("wes"), make_user("vic")
        project = paper_project(manager, page_size=4)
        mine = make_assignment(project, wes, budget=0.5)
        theirs = make_assignment(project, vic, budget=0.5)
        return SimpleNamespace(
            project_id=project.id,
            mine=mine.id,
            theirs=theirs.id,
            pairs=[link.pair_id for link in mine.pairs],
            wes_id=wes.id,
        )


@pytest.fixture
def wes(client, study):
    client.post("/login", data={"username": "wes", "password": PASSWORD})
    return client
