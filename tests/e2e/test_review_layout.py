"""The worker's page at ordinary screen widths with many identifying attributes: the answer
panel of every pair stays in view (not cut off at the right edge, not under another element),
whether the cells are masked or fully revealed and however the grid is scrolled."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select

from app.extensions import db
from app.models import Pair
from app.projects.lifecycle import create_project
from app.review.reveal import RevealRefused, reveal_cell
from tests.e2e.test_review_page import open_assignment
from tests.factories import make_assignment, make_user

#: Eight identifying attributes of FEBRL-like records, as a linkage team imports them.
ATTRIBUTES = [
    ("given_name", "string"), ("surname", "string"), ("date_of_birth", "date"),
    ("address_1", "string"), ("suburb", "category"), ("postcode", "id"),
    ("soc_sec_id", "id"), ("state", "category"),
]  # fmt: skip
VALUES = [
    ("michaela", "neumann", "01/12/1915", "8 stanley street", "miami", "4223", "5304218", "nsw"),
    ("courtney", "painter", "07/30/1981", "rothschild avenue", "bellbird heights", "4560",
     "4066625", "vic"),
    ("charles", "green", "12/31/1976", "mcquillen circuit lucknow", "bega flats", "4305",
     "4365168", "qld"),
    ("vanessa", "parr", "04/11/1927", "ellenborough place kalkite homestead", "sydney", "2071",
     "1350782", "nsw"),
]  # fmt: skip


def _record(rid: str, values: tuple, typo: bool) -> dict:
    record = {"id": rid}
    for (name, _), value in zip(ATTRIBUTES, values, strict=True):
        record[name] = value[::-1] if typo and name == "surname" else value
    return record


@pytest.fixture
def wide(app):
    """Ten pairs over eight attributes; wes may reveal everything, and the first pair is
    revealed in full (the widest the grid gets)."""
    with app.app_context():
        manager, wes = make_user("max", "manager"), make_user("wes")
        records = [
            _record(f"r{k}-{v}", VALUES[(k + v) % len(VALUES)], typo=v == 1)
            for k in range(10)
            for v in range(2)
        ]
        spec = {
            "name": "eight attributes",
            "kind": "dedupe",
            "attributes": [{"name": n, "type": t} for n, t in ATTRIBUTES],
            "records": records,
            "pairs": [[f"r{k}-0", f"r{k}-1"] for k in range(10)],
            "page_size": 10,
        }
        project = create_project(spec, manager)
        db.session.commit()
        assignment = make_assignment(project, wes, budget=1.0)
        first = db.session.scalar(select(func.min(Pair.id)).where(Pair.project_id == project.id))
        for row in (0, 1):
            for name, _ in ATTRIBUTES:
                for _ in range(2):  # masked -> partial -> full; a category is full at once
                    try:
                        reveal_cell(assignment.id, first, row, name, by=wes)
                    except RevealRefused:
                        break
        db.session.commit()
        return assignment.id


def _hidden_panels(page) -> list[str]:
    """The answer buttons cut off by the viewport's edges or covered by another element,
    checked at each button's centre (where a click lands), on the pairs in view."""
    return page.evaluate(
        """() => {
          const out = [];
          const width = document.documentElement.clientWidth;
          for (const body of document.querySelectorAll("tbody.pair")) {
            for (const b of body.querySelectorAll(".choose")) {
              const r = b.getBoundingClientRect();
              const x = r.left + r.width / 2, y = r.top + r.height / 2;
              if (y < 0 || y > window.innerHeight) continue;  // scrolled past vertically
              const top = document.elementFromPoint(x, y);
              if (r.right > width || r.left < 0 || !top || !b.contains(top)) {
                out.push(`pair ${body.dataset.pair} ${b.dataset.decision} ${b.dataset.confidence}`);
              }
            }
          }
          return out;
        }"""
    )


def _covered(page, locator) -> bool:
    """Whether the element's centre is under another element (such as the pinned panel)."""
    return locator.evaluate(
        """(e) => { const r = e.getBoundingClientRect();
                    const x = r.left + r.width / 2, y = r.top + r.height / 2;
                    const top = document.elementFromPoint(x, y);
                    return !top || !e.contains(top); }"""
    )


def test_the_answer_panel_stays_in_view_with_eight_attributes(page, live_server, wide):
    open_assignment(page, live_server, wide)
    expect(page.locator("#grid-head th")).to_have_count(len(ATTRIBUTES) + 3)
    first, last = page.locator("tbody.pair").first, page.locator("tbody.pair").last
    expect(first.locator(".cell.level-full")).to_have_count(2 * len(ATTRIBUTES))
    for width, height in ((1280, 800), (1440, 900)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => window.scrollTo(0, 0)")
        assert _hidden_panels(page) == [], width
        # Scrolled sideways to either end of the grid, the panel stays.
        for end in ("0", "wrap.scrollWidth"):
            page.evaluate(
                f"() => {{ const wrap = document.querySelector('.grid-wrap'); "
                f"wrap.scrollLeft = {end}; }}"
            )
            assert _hidden_panels(page) == [], (width, end)
        # The keyboard path: a cell at the far right, focused, is not under the panel.
        page.evaluate("() => { document.querySelector('.grid-wrap').scrollLeft = 0; }")
        state = page.locator("tbody.pair").nth(1).locator('.cell[data-row="1"][data-attr="state"]')
        state.focus()
        assert not _covered(page, state), width
        # Down the page: the last pair's panel too.
        last.scroll_into_view_if_needed()
        assert _hidden_panels(page) == [], width
    last.locator('.choose[data-decision="same"][data-confidence="high"]').click(trial=True)
    last.locator('.choose[data-decision="same"][data-confidence="high"]').click()
    expect(last.locator('.choose[aria-pressed="true"]')).to_have_count(1)
