"""Set up ``bench/kapr.py``: an app on a throwaway database, a generated dedupe project, a
worker with a token and an assignment, and the naive pure-Python scan it is compared with.

Not a bench itself (``run_all.py`` skips modules starting with ``_``).
"""

from __future__ import annotations

import re
import uuid
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import sqlalchemy as sa

from app import create_app
from app.auth.services import create_user, issue_token
from app.datagen import generate
from app.extensions import db
from app.projects.lifecycle import create_project
from app.projects.staffing import assign_pairs

IDENTIFYING = [
    ("voter_reg_num", "id"),
    ("first_name", "string"),
    ("last_name", "string"),
    ("dob", "date"),
    ("sex", "category"),
    ("race", "category"),
]
SENSITIVE = ("income", "diagnosis")


@contextmanager
def bench_app(tmp: Path, postgres: str | None = None, **config):
    """Yield an app on an empty SQLite file (or a fresh PostgreSQL schema), dropped after.

    ``config`` adds settings (``RATELIMIT_ENABLED=False`` for a bench posting thousands of
    answers a minute)."""
    options, schema, admin = {}, None, None
    if postgres:
        url = re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", postgres)
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        main = vault = url
        options = {"connect_args": {"options": f"-csearch_path={schema}"}}
    else:
        main, vault = f"sqlite:///{tmp / 'main.sqlite'}", f"sqlite:///{tmp / 'vault.sqlite'}"
    app = create_app(
        {
            "SECRET_KEY": "bench-only",
            "WTF_CSRF_ENABLED": False,
            "AUTO_UPGRADE": False,
            "SQLALCHEMY_DATABASE_URI": main,
            "VAULT_DATABASE_URI": vault,
            "SQLALCHEMY_ENGINE_OPTIONS": options,
            **config,
        }
    )
    with app.app_context():
        db.create_all()
    try:
        yield app
    finally:
        with app.app_context():
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()
        if admin is not None:
            with admin.connect() as conn:
                conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


def candidate_pairs(data: dict[str, np.ndarray], n_pairs: int, seed: int) -> list[list[str]]:
    """Half the pairs from true clusters, half near misses (same last name, other person)."""
    rng = np.random.default_rng(seed)
    ids, clusters = data["id"], data["cluster_id"]
    order = np.argsort(clusters, kind="stable")
    same = clusters[order][1:] == clusters[order][:-1]
    true = np.flatnonzero(same)
    picked = rng.choice(true, min(n_pairs // 2, len(true)), replace=False)
    pairs = [[ids[order[i]], ids[order[i + 1]]] for i in picked]
    by_name = np.argsort(data["last_name"], kind="stable")
    names, cl = data["last_name"][by_name], clusters[by_name]
    near = np.flatnonzero((names[1:] == names[:-1]) & (cl[1:] != cl[:-1]) & (names[1:] != ""))
    picked = rng.choice(near, min(n_pairs - len(pairs), len(near)), replace=False)
    pairs += [[ids[by_name[i]], ids[by_name[i + 1]]] for i in picked]
    rng.shuffle(pairs)
    return [[str(a), str(b)] for a, b in pairs]


def project_spec(n: int, n_pairs: int, seed: int = 1, model: str = "row") -> dict:
    """A dedupe project of ``n`` generated records and ``n_pairs`` candidate pairs."""
    data = generate(n, seed)
    names = [a for a, _ in IDENTIFYING] + list(SENSITIVE)
    columns = [data[c].tolist() for c in names]
    records = [
        {"id": rid, **dict(zip(names, values, strict=True))}
        for rid, *values in zip(data["id"].tolist(), *columns, strict=True)
    ]
    attributes = [{"name": a, "type": t} for a, t in IDENTIFYING]
    attributes += [{"name": a, "type": "string", "sensitive": True} for a in SENSITIVE]
    return {
        "name": f"bench {n}",
        "kind": "dedupe",
        "attributes": attributes,
        "records": records,
        "pairs": candidate_pairs(data, n_pairs, seed),
        "evidence_model": model,
        "page_size": 10,
    }


def make_worker(spec: dict, budget: float = 1.0) -> tuple[int, str]:
    """Create the project, a worker, its token and its assignment; return (id, token)."""
    manager, _ = create_user("bench-manager", "manager")
    worker, _ = create_user("bench-worker", "worker")
    project = create_project(spec, manager)
    assignment = assign_pairs(project, worker, budget)
    token = issue_token(worker)
    db.session.commit()
    return assignment.id, token


def naive_columns(index, limit: int | None = None) -> dict[str, list]:
    """The normalised values of the first ``limit`` records, as Python lists."""
    n = index.n if limit is None else min(limit, index.n)
    out = {}
    for name, column in index.columns.items():
        uniques = [None, *column.uniques[1:].tolist()]
        out[name] = [uniques[s] for s in column.slots[:n].tolist()]
    return out


def naive_k(values: dict[str, list], row) -> int:
    """Scan every record (pure Python) and count those consistent with ``row``."""
    # Imported here: bench children run this module on older revisions' app/ too (--against),
    # where these names lived elsewhere; only the naive scan needs them.
    from app.core.disclosure import Level
    from app.core.kapr import consistent

    shown = [(values[a], ev) for a, ev in row.items() if ev.level is not Level.MASKED]
    n = len(next(iter(values.values())))
    return sum(all(consistent(col[r], ev) for col, ev in shown) for r in range(n))


def naive_pair_preview(values, view, next_evidence) -> int:
    """Preview one pair the original way: k of each row, then k after each cell's reveal.

    Returns the number of scans made.
    """
    scans = 0
    for side in ("left", "right"):
        row = view.row(side)
        naive_k(values, row)
        scans += 1
        for attribute in row:
            evidence = next_evidence(side, attribute)
            if evidence is not None:
                naive_k(values, {**row, attribute: evidence})
                scans += 1
    return scans
