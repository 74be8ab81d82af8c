"""Every page counts pairs and names sources alike: the project page splits its pairs into
those to review and those the model decided (the figure the list and progress pages give, as
pairs to review), and a source is named by its label with the linker's name the exports write."""

from __future__ import annotations

import re

from app.extensions import db
from app.models import User
from app.projects.lifecycle import create_project
from app.projects.triage import TriageSettings, add_scored_round
from tests.factories import PASSWORD
from tests.projects.triage.test_rounds import _scored, link_spec


def _text(client, url: str) -> str:
    html = client.get(url).get_data(as_text=True)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_pair_totals_and_source_names_agree_between_pages(app, client, people):
    with app.app_context():
        owner = db.session.get(User, people["max"])
        project = create_project(link_spec(), owner)
        ids = [(f"a{i}", f"b{j}") for i in range(6) for j in range(6)]
        p = [0.99 if a[1:] == b[1:] else 0.01 for a, b in ids]
        scored = _scored([a for a, _ in ids], [b for _, b in ids], ["febrl4a"] * 36,
                         ["febrl4b"] * 36, p)  # fmt: skip
        scored.match_probability[:3] = 0.5  # three pairs in the band
        made = add_scored_round(project, scored, TriageSettings(0.1, 0.9), owner)
        db.session.commit()
        project_id, review = project.id, made.counts["review"]
    client.post("/login", data={"username": "max", "password": PASSWORD})
    home = _text(client, f"/projects/{project_id}")
    assert f"36 pairs: {review} to review , {36 - review} decided by the model" in home
    assert "Source A ( febrl4a ): 6 records" in home
    assert "A: febrl4a , B: febrl4b ) as dataset_display_name" in home
    listing = client.get("/projects/").get_data(as_text=True)
    assert ">Pairs to review</th>" in listing
    assert f"of {review} pairs to review" in _text(client, f"/projects/{project_id}/progress")
    people_page = client.get(f"/projects/{project_id}/accountability").get_data(as_text=True)
    assert '<option value="A" selected>A (febrl4a)</option>' in people_page
