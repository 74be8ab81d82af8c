"""Components merged from chunks of edges number clusters as the union-find of every edge at
once does (:func:`~app.projects.exports.formats.clusters`), and carry their edges' kinds."""

from __future__ import annotations

import numpy as np
import pytest

from app.projects.exports.components import Components
from app.projects.exports.formats import clusters


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("chunk", [1, 3, 50])
def test_chunked_components_equal_the_union_find(seed, chunk):
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(1, 60))
    edges = int(rng.integers(0, 80))
    a, b = rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)
    kinds = rng.choice([1, 2, 4], edges).astype(np.uint8)
    found = Components(nodes)
    for start in range(0, edges, chunk):
        part = slice(start, start + chunk)
        found.add(a[part], b[part], kinds[part])
    expected = clusters(range(nodes), zip(a.tolist(), b.tolist(), strict=True))
    assert found.numbers().tolist() == [expected[n] for n in range(nodes)]
    bits = {}
    for x, k in zip(a.tolist(), kinds.tolist(), strict=True):
        bits[expected[x]] = bits.get(expected[x], 0) | k
    assert found.node_kinds().tolist() == [bits.get(expected[n], 0) for n in range(nodes)]


def test_no_node_and_no_edge():
    empty = Components(0)
    empty.add(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint8))
    assert empty.numbers().tolist() == [] and empty.node_kinds().tolist() == []
