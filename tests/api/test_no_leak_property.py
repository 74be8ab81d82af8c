"""Through the HTTP API, a response shows exactly the characters the cell levels disclose.

Random records, random reveal sequences; every response is checked against the true values:
masked shows no character, partial only the edit-operation characters, full all of them.
"""

import string

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core import disclosure
from app.core.disclosure import Level, normalize
from app.extensions import db
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs
from tests.factories import make_token, make_user

NAMES = st.text(alphabet="ABCDEFGHIJ", min_size=0, max_size=7)
DATES = st.dates().map(lambda d: d.strftime("%m/%d/%Y") if d.year >= 1000 else "01/01/2000")
IDS = st.text(alphabet=string.digits, min_size=0, max_size=6)
RECORD = st.fixed_dictionaries(
    {"name": NAMES, "dob": DATES | st.just(""), "code": IDS, "sex": st.sampled_from(["M", "F", ""])}
)
KINDS = {"name": "string", "dob": "date", "code": "id", "sex": "category"}


SYMBOLS = set(disclosure.SYMBOLS.values())


def shown(cell):
    """The value characters a cell shows; every other segment must be a symbol."""
    for segment in cell["display"]:
        if segment["kind"] in ("hidden", "marker"):
            assert segment["text"] in SYMBOLS, segment
        elif segment["kind"] == "separator":
            assert segment["text"] == "/"
    return [s["text"] for s in cell["display"] if s["kind"] == "shown"]


def expected_shown(values, pair_index, row, attribute, level):
    a, b = values[pair_index * 2], values[pair_index * 2 + 1]
    cmp = disclosure.compare(KINDS[attribute], a.get(attribute), b.get(attribute))
    return [s.text for s in disclosure.view(cmp, row, Level(level)).segments if s.kind == "shown"]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    records=st.lists(RECORD, min_size=4, max_size=6),
    clicks=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 1), st.sampled_from(list(KINDS))), max_size=15
    ),
)
def test_responses_disclose_exactly_the_levels(app, records, clicks):
    with app.app_context():
        # Fresh users and project per example; the database is shared by the examples.
        suffix = str(db.session.execute(db.text("select count(*) from users")).scalar())
        manager, worker = make_user("m" + suffix, "manager"), make_user("w" + suffix, "worker")
        spec = {
            "name": "prop",
            "kind": "dedupe",
            "attributes": [{"name": n, "type": t} for n, t in KINDS.items()],
            "records": [{"id": str(i), **r} for i, r in enumerate(records)],
            "pairs": [[str(i), str(i + 1)] for i in range(0, len(records) - 1, 2)][:3],
        }
        project = create_project(spec, manager)
        assignment = assign_pairs(project, worker, 1.0)
        db.session.commit()
        token, assignment_id = make_token(worker), assignment.id
        normalised = [{n: normalize(t, r[n]) for n, t in KINDS.items()} for r in records]
    client, headers = app.test_client(), {"Authorization": f"Bearer {token}"}
    page = client.get(f"/api/v1/assignments/{assignment_id}", headers=headers).get_json()
    pair_ids = [p["id"] for p in page["pairs"]]
    for pair_index, row, attribute in clicks:
        if pair_index >= len(pair_ids):
            continue
        response = client.post(
            f"/api/v1/assignments/{assignment_id}/reveal",
            headers=headers,
            json={"pair_id": pair_ids[pair_index], "row": row, "attribute": attribute},
        )
        assert response.status_code in (200, 409)
        if response.status_code == 200:
            cell = response.get_json()["cell"]
            want = expected_shown(normalised, pair_index, row, attribute, cell["level"])
            assert shown(cell) == want
            assert cell["disclosed"] == len(want)
    page = client.get(f"/api/v1/assignments/{assignment_id}", headers=headers).get_json()
    for pair_index, pair in enumerate(page["pairs"]):
        for row in pair["rows"]:
            for attribute, cell in row["cells"].items():
                want = expected_shown(normalised, pair_index, row["row"], attribute, cell["level"])
                assert shown(cell) == want
                if cell["level"] == "masked":
                    assert want == [] and cell["disclosed"] == 0
