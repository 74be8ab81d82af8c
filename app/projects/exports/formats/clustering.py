"""Number the clusters the "same" answers make, and write them or the linked data by them."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TextIO, TypeVar

from app.projects.exports.formats.csvwriter import export_writer

__all__ = ["clusters", "write_clusters", "write_linked_dataset"]

H = TypeVar("H", bound=Hashable)


def clusters(nodes: Iterable[H], same_pairs: Iterable[tuple[H, H]]) -> dict[H, int]:
    """Number the connected components of the "same" decisions (union–find).

    Every node gets a cluster id (a singleton if never judged "same"); ids run from 1 in the
    order nodes are first seen (``nodes`` first, then nodes only named in ``same_pairs``).
    """
    parent: dict[H, H] = {}
    size: dict[H, int] = {}

    def find(x: H) -> H:
        parent.setdefault(x, x)
        size.setdefault(x, 1)
        while parent[x] != x:
            parent[x] = parent[parent[x]]  # path halving
            x = parent[x]
        return x

    for node in nodes:
        find(node)
    for a, b in same_pairs:
        root_a, root_b = find(a), find(b)
        if root_a == root_b:
            continue
        if size[root_a] < size[root_b]:
            root_a, root_b = root_b, root_a
        parent[root_b] = root_a
        size[root_a] += size[root_b]
    numbers: dict[H, int] = {}
    return {node: numbers.setdefault(find(node), len(numbers) + 1) for node in list(parent)}


def write_clusters(
    out: TextIO,
    assignment: Mapping[tuple[str, str], int],
    linked_by: Mapping[int, str] | None = None,
    header: bool = True,
) -> int:
    """Write ``cluster_id, source_dataset, unique_id`` for each ``(source, id)`` node.

    With ``linked_by`` (cluster → ``model``, ``reviewers``, ``manager`` joined by ``+``), a
    ``linked_by`` column says which kinds of decision link each cluster ("" for a singleton).
    """
    writer = export_writer(out)
    extra = ["linked_by"] if linked_by is not None else []
    if header:
        writer.writerow(("cluster_id", "source_dataset", "unique_id", *extra))
    for (source, record_id), cluster in assignment.items():
        tail = [linked_by.get(cluster, "")] if linked_by is not None else []
        writer.writerow([cluster, source, record_id, *tail])
    return len(assignment)


def write_linked_dataset(
    out: TextIO,
    members: Iterable[tuple[str, int]],
    sensitive: Mapping[str, Mapping[str, str | None]],
    columns: Sequence[str],
    linked_by: Mapping[int, str] | None = None,
    header: bool = True,
) -> int:
    """Write the linked de-identified data: ``cluster_id`` and the sensitive ``columns``.

    With ``linked_by`` (as :func:`write_clusters`) a ``linked_by`` column follows
    ``cluster_id``.

    ``members`` gives ``(record pseudonym, cluster id)``; ``sensitive`` looks up a record's
    sensitive values by pseudonym. Neither pseudonyms nor identifying values are written.
    A pseudonym missing from ``sensitive`` is an error (the vault and the records disagree).
    A vault column itself named ``cluster_id`` (the generator's ground truth) is headed
    ``vault_cluster_id``, so the file's own linkage clusters keep the one ``cluster_id``.
    """
    writer = export_writer(out)
    names = [f"vault_{c}" if c.lower() == "cluster_id" else c for c in columns]
    extra = ["linked_by"] if linked_by is not None else []
    if header:
        writer.writerow(["cluster_id", *extra, *names])
    count = 0
    for pseudonym, cluster in members:
        try:
            values = sensitive[pseudonym]
        except KeyError:
            raise ValueError(f"no sensitive values for record {pseudonym}") from None
        by = [linked_by.get(cluster, "")] if linked_by is not None else []
        writer.writerow([cluster, *by, *(values.get(c) for c in columns)])
        count += 1
    return count
