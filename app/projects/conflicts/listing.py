"""The conflicts queue at volume: filtered by state or reviewer, a page at a time.

The queue itself is :func:`~app.projects.conflicts.queue.conflict_queue` (those waiting for
someone first, then by pair); this module only chooses and cuts, so a page, its counts and the
API's listing agree.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from app.models import Project
from app.projects.conflicts.queue import OPEN, REFERRED, SETTLED, TIE, ConflictItem, conflict_queue

__all__ = ["PER_PAGE", "STATES", "ConflictPage", "ListingError", "conflict_page"]

#: The state filters: ``todo`` is what waits for the manager (open or tied), ``all`` is all.
STATES = ("all", "todo", OPEN, TIE, REFERRED, SETTLED)
PER_PAGE = (20, 50, 100)


class ListingError(ValueError):
    """An unknown filter or page size (the message names the choices)."""


@dataclass(frozen=True)
class ConflictPage:
    """One page of the filtered queue, with what a pager and the filters need."""

    items: list[ConflictItem]
    page: int  # clamped to 1..pages
    pages: int
    per_page: int
    total: int  # items matching the filters
    counts: dict[str, int]  # per state over the whole queue (``all`` and ``todo`` too)
    reviewers: list[str]  # every reviewer with an answer in the queue, for the filter
    state: str
    reviewer: str | None


def _matches(item: ConflictItem, state: str, reviewer: str | None) -> bool:
    ok = item.state in (OPEN, TIE) if state == "todo" else state == "all" or item.state == state
    return ok and (reviewer is None or reviewer in {a.reviewer for a in item.outcome.answers})


def conflict_page(
    project: Project,
    *,
    state: str = "all",
    reviewer: str | None = None,
    page: int = 1,
    per_page: int | None = PER_PAGE[0],
) -> ConflictPage:
    """The ``page``-th page of ``per_page`` conflicts in ``state`` answered by ``reviewer``
    (``per_page`` None: all of them on one page).

    A page past the end shows the last one (after a bulk action emptied it, the manager lands
    on the nearest page that has something). Raises :class:`ListingError` for an unknown
    state or a page size outside :data:`PER_PAGE`.
    """
    if state not in STATES:
        raise ListingError(f"the state is one of {', '.join(STATES)}")
    if per_page is not None and per_page not in PER_PAGE:
        raise ListingError(f"a page holds {', '.join(map(str, PER_PAGE))} conflicts")
    queue = conflict_queue(project)
    chosen = [i for i in queue if _matches(i, state, reviewer)]
    per_page = per_page or max(1, len(chosen))
    pages = max(1, -(-len(chosen) // per_page))
    page = min(max(1, page), pages)
    counts = Counter(i.state for i in queue)
    counts.update(all=len(queue), todo=counts[OPEN] + counts[TIE])
    reviewers = sorted({a.reviewer for i in queue for a in i.outcome.answers})
    return ConflictPage(
        items=chosen[(page - 1) * per_page : page * per_page],
        page=page, pages=pages, per_page=per_page, total=len(chosen),
        counts={s: counts.get(s, 0) for s in STATES}, reviewers=reviewers,
        state=state, reviewer=reviewer,
    )  # fmt: skip
