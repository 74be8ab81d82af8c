"""A small project of synthetic voters with its ground truth, and its workers on the API."""

from __future__ import annotations

from app.datagen import generate
from app.extensions import db
from app.projects.blocking import candidate_pairs, parse_rules
from app.projects.lifecycle import create_project
from tests.factories import make_token, make_user

IDENTIFYING = {
    "voter_reg_num": "id", "first_name": "string", "last_name": "string",
    "dob": "date", "sex": "category",
}  # fmt: skip
BLOCKING = [["last_name", ["first_name", "first_n", 1]]]


def voters_spec(n: int = 240, seed: int = 7) -> dict:
    """Voters with typos and twins, blocked on last name and first initial; the generator's
    cluster ids are the project's ground truth."""
    columns = generate(n, seed=seed)
    keep = ("id", *IDENTIFYING, "cluster_id")
    records = [{name: str(columns[name][i]) for name in keep} for i in range(n)]
    by_id = {r["id"]: r for r in records}
    pairs = candidate_pairs(by_id, None, parse_rules(BLOCKING, list(IDENTIFYING)))
    return {
        "name": "Voters",
        "kind": "dedupe",
        "attributes": [{"name": k, "type": t} for k, t in IDENTIFYING.items()]
        + [{"name": "cluster_id", "type": "string", "truth": True}],
        "records": records,
        "pairs": [[a, b] for a, b, _rule in pairs],
        "kappa": 1,
        "evidence_model": "row",
        "default_budget": 0.3,
    }


def voters(app, workers=("ann", "bob"), n: int = 240, **spec):
    """The manager, the project of ``n`` voters and each worker's API token (committed)."""
    with app.app_context():
        manager = make_user("max", "manager")
        project = create_project({**voters_spec(n), **spec}, owner=manager)
        db.session.commit()
        tokens = {name: make_token(make_user(name, "worker")) for name in workers}
        return project.id, make_token(manager), tokens
