"""Triage against reviewing everything: FEBRL4 linked both ways in one run.

    .venv/bin/python bench/triage.py [--quick] [--postgres URL] [--cache DIR]

1. **Triage**: Splink 5 on DuckDB (the documented model of ``tests/febrl.py``) scores FEBRL4;
   its predictions (CSV) are imported through ``POST /api/v1/projects/<id>/predictions``,
   triaged at [0.05, 0.95] with a calibration sample of 50 (seed 1); the band and the sample
   go to one worker, who answers every pair through the JSON API knowing the truth.
2. **Blocking**: the same records blocked by the application's own exact-key rules
   (``RULES``: soc_sec_id, date_of_birth, postcode), every candidate pair reviewed the same way.

Both reviewers disclose alike: every identifying cell that has a partial level starts at
partial (the assignment's ``start_partial``: what a reviewer opening each discrepancy would
see), charged as KAPR and counted in the characters meter. The run prints, per path, the
pairs reviewed, characters disclosed, KAPR spent, and the final linkage's precision, recall
and F1 against FEBRL4's true matches (the triage path's final linkage is the model's
decisions plus the reviewers'), then the ratios. With Splink, also what labels do to Splink's
m estimates: m of exact given name under EM, from the calibration sample's labels and from
the band's alone, and the band each model predicts afresh. Exit status 1 when the paths
disagree (``bench/_check.py``): the app's triage counts against numpy over the file, the
reviewers' answers in each final linkage.

The simulated reviewer posts each answer through ``POST /api/v1/assignments/<id>/decisions``;
knowing the truth, it reads no page. ``--quick`` runs the first 400 people of FEBRL4 with a
calibration sample of 10 and skips the m estimates (seconds after Splink's few). SQLite in a
temporary file unless ``--postgres`` (``--quick`` follows the suite: ``TEST_DATABASE_URL``).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _check import agree, finish, quick_postgres  # noqa: E402
from _kapr_setup import bench_app  # noqa: E402

from app.extensions import db  # noqa: E402
from tests import febrl as data  # noqa: E402
from tests.factories import make_token, make_user  # noqa: E402

RULES = [["soc_sec_id"], ["date_of_birth"], ["postcode"]]
LOWER, UPPER = 0.05, 0.95


def _rows(response) -> list[dict]:
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def _listed(client, headers, project: int, purpose: str) -> dict[int, tuple[str, str]]:
    """Pair id → (id in A, id in B) of a purpose, read page by page (keyset)."""
    found, after = {}, None
    while True:
        query = f"purpose={purpose}&per_page=1000" + (f"&after={after}" if after else "")
        page = client.get(f"/api/v1/projects/{project}/pairs?{query}", headers=headers)
        body = page.get_json()
        found.update({p["id"]: (p["a"], p["b"]) for p in body["pairs"]})
        if body["next_after"] is None:
            return found
        after = body["next_after"]


def _answer(client, worker, assignment: int, pairs: dict, truth) -> int:
    """Post the true answer of every pair (the reviewer knows it: no page needs reading, and
    what it sees is the all-partial start, charged when the assignment was made)."""
    url = f"/api/v1/assignments/{assignment}/decisions"
    for pair_id, ids in pairs.items():
        body = {"pair_id": pair_id, "decision": "same" if ids in truth else "different",
                "confidence": "high"}  # fmt: skip
        response = client.post(url, json=body, headers=worker)
        assert response.status_code == 201, response.get_json()
    return len(pairs)


def _review(client, manager, worker, project: int, purposes, truth) -> dict:
    """Assign every pair to review to the worker, all-partial; answer them; read the meters."""
    body = {"worker": "wes", "budget": 1.0, "pairs": "all", "start_partial": list(data.IDENTIFYING)}
    assigned = client.post(f"/api/v1/projects/{project}/assignments", json=body, headers=manager)
    assert assigned.status_code == 201, assigned.get_json()
    pairs = {}
    for purpose in purposes:
        pairs.update(_listed(client, manager, project, purpose))
    started = time.perf_counter()
    answered = _answer(client, worker, assigned.get_json()["id"], pairs, truth)
    seconds = time.perf_counter() - started
    (meters,) = client.get(f"/api/v1/projects/{project}/progress", headers=manager).get_json()[
        "workers"
    ]
    linkage = _rows(client.get(f"/api/v1/projects/{project}/export/linkage", headers=manager))
    people = [r for r in linkage if r["decided_by"] == "reviewers"]
    agree(len(people) == answered, f"project {project}: every answered pair is the reviewers'")
    agree(
        all((r["decision"] == "match") == ((r["unique_id_l"], r["unique_id_r"]) in truth)
            for r in people),
        f"project {project}: the final linkage keeps the reviewers' (true) answers",
    )  # fmt: skip
    matched = {(r["unique_id_l"], r["unique_id_r"]) for r in linkage if r["decision"] == "match"}
    tp = len(matched & truth)
    precision, recall = tp / max(len(matched), 1), tp / len(truth)
    f1 = 2 * precision * recall / (precision + recall) if tp else 0.0
    return {
        "reviewed": answered, "characters": meters["characters"]["disclosed"],
        "kapr": meters["kapr"], "precision": precision, "recall": recall, "f1": f1,
        "answer_seconds": seconds,
    }  # fmt: skip


def _project(client, manager, febrl, name: str) -> int:
    spec = {**data.project_spec(febrl, name), "page_size": 200}
    made = client.post("/api/v1/projects", json=spec, headers=manager)
    assert made.status_code == 201, made.get_json()
    return made.get_json()["id"]


def _check_counts(febrl, counts: dict) -> None:
    """The app's triage counts against numpy over the file's probabilities."""
    import pyarrow.parquet as pq

    p = pq.read_table(febrl.parquet, columns=["match_probability"]).column(0).to_numpy()
    expected = {"above": int((p > UPPER).sum()), "below": int((p < LOWER).sum())}
    expected["inside"] = len(p) - expected["above"] - expected["below"]
    agree({k: counts[k] for k in expected} == expected, f"triage counts {expected}")


def run_paths(app, febrl, calibration: int) -> tuple[dict, dict, dict]:
    with app.app_context():
        manager = {"Authorization": f"Bearer {make_token(make_user('max', 'manager'))}"}
        worker = {"Authorization": f"Bearer {make_token(make_user('wes', 'worker'))}"}
    client = app.test_client()

    project = _project(client, manager, febrl, "FEBRL4 triaged")
    started = time.perf_counter()
    query = f"lower={LOWER}&upper={UPPER}&calibration={calibration}&seed=1"
    imported = client.post(
        f"/api/v1/projects/{project}/predictions?{query}", data=febrl.csv.read_bytes(),
        headers={**manager, "Content-Type": "application/octet-stream"},
    )  # fmt: skip
    assert imported.status_code == 201, imported.get_json()
    counts = {**imported.get_json()["counts"], "import_seconds": time.perf_counter() - started}
    _check_counts(febrl, counts)
    triaged = _review(client, manager, worker, project, ("band", "calibration"), febrl.truth)
    agree(triaged["reviewed"] == counts["review"], "the triage sent to review what it counted")
    exports = {
        purpose: client.get(
            f"/api/v1/projects/{project}/export/splink_matches?purpose={purpose}", headers=manager
        ).get_data(as_text=True)
        for purpose in ("calibration", "band")
    }

    project = _project(client, manager, febrl, "FEBRL4 blocked")
    made = client.post(
        f"/api/v1/projects/{project}/blocking", json={"rules": RULES, "create": True},
        headers=manager,
    )  # fmt: skip
    assert made.status_code == 201, made.get_json()
    blocked = _review(client, manager, worker, project, ("blocking",), febrl.truth)
    blocked["pairs"] = made.get_json()["pairs"]
    triaged["pairs"] = counts["pairs"]
    return triaged, blocked, {**counts, "exports": exports}


def splink_effects(febrl, exports: dict[str, str], entities) -> list[tuple[str, float, int]]:
    """m of exact given name and the re-predicted band, under EM and after label estimates."""
    import pandas as pd

    out = []
    for source in ("EM only", "calibration", "band"):
        linker, db_api, _ = data.predict(data.splink_frames(entities))
        if source != "EM only":
            labels = pd.read_csv(io.StringIO(exports[source]), dtype=str)
            if labels.empty:
                out.append((source, float("nan"), -1))
                continue
            labels["clerical_match_score"] = labels["clerical_match_score"].astype(float)
            linker.training.estimate_m_from_pairwise_labels(db_api.register(labels))
        model = linker.misc.save_model_to_json()
        given = next(c for c in model["comparisons"] if c["output_column_name"] == "given_name")
        exact = next(level for level in given["comparison_levels"] if "m_probability" in level)
        p = linker.inference.predict().as_pandas_dataframe()["match_probability"]
        out.append((source, exact["m_probability"], int(((p >= LOWER) & (p <= UPPER)).sum())))
    return out


def _print(triaged: dict, blocked: dict, counts: dict, n_truth: int, label: str) -> None:
    print(f"\nFEBRL4 {label}: {n_truth:,} true matches; {counts['pairs']:,} pairs scored by Splink "
          f"(import + triage {counts['import_seconds']:.1f} s)")  # fmt: skip
    print(f"triage [{LOWER}, {UPPER}]: {counts['above']:,} above, {counts['inside']:,} inside, "
          f"{counts['below']:,} below; calibration {counts['calibration']} "
          f"({counts['calibration_above']} above, {counts['calibration_inside']} inside, "
          f"{counts['calibration_below']} below)")  # fmt: skip
    rules = " | ".join("&".join(r) for r in RULES)
    print(f"blocking rules of the other path: {rules}")
    print(f"\n{'':30}{'triage + review':>18}{'app blocking + review':>26}")
    rows = [
        ("pairs in the project", "pairs", "{:,}"),
        ("pairs reviewed", "reviewed", "{:,}"),
        ("characters disclosed", "characters", "{:,}"),
        ("KAPR spent (one reviewer)", "kapr", "{:.5f}"),
        ("precision", "precision", "{:.5f}"),
        ("recall", "recall", "{:.5f}"),
        ("F1", "f1", "{:.5f}"),
        ("answering through the API, s", "answer_seconds", "{:.1f}"),
    ]
    for name, key, fmt in rows:
        print(f"{name:30}{fmt.format(triaged[key]):>18}{fmt.format(blocked[key]):>26}")
    ratio = {k: blocked[k] / max(triaged[k], 1) for k in ("reviewed", "characters")}
    better = (
        "better"
        if triaged["f1"] > blocked["f1"]
        else "equal"
        if triaged["f1"] == blocked["f1"]
        else "WORSE"
    )
    print(f"\nblocking / triage: pairs reviewed x{ratio['reviewed']:.1f}, characters disclosed "
          f"x{ratio['characters']:.1f}; triage F1 is {better} "
          f"({triaged['f1']:.5f} vs {blocked['f1']:.5f})")  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="400 people, calibration 10")
    parser.add_argument("--postgres", help="a PostgreSQL URL (a throwaway schema is used)")
    parser.add_argument("--cache", type=Path, help="keep Splink's predictions here")
    args = parser.parse_args(argv)
    entities, calibration = (400, 10) if args.quick else (None, 50)
    postgres = args.postgres or (quick_postgres() if args.quick else None)
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache or Path(tmp)
        cache.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        febrl = data.load(cache, entities)
        took = time.perf_counter() - started
        print(f"Splink 5 (DuckDB) on FEBRL4: {took:.1f} s (train and predict, or the cache)")
        with bench_app(Path(tmp), postgres, RATELIMIT_ENABLED=False) as app:
            triaged, blocked, counts = run_paths(app, febrl, calibration)
            with app.app_context():
                db.session.remove()
        label = "first 400 people" if args.quick else "full"
        label += ", PostgreSQL" if postgres else ", SQLite"
        _print(triaged, blocked, counts, len(febrl.truth), label)
        if args.quick:
            return finish()
        print("\nSplink's m of exact given name, and its band afresh at the same thresholds:")
        for source, m, band in splink_effects(febrl, counts["exports"], entities):
            shown = "no labels" if band < 0 else f"m = {m:.3f}, band {band:,} pairs"
            print(f"  {source + (' labels' if source != 'EM only' else ''):20} {shown}")
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
