"""The whole linkage in a browser: a manager sets a project up, two workers double-code its
pairs, the manager resolves their conflict, and every export downloads and parses."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from app.extensions import db
from app.models import Pair
from tests.e2e.test_login import log_in
from tests.factories import make_user

MINDFIRL = Path(__file__).parent.parent / "data" / "mindfirl"
PAIRS = 77  # last_name exact: WILDING 5x5 + ABERNATHY 4x4 + ADAMS 6x6; two pages a worker
CHOICES = {"1": "different, high confidence", "6": "same, high confidence"}


@pytest.fixture
def app_overrides(tmp_path):
    return {"WTF_CSRF_ENABLED": True, "UPLOAD_FOLDER": str(tmp_path / "uploads")}


@pytest.fixture
def team(app):
    with app.app_context():
        for name, role in [("max", "manager"), ("wes", "worker"), ("wen", "worker")]:
            make_user(name, role)


def set_up_project(page, base) -> None:
    """Upload both files, block on last name, double-code the pairs to wes and wen."""
    log_in(page, base, "max")
    page.wait_for_url(f"{base}/projects/")
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Project name").fill("Dev link")
    page.get_by_label("Link two files").check()
    page.get_by_label("File A (link)").set_input_files(MINDFIRL / "dev_file1.csv")
    page.get_by_label("File B (link only)").set_input_files(MINDFIRL / "dev_file2.csv")
    page.get_by_role("button", name="Upload and preview").click()

    page.get_by_role("heading", name="Preview: dev_file1.csv (A)").wait_for()
    assert page.get_by_label("Role of ID").input_value() == "id"
    assert page.get_by_label("Type of dob").input_value() == "date"
    assert page.get_by_label("Role of info1").input_value() == "sensitive"
    for column in ("voter_reg_num", "sex", "race"):  # private by default: show them
        page.get_by_label(f"Role of {column}").select_option("identifying")
    for column in ("info3", "info4"):  # they repeat people's names: leave them out
        page.get_by_label(f"Role of {column}").select_option("ignored")
    page.get_by_label("Record ids").select_option("keep_first")
    page.get_by_role("button", name="Validate").click()
    expect(page.locator("#check-summary")).to_contain_text("but 8 rows will be dropped")
    page.get_by_role("button", name="Import").click()

    page.get_by_role("heading", name="Dev link", level=1).wait_for()
    page.get_by_role("link", name="Blocking").click()
    page.get_by_label("Rule 1 key 1 attribute").select_option("last_name")
    page.get_by_role("button", name="Preview pair counts").click()
    # 15 records a side after keep_first; the preview counts pairs per rule before creating.
    expect(page.locator("#counts tbody td")).to_have_text(["last_name exact", "77", "77"])
    expect(page.locator("#total")).to_have_text(str(PAIRS))
    page.get_by_role("button", name=f"Create {PAIRS} pairs").click()
    expect(page.locator("#pair-count")).to_have_text(f"{PAIRS} pairs")

    page.get_by_role("link", name="Assignments").click()
    for worker, budget in [("wes", "0.5"), ("wen", "0.4")]:
        page.get_by_label(worker, exact=True).check()
        page.get_by_label(f"Budget for {worker}").fill(budget)
    page.get_by_label("Double: each pair to two workers").check()
    page.get_by_label("Pairs per page").fill("40")
    page.get_by_role("button", name="Assign").click()
    page.get_by_role("heading", name="Progress:").wait_for()
    expect(page.locator("#workers tbody tr")).to_have_count(2)
    expect(page.locator("#workers tbody tr").first).to_contain_text(f"0 / {PAIRS}")


def true_matches(app) -> dict[int, tuple[str, str]]:
    """Pair id -> (ID in A, ID in B); a pair is the same person when the two IDs agree."""
    with app.app_context():
        pairs = db.session.scalars(select(Pair)).all()
        return {p.id: (p.record_a.external_id, p.record_b.external_id) for p in pairs}


def work(browser, base, worker, key_for, keyboard=False) -> None:
    """Log in as ``worker`` in a fresh context and answer every pair, page by page.

    ``key_for(pair_id)`` is the answer key (1-6); the answer is typed on the pair when
    ``keyboard`` is set, else its button is clicked. One cell is revealed on the first page.
    """
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    log_in(page, base, worker)
    page.wait_for_url(f"{base}/review/")
    page.get_by_role("link", name="Start Dev link").click()
    review = page.locator("#review")
    expect(review).to_have_attribute("data-ready", "true")

    cell = page.locator(".cell.open[data-row][data-attr]").first
    kapr = page.locator("#kapr-meter").get_attribute("data-kapr-exact")
    cell.click()
    expect(page.locator("#kapr-meter")).not_to_have_attribute("data-kapr-exact", kapr)
    expect(page.locator("#status")).to_contain_text("Revealed record")
    page.wait_for_load_state("networkidle")  # the other pairs' costs are redrawn

    answered = 0
    while True:
        for body in page.locator("tbody.pair").all():
            key = key_for(int(body.get_attribute("data-pair")))
            if keyboard:
                body.locator(".choose").first.focus()
                page.keyboard.press(key)
            else:
                body.get_by_role("button", name=CHOICES[key]).click()
            answered += 1  # wait for the save: the count comes from the server's reply
            expect(page.locator("#progress-text")).to_have_text(f"{answered} / {PAIRS}")
            expect(body.get_by_role("button", name=CHOICES[key])).to_have_attribute(
                "aria-pressed", "true"
            )
        number, pages = (int(review.get_attribute(f"data-{a}")) for a in ("page", "pages"))
        page.get_by_role("button", name="Submit page").click()
        if number == pages:
            break
        page.wait_for_url(re.compile(rf"\?page={number + 1}$"))
        expect(review).to_have_attribute("data-ready", "true")
    expect(page.locator("#status")).to_contain_text(f"All {PAIRS} pairs are answered")
    page.get_by_role("link", name="Save & exit").click()
    expect(page.get_by_role("cell", name=f"{PAIRS} / {PAIRS}")).to_be_visible()
    context.close()


def resolve_conflict(page, pair_id: int) -> None:
    """On the Conflicts page: see both answers, reveal one value, settle the pair as same."""
    page.get_by_role("link", name="Conflicts").click()
    conflict = page.locator(".conflict")
    expect(conflict).to_have_count(1)
    expect(conflict).to_have_id(f"conflict-{pair_id}")
    title = f"Pair {pair_id} (A 1 × B 1)"  # the uploaded ids, no identifying value
    expect(conflict.locator(".pair-title")).to_have_text(title)
    expect(conflict.locator(".state")).to_have_text("open")
    answers = conflict.get_by_role("listitem")
    expect(answers).to_have_count(2)
    assert sorted(answers.all_inner_texts()) == ["wen: different (high)", "wes: same (high)"]
    conflict.get_by_role("button", name=re.compile("^Open the values")).click()
    expect(page.locator("#resolver-meter")).to_contain_text("0.00% of 5.00%")
    page.get_by_role("button", name="Reveal dob of record A").click()
    expect(page.locator(".flash-info")).to_have_text("Revealed.")
    expect(page.locator("#resolver-meter")).not_to_contain_text("0.00% of")
    page.get_by_label(f"Decision for pair {pair_id}").select_option("same")
    page.get_by_label(f"Confidence for pair {pair_id}").select_option("medium")
    page.get_by_role("button", name=f"Resolve pair {pair_id}").click()
    expect(page.locator(".flash-info")).to_have_text(f"Pair {pair_id} resolved: same.")
    expect(conflict.locator(".state")).to_have_text("settled: same")
    assert page.evaluate("location.hash") == f"#conflict-{pair_id}"  # back at the row


def download(page, kind: str, tmp_path) -> list[dict[str, str]]:
    """Click the project's export link for ``kind``; return the CSV's rows as dicts."""
    with page.expect_download() as info:
        page.get_by_role("link", name=f"Download {kind} CSV").click()
    target = tmp_path / f"{kind}.csv"
    info.value.save_as(target)
    return list(csv.DictReader(target.read_text(encoding="utf-8").splitlines()))


def test_manager_links_blocks_assigns_resolves_and_exports(
    app, browser, page, live_server, team, tmp_path
):
    set_up_project(page, live_server)
    ids = true_matches(app)  # all 15 true matches share their last name
    assert len(ids) == PAIRS and sum(a == b for a, b in ids.values()) == 15
    disputed = next(pair for pair, (a, b) in ids.items() if a == b == "1")
    wes = {pair: "6" if a == b else "1" for pair, (a, b) in ids.items()}
    wen = {**wes, disputed: "1"}  # wen calls A1/B1 different: the one conflict
    work(browser, live_server, "wes", wes.get)
    work(browser, live_server, "wen", wen.get, keyboard=True)

    page.get_by_role("link", name="Dev link").click()
    resolve_conflict(page, disputed)

    page.get_by_role("link", name="Dev link").click()
    page.get_by_role("link", name="Progress").click()
    expect(page.locator("#count-answered")).to_contain_text(f"Answered: {PAIRS} of {PAIRS}")
    expect(page.locator("#count-answered")).to_contain_text(f"{2 * PAIRS} of {2 * PAIRS} answers")
    expect(page.locator("#count-settled")).to_contain_text(f"Settled: {PAIRS} of {PAIRS}")
    expect(page.locator("#count-conflicts")).to_have_text("Open conflicts: 0")
    # 76 of 77 agree, p_o = 76/77; by chance p_e = (15·14 + 62·63) / 77², so κ = 0.958.
    expect(page.locator("#agreement")).to_have_text(
        "Agreement: 98.7% over 77 double-coded pairs, Cohen's κ 0.958"
    )
    for row in page.locator("#workers tbody tr").all():
        expect(row).to_contain_text(f"{PAIRS} / {PAIRS}")

    page.get_by_role("link", name="Dev link").click()
    expect(page.get_by_role("link", name="Download legacy CSV")).to_have_count(0)
    labels = download(page, "labels", tmp_path)
    assert len(labels) == 2 * PAIRS
    assert {row["decision"] for row in labels} == {"same", "different"}
    assert all(row["confidence"] == "high" and row["decided_at"] for row in labels)
    for row in labels:  # one row per reviewer, each with the pair's settled answer
        a, b, wen_dissents = row["unique_id_l"], row["unique_id_r"], row["reviewer"] == "wen"
        same = a == b and not (a == "1" and wen_dissents)
        assert row["decision"] == ("same" if same else "different"), row
        resolved = (a, b) == ("1", "1")  # the manager settled it as same, medium
        final = ("same" if a == b else "different", "medium" if resolved else "high")
        assert (row["final_decision"], row["final_confidence"]) == final, row

    clusters = download(page, "clusters", tmp_path)
    cluster_of = {(r["source_dataset"], r["unique_id"]): r["cluster_id"] for r in clusters}
    assert len(cluster_of) == 30 and len(set(cluster_of.values())) == 30 - 15
    for n in map(str, range(1, 16)):  # the resolved A1/B1 included
        assert cluster_of["A", n] == cluster_of["B", n], n
    assert cluster_of["A", "1"] != cluster_of["A", "4"]  # a pair both called different

    linked = download(page, "linked", tmp_path)
    assert list(linked[0]) == ["cluster_id", "linked_by", "info1", "info2", "info5"]
    assert [r["cluster_id"] for r in linked] == [r["cluster_id"] for r in clusters]  # 30
    assert list(linked[0].values()) == [
        cluster_of["A", "1"],
        "manager",
        "AMAB",
        "303 FOREST ST",
        "77845",
    ]
    sources = [MINDFIRL / "dev_file1.csv", MINDFIRL / "dev_file2.csv"]
    people = [r for f in sources for r in csv.DictReader(f.read_text().splitlines())]
    # Not first_name: B's misaligned row 5 puts "LYNN I" in info2.
    identifying = {r[c] for r in people for c in ("voter_reg_num", "last_name", "dob")}
    assert not identifying & {v for row in linked for v in row.values()}
