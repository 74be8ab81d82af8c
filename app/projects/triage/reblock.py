"""New rounds from our own blocking: more rules, or MINDFIRL's iterative blocking.

MINDFIRL links in passes: after a round is decided, the records of each current cluster
(the connected components of the final *match* decisions, the model's and people's) stand
for one entity, so the next blocking pass runs over **one representative per cluster** (the
first record of each source in it) and sends only the new pairs to review as the next
round. Pairs inside one cluster are settled already and pairs the project holds are
skipped. ``add_blocking_round`` is the plain case: the rules over every record.
"""

from __future__ import annotations

import numpy as np

from app.extensions import db
from app.models import Pair, Project, ProjectKind, Purpose, User
from app.projects.blocking import BlockingRefused
from app.projects.blocking.pairing import max_pairs, rules_of, source_records
from app.projects.blocking.rules import TooManyPairs, candidate_pairs
from app.projects.exports.formats import clusters
from app.projects.progress.finals import final_columns
from app.projects.triage.rounds import RoundResult, record_round
from app.projects.triage.store import NewPairs, existing_keys, insert_pairs, next_round, pair_keys

__all__ = ["add_blocking_round", "current_clusters", "reblock_round"]


def current_clusters(project: Project) -> dict[int, int]:
    """Cluster number of every record id, from the pairs whose final decision is a match."""
    finals = final_columns(project.id)
    edges = db.session.execute(
        finals.query(project.id, Pair.record_a_id, Pair.record_b_id).where(
            finals.decision == "match"
        )
    ).all()
    records_a, records_b = source_records(project)
    nodes = [*records_a, *(records_b or {})]
    return clusters(nodes, [(a, b) for a, b in edges])


def add_blocking_round(project: Project, raw_rules: object, by: User) -> RoundResult:
    """The pairs of ``raw_rules`` the project lacks, as its next round. Caller commits."""
    records_a, records_b = source_records(project)
    return _round(project, raw_rules, records_a, records_b, by, "blocking", None)


def reblock_round(project: Project, raw_rules: object, by: User) -> RoundResult:
    """Block one representative per current cluster; the new pairs are the next round."""
    records_a, records_b = source_records(project)
    cluster = current_clusters(project)
    first: dict[tuple[int, str], int] = {}
    for label, records in (("A", records_a), ("B", records_b or {})):
        for record_id in records:
            first.setdefault((cluster[record_id], label), record_id)
    keep = set(first.values())
    reps_a = {i: v for i, v in records_a.items() if i in keep}
    reps_b = None if records_b is None else {i: v for i, v in records_b.items() if i in keep}
    return _round(project, raw_rules, reps_a, reps_b, by, "reblock", cluster)


def _round(project, raw_rules, records_a, records_b, by, origin, cluster) -> RoundResult:
    if project.kind == ProjectKind.PAIRFILE:
        raise BlockingRefused("a pair-file project takes its pairs from the file")
    rules = rules_of(project, raw_rules)
    names = [str(rule)[:200] for rule in rules]
    try:
        found = list(candidate_pairs(records_a, records_b, rules, max_pairs=max_pairs()))
    except TooManyPairs as exc:
        raise BlockingRefused(
            f"these rules make {exc.total:,} pairs, more than the limit of {exc.limit:,}; "
            "add a key to a rule to make the blocks smaller"
        ) from None
    dedupe = project.kind == ProjectKind.DEDUPE
    a = np.array([p[0] for p in found], dtype=np.int64)
    b = np.array([p[1] for p in found], dtype=np.int64)
    fresh = ~np.isin(pair_keys(a, b, dedupe), existing_keys(project.id, dedupe))
    if cluster is not None:
        fresh &= np.array([cluster[x] != cluster[y] for x, y, _ in found], dtype=bool)
    rows = np.flatnonzero(fresh)
    if not len(rows):
        raise BlockingRefused("these rules make no pair the project does not have already")
    nan = np.full(len(rows), np.nan)
    new = NewPairs(a[rows], b[rows], nan, nan, [names[found[i][2]] for i in rows.tolist()])
    number = next_round(project)
    insert_pairs(project.id, new, number, Purpose.BLOCKING.value)
    counts = {"pairs": len(rows), "review": len(rows), "skipped": len(found) - len(rows)}
    if cluster is not None:
        counts["clusters"] = len(set(cluster.values()))
    return record_round(project, number, origin, by, counts)
