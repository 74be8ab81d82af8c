"""Scoring a deduplication: one file, Splink's dedupe_only, the same pairs as the in-app
blocking also for a rule that reads the two records differently (the earlier one is l)."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from app.datagen import generate
from app.extensions import db
from app.models import Project, Record, User
from app.projects.blocking import candidate_pairs, parse_rules
from app.projects.blocking.pairing import _records
from app.projects.lifecycle import create_project
from app.projects.scoring import Training
from app.projects.scoring.menu import model_to_train
from app.projects.scoring.runs.engine import run_scoring

pytestmark = pytest.mark.slow

RULES = [
    'block_on("last_name")',
    "l.first_name = r.last_name AND l.last_name = r.first_name",
    "l.first_name = r.last_name",  # reads l and r differently: Splink's l is the earlier id
    'block_on("dob", "substr(first_name, 1, 1)")',
]


def test_dedupe_scoring_makes_the_in_app_pairs(app, manager, tmp_path):
    data = generate(1500, 7)
    names = ("first_name", "last_name", "dob")
    records = [{"id": data["id"][i], **{n: data[n][i] or None for n in names}} for i in range(1500)]
    spec = {
        "name": "dedupe", "kind": "dedupe", "records": records,
        "pairs": [[records[0]["id"], records[1]["id"]]],  # scoring does not read them
        "attributes": [{"name": "first_name"}, {"name": "last_name"},
                       {"name": "dob", "type": "date"}],
    }  # fmt: skip
    with app.app_context():
        project = create_project(spec, db.session.get(User, manager))
        db.session.commit()
        attributes = {a.name: a.type for a in project.identifying}
        training = Training(
            {"first_name": ("jaro_winkler", False), "last_name": ("jaro_winkler", False),
             "dob": ("date_of_birth", False)},
            rules=RULES,
        )  # fmt: skip
        model, _, _ = model_to_train(training, attributes, "dedupe")
        assert model.link_type == "dedupe_only"
        outcome = run_scoring(project, model, predict_to=tmp_path / "p.parquet")
        table = pq.read_table(tmp_path / "p.parquet").to_pandas()
        assert set(table.source_dataset_l) == set(table.source_dataset_r) == {"A"}
        splink = {
            (a, b): int(k)
            for a, b, k in table[["unique_id_l", "unique_id_r", "match_key"]].itertuples(
                index=False
            )
        }  # noqa: E501
        records_a, _ = _records(db.session.get(Project, project.id))
        external = dict(db.session.execute(
            db.select(Record.id, Record.external_id).where(Record.project_id == project.id)
        ).all())  # fmt: skip
        rules = parse_rules(RULES, attributes)
        ours = {
            (external[a], external[b]): r for a, b, r in candidate_pairs(records_a, None, rules)
        }
    assert outcome.pairs == len(splink) == len(ours) > 1000
    assert ours == splink
