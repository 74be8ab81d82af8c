"""Maximum flow for compatibility (spec/README.md §3): focal masses onto their elements.

The network is bipartite: source → focal set ``i`` (capacity ``m_i``) → each element ``j`` of
it (unbounded) → sink (capacity ``p_j``). :func:`max_flow` fills it greedily in one pass and
then completes it with Dinic's phases (BFS levels, blocking flow along augmenting paths
``i → j → i' → j' … → sink`` whose backward steps undo earlier assignments). With integer
capacities everything is exact; :func:`app.core.belief.measures.compatibility` scales exact
fractions to integers by their common denominator, so no ``Fraction`` enters the loop.

:func:`edmonds_karp` is the plain version kept as the test oracle and the bench baseline.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from numbers import Real

__all__ = ["edmonds_karp", "max_flow"]


def max_flow(
    masses: Sequence[Real], sets: Sequence[Sequence[int]], caps: Sequence[Real], eps: float = 0
) -> tuple[Real, set[int]]:
    """Return the maximum flow and the elements on the source side of a minimum cut.

    ``sets[i]`` lists the element indices (into ``caps``) of focal set ``i`` of mass
    ``masses[i]``. Amounts at most ``eps`` count as zero (0 for exact integers).
    """
    n_elem = len(caps)
    rem_src = list(masses)  # residual source -> i
    rem_sink = list(caps)  # residual j -> sink
    starts, targets = [0], []
    for members in sets:
        targets.extend(members)
        starts.append(len(targets))
    flow_on = [0] * len(targets)  # flow on edge e (focal -> element)
    owner = [0] * len(targets)
    incoming: list[list[int]] = [[] for _ in range(n_elem)]  # edges into element j
    total = 0
    for i in range(len(sets)):
        for e in range(starts[i], starts[i + 1]):
            j = targets[e]
            owner[e] = i
            incoming[j].append(e)
            if rem_src[i] > eps and rem_sink[j] > eps:  # greedy first pass
                push = min(rem_src[i], rem_sink[j])
                flow_on[e] += push
                rem_src[i] -= push
                rem_sink[j] -= push
                total += push
    while True:
        level_f, level_e, found = _levels(rem_src, rem_sink, starts, targets, flow_on, owner,
                                          incoming, eps)  # fmt: skip
        if not found:
            reached = {j for j, lv in enumerate(level_e) if lv >= 0}
            return total, reached
        pushed = _blocking(rem_src, rem_sink, starts, targets, flow_on, owner, incoming,
                           level_f, level_e, eps)  # fmt: skip
        if pushed <= eps:
            reached = {j for j, lv in enumerate(level_e) if lv >= 0}
            return total, reached
        total += pushed


def _levels(rem_src, rem_sink, starts, targets, flow_on, owner, incoming, eps):
    """BFS from the source over the residual graph; levels of focal sets and elements."""
    level_f = [-1] * len(rem_src)
    level_e = [-1] * len(rem_sink)
    queue = deque()
    for i, r in enumerate(rem_src):
        if r > eps:
            level_f[i] = 1
            queue.append(i)
    found = False
    while queue:
        i = queue.popleft()
        lv = level_f[i] + 1
        for e in range(starts[i], starts[i + 1]):
            j = targets[e]
            if level_e[j] >= 0:
                continue
            level_e[j] = lv
            if rem_sink[j] > eps:
                found = True
            for back in incoming[j]:  # undo another focal set's assignment to j
                k = owner[back]
                if level_f[k] < 0 and flow_on[back] > eps:
                    level_f[k] = lv + 1
                    queue.append(k)
    return level_f, level_e, found


def _blocking(rem_src, rem_sink, starts, targets, flow_on, owner, incoming, level_f, level_e,
              eps):  # fmt: skip
    """Push along level-increasing paths until none is left (iterative DFS, current arcs)."""
    next_edge = list(starts[:-1])  # current arc of each focal set
    next_back = [0] * len(rem_sink)  # current arc into each element
    dead_f = [False] * len(rem_src)
    pushed = 0
    for root in range(len(rem_src)):
        while rem_src[root] > eps and not dead_f[root] and level_f[root] == 1:
            path = _path(root, starts, targets, flow_on, owner, incoming, level_f, level_e,
                         next_edge, next_back, dead_f, rem_sink, eps)  # fmt: skip
            if path is None:
                break
            edges, j_end = path
            amount = min(rem_src[root], rem_sink[j_end])
            for e, forward in edges:
                if not forward:
                    amount = min(amount, flow_on[e])
            for e, forward in edges:
                flow_on[e] += amount if forward else -amount
            rem_src[root] -= amount
            rem_sink[j_end] -= amount
            pushed += amount
    return pushed


def _path(root, starts, targets, flow_on, owner, incoming, level_f, level_e, next_edge,
          next_back, dead_f, rem_sink, eps):  # fmt: skip
    """One augmenting path from ``root`` in the level graph: ``[(edge, forward)], end``."""
    stack: list[tuple[int, int]] = []  # (forward edge i->j, backward edge j->k or -1)
    i = root
    while True:
        advanced = False
        while next_edge[i] < starts[i + 1]:
            e = next_edge[i]
            j = targets[e]
            if level_e[j] == level_f[i] + 1:
                if rem_sink[j] > eps:
                    edges = [x for f, b in stack for x in ((f, True), (b, False))]
                    return [*edges, (e, True)], j
                while next_back[j] < len(incoming[j]):
                    back = incoming[j][next_back[j]]
                    k = owner[back]
                    if level_f[k] == level_e[j] + 1 and flow_on[back] > eps and not dead_f[k]:
                        stack.append((e, back))
                        i = k
                        advanced = True
                        break
                    next_back[j] += 1
                if advanced:
                    break
            next_edge[i] += 1
        if advanced:
            continue
        dead_f[i] = True  # no way on from i in this phase
        if not stack:
            return None
        e, back = stack.pop()
        i = owner[e]
        next_back[targets[e]] += 1


def edmonds_karp(
    masses: Sequence[Real], sets: Sequence[Sequence[int]], caps: Sequence[Real], eps: float = 0
) -> tuple[Real, set[int]]:
    """The same flow by plain Edmonds–Karp on a dict of residual capacities (the oracle)."""
    source, sink = ("source",), ("sink",)
    cap: dict = {source: {}, sink: {}}
    for i, (mass, members) in enumerate(zip(masses, sets, strict=True)):
        cap[source][("B", i)] = mass
        cap[("B", i)] = {("x", j): mass for j in members}
    for j, c in enumerate(caps):
        cap.setdefault(("x", j), {})[sink] = c
    flow = 0
    while True:
        parent, queue = {source: None}, deque([source])
        while queue and sink not in parent:
            u = queue.popleft()
            for v, c in cap[u].items():
                if c > eps and v not in parent:
                    parent[v] = u
                    queue.append(v)
        if sink not in parent:
            return flow, {v[1] for v in parent if v[0] == "x"}
        path, v = [], sink
        while parent[v] is not None:
            path.append((parent[v], v))
            v = parent[v]
        push = min(cap[u][v] for u, v in path)
        for u, v in path:
            cap[u][v] -= push
            cap[v][u] = cap[v].get(u, 0) + push
        flow += push
