"""Connected components of a graph whose edges come in chunks, in memory linear in its nodes.

The streamed ``clusters`` and ``linked`` exports number the connected components of the final
matches as :func:`~app.projects.exports.formats.clusters` does (from 1, in the order of each
component's first node), without a Python object per node or per edge: nodes are ``0..n-1``
(the records in the export's order), each chunk of edges is merged into the components found
so far (``scipy.sparse.csgraph`` on the roots it touches) and dropped.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Components"]


class Components:
    """Each node's root (the smallest node of its component) and, per root, the OR of the
    kind bits of the component's edges (which kinds of decision link it)."""

    def __init__(self, nodes: int) -> None:
        self.root = np.arange(nodes, dtype=np.int64)
        self.kinds = np.zeros(nodes, dtype=np.uint8)

    def add(self, a: np.ndarray, b: np.ndarray, kinds: np.ndarray) -> None:
        """Join the components of the edges ``a[i] - b[i]``, each of kind bits ``kinds[i]``."""
        from scipy.sparse import coo_matrix  # imported where used (issue 39.3)
        from scipy.sparse.csgraph import connected_components

        if not len(a):
            return
        ends = np.concatenate([self.root[a], self.root[b]])
        roots, index = np.unique(ends, return_inverse=True)
        index = index.reshape(-1)
        edges = len(a)
        graph = coo_matrix(
            (np.ones(edges, dtype=np.int8), (index[:edges], index[edges:])),
            shape=(len(roots), len(roots)),
        )
        count, part = connected_components(graph, directed=False)
        smallest = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(smallest, part, roots)
        new = smallest[part]  # each touched root's new root, the smallest of its component
        kinds_before = self.kinds[roots]
        np.bitwise_or.at(self.kinds, new, kinds_before)
        np.bitwise_or.at(self.kinds, new[index[:edges]], np.asarray(kinds, dtype=np.uint8))
        moved = new != roots
        if moved.any():
            old, to = roots[moved], new[moved]  # ``old`` is sorted: ``roots`` is
            at = np.minimum(np.searchsorted(old, self.root), len(old) - 1)
            hit = old[at] == self.root
            self.root[hit] = to[at[hit]]

    def numbers(self) -> np.ndarray:
        """Each node's component number: from 1, in the order of the components' first nodes."""
        first = self.root == np.arange(len(self.root))
        return np.cumsum(first)[self.root]

    def node_kinds(self) -> np.ndarray:
        """Each node's component's kind bits (0 for a node no edge touches)."""
        return self.kinds[self.root]
