"""Name-frequency markers: classes only, from uploaded counts or the project's own records."""

from app.extensions import db
from app.models import NameFrequency
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs
from tests.api.conftest import Worker
from tests.factories import make_token, make_user

PEOPLE = [
    ("1", "LYNN", "WILDING"),
    ("2", "LYNN", "WILDING"),
    ("3", "JEAN", "ADAMS"),
    ("4", "JEAN", "ADAMS"),
    ("5", "JEAN", "ADAMS"),
    ("6", "ZED", "ADAMS"),
]


def setup(app, client, counts=()):
    with app.app_context():
        manager, worker = make_user("max", "manager"), make_user("wes", "worker")
        project = create_project(
            {
                "name": "names",
                "kind": "dedupe",
                "attributes": [{"name": "first_name"}, {"name": "last_name"}],
                "records": [{"id": i, "first_name": f, "last_name": last} for i, f, last in PEOPLE],
                "pairs": [["1", "2"], ["5", "6"]],
            },
            manager,
        )
        for kind, name, count in counts:
            db.session.add(NameFrequency(project_id=project.id, kind=kind, name=name, count=count))
        assignment = assign_pairs(project, worker, 1.0)
        db.session.commit()
        return Worker(client, make_token(worker), assignment.id)


def test_classes_from_the_projects_own_counts(app, client):
    pairs = setup(app, client).page().get_json()["pairs"]
    assert pairs[0]["rows"][0]["frequency"] == {"first_name": "rare", "last_name": "rare"}
    assert pairs[1]["rows"][1]["frequency"] == {"first_name": "unique", "last_name": "rare"}


def test_uploaded_counts_win_and_counts_over_100_show(app, client):
    counts = [("F", "LYNN", 100), ("L", "WILDING", 5000), ("F", "JEAN", 3)]
    body = setup(app, client, counts).page().get_json()
    assert body["pairs"][0]["rows"][0]["frequency"] == {
        "first_name": "common",
        "last_name": "very_common",
    }
    # ZED is not in the uploaded file: a name the file does not know is unknown, not unique.
    assert body["pairs"][1]["rows"][1]["frequency"]["first_name"] == "unknown"
    assert "5000" not in str(body) and "LYNN" not in str(body)
