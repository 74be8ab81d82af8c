"""The worker's linkage page in a real browser: reveal, meters, budget, answers, keyboard."""

from __future__ import annotations

import os
import re
from fractions import Fraction
from pathlib import Path

import pytest
from playwright.sync_api import expect

from app.review.views.formatting import percent as format_percent
from tests.e2e.test_login import log_in
from tests.factories import make_assignment, make_user, paper_project

AXE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe-core-4.14.1.min.js"
SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "screenshot-review.png"


@pytest.fixture
def study(app):
    """The paper's six pairs; wes has a 1% budget, vic has their own assignment."""

    def build(page_size=10, budget=0.01):
        with app.app_context():
            manager = make_user("max", "manager")
            wes, vic = make_user("wes"), make_user("vic")
            project = paper_project(manager, page_size=page_size)
            mine = make_assignment(project, wes, budget=budget)
            theirs = make_assignment(project, vic, budget=budget)
            return mine.id, theirs.id

    return build


def open_assignment(page, base, assignment_id, query=""):
    log_in(page, base, "wes")
    page.wait_for_url(f"{base}/review/")
    page.goto(f"{base}/review/assignments/{assignment_id}{query}")
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")


def cell(page, pair_index, row, attribute):
    body = page.locator("tbody.pair").nth(pair_index)
    return body.locator(f'.cell[data-row="{row}"][data-attr="{attribute}"]')


def kapr_exact(page) -> Fraction:
    return Fraction(page.locator("#kapr-meter").get_attribute("data-kapr-exact"))


def axe_violations(page) -> list[dict]:
    # Evaluated through the DevTools protocol: the page's CSP (rightly) refuses the inline
    # <script> add_script_tag would insert.
    page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [v for v in result["violations"] if v["impact"] in ("serious", "critical")]


def percent(value: Fraction) -> str:
    return format_percent(float(value))  # the grid's JS must format exactly like the server


def server_state(page, api) -> dict:
    return page.request.get(f"{api}?page=1").json()


def exhaust_budget_elsewhere(page, api) -> tuple[str, Fraction]:
    """Reveal behind the page's back until nothing is affordable; return a now-stale cell.

    The page still offers the returned cell (it was affordable when last drawn), but the
    server will refuse it: the situation a second tab or a slow network creates.
    """
    page.wait_for_load_state("networkidle")  # the page's own refresh has landed
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    shown_open = {
        (
            int(b.get_attribute("data-pair")),
            int(b.get_attribute("data-row")),
            b.get_attribute("data-attr"),
        )
        for b in page.locator(".cell.open").all()
    }
    touched = set()
    while True:
        state = server_state(page, api)
        cells = [
            ((p["id"], r["row"], name), c)
            for p in state["pairs"]
            for r in p["rows"]
            for name, c in r["cells"].items()
        ]
        affordable = [key for key, c in cells if c["affordable"]]
        if not affordable:
            break
        pair_id, row, attribute = affordable[-1]
        touched.add(affordable[-1])
        response = page.request.post(
            f"{api}/reveal",
            data={"pair_id": pair_id, "row": row, "attribute": attribute},
            headers={"X-CSRFToken": token},
        )
        assert response.status == 200
    stale = next(k for k, c in cells if c["next_level"] and k in shown_open - touched)
    return stale, Fraction(state["assignment"]["kapr_exact"])


def stale_cell(page, key):
    pair_id, row, attribute = key
    return page.locator(
        f'tbody[data-pair="{pair_id}"] .cell[data-row="{row}"][data-attr="{attribute}"]'
    )


def test_reveal_budget_answers_and_reload_with_the_mouse(page, live_server, study):
    mine, _ = study(budget=0.01)
    api = f"{live_server}/api/v1/assignments/{mine}"
    open_assignment(page, live_server, mine)
    assert axe_violations(page) == []

    # Hover: the cost of the next reveal on the cell and as a ghost on the risk meter.
    target = cell(page, 0, 0, "name")
    expect(target.locator(".value")).to_have_text("***@")
    cost = Fraction(target.get_attribute("data-cost-exact"))
    before, chars_before = kapr_exact(page), page.locator("#chars-value").inner_text()
    target.hover()
    expect(target.locator(".cost")).to_be_visible()
    expect(target.locator(".cost")).to_have_text(f"+{percent(cost)}")
    expect(page.locator("#kapr-meter .meter-ghost")).to_be_visible()
    expect(page.locator("#kapr-preview")).to_have_text(f"+{percent(cost)}")

    # Click: the partial value, and the risk meter moves by exactly the previewed cost.
    target.click()
    expect(cell(page, 0, 0, "name").locator(".value")).to_have_text("***y")
    expect(page.locator("#kapr-meter")).to_have_attribute("data-kapr-exact", str(before + cost))
    expect(page.locator("#kapr-value")).to_have_text(percent(before + cost))
    expect(page.locator("#chars-value")).not_to_have_text(chars_before)
    expect(page.locator("#status")).to_contain_text(f"+{percent(cost)}")

    # A cell over the budget looks and behaves disabled, with the reason on hover.
    over = cell(page, 0, 0, "race")
    expect(over).to_have_attribute("aria-disabled", "true")
    expect(over).to_have_attribute("title", re.compile("^Over budget"))
    over.click(force=True)  # a real click; the page must not send a request
    expect(page.locator("#status")).to_contain_text("Over budget")
    expect(over.locator(".value")).to_have_text("* =")
    assert kapr_exact(page) == before + cost

    # Spend the rest elsewhere; the page's stale offer is refused and nothing changes.
    stale_key, spent = exhaust_budget_elsewhere(page, api)
    stale = stale_cell(page, stale_key)
    shown = stale.locator(".value").inner_text()
    stale.click()
    expect(page.locator("#alert")).to_contain_text("Refused")
    expect(page.locator("#alert")).to_contain_text("Nothing was revealed")
    expect(stale.locator(".value")).to_have_text(shown)
    assert Fraction(server_state(page, api)["assignment"]["kapr_exact"]) == spent
    page.reload()  # catch up with what was revealed behind the page's back
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    assert kapr_exact(page) == spent
    expect(stale).to_have_attribute("aria-disabled", "true")
    assert page.locator(".cell.open").count() == 0

    # Answers: submitting too early names the missing pairs; then every pair is answered.
    page.locator("tbody.pair").nth(0).get_by_role("button", name="same, high confidence").click()
    expect(page.locator("#progress-text")).to_have_text("1 / 6")
    page.get_by_role("button", name="Submit page").click()
    expect(page.locator("#alert")).to_contain_text("answer pairs 2, 3, 4, 5, 6 first")
    expect(page.locator("tbody.unanswered")).to_have_count(5)
    for index in range(1, 6):
        choice = ["different, low confidence", "same, medium confidence"][index % 2]
        page.locator("tbody.pair").nth(index).get_by_role("button", name=choice).click()
        expect(page.locator("#progress-text")).to_have_text(f"{index + 1} / 6")
    expect(page.locator("#tally")).to_contain_text("Same 4 (H 1, M 3, L 0)")
    expect(page.locator("#tally")).to_contain_text("Different 2 (H 0, M 0, L 2)")
    page.get_by_role("button", name="Submit page").click()
    expect(page.locator("#status")).to_contain_text("All 6 pairs are answered")

    # Reload: the same answers, cells and meters, all from the API.
    pressed = page.locator('.choose[aria-pressed="true"]').all_inner_texts()
    values = page.locator(".cell .value").all_inner_texts()
    meters = page.locator("#kapr-value").inner_text(), page.locator("#chars-value").inner_text()
    page.reload()
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    assert page.locator('.choose[aria-pressed="true"]').all_inner_texts() == pressed
    assert page.locator(".cell .value").all_inner_texts() == values
    assert (
        page.locator("#kapr-value").inner_text(),
        page.locator("#chars-value").inner_text(),
    ) == meters
    assert kapr_exact(page) == spent
    expect(page.locator("#progress-text")).to_have_text("6 / 6")
    assert axe_violations(page) == []


def tab_to(page, selector: str, limit: int = 40) -> None:
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def arrow_to(page, pair_id: int, row: int, attribute: str) -> None:
    """Move the focus from the focused cell to another one with the arrow keys only."""

    def where(selector):
        return page.evaluate(
            """s => { const b = document.querySelector(s);
                      const rows = [...document.querySelectorAll('tr.rec')];
                      const tr = b.closest('tr');
                      return [rows.indexOf(tr), [...tr.querySelectorAll('.cell')].indexOf(b)]; }""",
            selector,
        )

    (r0, c0) = where(".cell:focus")
    (r1, c1) = where(
        f'tbody[data-pair="{pair_id}"] .cell[data-row="{row}"][data-attr="{attribute}"]'
    )
    for key, steps in (("ArrowDown", r1 - r0), ("ArrowUp", r0 - r1)):
        for _ in range(max(0, steps)):
            page.keyboard.press(key)
    for key, steps in (("ArrowRight", c1 - c0), ("ArrowLeft", c0 - c1)):
        for _ in range(max(0, steps)):
            page.keyboard.press(key)


def answer_pair_by_pair(page, keys: str) -> None:
    """From the first cell, each key answers a pair, the arrows moving on to the next pair."""
    tab_to(page, ".cell")
    for i, key in enumerate(keys):
        if i:
            page.keyboard.press("ArrowDown")
            page.keyboard.press("ArrowDown")
        page.keyboard.press(key)


def submit_by_keyboard(page) -> None:
    tab_to(page, "#submit-page")
    page.keyboard.press("Enter")


def test_the_keyboard_only_path(page, live_server, study):
    mine, _ = study(page_size=4, budget=0.01)
    api = f"{live_server}/api/v1/assignments/{mine}"
    open_assignment(page, live_server, mine)

    # Tab to the first cell: focus shows the cost like hovering does; Enter reveals.
    tab_to(page, ".cell")
    target = cell(page, 0, 0, "name")
    expect(target).to_be_focused()
    cost, before = Fraction(target.get_attribute("data-cost-exact")), kapr_exact(page)
    expect(target.locator(".cost")).to_be_visible()
    expect(page.locator("#kapr-preview")).to_have_text(f"+{percent(cost)}")
    page.keyboard.press("Enter")
    expect(target.locator(".value")).to_have_text("***y")
    expect(page.locator("#kapr-meter")).to_have_attribute("data-kapr-exact", str(before + cost))
    expect(target).to_be_focused()

    # Arrows move between cells and pairs; Enter on an over-budget cell sends nothing.
    page.keyboard.press("ArrowDown")
    expect(cell(page, 0, 1, "name")).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(cell(page, 0, 1, "race")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_contain_text("Over budget")
    assert kapr_exact(page) == before + cost
    page.keyboard.press("ArrowDown")
    expect(cell(page, 1, 0, "race")).to_be_focused()
    page.keyboard.press("ArrowRight")
    expect(page.locator("tbody.pair").nth(1).locator(".choose").first).to_be_focused()
    page.keyboard.press("ArrowLeft")
    expect(cell(page, 1, 0, "race")).to_be_focused()

    # A reveal the server refuses (the budget was spent in another tab).
    stale_key, spent = exhaust_budget_elsewhere(page, api)
    arrow_to(page, *stale_key)
    expect(stale_cell(page, stale_key)).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#alert")).to_contain_text("Refused")
    assert Fraction(server_state(page, api)["assignment"]["kapr_exact"]) == spent

    # Keys 1-6 answer the focused pair; Submit page moves on to page 2.
    page.reload()
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    tab_to(page, ".cell")
    # (Keys typed faster than answers save: test_answers_typed_faster_than_they_save_...)
    for answered, key in enumerate("6143", start=1):
        page.keyboard.press(key)
        expect(page.locator("#progress-text")).to_have_text(f"{answered} / 6")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
    expect(page.locator("#progress-text")).to_have_text("4 / 6")
    submit_by_keyboard(page)
    page.wait_for_url(re.compile(r"\?page=2$"))
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    answer_pair_by_pair(page, "52")
    expect(page.locator("#progress-text")).to_have_text("6 / 6")
    submit_by_keyboard(page)
    expect(page.locator("#status")).to_contain_text("All 6 pairs are answered")
    assert axe_violations(page) == []

    # Save & exit, then come back: the answers and the meters are where they were.
    tab_to(page, "#save-exit")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server}/review/")
    expect(page.get_by_role("cell", name="6 / 6")).to_be_visible()
    page.goto(f"{live_server}/review/assignments/{mine}?page=1")
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")
    pressed = page.locator('.choose[aria-pressed="true"]')
    expect(pressed).to_have_count(4)
    assert [b.get_attribute("title") for b in pressed.all()] == [
        "Same, high confidence (key 6)",
        "Different, high confidence (key 1)",
        "Same, low confidence (key 4)",
        "Different, low confidence (key 3)",
    ]
    assert kapr_exact(page) == spent
    expect(page.locator("#kapr-value")).to_have_text(percent(spent))


# A slow network, made on purpose: on page 1 the first answer's reply comes back last; on
# page 2 the second answer's request leaves late.
SLOW_ANSWERS = """
(() => {
  const fetched = window.fetch.bind(window);
  const second = /[?&]page=2/.test(location.search);
  const wait = () => new Promise((done) => setTimeout(done, 1500));
  let answers = 0;
  window.fetch = async (url, options) => {
    const answer = options && options.method === "POST" && /\\/decisions$/.test(String(url));
    const n = answer ? ++answers : 0;
    if (second && n === 2) await wait();
    const response = await fetched(url, options);
    if (!second && n === 1) await wait();
    return response;
  };
})();
"""


def test_answers_typed_faster_than_they_save_are_all_kept(page, live_server, study):
    mine, _ = study(page_size=4)
    api = f"{live_server}/api/v1/assignments/{mine}"
    page.add_init_script(SLOW_ANSWERS)
    open_assignment(page, live_server, mine)
    tab_to(page, ".cell")
    # Four pairs answered and the last one changed, without waiting for a single save.
    for key in "614":
        page.keyboard.press(key)
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
    page.keyboard.press("3")
    page.keyboard.press("2")  # a change of mind on the same pair is not a conflict
    expect(page.locator("#status")).to_contain_text("Pair 4: different, medium confidence saved")
    expect(page.locator("#progress-text")).to_have_text("4 / 6")  # the latest count, drawn last
    expect(page.locator("#alert")).to_have_text("")
    saved = page.request.get(f"{api}/decisions").json()
    assert saved["decided"] == 4
    assert sorted((a["decision"], a["confidence"]) for a in saved["decisions"].values()) == [
        ("different", "high"), ("different", "medium"), ("same", "high"), ("same", "low"),
    ]  # fmt: skip
    pressed = page.locator('.choose[aria-pressed="true"]')
    assert [b.get_attribute("title") for b in pressed.all()] == [
        "Same, high confidence (key 6)",
        "Different, high confidence (key 1)",
        "Same, low confidence (key 4)",
        "Different, medium confidence (key 2)",
    ]
    submit_by_keyboard(page)
    page.wait_for_url(re.compile(r"\?page=2$"))
    expect(page.locator("#review")).to_have_attribute("data-ready", "true")

    # Submit right after the last key: the page is submitted once its answers are saved.
    answer_pair_by_pair(page, "51")
    submit_by_keyboard(page)
    expect(page.locator("#status")).to_contain_text("All 6 pairs are answered")
    expect(page.locator("#alert")).to_have_text("")
    assert page.request.get(f"{api}/decisions").json()["decided"] == 6


def test_a_worker_cannot_open_another_workers_page(page, live_server, study):
    _, theirs = study()
    log_in(page, live_server, "wes")
    page.wait_for_url(f"{live_server}/review/")
    response = page.goto(f"{live_server}/review/assignments/{theirs}")
    assert response.status == 403
    expect(page.get_by_role("heading", level=1)).to_contain_text("403")
    assert page.request.get(f"{live_server}/api/v1/assignments/{theirs}?page=1").status == 403
    assert page.request.get(f"{live_server}/api/v1/assignments/{theirs}/decisions").status == 403


def test_a_page_with_every_level_passes_axe(page, live_server, study, tmp_path):
    """Masked, partial and full cells, answers and a hover: no serious a11y violation.

    With ``UPDATE_SCREENSHOTS=1`` this also refreshes docs/screenshot-review.png.
    """
    mine, _ = study(budget=0.05)
    open_assignment(page, live_server, mine)
    page.set_viewport_size({"width": 1280, "height": 1000})
    for pair, row, attribute, shown in [
        (0, 0, "name", "***y"),
        (0, 0, "name", "Mary"),
        (1, 0, "dob", "*8/*9/****"),
        (3, 1, "name", "***y"),
    ]:
        cell(page, pair, row, attribute).click()
        expect(cell(page, pair, row, attribute).locator(".value")).to_have_text(shown)
    expect(page.locator("#kapr-meter")).to_have_attribute("data-kapr-exact", re.compile("/"))
    page.locator("tbody.pair").nth(0).get_by_role("button", name="same, high confidence").click()
    page.locator("tbody.pair").nth(1).get_by_role(
        "button", name="different, medium confidence"
    ).click()
    expect(page.locator("#progress-text")).to_have_text("2 / 6")
    cell(page, 2, 1, "dob").hover()
    expect(page.locator("#kapr-meter .meter-ghost")).to_be_visible()
    assert axe_violations(page) == []
    path = SCREENSHOT if os.environ.get("UPDATE_SCREENSHOTS") else tmp_path / "review.png"
    page.screenshot(path=str(path), full_page=True)


NAMES = {
    "name": "Names",
    "attributes": [
        {"name": "first_name", "type": "string"},
        {"name": "last_name", "type": "string"},
        {"name": "dob", "type": "date"},
    ],
    "records": [
        {"id": "1", "first_name": "BENJAMIN", "last_name": "MICHAEL", "dob": "01/02/1980"},
        {"id": "2", "first_name": "MICHAEL", "last_name": "BENJAMIN", "dob": "02/01/1980"},
        {"id": "3", "first_name": "ANNA", "last_name": "", "dob": "01/02/1980"},
    ],
}


def test_frequency_name_swap_and_missing_markers(app, page, live_server):
    with app.app_context():
        project = paper_project(make_user("max", "manager"), **NAMES)
        mine = make_assignment(project, make_user("wes"), budget=0.5).id
    open_assignment(page, live_server, mine)
    first = page.locator("tbody.pair").nth(0)
    expect(first.locator(".freq")).to_have_count(4)
    expect(first.locator(".freq").first).to_contain_text("\u0192")
    expect(first.locator(".freq").first).to_have_attribute("title", re.compile("^frequency of"))
    expect(first.locator(".markup-row .mark-name_swap").first).to_be_visible()
    expect(first.locator(".markup-row .mark-date_swap")).to_have_count(1)
    missing = page.locator('.cell[data-attr="last_name"][aria-disabled="true"]')
    expect(missing.first.locator(".value")).to_have_text("\u2205")
    expect(missing.first).to_have_attribute("title", "Missing value: nothing to reveal")
    assert axe_violations(page) == []


def test_a_double_click_reveals_one_level(app, page, live_server, study):
    from app.extensions import db
    from app.models import RevealEvent

    mine, _ = study(budget=1.0)
    open_assignment(page, live_server, mine)
    target = cell(page, 1, 0, "dob")  # 08/09/1964 vs 09/08/1964: masked → partial → full
    target.click()
    expect(target).to_have_class(re.compile(r"\blevel-partial\b"))
    # The second click of a double-click arriving after the first reveal has completed
    # (a fast server) carries detail 2 and must not reveal the next level.
    target.dispatch_event("click", {"detail": 2})
    page.wait_for_timeout(300)  # let any second request arrive before counting
    with app.app_context():
        assert db.session.query(RevealEvent).count() == 1
    expect(target).to_have_class(re.compile(r"\blevel-partial\b"))
