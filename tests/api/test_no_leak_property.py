"""Through the HTTP API, a response shows exactly the characters the cell levels disclose.

Random records, random reveal sequences; every response is checked against the true values:
masked shows no character, partial only the edit-operation characters, full all of them.
"""

import string
from fractions import Fraction

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


# --- Blind review: a linker's scores, rule, the pair's purpose and round stay with the manager.

# Scores no other number of an answer can equal by chance (a prime denominator).
SCORED = st.fixed_dictionaries(
    {
        "match_probability": st.integers(1, 1_000_002).map(lambda n: n / 1_000_003),
        "match_weight": st.integers(-400_000, 400_000).map(lambda n: n / 10_007 + 1e-7),
        "match_key": st.integers(0, 10**6).map(lambda n: f"rule-{n:07d}"),
    }
)
HIDDEN_KEYS = {"match_probability", "match_weight", "match_key", "purpose", "round", "scores",
               "model_decision", "decided_by", "rule"}  # fmt: skip


def _walk(value):
    """Every key and scalar of a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)
    else:
        yield value


def _scored_project(suffix, records, scores, triage, show_scores):
    manager = make_user("m" + suffix, "manager")
    worker = make_user("w" + suffix, "worker")
    pairs = [
        {"a": str(i), "b": str(i + 1), **scores[i % len(scores)]}
        for i in range(0, len(records) - 1, 2)
    ]
    spec = {
        "name": "blind",
        "kind": "dedupe",
        "attributes": [{"name": n, "type": t} for n, t in KINDS.items()],
        "records": [{"id": str(i), **r} for i, r in enumerate(records)],
        "pairs": pairs,
        "triage": triage,
        "show_scores": show_scores,
    }
    project = create_project(spec, manager)
    project.advice_hint = True  # the advisor's hint is a worker endpoint like the others
    db.session.commit()
    assignment = assign_pairs(project, worker, 1.0)
    db.session.commit()
    return project.id, assignment.id, make_token(worker), pairs


def _worker_answers(client, headers, project_id, assignment_id):
    """What a worker can read: every worker endpoint and page, after revealing and answering."""
    url = f"/api/v1/assignments/{assignment_id}"
    page = client.get(url, headers=headers)
    yield page
    pair = page.get_json()["pairs"][0]
    yield client.get(f"{url}/advice?pair={pair['id']}", headers=headers)
    yield client.post(f"{url}/reveal", headers=headers,
                      json={"pair_id": pair["id"], "row": 0, "attribute": "name"})  # fmt: skip
    yield client.get(f"{url}/advice?pair={pair['id']}", headers=headers)
    answer = {"pair_id": pair["id"], "decision": "same", "confidence": "low"}
    yield client.post(f"{url}/decisions", headers=headers, json=answer)
    yield client.get(f"{url}/decisions", headers=headers)
    yield client.post(f"{url}/decisions/clear", headers=headers, json={"pair_id": pair["id"]})
    yield client.post(f"{url}/pages/1/submit", headers=headers, json={})
    yield client.get("/api/v1/me", headers=headers)
    for manager_only in ("pairs", "rounds", "progress", "export/splink"):
        refused = client.get(f"/api/v1/projects/{project_id}/{manager_only}", headers=headers)
        assert refused.status_code == 403
        yield refused


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    records=st.lists(RECORD, min_size=4, max_size=6),
    scores=st.lists(SCORED, min_size=1, max_size=3),
    lower=st.floats(0, 0.5),
    calibration=st.integers(1, 3),  # at least one pair to review
    show_scores=st.booleans(),
)
def test_no_score_rule_purpose_or_round_reaches_a_worker(
    app, records, scores, lower, calibration, show_scores
):
    """Off by default and whatever the triage: no worker endpoint or page carries a pair's
    scores, rule, purpose or round; with ``show_scores`` the grid shows scores and rule only."""
    with app.app_context():
        suffix = str(db.session.execute(db.text("select count(*) from users")).scalar())
        triage = {"lower": lower, "upper": 1.0, "calibration": calibration, "seed": 7}
        project_id, assignment_id, token, pairs = _scored_project(
            suffix, records, scores, triage, show_scores
        )
    client, headers = app.test_client(), {"Authorization": f"Bearer {token}"}
    secrets = {p["match_key"] for p in pairs} | {"band", "calibration", "model", "non_match"}
    numbers = {p["match_probability"] for p in pairs} | {p["match_weight"] for p in pairs}
    for response in _worker_answers(client, headers, project_id, assignment_id):
        body = response.get_json()
        found = set(_walk(body))
        shown = show_scores and "pairs" in body
        assert not (found & (HIDDEN_KEYS - ({"scores", "match_probability", "match_weight",
                                             "match_key"} if shown else set()))), body  # fmt: skip
        if not shown:
            assert not (found & secrets) and not (found & numbers), body
    if show_scores:
        grid = client.get(f"/api/v1/assignments/{assignment_id}", headers=headers).get_json()
        assert all(set(p["scores"]) == {"match_probability", "match_weight", "match_key"}
                   for p in grid["pairs"])  # fmt: skip
    client.post("/login", data={"username": "w" + suffix, "password": "correct horse battery"})
    for path in ("/review/", f"/review/assignments/{assignment_id}"):
        html = client.get(path).get_data(as_text=True)
        assert not any(secret in html for secret in secrets - {"model"}), path
        assert "match_probability" not in html and "calibration" not in html


# --- The advisor's hint: a function of what the page shows (docs/advice.md §4).

ADVICE_KINDS = {"first_name": "string", "last_name": "string", "dob": "date", "code": "id",
                "sex": "category"}  # fmt: skip
ADVICE_RECORD = st.fixed_dictionaries(
    {
        "first_name": st.sampled_from(["ALEC", "ALEXANDER", "KATHY", "KATHRYNE", "R GRAY", ""]),
        "last_name": st.sampled_from(["SIMMONS", "SIMMONS JR", "ALEC", "KATHY", "Q", "QUEST"]),
        "dob": st.sampled_from(["01/07/1931", "01/07/1913", "07/01/1931", "02/03/1940", ""]),
        "code": st.text(alphabet="0123", min_size=0, max_size=4),
        "sex": st.sampled_from(["M", "F", ""]),
    }
)


def _shown_from_page(pair: dict, attributes: list[dict]):
    """Rebuild a pair's displayed state from the page's JSON alone (no value but those shown)."""
    from app.core.advice import AttributeShown, Shown, SideShown
    from app.core.disclosure import AttributeType, name_columns

    names = name_columns(a["name"] for a in attributes)
    attrs = []
    for attribute in attributes:
        name, sides = attribute["name"], []
        for row in pair["rows"]:
            cell = row["cells"][name]
            values = [s for s in cell["display"] if s["kind"] in ("hidden", "shown")]
            marks = tuple(s.get("mark") for s in values)
            known = tuple((p, s["text"]) for p, s in enumerate(values) if s["kind"] == "shown")
            sides.append(SideShown(Level(cell["level"]), marks, known))
        markups = set(pair["markups"][name])
        relation = next(r for r in ("identical", "missing", "different") if r in markups)
        classes = [row.get("frequency", {}).get(name) for row in pair["rows"]]
        rare = relation == "identical" and all(c in ("unique", "rare") for c in classes)
        swapped = pair["name_swap"] and name in names
        attrs.append(
            AttributeShown(
                name, AttributeType(attribute["type"]), relation, tuple(sides), swapped, rare
            )  # fmt: skip
        )
    return Shown(tuple(attrs))


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    records=st.lists(ADVICE_RECORD, min_size=4, max_size=6),
    clicks=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 1), st.sampled_from(list(ADVICE_KINDS))),
        max_size=8,
    ),
    reviewer=st.sampled_from(["human", "evidence"]),
)
def test_the_hint_is_computed_from_the_page_alone(app, records, clicks, reviewer):
    """Rebuilt from the page's JSON (its segments, markers and previewed costs) the advice is
    the endpoint's: nothing the page does not show enters it, check pairs included."""
    from fractions import Fraction

    from app.core.advice import advise
    from app.models import Project
    from app.review.advice import project_models
    from app.review.grid import project_schema

    with app.app_context():
        suffix = str(db.session.execute(db.text("select count(*) from users")).scalar())
        manager, worker = make_user("am" + suffix, "manager"), make_user("aw" + suffix, "worker")
        spec = {
            "name": "advice",
            "kind": "dedupe",
            "attributes": [{"name": n, "type": t} for n, t in ADVICE_KINDS.items()],
            "records": [{"id": str(i), **r} for i, r in enumerate(records)],
            "pairs": [[str(i), str(i + 1)] for i in range(0, len(records) - 1, 2)][:3],
        }
        project = create_project(spec, manager)
        project.advice_hint, project.advice_reviewer = True, reviewer
        db.session.commit()
        assignment = assign_pairs(project, worker, 0.05)
        db.session.commit()
        token, assignment_id, project_id = make_token(worker), assignment.id, project.id
    client, headers = app.test_client(), {"Authorization": f"Bearer {token}"}
    url = f"/api/v1/assignments/{assignment_id}"
    pair_ids = [p["id"] for p in client.get(url, headers=headers).get_json()["pairs"]]
    for pair_index, row, attribute in clicks:
        if pair_index < len(pair_ids):
            body = {"pair_id": pair_ids[pair_index], "row": row, "attribute": attribute}
            assert client.post(f"{url}/reveal", headers=headers, json=body).status_code in (
                200,
                409,
            )
    page = client.get(url, headers=headers).get_json()
    with app.app_context():
        project = db.session.get(Project, project_id)
        schema = project_schema(project.id, project.created_at)
        model, world = project_models(project, schema.attributes)
    meters = page["assignment"]
    room = Fraction(meters["budget_exact"]) - Fraction(meters["kapr_exact"])
    for pair in page["pairs"]:
        costs = {
            (r["row"], name): Fraction(cell["next_cost_exact"])
            for r in pair["rows"]
            for name, cell in r["cells"].items()
            if cell["next_cost_exact"] is not None
        }
        expected = advise(
            _shown_from_page(pair, page["attributes"]), costs, model, world, room=room
        )
        served = client.get(f"{url}/advice?pair={pair['id']}", headers=headers).get_json()
        suggestion = served["suggestion"] and (served["suggestion"]["row"],
                                               served["suggestion"]["attribute"])  # fmt: skip
        assert (suggestion, served["suffices"]) == (expected.suggestion, expected.suffices)
        assert set(served) == {"pair_id", "reviewer", "suggestion", "suffices"}


# --- Known-truth checks: nothing a worker reads tells a check from a real pair.


def _paths(value, prefix=""):
    """The key paths and value types of a JSON value (list items merged)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, f"{prefix}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _paths(item, f"{prefix}[]")
    else:
        yield prefix, type(value).__name__ if value is not None else "null"


def _revealable(pair: dict) -> set[str]:
    """The attributes of the pair's second row that have a next level to show."""
    return {a for a, cell in pair["rows"][1]["cells"].items() if cell["next_level"] is not None}


def _check_world(app, share):
    """A voters project and a new worker's assignment with synthetic checks at ``share``."""
    from app.models import Assignment, AssignmentPair, Pair, QualityCheck, Record, Source
    from tests.projects.quality.conftest import voters_spec

    with app.app_context():
        suffix = str(db.session.execute(db.text("select count(*) from users")).scalar())
        manager, worker = make_user("m" + suffix, "manager"), make_user("w" + suffix, "worker")
        project = create_project({**voters_spec(160, seed=int(suffix) + 3)}, manager)
        db.session.commit()
        from app.projects.quality import CheckSpec

        assignment = assign_pairs(project, worker, 1.0, checks=CheckSpec(share, "synthetic"))
        db.session.commit()
        checks = set(
            db.session.scalars(
                db.select(QualityCheck.pair_id).where(QualityCheck.assignment_id == assignment.id)
            )
        )
        links = db.session.scalars(
            db.select(AssignmentPair).where(AssignmentPair.assignment_id == assignment.id)
        ).all()
        names = {link.handle: link.pair_id for link in links}
        pairs = db.session.scalars(db.select(Pair).where(Pair.id.in_(list(names.values())))).all()
        record_ids = {p.record_a_id for p in pairs} | {p.record_b_id for p in pairs}
        records = db.session.scalars(db.select(Record).where(Record.id.in_(record_ids))).all()
        secrets = {r.pseudonym for r in records} | {
            r.external_id for r in records if r.external_id.startswith("check")
        }
        n_source = db.session.scalar(
            db.select(Source.record_count).where(Source.project_id == project.id)
        )
        missable = {
            a.name
            for a in project.identifying
            if db.session.scalar(
                db.select(db.func.count())
                .select_from(Record)
                .where(Record.project_id == project.id, Record.values[a.name].as_string().is_(None))
            )
        }
        world = {
            "missable": missable,
            "assignment": assignment.id,
            "token": make_token(worker),
            "login": "w" + suffix,
            "checks": {h for h, p in names.items() if p in checks},
            "real_pairs": len(links) - db.session.get(Assignment, assignment.id).synthetic_pairs,
            "n_source": n_source,
            "attributes": len(project.identifying),
            "secrets": secrets,
            "handles": set(names),
        }
        return world


def _pair_objects(client, headers, world):
    url = f"/api/v1/assignments/{world['assignment']}"
    first = client.get(url, headers=headers).get_json()
    responses, pairs = [first], []
    for page in range(1, first["assignment"]["pages"] + 1):
        body = client.get(f"{url}?page={page}", headers=headers).get_json()
        responses.append(body)
        pairs += body["pairs"]
    return responses, pairs


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(share=st.sampled_from([0.05, 0.2, 0.4]))
def test_a_worker_cannot_tell_a_check_from_a_real_pair(app, share):
    """Every worker endpoint and page, for checks and real pairs alike: the same fields and
    types, handles from one range in one random order, no pair or record id, pseudonym or
    checks-project id anywhere, no check's name frequency 'unknown' (a real name always has
    a count), and every masked row's next cost at the scale of the real rows (N = real rows,
    k = the source's size): what the worker could compute is what a real pair would give."""
    world = _check_world(app, share)
    client, headers = app.test_client(), {"Authorization": f"Bearer {world['token']}"}
    responses, pairs = _pair_objects(client, headers, world)
    checks = [p for p in pairs if p["id"] in world["checks"]]
    real = [p for p in pairs if p["id"] not in world["checks"]]
    assert checks and real
    # the same fields and types: nothing on a check that no real pair has, and whatever most
    # real pairs have, some check has too (a rare one, a missing value, may miss on a few)
    of_checks = [set(_paths(p)) for p in checks]
    of_real = [set(_paths(p)) for p in real]
    unusual = set().union(*of_checks) - set().union(*of_real)
    # a missing value the project's records also have (its cell has nothing to reveal)
    odd = [f for f in unusual if not (f[0].split(".")[3] in world["missable"] and f[1] == "null")]
    assert not odd, (odd, world["missable"])
    usual = {f for f in set().union(*of_real) if sum(f in r for r in of_real) > 0.3 * len(real)}
    assert usual <= set().union(*of_checks)
    # names: handles of one range; places: every position once, checks anywhere
    assert sorted(p["position"] for p in pairs) == list(range(len(pairs)))
    assert all(2**48 < p["id"] < 2**53 for p in pairs)
    for p in checks:
        for row in p["rows"]:
            for attribute, found in row.get("frequency", {}).items():
                missing = row["cells"][attribute]["total"] == 0  # no value: no count
                assert found != "unknown" or missing
    # costs at the real rows' scale: kappa / (N_real · D) · p / k for a row showing nothing,
    # p = m / total of the cell's value (m <= total) and 1 <= k <= the source's records
    scale = Fraction(1, 2 * world["real_pairs"] * world["attributes"])
    for p in pairs:
        for row in p["rows"]:
            if any(c["level"] != "masked" for c in row["cells"].values()):
                continue
            for cell in row["cells"].values():
                if cell["next_cost_exact"] is not None and cell["total"]:
                    m_over_k = Fraction(cell["next_cost_exact"]) / scale * cell["total"]
                    assert m_over_k.numerator <= cell["total"]
                    assert m_over_k.denominator <= world["n_source"], p["id"] in world["checks"]
    # act on a check and a real pair: the answers have the same shape
    url = f"/api/v1/assignments/{world['assignment']}"
    shapes = []
    # a cell with something to reveal in both pairs: a missing value has nothing, and the
    # refusal has another shape than a reveal (a property of the value, not of being a check)
    both = next(
        (check, pair, attribute)
        for check in checks
        for pair in real
        for attribute in sorted(_revealable(check) & _revealable(pair), key="last_name".__ne__)
    )
    for pair in both[:2]:
        cell = {"pair_id": pair["id"], "row": 1, "attribute": both[2]}
        answer = {"pair_id": pair["id"], "decision": "different", "confidence": "low"}
        got = [
            client.post(f"{url}/reveal", headers=headers, json=cell),
            client.post(f"{url}/decisions", headers=headers, json=answer),
            client.get(f"{url}/decisions", headers=headers),
            client.post(f"{url}/decisions/clear", headers=headers, json={"pair_id": pair["id"]}),
        ]
        responses += [r.get_json() for r in got]
        # (a shown character's difference mark is there when the two values differ at it: a
        # property of the values, on real pairs as on checks, not of being a check)
        shapes.append(
            [
                {path for path, _ in _paths(r.get_json()) if not path.endswith("display[].mark")}
                for r in got[:2]
            ]
        )
    assert shapes[0] == shapes[1]
    responses.append(client.post(f"{url}/pages/1/submit", headers=headers, json={}).get_json())
    # a pair is named by its handle wherever a worker reads one; no pseudonym, no check's
    # record id anywhere: the JSON and the pages
    named = set()
    for body in responses:
        named |= {p["id"] for p in body.get("pairs", [])} | set(body.get("unanswered", []))
        named |= {int(k) for k in body.get("decisions", {})}
        named |= {body["pair_id"]} if "pair_id" in body else set()
    assert named and named <= world["handles"]
    found = {str(v) for body in responses for v in _walk(body)}
    assert not (found & world["secrets"])
    client.post("/login", data={"username": world["login"], "password": "correct horse battery"})
    for path in ("/review/", f"/review/assignments/{world['assignment']}"):
        html = client.get(path).get_data(as_text=True)
        words = set(html.replace('"', " ").replace("/", " ").replace("=", " ").split())
        assert not (words & world["secrets"] - {str(world["assignment"])}), path


def test_the_hint_treats_a_check_like_a_real_pair(app):
    """With known-truth checks mixed in, the advisor's hint answers every pair by its handle
    with the same fields, and for each, check or real, exactly the advice its page shows."""
    from fractions import Fraction

    from app.core.advice import advise
    from app.models import Assignment
    from app.review.advice import project_models
    from app.review.grid import project_schema

    world = _check_world(app, 0.2)
    with app.app_context():
        project = db.session.get(Assignment, world["assignment"]).project
        project.advice_hint = True
        db.session.commit()
        model, model_world = project_models(
            project, project_schema(project.id, project.created_at).attributes
        )
    client, headers = app.test_client(), {"Authorization": f"Bearer {world['token']}"}
    url = f"/api/v1/assignments/{world['assignment']}"
    responses, pairs = _pair_objects(client, headers, world)
    meters, attributes = responses[0]["assignment"], responses[0]["attributes"]
    room = Fraction(meters["budget_exact"]) - Fraction(meters["kapr_exact"])
    fields, advised = set(), {"check": 0, "real": 0}
    for pair in pairs:
        served = client.get(f"{url}/advice?pair={pair['id']}", headers=headers)
        assert served.status_code == 200
        body = served.get_json()
        fields.add(tuple(sorted(body)))
        assert body["pair_id"] == pair["id"]
        costs = {
            (r["row"], name): Fraction(cell["next_cost_exact"])
            for r in pair["rows"]
            for name, cell in r["cells"].items()
            if cell["next_cost_exact"] is not None
        }
        expected = advise(_shown_from_page(pair, attributes), costs, model, model_world, room=room)
        suggestion = body["suggestion"] and (
            body["suggestion"]["row"],
            body["suggestion"]["attribute"],
        )
        assert (suggestion, body["suffices"]) == (expected.suggestion, expected.suffices)
        advised["check" if pair["id"] in world["checks"] else "real"] += 1
    assert fields == {("pair_id", "reviewer", "suffices", "suggestion")}
    assert advised["check"] and advised["real"]
