import pytest

from tests.factories import make_assignment, make_token, make_user, paper_project


class Worker:
    """A worker with a token, driving the JSON API of one assignment."""

    def __init__(self, client, token, assignment_id):
        self.client, self.assignment_id = client, assignment_id
        self.headers = {"Authorization": f"Bearer {token}"}

    def page(self, page=1):
        return self.client.get(
            f"/api/v1/assignments/{self.assignment_id}?page={page}", headers=self.headers
        )

    def reveal(self, pair_id, row, attribute, assignment_id=None):
        return self.client.post(
            f"/api/v1/assignments/{assignment_id or self.assignment_id}/reveal",
            json={"pair_id": pair_id, "row": row, "attribute": attribute},
            headers=self.headers,
        )

    def cells(self):
        for pair in self.page().get_json()["pairs"]:
            for row in pair["rows"]:
                for attribute, cell in row["cells"].items():
                    yield pair["id"], row["row"], attribute, cell


def make_worker(app, client, model="row", budget=1.0, name="wes", **project):
    with app.app_context():
        manager = make_user(f"{name}-manager", "manager")
        worker = make_user(name, "worker")
        paper = paper_project(manager, evidence_model=model, **project)
        assignment = make_assignment(paper, worker, budget)
        return Worker(client, make_token(worker), assignment.id)


@pytest.fixture
def worker(app, client):
    return make_worker(app, client)
